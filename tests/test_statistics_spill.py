"""The statistics in bounded memory: a long log's groups (every player and shoe of the night) are
written to disk as they become final and read back merged, and every report is the same byte for
byte whether anything was written out or not, with one process or two. The one-pass readings the
reporters make of the groups (Holm's anomalies, the text report's smallest p) are compared with
the plain sort of every group."""

from __future__ import annotations

import errno
import pickle
import random
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit import findings_store
from audit.cli import app
from audit.engine import surveillance
from audit.reporters import text_statistics
from audit.statistics import Anomaly, Group, Statistics, _round_p, store

ROOT = Path(__file__).resolve().parent.parent
FORMATS = {"json": "json", "text": "txt", "sarif": "sarif", "html": "html"}


@pytest.fixture(scope="module")
def night(tmp_path_factory) -> Path:
    """Six tables of the three rulesets, 150 rounds each: about 230 groups."""
    log = tmp_path_factory.mktemp("night") / "night.del"
    rulesets = ["fr-bataille-2007", "mc-sun-war-2006", "be-ostende-cdf"] * 2
    chosen = [arg for r in rulesets for arg in ("-r", r)]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "audit",
            "simulate",
            *chosen,
            "--tables",
            "6",
            "--rounds",
            "150",
            "--seed",
            "11",
            "-o",
            str(log),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return log


@pytest.fixture
def spill_folder(temporary_folder, monkeypatch):
    """Where the spill folders go (checked empty after each test), and a count of the runs written."""
    runs = []
    real = findings_store.write_rows

    def write_rows(rows, *args):
        runs.append(1)
        return real(rows, *args)

    monkeypatch.setattr(findings_store, "write_rows", write_rows)
    return runs


def _check(tmp_path: Path, name: str, *args: str) -> dict[str, bytes]:
    out = tmp_path / name
    out.mkdir()
    paths = [out / f"report.{ext}" for ext in FORMATS.values()]
    options = [o for fmt, path in zip(FORMATS, paths) for o in ("-f", fmt, "-o", str(path))]
    result = CliRunner().invoke(app, ["check", "--statistics", "--no-progress", *options, *args])
    assert result.exit_code == 0, result.output
    assert surveillance._held == 0  # every table's records were read and let go
    return {p.name: p.read_bytes() for p in paths}


def _tiny(monkeypatch) -> None:
    """Thresholds so low that every table writes its records out many times, and its runs are merged."""
    monkeypatch.setattr(surveillance, "THRESHOLD", 10)
    monkeypatch.setattr(surveillance, "MAX_RUNS", 2)
    monkeypatch.setattr(surveillance, "CHUNK", 3)
    monkeypatch.setattr(store, "THRESHOLD", 8)
    monkeypatch.setattr(store, "CHUNK", 5)


def test_every_report_is_the_same_whether_the_statistics_spilled_or_not(
    tmp_path, night, spill_folder, monkeypatch
):
    held = _check(tmp_path, "held", str(night))
    assert not spill_folder  # a small night: nothing written
    groups = held["report.json"].count(b'"scope"')
    assert groups > 200
    _tiny(monkeypatch)
    assert _check(tmp_path, "spilled", str(night)) == held
    assert len(spill_folder) > 20  # the tables' runs, their merges and the groups' file
    assert _check(tmp_path, "spilled-jobs", "--jobs", "2", str(night)) == held


def test_two_logs_keep_their_groups_apart_when_spilled(tmp_path, night, spill_folder, monkeypatch):
    """A player of the same id in two logs is two groups, in the order of the logs."""
    other = tmp_path / "other.del"
    other.write_bytes(night.read_bytes())
    held = _check(tmp_path, "held", str(night), str(other))
    _tiny(monkeypatch)
    assert _check(tmp_path, "spilled", str(night), str(other)) == held


def _plain_anomalies(stats: Statistics) -> list[Anomaly]:
    """Holm's step-down over every tested group sorted: the reading the one-pass version must equal."""
    tested = sorted((g for g in stats.groups if g.p_exact is not None), key=lambda g: g.p_exact)
    out, running, m = [], 0.0, len(tested)
    for k, group in enumerate(tested):
        running = max(running, min(1.0, (m - k) * group.p_exact))
        if running >= stats.alpha:
            break
        out.append(Anomaly(group, _round_p(running)))
    return out


def _groups(rng: random.Random, n: int) -> list[Group]:
    out = []
    for _i in range(n):
        p = rng.choice([None, rng.random(), rng.random() ** 8, rng.random() * 1e-5, 1e-6, 0.5])
        scope = rng.choice(["table", "player", "shoe"])
        test = rng.choice(["result", "ranks"])
        out.append(
            Group(
                scope,
                f"G{rng.randrange(40)}",
                "x.del",
                test,
                "T",
                "r",
                50,
                p_exact=p,
                p=None if p is None else _round_p(p),
            )
        )
    return out


def test_one_pass_anomalies_equal_the_plain_step_down():
    rng = random.Random(5)
    for _ in range(300):
        groups = _groups(rng, rng.randrange(1, 60))
        for alpha in (0.001, 0.05, 0.5):
            stats = Statistics(alpha=alpha, groups=groups)
            assert [(a.group.key, a.p_adjusted) for a in stats.anomalies()] == [
                (a.group.key, a.p_adjusted) for a in _plain_anomalies(stats)
            ]


