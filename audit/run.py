"""Running an audit: every input (or, with ``--jobs``, each part of an input's tables) replayed,
in this process, in worker processes or on a cluster (``audit/cluster.py``), and the results
merged into one ``Report``, the same byte for byte whatever the number of processes."""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from . import collector, findings_store
from .engine import surveillance
from .engine.stats import TableStats
from .findings import Finding
from .fingerprint import fingerprints
from .report import InputSummary, Report
from .rulesets import Library
from .statistics import build as build_statistics
from .stream.inputs import (
    InputError,
    audit_input,
    changed_message,
    expand,
    splittable,
)

#: a unit of work: an input, and the part (k, n) of its tables or None for all of them
Task = tuple[str, "tuple[int, int] | None"]


@dataclass
class PartResult:
    """What one process returns for one input (or one part of its tables)."""

    summary: InputSummary
    #: a ``FindingStore`` whose findings past its threshold are in its run files (their names travel)
    findings: list[Finding]
    events: int
    rounds: int
    tables: dict[str, TableStats]


class Runner(Protocol):
    """Runs the tasks elsewhere (``cluster.Cluster``): the tasks it chose, and their results in order."""

    def run(
        self, library: Library, files: list[str], progress: Callable[[int], None] | None
    ) -> tuple[list[Task], list[PartResult]]: ...


def _audit_part(
    library: Library,
    path: str,
    part: tuple[int, int] | None,
    tick: Callable[[int], None] | None = None,
    source: str | None = None,
) -> PartResult:
    replay, summary = audit_input(library, path, part, tick, source)
    stats = replay.stats
    return PartResult(summary, replay.findings, stats.events, stats.rounds, stats.tables)


_WORKER_LIBRARY: Library | None = None
#: the bytes the workers have read, shared with the main process for its progress bar (None: no bar)
_WORKER_READ = None
#: the run's tasks, and the index of the next one no process has taken yet (shared by all of them)
_WORKER_TASKS: list[Task] = []
_WORKER_TAKEN = None
#: how often the main process looks at the workers' bytes while it waits for a result, in seconds
POLL_SECONDS = 0.25


def _init_worker(
    spec: dict, read=None, spill: str | None = None, tasks: list[Task] | None = None, taken=None
) -> None:
    """A worker leaves interruption to the main process: a Ctrl-C to the process group is the
    main process's to handle (it ends the pool), and the pool's end (SIGTERM) ends a worker at
    once and quietly. A worker that died of the Ctrl-C itself was replaced by the pool while the
    main process was still unwinding, and the new one could wait on its input for ever."""
    global _WORKER_LIBRARY, _WORKER_READ, _WORKER_TASKS, _WORKER_TAKEN
    _WORKER_READ = read
    _WORKER_TASKS, _WORKER_TAKEN = tasks or [], taken
    findings_store.use_folder(spill)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if _WORKER_LIBRARY is None:  # a spawned worker loads the rulesets itself
        statistics, start = spec.get("statistics", False), spec.get("gaming_day_start")
        _WORKER_LIBRARY = Library.load(
            **{k: v for k, v in spec.items() if k not in ("statistics", "gaming_day_start")}
        )
        _WORKER_LIBRARY.statistics = statistics
        _WORKER_LIBRARY.gaming_day_start = start


def _take(taken, count: int) -> int | None:
    """The index of the next task no process has taken, now this one's; None when all are taken."""
    with taken.get_lock():
        index = taken.value
        if index >= count:
            return None
        taken.value = index + 1
    return index


def _worker(_ticket: int) -> tuple[int, PartResult] | None:
    """One ticket of the pool's: the next task not taken, and its result; None if none was left."""
    assert _WORKER_LIBRARY is not None
    index = _take(_WORKER_TAKEN, len(_WORKER_TASKS))
    if index is None:
        return None
    task = _WORKER_TASKS[index]
    return index, _written_out(_audit_part(_WORKER_LIBRARY, *task, _worker_tick(task)))


def _written_out(result: PartResult) -> PartResult:
    """A worker's result as it is sent: each table's statistics sums written to the spill folder
    first (when one is open), here, in parallel, if they fill a run's chunk at least.

    Sent as they are, they counted in the main process's statistics threshold on arrival, where
    the parts' sums together passed it: the main process then wrote out every table it held, its
    own half-replayed ones too, alone, while the workers waited (measured: 1.7 s of CPU for the
    old night's 12 tables, more than a worker's whole transport). The report does not depend on
    what was written out, nor when."""
    if findings_store.folder() is not None:
        for stats in result.tables.values():
            sums = stats.surveillance
            if sums is not None and sums.held[0] >= surveillance.CHUNK:
                sums.spill()
    return result


