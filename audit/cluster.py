"""``--cluster``: an audit run on a Dask cluster (``dask.distributed``), at a scheduler's address
or on ``local[:N]`` worker processes of this machine (docs/cluster.md).

The tasks are the units of ``--jobs``: a file, or one part of one file's tables. The client sends
where each input is (an absolute path the workers share, or a URL), never its bytes; each worker
reads its inputs itself. The results are merged in the order of the tasks by ``run._merge``, so
the report is the same byte for byte as with ``--jobs 1``.

A task only reads and returns: a worker lost in the middle of one loses nothing, Dask runs the
task again elsewhere and its result is the same. Keys are unique to each run, so no result of
another run (of a file since changed) is ever reused. Dask is an optional extra, imported only
when a cluster is used.
"""

from __future__ import annotations

import logging
import os
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType

from . import __version__
from .engine import surveillance
from .rulesets import Library
from .run import PartResult, Task, _audit_part, _sums
from .stream.inputs import InputError, reads_once, size_of
from .stream.urls import is_url

NEEDS_DASK = "--cluster needs Dask: pip install 'del-audit[cluster]'"
#: parts of one file at most, when a cluster has more threads than there are files. Every part
#: reads the whole file and costs about 4% of the file's replay on top of its share
#: (docs/performance.md, "--jobs on one file"): n parts go about n / (1 + 0.04 n) times as fast,
#: 6x at 8 parts, 10x at 16, 14x at 32; and a night has a few dozen tables, each in one part.
MAX_PARTS = 16
#: seconds to wait for a scheduler to answer
CONNECT_TIMEOUT = 20
#: Dask's settings for a local cluster, where the workers share this machine's cores with the
#: scheduler and the client (docs/cluster.md says how to set them on a real cluster):
#: - no statistical profiler in the workers (it samples the running task's stack every 10 ms for
#:   the dashboard's profile page: about 5% more CPU a task);
#: - the housekeeping of every process less often: the event loop's watchdog ticks every second
#:   instead of every 20 ms, the memory and system monitors every 1 and 2 s instead of 0.1 and
#:   0.5 s, and the scheduler stops balancing queues between workers every second (its queue
#:   hands a task to whichever worker is free: nothing to steal). Measured idle, two workers:
#:   0.012 of a core for the whole cluster instead of 0.077.
LOCAL_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.scheduler.work-stealing": False,
    "distributed.client.scheduler-info-interval": "10s",
    "distributed.deploy.cluster-repr-interval": "10s",
}
#: on Linux the workers are forked from this process, which has imported Dask and the auditor
#: already: a worker starts in 0.05 s instead of 0.4 s of imports, and the cluster's start and
#: stop costs 0.7 s less (docs/performance.md). Dask offers fork as an option; its hazard is a
#: lock another thread holds at the moment of the fork. The cluster's own thread forks while
#: the main thread waits, or (a lost worker replaced) merges results, which takes no lock a
#: worker needs; the killed-worker test runs that path. macOS and Windows keep Dask's spawn.
if sys.platform == "linux":
    LOCAL_CONFIG["distributed.worker.multiprocessing-method"] = "fork"


class ClusterError(Exception):
    """The cluster could not run the audit (Dask missing, no scheduler at the address, a task
    that killed every worker it ran on): the audit stops with exit 2."""


def _distributed() -> ModuleType:
    try:
        import distributed
    except ImportError:
        raise ClusterError(NEEDS_DASK) from None
    return distributed


def local_workers(address: str) -> int | None:
    """``local`` (a worker per core) or ``local:N``: the number of worker processes; None for a
    scheduler's address."""
    if address != "local" and not address.startswith("local:"):
        return None
    if address == "local":
        return (
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 1
        )
    count = address[len("local:") :]
    if not count.isdigit() or int(count) < 1:
        raise ClusterError(
            f"--cluster {address}: local:N takes a number of worker processes, 1 or more"
        )
    return int(count)


