"""audit follow waits for file events (watchfiles) and falls back to polling: both paths."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from audit.follow import watch

ROOT = Path(__file__).resolve().parent.parent
GARBLED = b"2026-11-20T21:00:00.000+01:00 a line the terminal garbled\n"


def follow(folder: Path, out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "audit", "follow", str(folder), "-f", "jsonl", "-o", str(out)]
        + ["--heartbeat", "0", *extra],
        cwd=ROOT,
        stderr=subprocess.PIPE,
    )


def lines(out: Path) -> int:
    return out.read_bytes().count(b"\n") if out.exists() else 0


def reported(out: Path, count: int, within: float) -> float | None:
    """Seconds until ``out`` holds ``count`` lines (None: not within ``within``)."""
    start = time.monotonic()
    while time.monotonic() - start < within:
        if lines(out) >= count:
            return time.monotonic() - start
        time.sleep(0.01)
    return None


def test_a_write_wakes_the_follow_long_before_its_interval(tmp_path):
    pytest.importorskip("watchfiles")
    folder, out = tmp_path / "logs", tmp_path / "out.jsonl"
    folder.mkdir()
    proc = follow(folder, out, "--interval", "60")
    try:
        (folder / "a.del").write_bytes(GARBLED)  # a new file: the folder's event
        assert reported(out, 1, 60) is not None, "not started"
        with (folder / "a.del").open("ab") as f:
            f.write(GARBLED)  # an append to a file followed
        delay = reported(out, 2, 30)
        assert delay is not None and delay < 20  # polling would wait 60 s
    finally:
        proc.terminate()
        assert proc.wait(30) == 0, proc.stderr.read()


def test_poll_looks_every_interval_and_only_then(tmp_path):
    folder, out = tmp_path / "logs", tmp_path / "out.jsonl"
    folder.mkdir()
    (folder / "a.del").write_bytes(GARBLED)
    proc = follow(folder, out, "--poll", "--interval", "60")
    try:
        assert reported(out, 1, 60) is not None, "not started"  # the first look, at the start
        time.sleep(1)  # that look is over (a line appended while it reads would be read by it)
        with (folder / "a.del").open("ab") as f:
            f.write(GARBLED)
        assert reported(out, 2, 3) is None  # no event wakes it: the next look is 60 s away
    finally:
        proc.terminate()
        assert proc.wait(30) == 0, proc.stderr.read()
    fast = tmp_path / "fast.jsonl"
    proc = follow(folder, fast, "--poll", "--interval", "0.05")
    try:
        assert reported(fast, 2, 60) is not None
        with (folder / "a.del").open("ab") as f:
            f.write(GARBLED)
        assert reported(fast, 3, 30) is not None
    finally:
        proc.terminate()
        proc.wait(30)


def test_the_waiter_chosen(tmp_path, monkeypatch):
    assert isinstance(watch.waiter([str(tmp_path)], [], 0.2, poll=True), watch.Polling)
    monkeypatch.setitem(sys.modules, "watchfiles", None)  # the live extra not installed
    told: list[str] = []
    assert isinstance(watch.waiter([str(tmp_path)], [], 0.2, False, told.append), watch.Polling)
    assert not told  # as documented: no warning, polling

    def refused(*args):
        raise OSError("file events: OS file watch limit reached")

    monkeypatch.setattr(watch, "Events", refused)
    assert isinstance(watch.waiter([str(tmp_path)], [], 0.2, False, told.append), watch.Polling)
    assert told == ["file events: OS file watch limit reached; polling every 0.2 s instead"]


def test_events_wake_a_wait_and_a_stop_ends_it(tmp_path):
    pytest.importorskip("watchfiles")
    waits = watch.Events([str(tmp_path)], [str(tmp_path / "named.del")], 0.2)
    try:
        start = time.monotonic()
        waits.wait(30, lambda: time.monotonic() - start > 0.5)  # asked to stop: returns
        assert time.monotonic() - start < 5
        (tmp_path / "named.del").write_bytes(b"x\n")
        start = time.monotonic()
        waits.wait(30, lambda: False)
        assert time.monotonic() - start < 10 and waits.look == watch.EVENTS_LOOK
    finally:
        waits.close()
