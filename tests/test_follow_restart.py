"""audit follow --state: killed (SIGKILL) at any moment and started again, it reports every
finding exactly once; together, its runs report what audit check reports."""

from __future__ import annotations

import gc
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


def _anomalies(out: Path) -> list[dict]:
    lines = out.read_bytes().splitlines(keepends=True) if out.exists() else []
    objs = (json.loads(line) for line in lines if line.endswith(b"\n"))
    return [o for o in objs if o["type"] == "anomaly"]


def _simulated(path: Path, seed: int, rounds: int, strength: float) -> bytes:
    """A night of one table whose dealer DX777 favours player PX777 on ``strength`` of his hands."""
    from typer.testing import CliRunner

    from audit.cli import app

    done = CliRunner().invoke(
        app,
        ["simulate", "-r", "fr-bataille-2007", "--tables", "1", "--rounds", str(rounds)]
        + ["--seed", str(seed), "--anomaly", "collusion", "--strength", str(strength)]
        + ["-o", str(path)],
    )
    assert done.exit_code == 0, done.output
    return path.read_bytes()


def _straight(path: Path, first: bytes, second: bytes) -> list[dict]:
    """The anomaly lines of a follow never stopped: ``first`` read whole, then replaced at its
    path (rotated) by ``second``, read to its end."""
    from audit.follow.live_stats import LiveStatistics
    from audit.follow.tail import Follower
    from audit.rulesets import Library

    library = Library.load()
    library.statistics = True
    found: list[dict] = []
    live = LiveStatistics(library, lambda a: found.append(a.as_object()))
    path.write_bytes(first)
    follower = Follower(library, [str(path)], lambda p, f: None, {}, None, live)
    follower.poll()
    os.rename(path, path.with_suffix(".1"))
    path.write_bytes(second)
    follower.poll()
    follower.finish()
    follower.close()
    os.unlink(path.with_suffix(".1"))
    os.unlink(path)
    return json.loads(json.dumps(found))


def _offset(state: Path, path: Path) -> int | None:
    try:
        return json.loads(state.read_text())["files"][str(path)]["offset"]
    except (OSError, ValueError, KeyError):
        return None


def test_killed_after_a_rotation_it_looks_as_a_run_never_stopped(tmp_path):
    """The live statistics' looks are kept with the state: a follow killed (SIGKILL) and started
    again writes the anomaly lines of a follow never stopped, each look at the same count of looks
    and of groups tested. Here the log is rotated first: the night before is not read again after
    the restart, yet its looks count (the same path, the same groups)."""
    before = _simulated(tmp_path / "before.del", 11, 150, 0.0)  # the pair plays fair
    night = _simulated(tmp_path / "night.del", 1, 300, 1.0)
    live, out, state = tmp_path / "live.del", tmp_path / "out.jsonl", tmp_path / "state.json"
    expected = _straight(live, before, night)
    gc.collect()  # its tables let go: they no longer count in what this process holds
    assert {(a["scope"], a["id"]) for a in expected} >= {("pair", "DX777+PX777")}
    assert max(a["look"] for a in expected) > 1  # looks counted on from the night before
    args = ("follow", str(live), "--state", str(state), "-f", "jsonl", "-o", str(out))
    args += ("--interval", "0.01", "--heartbeat", "0.05")
    live.write_bytes(before)
    proc = audit(*args)

    deadline = time.monotonic() + 60
    while read_lines(out) != before.count(b"\n") and time.monotonic() < deadline:
        time.sleep(0.01)
    os.rename(live, tmp_path / "live.del.1")
    half = night.index(b"\n", len(night) // 2) + 1
    live.write_bytes(night[:half])
    deadline = time.monotonic() + 60
    while _offset(state, live) != half and time.monotonic() < deadline:
        time.sleep(0.02)  # the state knows the night before read, and half this one
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert (tmp_path / "state.json.looks").exists()
    with live.open("ab") as f:
        f.write(night[half:])
    last = audit(*args, "--until-idle", "0.3")
    assert last.wait(timeout=120) in (0, 1), last.stderr.read()
    assert _anomalies(out) == expected


def test_restarted_mid_night_a_folder_of_tables_takes_no_look_twice(tmp_path, monkeypatch):
    """One log a table, written together; the follow stopped mid-night (its state written, its
    objects dropped as a kill drops them) and started again from the state: reading the files
    again takes no look a second time (without the looks kept, each file read again alone would
    be looked at again, counted with fewer groups), and the anomaly lines and the looks at the end
    are those of a follow never stopped."""
    from audit.follow import live_store
    from audit.follow import state as state_file
    from audit.follow.live_stats import LiveStatistics
    from audit.follow.tail import Follower
    from audit.rulesets import Library

    night = _simulated(tmp_path / "night.del", 1, 250, 1.0).decode()
    table = {}
    for line in night.splitlines(keepends=True):  # one file a table, the header in each
        if line.startswith("#"):
            for name in ("FR-01", "FR-02"):
                table[name] = table.get(name, "") + line
        else:
            name = line.split()[1]
            table[name] = table.get(name, "") + line
    looks: list = []
    set_look = live_store.LiveStore.__setitem__

    def counted(store, key, value) -> None:
        looks.append((key[1:], value))
        set_look(store, key, value)

    monkeypatch.setattr(live_store.LiveStore, "__setitem__", counted)

    def follow(folder: Path, stop_at: int | None) -> tuple[list, list]:
        folder.mkdir()
        state = str(folder) + ".state"
        lines: list = []

        def start() -> tuple:
            library = Library.load()
            library.statistics = True
            resume, _, reported, kept = state_file.load(state)
            live = LiveStatistics(
                library,
                lambda a: lines.append(a.as_object()),
                reported=reported,
                kept=state_file.looks_file(state),
                run=(kept or {}).get("run"),
            )
            return live, Follower(library, [str(folder)], lambda p, f: None, resume, None, live)

        live, follower = start()
        steps = 12
        for step in range(steps):
            for name, text in sorted(table.items()):
                cut = [len(text) * i // steps for i in (step, step + 1)]
                with (folder / f"{name}.del").open("a") as f:
                    f.write(text[cut[0] : cut[1]])
            follower.poll()
            for f in follower.files.values():
                f.advance_mark()
            if step == stop_at:
                live.store.commit()
                run = {"looks": "-", "run": live.store.run}
                state_file.save(state, follower, None, live.reported, run)
                live, follower = start()  # the files read again, each alone, to where they were
                assert live.store.resumed
        follower.poll()
        follower.finish()
        final = live.store.kept.execute("SELECT scope, ident, test, k, rounds FROM looks")
        return [{k: v for k, v in a.items() if k != "path"} for a in lines], sorted(final)

    straight = follow(tmp_path / "straight", None)
    taken = list(looks)
    looks.clear()
    restarted = follow(tmp_path / "restarted", 6)
    gc.collect()  # the tables of the followers dropped let go: they count no more in this process
    assert restarted == straight
    assert straight[0] and straight[1]
    assert looks == taken  # not one look more
