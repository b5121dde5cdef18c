"""``--cluster``: the audit on a Dask cluster of two worker processes gives the report of
``--jobs 1`` byte for byte, with several files, one interleaved file split in parts, URLs, a
worker killed in the middle of a task, and an unreadable input."""

from __future__ import annotations

import gzip
import logging
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import cloudpickle
import dask
import pytest
from distributed import Client, LocalCluster

from audit.cluster import LOCAL_CONFIG, MAX_PARTS, NEEDS_DASK, Cluster, ClusterError, cluster_tasks
from audit.reporters import json_report, text
from audit.rulesets import Library
from audit.run import run_audit
from audit.stream.inputs import InputError, expand

ROOT = Path(__file__).resolve().parent.parent
FAULTY = (
    ROOT / "tests" / "golden" / "logs" / "mixed-faulty.del"
)  # interleaved tables, findings of every kind
RULE_LOGS = sorted((ROOT / "fixtures" / "rules" / "fr-bataille-2007").glob("*.del"))[:5]

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this module


@pytest.fixture(scope="module")
def scheduler():
    """One cluster of two worker processes for the module, set as ``--cluster local`` sets its
    own (on Linux, workers forked: a killed one is replaced by a fork in mid-run): its address."""
    with (
        dask.config.set(LOCAL_CONFIG),
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        ) as cluster,
    ):
        yield cluster.scheduler_address


@pytest.fixture(scope="module")
def library():
    return Library.load()


def _reports(report) -> tuple[str, str]:
    return json_report.render(report), text.render(report)


def audit(*args: str, cwd: Path = ROOT, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "audit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        **kw,
    )


def test_the_tasks_are_files_or_enough_parts_of_them_for_every_thread():
    assert cluster_tasks(["a", "b", "c"], 2) == [("a", None), ("b", None), ("c", None)]
    assert cluster_tasks(["a"], 2) == [("a", (0, 2)), ("a", (1, 2))]
    assert cluster_tasks(["a", "b", "c"], 4) == [(f, (k, 2)) for f in "abc" for k in range(2)]
    assert cluster_tasks(["a"], 1000) == [("a", (k, MAX_PARTS)) for k in range(MAX_PARTS)]


