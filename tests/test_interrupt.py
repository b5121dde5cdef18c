"""Ctrl-C and SIGTERM stop an audit cleanly: one line, exit 130, no report replaced, no worker left (issue 15).

The audits read FIFOs that the test holds open: opening one for writing returns only once the
audit has opened it for reading, and the audit then waits for lines that do not come, so the
signal always reaches an audit in progress, however slow the machine. The test then closes the
FIFOs: a read that the signal did not break (it can fall between two system calls of the C
buffered reader, which looks at signals only when a call is broken) returns at the end of the
log, and the interruption takes effect at the next line of Python, long before any report.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from audit.run import usable_cores

ROOT = Path(__file__).resolve().parent.parent
#: --jobs 2 starts two workers only where two cores may be used (``run.usable_cores``)
TWO_CORES = pytest.mark.skipif(
    usable_cores() < 2, reason="--jobs 2 runs in one process on one core"
)
THREE = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
OLD_REPORT = "the previous report\n"


def start(tmp_path: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "audit", *args],
        cwd=tmp_path,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def fifos(tmp_path: Path, *names: str) -> list[Path]:
    for name in names:
        os.mkfifo(tmp_path / name)
    return [tmp_path / name for name in names]


def first_lines() -> bytes:
    """The start of a log: an open table, so that the audit has work in hand when it is stopped."""
    return b"".join(THREE.read_bytes().splitlines(keepends=True)[:12])


def interrupt(audit: subprocess.Popen, writers: list[int], send) -> tuple[str, str]:
    """Send the signal, end the logs, and wait for the audit: its standard output and error."""
    try:
        for writer in writers:
            os.write(writer, first_lines())
        send()
    finally:
        for writer in writers:
            os.close(writer)
    try:
        return audit.communicate(timeout=120)
    except subprocess.TimeoutExpired:  # fail, and leave no audit behind on the machine
        os.killpg(audit.pid, signal.SIGKILL)
        raise


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_audit_says_so_and_replaces_no_report(tmp_path, signum):
    (tmp_path / "report.json").write_text(OLD_REPORT, encoding="utf-8")
    (log,) = fifos(tmp_path, "night.del")
    audit = start(tmp_path, "check", "-f", "json", "-o", "report.json", "-f", "text", "night.del")
    writer = os.open(log, os.O_WRONLY)  # returns once the audit has opened the log
    out, err = interrupt(audit, [writer], lambda: audit.send_signal(signum))
    assert (audit.returncode, err, out) == (130, "audit: interrupted\n", "")
    assert (tmp_path / "report.json").read_text(encoding="utf-8") == OLD_REPORT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["night.del", "report.json"]


@TWO_CORES
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc to see the workers")
@pytest.mark.parametrize("how", ["SIGTERM to the audit", "Ctrl-C to its process group"])
def test_an_interrupted_audit_stops_its_workers(tmp_path, how):
    """With --jobs 2, the main process audits one of two logs and its worker the other. SIGTERM
    reaches the main process only, Ctrl-C every process of the group: either way the worker ends,
    quietly, with the run."""
    (tmp_path / "report.json").write_text(OLD_REPORT, encoding="utf-8")
    logs = fifos(tmp_path, "a.del", "b.del")
    audit = start(
        tmp_path, "check", "--jobs", "2", "-f", "json", "-o", "report.json", "a.del", "b.del"
    )
    writers = [os.open(log, os.O_WRONLY) for log in logs]  # both processes are reading
    workers = _children(audit.pid)
    assert len(workers) >= 1
    if how.startswith("SIGTERM"):
        out, err = interrupt(audit, writers, lambda: audit.send_signal(signal.SIGTERM))
    else:
        out, err = interrupt(audit, writers, lambda: os.killpg(audit.pid, signal.SIGINT))
    assert (audit.returncode, err, out) == (130, "audit: interrupted\n", "")
    assert not [pid for pid in workers if _alive(pid)]  # no worker left behind
    assert (tmp_path / "report.json").read_text(encoding="utf-8") == OLD_REPORT


def _children(pid: int) -> set[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return set()
    return {int(p) for p in text.split()}


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@TWO_CORES
def test_sigterm_while_workers_compute(tmp_path):
    """A real night split between the main process and its busy worker, stopped once the worker
    is seen. Should the audit finish first (a fast machine), the report must then be whole;
    either way no worker is left."""
    night = tmp_path / "night.del"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "audit.simulate",
            "--tables",
            "4",
            "--rounds",
            "800",
            "-o",
            str(night),
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
        capture_output=True,
    )
    (tmp_path / "report.json").write_text(OLD_REPORT, encoding="utf-8")
    audit = start(tmp_path, "check", "--jobs", "2", "-f", "json", "-o", "report.json", "night.del")
    seen: set[int] = set()
    while not seen and audit.poll() is None:
        seen |= _children(audit.pid)
        time.sleep(0.01)  # a poll, not a wait for a fixed time
    audit.send_signal(signal.SIGTERM)
    out, err = audit.communicate(timeout=300)
    assert "Traceback" not in err and out == ""
    report = (tmp_path / "report.json").read_text(encoding="utf-8")
    if audit.returncode == 130:
        assert err == "audit: interrupted\n" and report == OLD_REPORT
    else:
        assert (audit.returncode, err) == (0, "") and json.loads(report)["inputs"][0][
            "path"
        ] == "night.del"
    assert not [pid for pid in seen if _alive(pid)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["night.del", "report.json"]
