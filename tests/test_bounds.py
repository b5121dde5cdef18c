"""Bounded on every input: a file the casino hands over (configuration, overlay, ruleset, baseline)
is read up to its size limit and refused past it, a device that never ends included; a folder of
tens of thousands of logs and a log of hundreds of thousands of tables are audited in memory that
does not grow with them (docs/performance.md, "Bounded inputs")."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_line_limit import NEEDS_PROC, audit

from audit import bounded
from audit.rulesets import MAX_YAML_BYTES
from fixtures import copy_rulesets

ROOT = Path(__file__).resolve().parent.parent
NIGHT = ROOT / "fixtures" / "nights" / "example-night.del"
ZERO = Path("/dev/zero")
NEEDS_ZERO = pytest.mark.skipif(not ZERO.exists(), reason="needs /dev/zero")

#: the option that names each kind of file, and its limit
KINDS = {
    "--house": MAX_YAML_BYTES,
    "--baseline": bounded.MAX_BASELINE_BYTES,
    "--config": bounded.MAX_CONFIG_BYTES,
}


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "audit", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=timeout,
    )


def refused(done: subprocess.CompletedProcess, path: Path, limit: int) -> None:
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert err == f"audit: {path}: larger than {limit} bytes; refused\n"
    assert done.stdout == b""


@NEEDS_ZERO
@NEEDS_PROC
@pytest.mark.parametrize("option", list(KINDS))
def test_dev_zero_is_refused_at_the_limit_in_little_memory(option):
    status, _out, err, peak = audit("check", str(NIGHT), option, str(ZERO))
    assert status == 2, err
    assert err.decode() == f"audit: {ZERO}: larger than {KINDS[option]} bytes; refused\n"
    assert peak < 150, peak  # the limit read, no more


@pytest.mark.parametrize("option", list(KINDS))
def test_a_sparse_file_of_a_hundred_megabytes_is_refused(option, tmp_path):
    big = tmp_path / "big"
    with open(big, "wb") as f:
        f.truncate(100 * 1000 * 1000)  # sparse: nothing written on disk
    refused(run("check", str(NIGHT), option, str(big)), big, KINDS[option])


@pytest.mark.parametrize("option", list(KINDS))
def test_a_file_of_the_limit_and_one_byte_is_refused(option, tmp_path):
    big = tmp_path / "big"
    with open(big, "wb") as f:
        f.truncate(KINDS[option] + 1)
    refused(run("check", str(NIGHT), option, str(big)), big, KINDS[option])


def test_a_file_of_the_limit_is_read_whole(tmp_path):
    small = tmp_path / "small"
    small.write_bytes(b"x" * 1000)
    assert bounded.read_bytes(small, 1000) == b"x" * 1000
    with pytest.raises(bounded.TooLarge):
        bounded.read_bytes(small, 999)


def test_the_rulesets_folder_with_a_device_in_it_is_refused(tmp_path):
    folder = copy_rulesets(tmp_path / "rulesets")
    endless = folder / "zz-endless.yaml"
    if ZERO.exists():
        endless.symlink_to(ZERO)
    else:
        with open(endless, "wb") as f:
            f.truncate(MAX_YAML_BYTES + 1)
    refused(run("check", str(NIGHT), "--rulesets", str(folder)), endless, MAX_YAML_BYTES)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("option", list(KINDS))
def test_a_pipe_whose_writer_says_nothing_does_not_hang(option, tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    writer = subprocess.Popen(["sh", "-c", f"sleep 30 > {pipe}"])
    try:
        time.sleep(0.2)
        done = run("check", str(NIGHT), option, str(pipe), timeout=20)
        assert done.returncode == 2, done.stderr
        assert done.stderr.decode().startswith(f"audit: {pipe}: cannot read: ")
        assert done.stderr.decode().count("\n") == 1
    finally:
        writer.kill()
        writer.wait()


def night_of_tables(path: Path, tables: int, closed: bool) -> None:
    """A log of ``tables`` bataille tables, each opened, given a dealer and (``closed``) closed."""
    with open(path, "w") as f:
        f.write("#DEL 1\n")
        for i in range(tables):
            ts = (
                f"2026-11-20T21:{(i // 60000) % 60:02d}:{(i // 1000) % 60:02d}.{i % 1000:03d}+01:00"
            )
            t = f"T{i:06d}"
            f.write(
                f"{ts} {t} OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500 "
                "egalite-min=5 egalite-max=50\n"
            )
            f.write(f"{ts} {t} DEALER id=D{i % 9999:04d}\n")
            if closed:
                f.write(f"{ts} {t} CLOSE\n")


def test_an_open_table_holds_no_handler_or_rule_table_of_its_own(tmp_path):
    """What an open table costs is its own state: the verb handlers and the rules bound are one per
    game and ruleset, shared (a copy of each per table made 10 KB a table)."""
    from audit.rulesets import Library
    from audit.stream.replay import FileReplay

    log = tmp_path / "two.del"
    night_of_tables(log, 2, closed=False)
    replay = FileReplay(Library.load(), str(log))
    replay.feed_chunk(log.read_text().splitlines(), 0)
    first, second = replay.tables.values()
    assert first.handlers is second.handlers
    assert first.flagger._rules is second.flagger._rules


def test_a_table_holds_statistics_sums_only_once_it_deals(tmp_path):
    """With the statistics on, a table's sums (about 3 KB, mostly empty) are made at its first
    shoe or round: thousands of tables opened and left open with nothing dealt hold none."""
    from audit.rulesets import Library
    from audit.stream.replay import FileReplay

    log = tmp_path / "two.del"
    night_of_tables(log, 2, closed=False)
    lines = log.read_text().splitlines()
    lines.append(lines[-1].split(" DEALER ")[0] + " SHOE new decks=6 procedure=sabot")
    library = Library.load()
    library.statistics = True
    replay = FileReplay(library, str(log))
    replay.feed_chunk(lines[:-1], 0)
    idle, dealing = replay.tables.values()
    assert (idle.surveillance, dealing.surveillance) == (None, None)
    replay.feed_chunk(lines[-1:], len(lines) - 1)
    assert idle.surveillance is None and idle.stats.surveillance is None
    assert dealing.surveillance is not None
    assert dealing.stats.surveillance is dealing.surveillance


@NEEDS_PROC
def test_fifty_thousand_tables_left_open_fit_in_little_memory(tmp_path):
    """The first 10,000 are followed (each a warning at the end: still open); the others are
    refused as they open (each an error), and hold no state. Measured: 117 to 120 MiB, with the
    statistics on or off (a table that deals nothing holds no statistics' sums; when each held
    its empty sums, about 3 KB a table, the peak was 147 to 150 MiB)."""
    log = tmp_path / "tables.del"
    night_of_tables(log, 50_000, closed=False)
    status, out, err, peak = audit("check", str(log), "--quiet")
    assert status == 1, err
    assert out.startswith(
        b"audit: 50000 finding(s) (40000 error, 10000 warning, 0 info) in 1 file(s), 10000 table(s)"
    ), out
    assert peak < 150, peak  # 10,000 tables open at the end: 2.5 KB each, beside the findings


class _Counted(list):
    """A finished input's findings, counting how often their number is asked."""

    asked = 0

    def __len__(self) -> int:
        _Counted.asked += 1
        return super().__len__()