def test_several_files_on_local_2_give_the_reports_of_one_process(tmp_path):
    """From the command line, ``--cluster local:2`` starts its own cluster; relative paths."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for path in [*RULE_LOGS, FAULTY]:
        shutil.copy(path, logs / path.name)
    args = ["check", "-f", "json", "-o", "{}.json", "-f", "text", "-o", "{}.txt", "logs"]
    one = audit(*[a.format("one") for a in args], "--jobs", "1", cwd=tmp_path)
    two = audit(*[a.format("two") for a in args], "--cluster", "local:2", cwd=tmp_path)
    assert one.returncode == two.returncode == 1, two.stderr
    assert two.stderr == ""
    for ext in ("json", "txt"):
        assert (tmp_path / f"two.{ext}").read_bytes() == (tmp_path / f"one.{ext}").read_bytes(), ext


def test_one_interleaved_file_is_split_among_the_workers_and_reported_as_one(
    scheduler, library, tmp_path
):
    gz = tmp_path / "mixed-faulty.del.gz"
    gz.write_bytes(gzip.compress(FAULTY.read_bytes(), mtime=0))
    for path in (str(FAULTY), str(gz)):
        one = run_audit(library, [path])
        assert _reports(run_audit(library, [path], cluster=Cluster(scheduler))) == _reports(one), (
            path
        )
    assert len(cluster_tasks([str(FAULTY)], 2)) == 2


def test_file_urls_and_a_folder_url_are_read_by_the_workers(scheduler, library, tmp_path):
    logs = tmp_path / "logs"
    (logs / "night").mkdir(parents=True)
    shutil.copy(FAULTY, logs / "night" / "a.del")
    (logs / "b.log.gz").write_bytes(gzip.compress(RULE_LOGS[0].read_bytes(), mtime=0))
    (logs / "notes.txt").write_text("not a log")
    folder = logs.as_uri() + "/"
    assert expand([folder]) == [p.as_uri() for p in (logs / "b.log.gz", logs / "night" / "a.del")]
    one = run_audit(library, [folder])
    assert [i.path for i in one.inputs] == expand([folder])
    assert _reports(run_audit(library, [folder], cluster=Cluster(scheduler))) == _reports(one)
    single = (logs / "night" / "a.del").as_uri()
    assert _reports(run_audit(library, [single], cluster=Cluster(scheduler))) == _reports(
        run_audit(library, [single])
    )
    with pytest.raises(InputError, match="no such file or folder"):
        expand([(logs / "missing.del").as_uri()])


def _die_at_the_first_task(marker: str) -> None:
    """On a worker (test only): the first task to start on any worker kills its own process."""
    import audit.cluster as on_worker

    real = on_worker._audit_part

    def dying(*args, **kwargs):
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return real(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)

    dying.real = real  # type: ignore[attr-defined]
    on_worker._audit_part = dying


def _live_again() -> None:
    import audit.cluster as on_worker

    on_worker._audit_part = getattr(on_worker._audit_part, "real", on_worker._audit_part)


def test_a_worker_killed_in_the_middle_of_a_task_loses_and_doubles_nothing(
    scheduler, library, tmp_path
):
    files = [str(p) for p in [*RULE_LOGS, FAULTY]]
    one = run_audit(library, files)
    marker = tmp_path / "killed"
    with Client(scheduler, set_as_default=False) as client:
        client.run(_die_at_the_first_task, str(marker))
        try:
            report = run_audit(library, files, cluster=Cluster(scheduler))
        finally:
            client.run(_live_again)
    assert marker.exists()  # a worker did die
    assert _reports(report) == _reports(one)


@pytest.mark.skipif(
    not Path("/proc/self/mem").exists(), reason="a file that fails when read: Linux's"
)
def test_an_unreadable_input_is_reported_as_without_the_cluster(scheduler, tmp_path):
    for name in ("broken.del", "zz-broken.del"):  # opens, then every read fails (even as root)
        (tmp_path / name).symlink_to("/proc/self/mem")
    shutil.copy(RULE_LOGS[0], tmp_path / "ok.del")
    one = audit("check", "ok.del", "zz-broken.del", "broken.del", cwd=tmp_path)
    two = audit(
        "check", "ok.del", "zz-broken.del", "broken.del", "--cluster", scheduler, cwd=tmp_path
    )
    assert one.returncode == two.returncode == 2
    assert two.stderr == one.stderr == "audit: broken.del: read error: Input/output error\n"


def test_verbose_is_told_the_scheduler_and_its_workers(scheduler, library):
    with Client(scheduler, set_as_default=False) as client:
        client.wait_for_workers(2, timeout=60)  # a worker killed by an earlier test is back
    told: list[str] = []
    run_audit(library, [str(FAULTY)], cluster=Cluster(scheduler, say=told.append))
    (line,) = told
    assert line.startswith(f"Dask scheduler {scheduler}: 2 worker(s), 2 thread(s); ")


def test_without_the_extra_the_message_says_what_to_install(tmp_path):
    code = (
        "import sys; sys.modules['distributed'] = None; sys.argv = ['audit'] + sys.argv[1:]; "
        "from audit.cli import main; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "check", "--cluster", "local:2", str(FAULTY)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stderr == f"audit: {NEEDS_DASK}\n"
    assert "pip install 'del-audit[cluster]'" in NEEDS_DASK


def test_what_a_cluster_cannot_do_is_said_in_one_line(tmp_path, monkeypatch):
    night = FAULTY.read_text(encoding="utf-8")
    done = audit("check", "--cluster", "local:2", "-", input=night)
    assert done.returncode == 2 and "standard input cannot be read" in done.stderr
    (tmp_path / "audit.toml").write_text('cluster = "local:none"\n')
    done = audit("check", str(FAULTY), cwd=tmp_path)  # the configuration's cluster
    assert (
        done.returncode == 2
        and done.stderr
        == "audit: --cluster local:none: local:N takes a number of worker processes, 1 or more\n"
    )
    monkeypatch.setattr("audit.cluster.CONNECT_TIMEOUT", 1)
    with pytest.raises(ClusterError, match="no scheduler answers"):
        Cluster("tcp://127.0.0.1:9").run(Library.load(), [str(FAULTY)], None)