def cluster_tasks(files: list[str], threads: int) -> list[Task]:
    """One task per file when there are at least as many files as the cluster has threads; else
    each file split by tables into parts enough to give every thread one (at most ``MAX_PARTS``)."""
    parts = min(MAX_PARTS, -(-threads // len(files))) if files else 1
    if parts <= 1:
        return [(f, None) for f in files]
    return [(f, (k, parts)) for f in files for k in range(parts)]


def _rulesets_on_worker(library: Library, version: str) -> Library:
    """The client's rulesets, as every worker holds them once for all its tasks (a worker that
    joins fetches them from another; Dask runs this again if every copy is lost). Another version
    of the auditor on a worker would not give the same report: refused."""
    if version != __version__:
        raise ClusterError(
            f"a worker runs del-audit {__version__} and this machine {version}: "
            "install the same version everywhere"
        )
    return library


def _audit_task(task: tuple[str, str, tuple[int, int] | None], rulesets: Library) -> PartResult:
    """One task on a worker: ``(path as reported, where to read it, part)``."""
    display, source, part = task
    result = _audit_part(rulesets, display, part, source=source)
    for sums in _sums(result):  # let go here, in the task's thread, before the result is sent
        sums.leave()
    return result


def _describe(client) -> str:
    threads = client.nthreads()
    info = client.scheduler_info()
    where = (
        f"dashboard {client.dashboard_link}"
        if "dashboard" in info.get("services", {})
        else "no dashboard (pip install bokeh for one)"
    )
    return (
        f"Dask scheduler {client.scheduler.address}: {len(threads)} worker(s), "
        f"{sum(threads.values())} thread(s); {where}"
    )


class Cluster:
    """Where ``run_audit`` sends its tasks: ``local``, ``local:N`` or a scheduler's address.

    ``say`` receives one line about the cluster (its workers, the dashboard's address) once
    connected: for ``--verbose``."""

    def __init__(self, address: str, say: Callable[[str], None] | None = None):
        self.address = address
        self.workers = local_workers(address)
        self.say = say

    @contextmanager
    def _client(self, dd: ModuleType) -> Iterator:
        from dask import config as dask_config

        quiet = (
            logging.WARNING if self.say else logging.ERROR
        )  # a restarted worker is news at --verbose
        if self.workers is not None:
            dashboard = ":0" if self.say else None  # where nobody is told of it: none
            with (
                dask_config.set(LOCAL_CONFIG),
                dd.LocalCluster(
                    n_workers=self.workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=dashboard,
                    silence_logs=quiet,
                ) as local,
                dd.Client(local, set_as_default=False) as client,
            ):
                yield client
            return
        try:
            client = dd.Client(self.address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as err:
            raise ClusterError(
                f"--cluster {self.address}: no scheduler answers there ({err})"
            ) from None
        with client:
            yield client

    def run(
        self, library: Library, files: list[str], progress: Callable[[int], None] | None
    ) -> tuple[list[Task], list[PartResult]]:
        """The tasks and their results, in the order of the tasks."""
        if "-" in files:
            raise ClusterError(
                "--cluster: standard input cannot be read by the cluster's workers; "
                "give files or URLs"
            )
        for path in files:
            if reads_once(path):
                raise ClusterError(
                    f"--cluster: {path} is not a regular file (a pipe or a device gives its "
                    "bytes once, to this machine): give a file or a URL, or audit it without --cluster"
                )
        dd = _distributed()
        with self._client(dd) as client:
            if self.say:
                self.say(_describe(client))
            tasks = cluster_tasks(files, sum(client.nthreads().values()) or 1)
            return tasks, _run_tasks(dd, client, library, tasks, progress)


def _run_tasks(
    dd: ModuleType,
    client,
    library: Library,
    tasks: list[Task],
    progress: Callable[[int], None] | None,
) -> list[PartResult]:
    """Every task on the cluster, the largest first (so that the last to finish is a small one);
    on an unreadable input, the error of the first such task in order, as ``--jobs 1`` gives it."""
    run = uuid.uuid4().hex[:12]
    rulesets = client.submit(
        _rulesets_on_worker, library, __version__, key=f"del-audit-rulesets-{run}"
    )
    sizes = [size_of(path) // (part[1] if part else 1) for path, part in tasks]
    order = sorted(range(len(tasks)), key=lambda i: -sizes[i])
    sent = [
        (
            tasks[i][0],
            tasks[i][0] if is_url(tasks[i][0]) else os.path.abspath(tasks[i][0]),
            tasks[i][1],
        )
        for i in order
    ]
    futures = client.map(
        _audit_task,
        sent,
        rulesets=rulesets,
        key=[f"del-audit-{run}-{rank:07d}" for rank in range(len(order))],
    )
    index = {f.key: i for f, i in zip(futures, order)}
    pending = {f.key: f for f in futures}
    del futures  # a result leaves the workers' memory once read
    results: list[PartResult | None] = [None] * len(tasks)
    failed: dict[int, BaseException] = {}
    for future in dd.as_completed(list(pending.values()), loop=client.loop):
        i = index[future.key]
        pending.pop(future.key, None)
        if future.status == "finished":
            results[i] = result = future.result()
            surveillance.arrived(_sums(result))
            if progress:
                progress(sizes[i])
        elif future.status == "error":
            failed[i] = _failure(dd, future.exception(), tasks[i])
            client.cancel(
                [f for f in pending.values() if index[f.key] > i]
            )  # no use: an earlier error wins
        elif not failed:  # cancelled, not by us: the scheduler went away
            raise ClusterError(f"--cluster: the cluster lost the task of {tasks[i][0]}")
    if failed:
        raise failed[min(failed)]
    return results  # type: ignore[return-value]


def _failure(dd: ModuleType, error: BaseException, task: Task) -> BaseException:
    """What a failed task means: an unreadable input as the audit reports it in one process; a
    task whose workers kept dying (out of memory, killed) as a cluster error."""
    if isinstance(error, (InputError, ClusterError)):
        return error
    if isinstance(error, dd.KilledWorker):
        path, part = task
        which = f"{path} (part {part[0] + 1} of {part[1]})" if part else path
        return ClusterError(
            f"--cluster: the audit of {which} stopped every worker it ran on "
            f"(out of memory?): {error}"
        )
    return error