def test_each_finished_input_is_counted_once_not_once_per_later_input():
    """The findings the finished inputs hold are weighed as each input arrives: each once (20,000
    inputs weighed again at each arrival made 200 million counts, minutes of a folder's audit)."""
    from types import SimpleNamespace

    from audit import run as run_module

    results = []
    settle = run_module._Settle()
    _Counted.asked = 0
    for _ in range(2000):
        results.append(SimpleNamespace(findings=_Counted()))
        settle(results)
    assert _Counted.asked <= 2 * len(results)


def test_the_tables_of_many_inputs_are_put_in_order_without_a_search_each(monkeypatch):
    """Tables are ordered by their input's place: one look-up each, not a walk of every input."""
    from audit import report as report_module
    from audit import run as run_module
    from audit.report import InputSummary
    from audit.rulesets import Library

    def walked(*_):
        raise AssertionError("report_order walks every input for each table")

    monkeypatch.setattr(report_module, "report_order", walked)
    monkeypatch.setattr(run_module, "report_order", walked, raising=False)
    library = Library.load()
    tasks, results = [], []
    for path in sorted((ROOT / "fixtures" / "nights").glob("*.del"), reverse=True):
        tasks.append((str(path), None))
        results.append(run_module._audit_part(library, str(path), None, None))
    report = run_module._merge(library, tasks, results)
    order = [i.path for i in report.inputs]
    assert order == [path for path, _ in tasks]  # as the inputs were given, not sorted here
    assert [t.path for t in report.table_stats] == sorted(
        (t.path for t in report.table_stats), key=order.index
    )
    assert isinstance(report.inputs[0], InputSummary)