def _sums(result: PartResult) -> list[surveillance.Surveillance]:
    """The statistics' sums of a result's tables."""
    return [t.surveillance for t in result.tables.values() if t.surveillance is not None]


def _worker_tick(task: Task) -> Callable[[int], None] | None:
    """What a worker tells of the bytes it reads (``_share_tick``)."""
    return _share_tick(_WORKER_READ, task)


def _share_tick(read, task: Task) -> Callable[[int], None] | None:
    """The bytes a process reads, added to ``read``: its share of them, since every part of a
    split file reads the whole file (``part`` k of n counts 1/n of each chunk)."""
    if read is None:
        return None
    share = task[1][1] if task[1] else 1

    def tick(n: int) -> None:
        with read.get_lock():
            read.value += n // share

    return tick


class _Bar:
    """What the progress bar was told so far of the bytes every process has read (``read``)."""

    def __init__(self, read, progress: Callable[[int], None] | None) -> None:
        self.read, self.progress, self.told = read, progress, 0

    def tell(self) -> None:
        if (
            self.progress is not None
            and self.read is not None
            and (now := self.read.value) > self.told
        ):
            self.progress(now - self.told)
            self.told = now


def _collect(
    results,
    count: int,
    read,
    progress: Callable[[int], None] | None,
    poll: float = POLL_SECONDS,
    arrived: Callable[[list], None] | None = None,
    bar: _Bar | None = None,
) -> list[PartResult]:
    """The pool's ``count`` results in order; while it waits for one, the bytes the workers have
    read so far go to ``progress`` (so the bar moves while the parts of one file are replayed).
    ``arrived`` is given the results so far as each arrives."""
    out: list[PartResult] = []
    bar = bar or _Bar(read, progress)
    while len(out) < count:
        try:
            out.append(results.next(timeout=poll) if read is not None else next(results))
            if arrived is not None:
                arrived(out)
        except multiprocessing.TimeoutError:
            pass
        bar.tell()
    return out


def _tasks(files: list[str], jobs: int) -> list[Task]:
    """One task per file when there are enough files; else each file split by tables into ``jobs`` parts."""
    if jobs <= 1 or len(files) >= jobs:
        return [(f, None) for f in files]
    # an input that gives its bytes once (standard input, a FIFO, a device) is never split
    tasks: list[Task] = []
    for f in files:
        tasks += [(f, (k, jobs)) for k in range(jobs)] if splittable(f) else [(f, None)]
    return tasks


