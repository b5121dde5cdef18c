"""audit follow --state: killed (SIGKILL) at any moment and started again, it reports every
finding exactly once; together, its runs report what audit check reports."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from audit.cli import app

ROOT = Path(__file__).resolve().parent.parent


def audit(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "audit", *args],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        **kw,
    )


def findings(out: Path) -> list[tuple]:
    if not out.exists():
        return []
    rows = []
    for line in out.read_bytes().splitlines(keepends=True):
        if not line.endswith(b"\n"):
            continue  # being written
        obj = json.loads(line)
        if obj["type"] == "finding":
            rows.append((obj["rule"], obj["line"], obj["table"], obj["round"]))
    return rows


def read_lines(out: Path) -> int:
    """The lines read, as the last heartbeat says."""
    if not out.exists():
        return 0
    for line in reversed(out.read_bytes().splitlines(keepends=True)):
        if line.endswith(b"\n") and (obj := json.loads(line))["type"] == "status":
            return obj["lines"]
    return 0


def night(tmp: Path, seed: int) -> bytes:
    """A simulated night with one fault of each kind, and a garbled line every 40 (in this process:
    the test is about the follower's processes, not the simulator's)."""
    full = tmp / "full.del"
    done = CliRunner().invoke(
        app,
        [
            "simulate",
            "-r",
            "fr-bataille-2007",
            "-r",
            "be-ostende-cdf",
            "--tables",
            "2",
            "--rounds",
            "30",
            "--seed",
            str(seed),
            "--inject",
            "all",
            "-o",
            str(full),
        ],
    )
    assert done.exit_code == 0, done.output
    lines = full.read_bytes().splitlines(keepends=True)
    for at in range(len(lines) - 40, 10, -40):  # and a damaged line now and then: more findings
        lines.insert(at, b"2026-11-20T21:00:00.000+01:00 a line the terminal garbled\n")
    full.write_bytes(b"".join(lines))
    return full.read_bytes()


def checked(path: Path) -> Counter:
    """The findings ``audit check`` reports on the whole log (in this process)."""
    report = path.with_name(path.name + ".json")
    done = CliRunner().invoke(
        app, ["check", "--no-progress", "-f", "json", "-o", str(report), str(path)]
    )
    assert done.exit_code in (0, 1), done.output
    return Counter(
        (f["rule"], f["line"], f["table"], f["round"])
        for f in json.loads(report.read_text(encoding="utf-8"))["findings"]
    )


def test_killed_and_restarted_it_reports_every_finding_once(tmp_path):
    data = night(tmp_path, 4)
    expected = checked(tmp_path / "full.del")
    assert len(expected) > 20
    live, out, state = tmp_path / "live.del", tmp_path / "out.jsonl", tmp_path / "state.json"
    live.write_bytes(b"")
    args = (
        "follow",
        str(live),
        "--state",
        str(state),
        "-f",
        "jsonl",
        "-o",
        str(out),
        "--interval",
        "0.01",
        "--heartbeat",
        "0.05",
    )
    rng = random.Random(7)
    targets = [1, 3, 6, 10, 15, 21, 28]  # killed once it has reported this many findings
    proc = audit(*args)
    kills = 0
    at = 0
    while at < len(data):
        size = rng.randint(1, 3000)
        with live.open("ab") as f:
            f.write(data[at : at + size])
        at += size
        deadline = time.monotonic() + 30
        lines = data[:at].count(b"\n")
        while (
            (not targets or len(findings(out)) < targets[0])
            and read_lines(out) < lines
            and time.monotonic() < deadline
        ):
            time.sleep(0.01)  # until it has read what was written, or reported enough to be killed
        if targets and len(findings(out)) >= targets[0]:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills += 1
            targets.pop(0)
            proc = audit(*args)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    last = audit(*args, "--until-idle", "0.5")  # the log is complete: its end is read too
    assert last.wait(timeout=120) in (0, 1), last.stderr.read()
    assert kills >= 4
    got = Counter(findings(out))
    assert got == expected  # each exactly once: nothing lost, nothing repeated


def test_a_restart_after_a_clean_stop_repeats_nothing(tmp_path):
    data = night(tmp_path, 5)
    live, out, state = tmp_path / "live.del", tmp_path / "out.jsonl", tmp_path / "state.json"
    half = data.index(b"\n", len(data) // 2) + 1
    live.write_bytes(data[:half])
    args = (
        "follow",
        str(live),
        "--state",
        str(state),
        "-f",
        "jsonl",
        "-o",
        str(out),
        "--heartbeat",
        "0",
    )
    proc = audit(*args, "--interval", "0.05")
    deadline = time.monotonic() + 60
    while not findings(out) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.5)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0  # stopped cleanly
    first = len(findings(out))
    with live.open("ab") as f:
        f.write(data[half:])
    again = audit(*args, "--once")
    assert again.wait(timeout=120) in (0, 1), again.stderr.read()
    assert len(findings(out)) > first
    assert Counter(findings(out)) == checked(tmp_path / "full.del")
    assert json.loads(state.read_text())["format"] == "del-audit-follow-state"


def test_a_replaced_file_is_not_taken_for_the_one_the_state_speaks_of(tmp_path):
    """After a restart, a file at the same path with other content is read whole, reported whole."""
    data = night(tmp_path, 6)
    live, out, state = tmp_path / "live.del", tmp_path / "out.jsonl", tmp_path / "state.json"
    live.write_bytes(data)
    args = (
        "follow",
        str(live),
        "--state",
        str(state),
        "-f",
        "jsonl",
        "-o",
        str(out),
        "--heartbeat",
        "0",
    )
    assert audit(*args, "--once").wait(timeout=120) == 1
    once = findings(out)
    os.unlink(live)
    other = night(tmp_path, 7)  # another night, at the same path (perhaps the same inode number)
    live.write_bytes(other)
    assert audit(*args, "--once").wait(timeout=120) == 1
    assert Counter(findings(out)) == Counter(once) + checked(tmp_path / "full.del")


def test_a_state_written_before_a_file_is_opened_again_keeps_that_file(tmp_path):
    """Killed just after its start (state written, files not looked at yet), nothing is forgotten."""
    from audit.follow import state as state_file
    from audit.follow.tail import Follower, Resume
    from audit.rulesets import Library

    path = (tmp_path / "a.del").as_posix()
    resume = {path: Resume(1, 2, 300, "00", [(5, "R", "T", 1)])}
    follower = Follower(Library.load(), [path], lambda p, f: None, dict(resume))
    state = (tmp_path / "s.json").as_posix()
    state_file.save(state, follower, None)
    assert state_file.load(state)[0] == resume