def test_the_anomalies_counted_as_the_groups_are_added_equal_the_plain_step_down():
    """``Statistics.add`` counts the tested groups and keeps the candidates on the way; the
    anomalies from that count equal the plain step-down, and a change of alpha reads them again."""
    rng = random.Random(7)
    for _ in range(300):
        groups = _groups(rng, rng.randrange(1, 60))
        for alpha in (0.001, 0.05, 0.5):
            stats = Statistics(alpha=alpha)
            for g in groups:
                stats.add(g)
            assert stats._tally[1] == len(groups)  # the count is what anomalies() uses
            assert [(a.group.key, a.p_adjusted) for a in stats.anomalies()] == [
                (a.group.key, a.p_adjusted) for a in _plain_anomalies(stats)
            ]
            stats.alpha = 0.2
            assert [(a.group.key, a.p_adjusted) for a in stats.anomalies()] == [
                (a.group.key, a.p_adjusted) for a in _plain_anomalies(stats)
            ]


def test_the_text_reports_smallest_p_equal_the_plain_sort():
    rng = random.Random(6)
    for _ in range(300):
        groups = _groups(rng, rng.randrange(1, 80))
        tested, shown = text_statistics._smallest(groups)
        rows = [g for g in groups if g.p is not None]
        assert tested == len(rows)
        for (scope, test), (count, kept) in shown.items():
            mine = [g for g in rows if (g.scope, g.test) == (scope, test)]
            assert count == len(mine)
            assert (
                kept == sorted(mine, key=lambda g: (g.p, g.id))[: text_statistics.SHOWN]
            )  # same objects, same order


def test_a_table_sent_away_is_never_written_out_again(monkeypatch, tmp_path):
    """A Dask worker keeps a task's result after sending it: a table it sent must no longer count in
    what the worker holds nor be written out by its next task (that would merge the table's runs and
    remove the files the main process reads); the copy that arrives counts where it arrives."""
    monkeypatch.setattr(findings_store, "_folder", str(tmp_path))
    sent = surveillance.Surveillance("T1", True)
    sent._record("shoe", "T1#1", "result", surveillance.Acc())
    assert sent in surveillance._live and sent.held[0] == 1
    before = surveillance._held
    arrived = pickle.loads(pickle.dumps(sent))
    assert sent not in surveillance._live and sent.held[0] == 0
    # read back (in a thread of the pool's, say): nothing of this process is touched yet
    assert arrived not in surveillance._live and surveillance._held == before - 1
    surveillance.arrived([arrived])  # taken by the main thread: it counts where it arrives
    assert arrived in surveillance._live and surveillance._held == before
    monkeypatch.setattr(surveillance, "THRESHOLD", 0)
    surveillance._crowded()
    assert arrived.runs and not sent.runs  # only the copy that arrived was written out
    assert [r[1] for r in arrived.records_in_order()] == ["T1#1"]
    arrived.release()


def test_a_table_read_back_in_another_thread_touches_nothing_until_taken(monkeypatch, tmp_path):
    """The pool reads a worker's result in a thread of its own while the main thread replays its
    own part: the tables that arrive must not count, nor make the main thread's tables write out,
    from that thread (their rounds summed meanwhile were lost), only once the main thread takes
    them (``surveillance.arrived``)."""
    monkeypatch.setattr(findings_store, "_folder", str(tmp_path))
    monkeypatch.setattr(surveillance, "THRESHOLD", 0)
    mine = surveillance.Surveillance("T1", True)
    mine._record("shoe", "T1#1", "result", surveillance.Acc())
    sent = surveillance.Surveillance("T2", True)
    sent._record("shoe", "T2#1", "result", surveillance.Acc())
    data = pickle.dumps(sent)
    before = surveillance._held
    read: list = []
    reader = threading.Thread(target=lambda: read.append(pickle.loads(data)))
    reader.start()
    reader.join()
    assert not mine.runs and mine.records and surveillance._held == before
    surveillance.arrived(read)
    assert mine.runs and read[0].runs and surveillance._held == 0
    for table in (mine, read[0]):
        table.release()


def test_the_same_reports_on_a_cluster_when_the_statistics_spill(tmp_path, night, monkeypatch):
    pytest.importorskip("distributed")
    other = tmp_path / "other.del"
    other.write_bytes(night.read_bytes())
    held = _check(tmp_path, "held", str(night), str(other))
    _tiny(monkeypatch)
    assert _check(tmp_path, "cluster", "--cluster", "local:1", str(night), str(other)) == held


def test_a_full_disk_while_spilling_stops_with_what_and_where(
    tmp_path, night, temporary_folder, monkeypatch
):
    """No room for a spill file: exit 2 and one line saying so (not a read error of the log, not a bug),
    no report written, the spill folder removed."""
    _tiny(monkeypatch)
    real = tempfile.mkstemp

    def full(*args, **kwargs):
        if kwargs.get("suffix") == ".run":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", full)
    report = tmp_path / "r.json"
    result = CliRunner().invoke(
        app, ["check", "--statistics", "--no-progress", "-f", "json", "-o", str(report), str(night)]
    )
    assert result.exit_code == 2
    assert result.output.startswith("audit: cannot write temporary files in ")
    assert "No space left on device" in result.output and "Traceback" not in result.output
    assert not report.exists()