def usable_cores() -> int:
    """The processors this process may run on (its CPU affinity, where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (macOS, Windows)
        return os.cpu_count() or 1


def run_audit(
    library: Library,
    paths: list[str],
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    files: list[str] | None = None,
    cluster: Runner | None = None,
) -> Report:
    """Audit every input; with ``jobs`` > 1 in that many processes at most, or on a ``cluster``
    (``jobs`` then does not apply), the same report byte for byte. No more processes run than
    there are usable cores (more only share them, and a file split in more parts is read once
    more by each) nor tasks.

    ``progress`` is called with the number of bytes read since its last call.
    """
    files = expand(paths) if files is None else files
    if cluster is not None:
        return _merge(library, *cluster.run(library, files, progress))
    jobs = min(jobs, usable_cores())
    tasks = _tasks(files, jobs)
    if jobs > 1 and "-" not in files and len(tasks) > 1:
        return _merge(library, tasks, _shared(library, tasks, min(jobs, len(tasks)), progress))
    results: list[PartResult] = []
    settle = _Settle()
    for path, part in tasks:
        results.append(_audit_part(library, path, part, progress))
        settle(results)
    return _merge(library, tasks, results)


def _shared(
    library: Library, tasks: list[Task], processes: int, progress: Callable[[int], None] | None
) -> list[PartResult]:
    """The tasks' results, in the order of the tasks, from this process and ``processes - 1``
    workers: each process takes the next task no other has taken whenever it is free.

    This process replays tasks too, rather than wait: its results need no transport, while a
    worker's are pickled and read back here, after the parts, when this process only waited
    (the statistics' sums of half the old night's tables: 0.2 to 0.4 s of CPU to pickle). While
    results are read back, the cyclic collector is kept out of the way
    (``collector.seldom``): the many small objects of a table's statistics made it scan
    the heap again and again, and reading a result took four times as long."""
    global _WORKER_LIBRARY
    forking = "fork" in multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if forking else "spawn")
    _WORKER_LIBRARY = library if forking else None  # a forked worker has it already: no second load
    read = ctx.Value("q", 0) if progress is not None else None
    taken = ctx.Value("i", 0)
    spec = {
        **library.spec,
        "statistics": library.statistics,
        "gaming_day_start": library.gaming_day_start,
    }
    results: list[PartResult | None] = [None] * len(tasks)
    arrived: list[PartResult] = []  # in the order they were done, for ``_Settle``
    settle, bar = _Settle(), _Bar(read, progress)

    def done(index: int, result: PartResult) -> None:
        results[index] = result
        arrived.append(result)
        settle(arrived)

    def received(out: list) -> None:
        if (item := out[-1]) is not None:
            surveillance.arrived(_sums(item[1]))  # here, in this thread: never the pool's own
            done(*item)

    with (
        collector.seldom(),
        ctx.Pool(
            processes - 1,
            initializer=_init_worker,
            initargs=(spec, read, findings_store.folder(), tasks, taken),
        ) as pool,
    ):
        # a ticket a task: a worker given one takes the next task not taken, or returns None
        tickets = pool.imap_unordered(_worker, range(len(tasks)))
        waiting = len(tasks)
        while (index := _take(taken, len(tasks))) is not None:
            tick = _share_tick(read, tasks[index])
            done(
                index,
                _audit_part(library, *tasks[index], None if tick is None else _telling(tick, bar)),
            )
            waiting -= _come(tickets, received)
        _collect(tickets, waiting, read, progress, arrived=received, bar=bar)
    assert all(result is not None for result in results)
    return results  # type: ignore[return-value]


def _come(results, arrived: Callable[[list], None]) -> int:
    """The pool's results that have come, each given to ``arrived`` (as ``_collect`` does), without
    waiting for more; how many."""
    out: list = []
    while True:
        try:
            out.append(results.next(timeout=0))
        except (multiprocessing.TimeoutError, StopIteration):
            return len(out)
        arrived(out)


def _telling(tick: Callable[[int], None], bar: _Bar) -> Callable[[int], None]:
    """This process's own bytes counted with the workers', and the bar told of them all."""

    def told(n: int) -> None:
        tick(n)
        bar.tell()

    return told


class _Settle:
    """Given the results so far as each arrives: the findings the finished ones hold written out
    once together they pass the threshold. Each result is counted once, when it arrives (not all
    of them again each time: tens of thousands of inputs would take a time in their square)."""

    def __init__(self) -> None:
        self.seen = 0
        self.pending: list = []
        self.held = 0

    def __call__(self, results: list[PartResult]) -> None:
        for result in results[self.seen :]:
            self.pending.append(result.findings)
            self.held += len(result.findings)
        self.seen = len(results)
        if self.held >= findings_store.THRESHOLD:
            findings_store.settle(self.pending)
            self.pending, self.held = [], 0


def _same_bytes(first: InputSummary, other: InputSummary) -> None:
    """Two parts of one file read the same bytes, or the file changed between their reads (it
    grew, or was replaced): no report then, its parts would describe different nights."""
    if first.size != other.size:
        raise InputError(changed_message(first.path, f"size {first.size} then {other.size}"))
    if first.sha256 != other.sha256:
        raise InputError(changed_message(first.path, "its parts read different bytes"))


def _merge(library: Library, tasks: list, results: list[PartResult]) -> Report:
    report = Report()
    stores = []
    by_path: dict[str, InputSummary] = {}
    for (_path, part), result in zip(tasks, results):
        if part is None or part[0] == 0:
            report.inputs.append(result.summary)
            by_path[result.summary.path] = result.summary
        else:  # another part's tables: its events and syntax lines, of the same bytes
            first = by_path[result.summary.path]
            _same_bytes(first, result.summary)
            mine = first.accounting
            for key in ("events", "syntax"):
                mine[key] += result.summary.accounting[key]
        stores.append(result.findings)
        report.rounds += result.rounds
        report.events += result.events
        report.table_stats.extend(result.tables[t] for t in sorted(result.tables))
    order = {inp.path: i for i, inp in enumerate(report.inputs)}  # report_order's, looked up once
    report.table_stats.sort(key=lambda t: (order[t.path], t.table))
    report.tables = len(report.table_stats)
    if findings_store.spilled(stores):
        report.findings = findings_store.merged(stores)
        report.fingerprints = report.findings.fingerprints
    else:
        report.findings = sorted((f for s in stores for f in s), key=Finding.sort_key)
        report.fingerprints = fingerprints(report.findings)
    report.rulesets = [library.rulesets[k] for k in sorted(library.rulesets)]
    if library.statistics:
        with collector.seldom():  # tens of thousands of groups, each kept until written
            report.statistics = build_statistics(report, library)
    return report