@NEEDS_PROC
def test_a_folder_of_four_thousand_logs_is_audited_in_little_memory(tmp_path):
    folder = tmp_path / "nights"
    folder.mkdir()
    for i in range(4000):
        (folder / f"n{i:05d}.del").write_text(
            "#DEL 1\n"
            f"2026-11-20T21:00:00.000+01:00 BAT-{i % 99:02d} OPEN game=bataille ruleset=fr-bataille-2007 seats=7 "
            "min=10 max=500 egalite-min=5 egalite-max=50\n"
            f"2026-11-20T21:00:01.000+01:00 BAT-{i % 99:02d} CLOSE\n"
        )
    started = time.monotonic()
    status, out, err, peak = audit("check", str(folder), "--quiet")
    took = time.monotonic() - started
    assert status == 0, err
    assert out.startswith(b"audit: no finding in 4000 file(s), 4000 table(s)"), out
    assert peak < 120, peak
    assert took < 40, (
        took
    )  # about 1 ms a file on one core; it was 20 ms a file at 20,000 (a square)


def _days_counted(log, start):
    """The first event time and the gaming day the audit counts while it reads ``log``."""
    from audit.rulesets import Library
    from audit.stream.inputs import audit_input

    library = Library.load()
    library.gaming_day_start = start
    _, summary = audit_input(library, str(log))
    return summary.first_event, summary.gaming_day


def test_a_night_belongs_to_the_gaming_day_most_of_its_lines_do(tmp_path):
    """A first line at 05:59, before the 06:00 start, then a whole night after: the later day."""
    from datetime import date, time

    log = tmp_path / "night.del"
    lines = [
        "#DEL 1",
        "2026-11-21T05:59:00+01:00 BAT-01 OPEN game=bataille ruleset=fr-bataille-2007 seats=7 "
        "min=10 max=500",
    ]
    lines += [
        f'2026-11-21T{h:02d}:{m:02d}:00+01:00 BAT-01 NOTE "x"'
        for h in range(6, 23)
        for m in range(0, 60, 10)
    ]
    log.write_text("\n".join(lines) + "\n")
    assert _days_counted(log, time(6, 0)) == ("2026-11-21T05:59:00+01:00", date(2026, 11, 21))


def test_a_tie_between_gaming_days_goes_to_the_earlier(tmp_path):
    from datetime import date, time

    log = tmp_path / "night.del"
    log.write_text(
        '2026-11-22T07:00:00+01:00 BAT-01 NOTE "a"\n2026-11-21T07:00:00+01:00 BAT-01 NOTE "b"\n'
    )
    assert _days_counted(log, time(6, 0))[1] == date(2026, 11, 21)


def test_a_clock_jumping_a_day_each_line_keeps_a_bounded_count(tmp_path):
    """Thousands of distinct gaming days: counts for at most DAYS_KEPT of them; the busy day wins."""
    from datetime import date, time, timedelta

    from audit.history import gaming_day

    log = tmp_path / "night.del"
    start = date(2000, 1, 1)
    with open(log, "w") as f:
        for i in range(5000):
            f.write(f'{start + timedelta(days=i)}T12:00:00Z T NOTE "x"\n')
            if i % 2:
                f.write('2026-11-20T22:00:00+01:00 T NOTE "x"\n')
    seen = []
    real = gaming_day.count

    def count(counts, day):
        real(counts, day)
        seen.append(len(counts))

    gaming_day.count = count
    try:
        assert _days_counted(log, time(6, 0))[1] == date(2026, 11, 20)
    finally:
        gaming_day.count = real
    assert seen and max(seen) <= gaming_day.DAYS_KEPT


def test_the_gaming_day_is_counted_only_when_a_store_records_it(tmp_path):
    """Without a store, the audit counts no gaming day (the hot path pays nothing for it)."""
    from audit.rulesets import Library
    from audit.stream.inputs import audit_input

    log = tmp_path / "night.del"
    log.write_text('2026-11-22T07:00:00+01:00 BAT-01 NOTE "a"\n')
    _, summary = audit_input(Library.load(), str(log))
    assert summary.first_event == "2026-11-22T07:00:00+01:00" and summary.gaming_day is None


def test_the_gaming_day_recorded_is_the_busiest(tmp_path):
    store = tmp_path / "h.sqlite"
    log = tmp_path / "night.del"
    night = (ROOT / "fixtures" / "acceptance" / "three-breaches.del").read_text().splitlines()
    first = next(i for i, line in enumerate(night) if line[:1].isdigit())
    table = night[first].split()[1]
    early = f'2026-11-20T05:59:00+01:00 {table} NOTE "before the day"'
    log.write_text("\n".join(night[:first] + [early] + night[first:]) + "\n")
    done = run("check", str(log), "--store", str(store), "--no-progress")
    assert done.returncode in (0, 1), done.stderr
    nights = run("history", "nights", "--store", str(store), "--format", "json")
    assert nights.returncode == 0, nights.stderr
    import json

    (row,) = json.loads(nights.stdout)
    assert row["first_event"] == "2026-11-20T05:59:00+01:00"
    assert row["gaming_day"] == "2026-11-20"


def test_past_the_most_tables_open_at_once_an_open_is_a_finding_and_no_state(tmp_path, monkeypatch):
    from audit.rulesets import Library
    from audit.stream import replay as replay_module

    monkeypatch.setattr(replay_module, "MAX_OPEN_TABLES", 3)
    log = tmp_path / "five.del"
    night_of_tables(log, 5, closed=False)
    replay = replay_module.FileReplay(Library.load(), str(log))
    replay.feed_chunk(log.read_text().splitlines(), 0)
    assert sorted(replay.tables) == ["T000000", "T000001", "T000002"]
    refused = [f for f in replay.sink.findings if f.rule == "DEL-CONTEXT"]
    assert [f.table for f in refused] == ["T000003", "T000004"]
    assert "3 tables are open, the most the auditor follows at once" in refused[0].message
    assert [f.line for f in refused] == [
        8,
        10,
    ]  # their OPEN lines; their DEALER lines say nothing more
    assert len(replay.sink.findings) == 2


def test_a_table_refused_opens_once_another_closes(tmp_path, monkeypatch):
    from audit.rulesets import Library
    from audit.stream import replay as replay_module

    monkeypatch.setattr(replay_module, "MAX_OPEN_TABLES", 1)
    opening = "OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500 egalite-min=5 egalite-max=50"
    lines = [
        f"2026-11-20T21:00:0{i}+01:00 {text}"
        for i, text in enumerate(
            [f"A {opening}", f"B {opening}", "A CLOSE", f"B {opening}", "B CLOSE"]
        )
    ]
    replay = replay_module.FileReplay(Library.load(), "x.del")
    replay.feed_chunk(lines, 0)
    assert [(f.rule, f.table) for f in replay.sink.findings] == [("DEL-CONTEXT", "B")]
    assert replay.tables == {}


class _Walked(list):
    """The report's tables, counting how often they are walked."""

    walks = 0

    def __iter__(self):
        _Walked.walks += 1
        return super().__iter__()


def test_recording_many_inputs_walks_the_tables_once(tmp_path):
    """A folder of thousands of inputs recorded in a store: the tables are gathered by input in
    one walk, not searched again for each input."""
    from audit.history.recording import Recorder
    from audit.rulesets import Library
    from audit.run import run_audit

    nights = sorted(str(p) for p in (ROOT / "fixtures" / "nights").glob("*.del"))
    report = run_audit(Library.load(), nights)
    report.table_stats = _Walked(report.table_stats)
    recorder = Recorder.open(str(tmp_path / "h.sqlite"), None, nights, "06:00")
    _Walked.walks = 0
    outcome = recorder.record(report)
    assert sorted(outcome.recorded) == nights
    assert _Walked.walks == 1
