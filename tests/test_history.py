"""The history store (docs/history.md): the same tests on SQLite and on a real PostgreSQL server.

The server is made by the tests in a temporary folder (initdb, pg_ctl; as the postgres user when
run as root, which PostgreSQL refuses), reached over TCP with a password, and stopped at the end.
A year of nights is recorded from a few small audited nights, each recorded under its own
name, digest and gaming day, so that the test stays fast.
"""

from __future__ import annotations

import contextlib
import dataclasses
import glob
import hashlib
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
import sqlalchemy

from audit import simulate as sim
from audit.history import views
from audit.history.anomalies import anomalies as anomalies_view
from audit.history.compare import compare
from audit.history.formats import FORMATS, render
from audit.history.migrate import prepare
from audit.history.recording import Recorder
from audit.history.schema import metadata
from audit.history.store import parse
from audit.resources import rulesets_dir
from audit.rulesets import Library
from audit.run import run_audit
from audit.simulate import faults
from audit.simulate.anomalies import Anomaly

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "s3cret-P@ss:w/rd"
QUOTED = "s3cret-P%40ss%3Aw%2Frd"
BACKENDS = ["sqlite", "postgresql"]


def audit(*args: str, cwd: Path = ROOT, timeout: float = 300, **kw) -> subprocess.CompletedProcess:
    """The command line in a process of its own, as a nightly job runs it."""
    return subprocess.run(
        [sys.executable, "-m", "audit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kw,
    )


@dataclasses.dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


def cli(*args: str, input: str | None = None) -> Done:
    """The command line in this process (faster): a failure must be an exit, never an exception."""
    from typer.testing import CliRunner

    from audit.cli import app

    result = CliRunner().invoke(app, list(args), input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    return Done(result.exit_code, result.stdout, result.stderr)


def _postgres_bin(name: str) -> str | None:
    found = sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4])
    )
    return found[-1] if found else shutil.which(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A PostgreSQL server of the tests' own: a fresh database per store, user ``auditor``."""

    def __init__(self, port: int):
        self.port = port
        self.made = 0

    def url(self, database: str, password: str = QUOTED, port: int | None = None) -> str:
        return f"postgresql://auditor:{password}@127.0.0.1:{port or self.port}/{database}"

    def new_database(self) -> str:
        import psycopg

        self.made += 1
        name = f"history_{self.made}"
        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=auditor password={PASSWORD} dbname=postgres",
            autocommit=True,
        ) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return name


@pytest.fixture(scope="module")
def server():
    initdb, pg_ctl = _postgres_bin("initdb"), _postgres_bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        pytest.skip("no PostgreSQL server programs here (initdb, pg_ctl): .ci/run installs them")
    pytest.importorskip("psycopg")
    folder = Path(tempfile.mkdtemp(prefix="audit-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        as_user = ["runuser", "-u", "postgres", "--"]
        shutil.chown(folder, "postgres")
    (folder / "pw").write_text(PASSWORD + "\n")
    if as_user:
        shutil.chown(folder / "pw", "postgres")
    data, port = folder / "data", _free_port()
    subprocess.run(
        [
            *as_user,
            initdb,
            "-D",
            str(data),
            "-U",
            "auditor",
            "--pwfile",
            str(folder / "pw"),
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            "-E",
            "UTF8",
            "--no-sync",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(
        [
            *as_user,
            pg_ctl,
            "-D",
            str(data),
            "-l",
            str(folder / "log"),
            "-o",
            options,
            "-w",
            "start",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    try:
        yield Server(port)
    finally:
        subprocess.run(
            [*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"],
            capture_output=True,
            timeout=120,
        )
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=BACKENDS)
def store_url(request, tmp_path) -> str:
    """A new, empty store of each kind."""
    if request.param == "sqlite":
        return str(tmp_path / "history.sqlite")
    srv = request.getfixturevalue("server")
    return srv.url(srv.new_database())


# --- nights ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def library() -> Library:
    lib = Library.load(rulesets_dir())
    lib.statistics = True
    return lib


def _write_night(path: Path, seed: int, start: datetime, inject: bool) -> Path:
    specs = sim.cli_tables(["fr-bataille-2007", "mc-sun-war-2006", "be-ostende-cdf"], 3, 30)
    if inject:
        lines, _, _ = faults.faulty_night(
            tables=specs,
            seed=seed,
            start=start,
            casino="Casino-Simulation",
            categories=["wrong-payout", "missed-burn", "late-bet"],
        )
    else:
        lines = sim.simulate(tables=specs, seed=seed, start=start)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def base_reports(tmp_path_factory, library):
    """Four small audited nights (two with faults), statistics included."""
    folder = tmp_path_factory.mktemp("nights")
    start = datetime.fromisoformat("2026-11-20T21:00:00+01:00")
    reports = []
    for k in range(4):
        night = _write_night(folder / f"base-{k}.del", 11 + k, start, inject=k % 2 == 1)
        reports.append(run_audit(library, [night.as_posix()]))
    return reports


def night_as(report, name: str, bump: Decimal = Decimal(0)):
    """``report`` as if its input were another night, ``name``: its own path and digest; the
    house wins ``bump`` times the drop more at FR-01."""
    inp = report.inputs[0]
    old = inp.path

    def moved(t):
        if t.table == "FR-01" and bump:
            return dataclasses.replace(
                t, path=name, collected=t.collected + (t.drop * bump).quantize(Decimal("0.01"))
            )
        return dataclasses.replace(t, path=name)

    copy = dataclasses.replace(
        report,
        inputs=[
            dataclasses.replace(inp, path=name, sha256=hashlib.sha256(name.encode()).hexdigest())
        ],
        findings=[f.model_copy(update={"path": name}) for f in report.findings],
        table_stats=[moved(t) for t in report.table_stats],
    )
    if report.statistics is not None:
        copy.statistics = dataclasses.replace(
            report.statistics,
            groups=[
                dataclasses.replace(g, path=name) for g in report.statistics.groups if g.path == old
            ],
        )
    return copy


#: 365 nights, every other day from 1 January 2025 to 30 December 2026
YEAR = [date(2025, 1, 1) + timedelta(days=2 * i) for i in range(365)]


def record_year(url: str, reports) -> None:
    recorder = Recorder.open(url, None, [], "06:00")
    for i, day in enumerate(YEAR):
        name = f"nights/{day.isoformat()}.del"
        bump = Decimal("0.25") if day.year == 2026 and day.month >= 10 else Decimal(0)
        recorder.record(
            night_as(reports[i % len(reports)], name, bump),
            {name: f"{day.isoformat()}T21:00:00.000+01:00"},
        )
    recorder.store.dispose()


def all_views(url: str) -> dict[str, str]:
    """Every view in every format and period, over the whole store and over a range."""
    store = parse(url)
    out = {}
    with store.engine.begin() as conn:
        prepare(store, conn, create=False)
        shown = {
            "nights": views.nights(conn, None, None),
            "nights 2026-03": views.nights(conn, date(2026, 3, 1), date(2026, 3, 31)),
            "inputs": views.inputs(conn, None, None),
        }
        for period in ("day", "month", "year"):
            shown[f"tables {period}"] = views.tables(conn, period, None, None)
            shown[f"dealers {period}"] = views.dealers(
                conn, period, date(2025, 6, 1), date(2026, 5, 31)
            )
            shown[f"rules {period}"] = views.rules(conn, period, date(2025, 2, 1), None)
            shown[f"compare {period}"] = compare(conn, period, None)
        shown["compare to 2026-06-30"] = compare(conn, "month", date(2026, 6, 30))
    store.dispose()
    for name, view in shown.items():
        for row in view.rows:
            row["recorded_at"] = row.get("recorded_at") and "(when)"
        for fmt in FORMATS:
            out[f"{name} {fmt}"] = render(view, fmt)
    return out


@pytest.fixture(scope="module")
def year_views(base_reports, server, tmp_path_factory) -> dict[str, dict[str, str]]:
    """The year recorded in a SQLite store and in a PostgreSQL one, and every view of each."""
    fast = (
        Path("/dev/shm") if Path("/dev/shm").is_dir() else None
    )  # a memory disk: no wait on each commit
    sqlite_url = str(Path(tempfile.mkdtemp(prefix="audit-year-", dir=fast)) / "year.sqlite")
    pg_url = server.url(server.new_database())
    shown = {}
    for kind, url in (("sqlite", sqlite_url), ("postgresql", pg_url)):
        record_year(url, base_reports)
        shown[kind] = all_views(url)
    shutil.rmtree(Path(sqlite_url).parent)
    return shown


def test_a_year_of_nights_reads_the_same_on_both_backends(year_views):
    lite, pg = year_views["sqlite"], year_views["postgresql"]
    assert lite.keys() == pg.keys()
    for name in lite:
        assert lite[name] == pg[name], name


def test_the_year_views_hold_what_was_recorded(year_views, base_reports):
    shown = year_views["sqlite"]
    nights = json.loads(shown["nights json"])
    assert len(nights) == 365 and {n["inputs"] for n in nights} == {1}
    assert {"gaming_day", "inputs", "tables", "rounds", "findings"} <= set(nights[0])
    assert {"path", "sha256", "gaming_day", "tables", "rounds", "findings"} <= set(
        json.loads(shown["inputs json"])[0]
    )
    assert nights[0]["gaming_day"] == "2025-01-01" and nights[-1]["gaming_day"] == "2026-12-30"
    assert sum(n["rounds"] for n in nights) == sum(base_reports[i % 4].rounds for i in range(365))
    assert sum(n["findings"] for n in nights) == sum(
        len(base_reports[i % 4].findings) for i in range(365)
    )
    assert len(json.loads(shown["nights 2026-03 json"])) == 16  # every other day of March 2026
    years = [r for r in json.loads(shown["tables year json"]) if r["table"] is None]
    assert [(r["period"], r["game"]) for r in years] == [
        ("2025", "bataille"),
        ("2025", "chemin-de-fer"),
        ("2026", "bataille"),
        ("2026", "chemin-de-fer"),
    ]
    assert years[1]["hold"] is None  # the house does not bank chemin de fer
    table_rows = [r for r in json.loads(shown["tables year json"]) if r["table"] is not None]
    assert sum(Decimal(r["drop"]) for r in table_rows) == sum(
        t.drop for i in range(365) for t in base_reports[i % 4].table_stats
    )
    assert (
        shown["tables month csv"].splitlines()[0]
        == "period,game,table,nights,rounds,drop,result,hold"
    )
    rules = json.loads(shown["rules month json"])
    assert rules and {r["trend"] for r in rules} <= {"new", "up", "down", "same"}
    assert all(r["period"] >= "2025-02" for r in rules)
    dealers = json.loads(shown["dealers month json"])
    assert {r["period"] for r in dealers} == {
        f"{y}-{m:02d}"
        for y, m in [(2025, m) for m in range(6, 13)] + [(2026, m) for m in range(1, 6)]
    }
    assert any(r["findings"] for r in dealers)


def test_compare_flags_the_table_that_holds_more_than_last_year(year_views):
    rows = {r["table"]: r for r in json.loads(year_views["sqlite"]["compare month json"])}
    assert rows["FR-01"]["current"] == "2026-12-01..2026-12-30"
    assert rows["FR-01"]["previous"] == "2025-12-01..2025-12-30"
    assert rows["FR-01"]["status"] == "above", rows["FR-01"]
    assert Decimal(rows["FR-01"]["hold"]) > Decimal(rows["FR-01"]["high"])
    assert rows["MC-01"]["status"] == "within", rows["MC-01"]
    assert "CDF-01" not in rows  # not house-banked: no hold to compare
    june = {r["table"]: r for r in json.loads(year_views["sqlite"]["compare to 2026-06-30 json"])}
    assert june["FR-01"]["status"] == "within"  # before the bump


# --- recording, on both backends ------------------------------------------------------------------


def _dump(url: str) -> dict[str, list]:
    """Every row of every table of the store, ids and recording times left out."""
    store = parse(url)
    out = {}
    with store.engine.connect() as conn:
        for table in metadata.sorted_tables:
            cols = [c for c in table.c if c.name not in ("id", "input_id", "recorded_at")]
            out[table.name] = sorted(
                tuple(map(str, r)) for r in conn.execute(sqlalchemy.select(*cols))
            )
    store.dispose()
    return out


def test_recording_a_night_again_changes_nothing(store_url, base_reports):
    recorder = Recorder.open(store_url, None, [], "06:00")
    stamp = {"a.del": "2026-11-20T21:00:00.000+01:00"}
    first = recorder.record(night_as(base_reports[1], "a.del"), stamp)
    before = _dump(store_url)
    again = recorder.record(night_as(base_reports[1], "a.del"), stamp)
    renamed = night_as(base_reports[1], "a.del")
    renamed.inputs[0] = dataclasses.replace(renamed.inputs[0], path="elsewhere/b.del")
    third = recorder.record(renamed, {"elsewhere/b.del": "2026-11-21T21:00:00.000+01:00"})
    recorder.store.dispose()
    assert (
        first.recorded == ["a.del"]
        and again.known == ["a.del"]
        and third.known == ["elsewhere/b.del"]
    )
    assert _dump(store_url) == before
    assert len(before["audit_input"]) == 1 and before["audit_finding"]


def test_a_night_without_statistics_is_recorded_without_them(tmp_path, base_reports):
    url = str(tmp_path / "h.sqlite")
    bare = dataclasses.replace(night_as(base_reports[1], "a.del"), statistics=None)
    recorder = Recorder.open(url, None, [], "06:00")
    assert recorder.record(bare, {"a.del": "2026-11-20T21:00:00+01:00"}).recorded == ["a.del"]
    recorder.store.dispose()
    rows = _dump(url)
    assert rows["audit_stat_group"] == [] and rows["audit_finding"] and rows["audit_dealer_night"]
    shown = json.loads(cli("history", "dealers", "--store", url, "-f", "json").stdout)
    assert shown and all(r["handle"] is None and r["result"] is None for r in shown)


def test_a_recording_that_fails_leaves_nothing(store_url, base_reports, monkeypatch):
    from audit.history import recording

    recorder = Recorder.open(store_url, None, [], "06:00")
    both = night_as(base_reports[1], "a.del")
    second = night_as(base_reports[3], "b.del")
    both.inputs += second.inputs
    both.findings += second.findings
    both.fingerprints += second.fingerprints
    both.table_stats += second.table_stats
    calls = []

    def failing(input_id, t):
        calls.append(t)
        if len(calls) > 4:  # the second input's tables, its input row already written
            raise KeyboardInterrupt
        return row(input_id, t)

    row = recording._table_row
    monkeypatch.setattr(recording, "_table_row", failing)
    with pytest.raises(KeyboardInterrupt):
        recorder.record(
            both, {"a.del": "2026-11-20T21:00:00+01:00", "b.del": "2026-11-20T21:00:00+01:00"}
        )
    recorder.store.dispose()
    assert calls and all(rows == [] for rows in _dump(store_url).values())


def test_two_jobs_recording_at_once_both_land(server, tmp_path):
    """Two nightly jobs at once on a new store, of each kind (all four processes run together)."""
    three = (ROOT / "fixtures" / "acceptance" / "three-breaches.del").read_text(encoding="utf-8")
    nights = [tmp_path / "one.del", tmp_path / "two.del"]
    nights[0].write_text(three, encoding="utf-8")
    nights[1].write_text(three + "# the same night, another file\n", encoding="utf-8")
    stores = [str(tmp_path / "history.sqlite"), server.url(server.new_database())]
    jobs = [
        subprocess.Popen(
            [sys.executable, "-m", "audit", "check", "-q", "--store", store, str(n)],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for store in stores
        for n in nights
    ]
    for job in jobs:
        _, err = job.communicate(timeout=300)
        assert job.returncode == 1, err  # the three breaches, recorded
    for store in stores:
        shown = cli("history", "nights", "--inputs", "--store", store, "--format", "json")
        assert shown.returncode == 0, shown.stderr
        # one after the other, each sealed to the one before: never two to the same
        verdict = cli("history", "verify", "--store", store, "--format", "json")
        assert verdict.returncode == 0, verdict.stdout + verdict.stderr
        assert json.loads(verdict.stdout)["sealed"] == 2
        assert sorted(Path(n["path"]).name for n in json.loads(shown.stdout)) == [
            "one.del",
            "two.del",
        ]


def test_a_view_read_meanwhile_does_not_hold_up_a_recording(tmp_path, base_reports, monkeypatch):
    import time

    url = str(tmp_path / "h.sqlite")
    recorder = Recorder.open(url, None, [], "06:00")
    recorder.record(night_as(base_reports[0], "a.del"), {"a.del": "2026-11-20T21:00:00+01:00"})
    took, nights = [], views.inputs

    def nights_while_recording(conn, since, until):
        shown = nights(conn, since, until)  # the reader's snapshot is taken
        start = time.monotonic()
        recorder.record(night_as(base_reports[1], "b.del"), {"b.del": "2026-11-21T21:00:00+01:00"})
        took.append(time.monotonic() - start)
        return shown

    monkeypatch.setattr(views, "inputs", nights_while_recording)
    shown = cli("history", "nights", "--inputs", "--store", url, "-f", "json")
    recorder.store.dispose()
    assert shown.returncode == 0 and [n["path"] for n in json.loads(shown.stdout)] == ["a.del"]
    assert took and took[0] < 5  # not the busy timeout's wait
    assert len(_dump(url)["audit_input"]) == 2


def test_a_store_of_an_unknown_schema_version_is_refused(store_url, tmp_path):
    night = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
    assert cli("check", "-q", "--store", store_url, str(night)).returncode == 1
    store = parse(store_url)
    with store.engine.begin() as conn:
        conn.execute(sqlalchemy.text("UPDATE alembic_version SET version_num = '0099'"))
    store.dispose()
    for args in (["history", "nights"], ["check", "-q", str(night)]):
        done = cli(*args, "--store", store_url)
        assert done.returncode == 2, done.stderr
        assert (
            "schema version '0099' is unknown to this audit" in done.stderr
            and "Traceback" not in done.stderr
        )
        assert PASSWORD not in done.stderr and QUOTED not in done.stderr


@pytest.mark.parametrize(
    "values", [[""], ["0"], ["000"], [b"\x00"], [7], [0.5], ["0003", "0002"]], ids=repr
)
def test_a_schema_version_another_hand_wrote_is_refused_by_name(tmp_path, values):
    """Alembic takes a version's first characters for it and fails on an empty one (an assertion:
    "internal error"); a store is opened only at a version its migrations name exactly, one row."""
    night = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
    store = tmp_path / "h.sqlite"
    assert cli("check", "-q", "--store", str(store), str(night)).returncode == 1
    with contextlib.closing(sqlite3.connect(store)) as db, db:
        db.execute("DELETE FROM alembic_version")
        db.executemany("INSERT INTO alembic_version VALUES (?)", [(v,) for v in values])
        kept = [row[0] for row in db.execute("SELECT version_num FROM alembic_version")]
    before = store.read_bytes()
    verify = cli("history", "verify", "--store", str(store))
    assert verify.returncode == 2 and "internal error" not in verify.stderr, verify.stderr
    said = "schema versions" if len(values) > 1 else f"schema version {kept[0]!r}"
    assert said in verify.stderr and verify.stderr.rstrip().endswith("refused"), verify.stderr
    check = cli("check", "-q", "--store", str(store), str(night))
    assert check.returncode == 2 and said in check.stderr, check.stderr
    assert "could not be opened" in check.stdout  # the night reported all the same
    assert store.read_bytes() == before


def test_a_store_whose_version_was_written_back_is_refused_not_half_migrated(store_url):
    """A store at the newest schema whose version says an older one: migrating it would fail on a
    table or column it already holds (SQLite's "duplicate column name"); it is named and refused."""
    night = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
    assert cli("check", "-q", "--store", store_url, str(night)).returncode == 1
    store = parse(store_url)
    with store.engine.begin() as conn:
        conn.execute(sqlalchemy.text("UPDATE alembic_version SET version_num = '0002'"))
    before = _dump(store_url)
    store.dispose()
    done = cli("history", "nights", "--store", store_url)
    assert done.returncode == 2, done.stderr
    assert (
        "says schema version '0002' but already holds every table and column of '0003'"
        in done.stderr
        and "changed by another hand; refused" in done.stderr
    ), done.stderr
    assert "duplicate" not in done.stderr and PASSWORD not in done.stderr
    assert _dump(store_url) == before


def test_no_older_schema_version_holds_the_newest_schema(tmp_path):
    """What tells a store whose version was written back from an old one to migrate: every migration
    adds a table or a column, so a store at any older version lacks one of the newest."""
    from alembic import command
    from alembic.config import Config

    from audit.history import migrate

    older = [s.revision for s in migrate._scripts().walk_revisions() if s.revision != migrate.HEAD]
    assert older  # the store has had more than one schema
    for version in older:
        store = parse(str(tmp_path / f"{version}.sqlite"))
        config = Config()
        config.set_main_option("script_location", str(migrate.MIGRATIONS))
        with store.engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, version)
            assert not migrate._holds_newest(conn), version
            command.upgrade(config, "head")
            assert migrate._holds_newest(conn)
        store.dispose()


def test_the_newest_version_is_the_head_of_the_migrations_shipped():
    from audit.history import migrate

    assert migrate._scripts().get_current_head() == migrate.HEAD
    assert migrate.MIGRATIONS.is_relative_to(
        Path(migrate.__file__).parent
    )  # inside the package: in the wheel


def test_the_migrations_make_the_schema_the_program_reads(store_url):
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    Recorder.open(store_url, None, [], "06:00").store.dispose()
    store = parse(store_url)
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    store.dispose()
    assert diff == []


# --- the command line -----------------------------------------------------------------------------


def test_a_night_in_one_file_a_table_is_one_night_and_a_quiet_run_says_what_it_recorded(tmp_path):
    """The nightly job's -q run leaves one line saying what it recorded; the views count nights
    (gaming days), not the files a night came in."""
    folder = tmp_path / "night"
    made = audit(
        "simulate",
        "-r",
        "fr-bataille-2007",
        "-r",
        "be-ostende-cdf",
        "--tables",
        "3",
        "--rounds",
        "4",
        "--start",
        "2026-11-20T21:00:00+01:00",
        "--per-table",
        str(folder),
    )
    assert made.returncode == 0, made.stderr
    store = tmp_path / "h.sqlite"
    done = audit("check", "-q", "--store", str(store), str(folder))
    assert done.returncode == 0, done.stderr
    said, head = done.stderr.rstrip("\n").rsplit("; head ", 1)
    assert said == f"audit: recorded 1 night (gaming day 2026-11-20, 3 inputs) in {store}"
    verified = json.loads(cli("history", "verify", "--store", str(store), "-f", "json").stdout)
    assert verified["head"] == head and verified["sealed"] == 3
    (night,) = json.loads(cli("history", "nights", "--store", str(store), "-f", "json").stdout)
    assert (night["gaming_day"], night["inputs"], night["tables"]) == ("2026-11-20", 3, 3)
    assert (
        len(
            json.loads(
                cli("history", "nights", "--inputs", "--store", str(store), "-f", "json").stdout
            )
        )
        == 3
    )
    for view in ("tables", "dealers"):
        rows = json.loads(cli("history", view, "--store", str(store), "-f", "json").stdout)
        assert rows and {r["nights"] for r in rows} == {1}, view


def test_check_records_and_its_report_names_the_store_and_its_head_before(tmp_path):
    """Recording changes nothing else in the report: it adds where the night was recorded and the
    store's head before (the anchor ``history verify --head`` checks later)."""
    night = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
    plain = cli("check", "-f", "json", str(night))
    stored = cli("check", "-f", "json", "--store", str(tmp_path / "h.sqlite"), str(night))
    assert stored.returncode == plain.returncode == 1
    report, expected = json.loads(stored.stdout), json.loads(plain.stdout)
    assert expected["configuration"]["store"] is None
    expected["configuration"]["store"] = {
        "store": str(tmp_path / "h.sqlite"),
        "sealed": 0,
        "head": None,
        "damaged": None,
        "unopened": None,
    }
    assert report == expected
    said = f"audit: recorded 1 night (gaming day 2026-11-20, 1 input) in {tmp_path / 'h.sqlite'}"
    assert stored.stderr.startswith(said + "; head ")
    head = stored.stderr.rstrip("\n").rsplit(" ", 1)[1]
    again = cli("check", "-f", "json", "--store", str(tmp_path / "h.sqlite"), str(night))
    assert (
        again.stderr
        == f"audit: recorded nothing new in {tmp_path / 'h.sqlite'}; 1 input already there\n"
    )
    assert json.loads(again.stdout)["configuration"]["store"] == {
        "store": str(tmp_path / "h.sqlite"),
        "sealed": 1,
        "head": head,
        "damaged": None,
        "unopened": None,
    }
    shown = cli(
        "history", "nights", "--inputs", "--store", str(tmp_path / "h.sqlite"), "-f", "json"
    )
    (one,) = json.loads(shown.stdout)
    assert one["sha256"] == hashlib.sha256(night.read_bytes()).hexdigest()
    assert one["findings"] == 3 and one["gaming_day"] == "2026-11-20"


def test_the_configuration_names_the_store_and_the_gaming_day(tmp_path, monkeypatch):
    night = tmp_path / "late.del"
    text = (ROOT / "fixtures" / "acceptance" / "three-breaches.del").read_text(encoding="utf-8")
    first = next(line.split()[0] for line in text.splitlines() if line[:1].isdigit())
    night.write_text(text.replace(first[:10], "2026-11-21"), encoding="utf-8")
    (tmp_path / "jobs").mkdir()
    (tmp_path / "audit.toml").write_text('store = "history/h.sqlite"\ngaming-day-start = "23:59"\n')
    (tmp_path / "history").mkdir()
    monkeypatch.chdir(tmp_path / "jobs")
    assert cli("check", "-q", str(night)).returncode == 1
    assert (tmp_path / "history" / "h.sqlite").is_file()
    shown = cli("history", "nights", "-f", "csv")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[1].startswith(
        "2026-11-20,"
    )  # before 23:59: the day before's gaming day
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "audit.toml").write_text('gaming-day-start = "25:00"\n')
    monkeypatch.chdir(bad)
    done = cli("history", "nights")
    assert done.returncode == 2 and "gaming-day-start" in done.stderr


def test_credentials_never_appear(server, tmp_path):
    night = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
    url = server.url(server.new_database())
    ok = cli("check", "--store", url, str(night))
    assert ok.returncode == 1 and "auditor:***@127.0.0.1" in ok.stderr
    wrong = server.url("postgres", password="not-the-Secret")
    unreachable = server.url("postgres", port=_free_port())
    for store, secret in (
        (wrong, "not-the-Secret"),
        (unreachable, PASSWORD),
        (url.replace("127.0.0.1:", "[::bad"), PASSWORD),
    ):
        for args in (["check", str(night)], ["history", "tables"]):
            done = cli(*args, "--store", store)
            assert done.returncode == 2, done.stderr
            assert done.stderr.startswith("audit: store ") and done.stderr.count("\n") == 1, (
                done.stderr
            )
            assert secret not in done.stdout and PASSWORD not in done.stdout  # the report's store
            assert (
                secret not in done.stderr
                and QUOTED not in done.stderr
                and PASSWORD not in done.stderr
            )
            assert "***" in done.stderr
    for fmt in FORMATS:
        shown = cli("history", "nights", "--store", url, "-f", fmt)
        assert shown.returncode == 0 and PASSWORD not in shown.stdout + shown.stderr


def test_an_unusable_store_stops_with_exit_2(tmp_path, monkeypatch):
    """Options that name no usable store stop the run before a log is read; ``history`` views stop
    at once. (A store that is there but cannot be opened: the next test.)"""
    monkeypatch.chdir(tmp_path)
    night = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("not a database, just words\n" * 100)
    cases = [
        (["check", str(night), "--store", "mysql://u@h/db"], "unknown kind of store"),
        (
            ["check", "-", "--store", str(tmp_path / "h.sqlite")],
            "standard input cannot be recorded",
        ),
        (["history", "nights", "--store", str(tmp_path / "none.sqlite")], "no such file"),
        (["history", "nights", "--store", str(not_a_db)], "cannot read"),
        (
            ["history", "tables", "--store", str(not_a_db), "--from", "2026-13-01"],
            "--from '2026-13-01'",
        ),
    ]
    for args, said in cases:
        done = cli(*args, input="")
        assert done.returncode == 2, (args, done.stderr)
        assert said in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)
        assert done.stdout == "", args  # no report: nothing was audited
    assert not (tmp_path / "none.sqlite").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    done = cli("history", "nights")
    assert done.returncode == 2 and "no store" in done.stderr


def test_a_store_that_cannot_be_opened_does_not_keep_the_night_from_being_reported(tmp_path):
    """A store that is there but cannot be opened (not a database, a folder, a server that does not
    answer) no longer stops the run before a log is read: the audited party could break it to keep
    the night's reports from being written. The reports are written, saying why the night is not
    recorded, the store is left as it was, and the run exits 2 (with findings that fail it too)."""
    night = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
    plain = cli("check", "-f", "json", str(night))
    assert plain.returncode == 1
    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("not a database, just words\n" * 100)
    folder = tmp_path / "folder"
    folder.mkdir()
    unreachable = f"postgresql://auditor@127.0.0.1:{_free_port()}/history"
    cases = [
        (str(not_a_db), str(not_a_db), "file is not a database"),
        (str(folder), str(folder), "folder is not a regular file (a folder)"),
        (unreachable, unreachable, "127.0.0.1"),
    ]
    for n, (store, shown, why) in enumerate(cases):
        out = {fmt: tmp_path / f"r{n}.{fmt}" for fmt in ("json", "html", "junit", "text")}
        done = cli(
            "check", str(night), "--store", store, "-q",
            *(arg for fmt, path in out.items() for arg in ("-f", fmt, "-o", str(path))),
        )  # fmt: skip
        assert done.returncode == 2, (store, done.stderr)
        assert done.stderr.count("\n") == 1 and done.stderr.startswith(
            f"audit: store {shown}: could not be opened: "
        ), done.stderr
        assert why in done.stderr and done.stderr.rstrip().endswith(
            "(the report is written; the night is not recorded)"
        ), done.stderr
        assert f"history store {shown} could not be opened" in done.stdout  # --quiet's line
        report, expected = json.loads(out["json"].read_text()), json.loads(plain.stdout)
        unopened = report["configuration"]["store"].pop("unopened")
        assert why in unopened and not unopened.startswith(("store ", "cannot open")), unopened
        expected["configuration"]["store"] = {
            "store": shown,
            "sealed": 0,
            "head": None,
            "damaged": None,
        }
        assert report == expected  # the night's findings, statistics and all, as without a store
        page = out["html"].read_text()
        assert "could not be opened" in page and 'id="hidden-findings"' in page
        assert 'name="configuration.store.unopened"' in out["junit"].read_text()
        text = out["text"].read_text()
        assert text.startswith(f"audit: history store {shown} could not be opened: the night is")
        assert f"not recorded: store {shown} could not be opened: {unopened}" in text
    assert not_a_db.read_text() == "not a database, just words\n" * 100
    assert list(folder.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("end", ["", "-journal", "-wal", "-shm"])
def test_a_store_file_that_is_a_fifo_is_refused_not_waited_on(tmp_path, end):
    """SQLite opens a journal it finds to read it, and opening a FIFO waits for a writer: a FIFO
    in the place of ``h.sqlite-journal`` held ``audit check --store`` before it read a log, deaf to
    SIGTERM. Each file of a SQLite store must be a regular file, or the store is not opened (the
    night is reported all the same, exit 2)."""
    night = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
    store = tmp_path / "h.sqlite"
    if end:
        assert audit("check", "-q", "--store", str(store), str(night)).returncode == 1
    os.mkfifo(tmp_path / f"h.sqlite{end}")
    named = f"h.sqlite{end} is not a regular file (a FIFO): refused"
    check = audit("check", "-q", "--store", str(store), str(night), timeout=60)
    assert check.returncode == 2 and named in check.stderr, check.stderr
    assert "could not be opened" in check.stdout  # the night reported all the same
    view = audit("history", "nights", "--store", str(store), timeout=60)
    assert view.returncode == 2 and named in view.stderr, view.stderr


def test_the_gaming_day_rule():
    from datetime import time

    from audit.history.gaming_day import DayCount, GamingDayError, day_start, of_stamp

    six = time(6, 0)
    assert of_stamp("2026-11-20T21:00:00.000+01:00", six) == date(2026, 11, 20)
    assert of_stamp("2026-11-21T05:59:59.999+01:00", six) == date(2026, 11, 20)
    assert of_stamp("2026-11-21T06:00:00+01:00", six) == date(2026, 11, 21)
    assert of_stamp("2026-11-21T04:30:00Z", six) == date(2026, 11, 20)  # as written: no conversion
    assert of_stamp("2026-11-21T04:30:00-08:00", time(4, 0)) == date(2026, 11, 21)
    with pytest.raises(GamingDayError):
        day_start("6h")
    days = DayCount(
        six
    )  # a minute's day is remembered: the same minute before and after 06:00 differ
    for stamp in (
        "2026-11-21T05:59:10+01:00",
        "2026-11-21T05:59:50+01:00",
        "2026-11-21T06:00:10+01:00",
    ):
        days.add(stamp)
    assert days.counts == {date(2026, 11, 20): 2, date(2026, 11, 21): 1}
    assert days.busiest() == date(2026, 11, 20)


# --- anomalies across nights ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def patient_nights(tmp_path_factory, library):
    """Six nights of one bataille table where dealer DX777 favours player PX777 on half the hands he
    deals him (he deals one round in three): no night is enough to name the pair."""
    folder = tmp_path_factory.mktemp("patient")
    out = []
    for k in range(6):
        day = f"2026-11-{k + 1:02d}"
        start = datetime.fromisoformat(f"{day}T21:00:00+01:00")
        specs = sim.cli_tables(["fr-bataille-2007"], 1, 300)
        lines = sim.simulate(
            tables=specs, seed=100 + k, start=start, anomaly=Anomaly("collusion", 0.5)
        )
        night = folder / f"{day}.del"
        night.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        report = run_audit(library, [night.as_posix()])
        assert "DX777+PX777" not in {a.group.id for a in report.statistics.anomalies()}
        out.append((report, {night.as_posix(): f"{day}T21:00:00.000+01:00"}))
    return out


def test_the_month_names_a_pair_no_night_names(store_url, patient_nights):
    recorder = Recorder.open(store_url, None, [], "06:00")
    for report, stamps in patient_nights:
        recorder.record(report, stamps)
    recorder.store.dispose()
    store = parse(store_url)
    with store.engine.begin() as conn:
        month = anomalies_view(conn, "month", None, None)
        days = anomalies_view(conn, "day", None, None)
        november = anomalies_view(conn, "month", date(2026, 11, 1), date(2026, 11, 3))
    store.dispose()
    first = month.rows[0]
    assert (first["period"], first["scope"], first["id"], first["table"]) == (
        "2026-11",
        "pair",
        "DX777+PX777",
        "FR-01",
    )
    assert first["nights"] == 6 and first["z"] < 0 and first["p_adjusted"] < 0.001
    # the results per unit staked name him first: stakes and side bets weigh nothing in them
    assert first["test"] == "units"
    assert [r["p"] for r in month.rows] == sorted(r["p"] for r in month.rows)
    assert "DX777+PX777" not in {r["id"] for r in days.rows}
    assert all(r["nights"] == 3 for r in november.rows)  # --from/--to: the nights in the range
    done = cli("history", "anomalies", "--store", store_url, "-f", "json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert list(rows[0]) == [
        "period",
        "scope",
        "id",
        "table",
        "test",
        "nights",
        "rounds",
        "handle",
        "result",
        "expected",
        "sd",
        "z",
        "p",
        "p_adjusted",
        "message",
    ]
    assert rows[0]["id"] == "DX777+PX777" and rows[0]["handle"] == str(
        first["handle"].quantize(Decimal("0.01"))
    )
    assert "with dealer DX777 won" in rows[0]["message"]
    csv_out = cli("history", "anomalies", "--store", store_url, "-f", "csv", "--period", "day")
    assert csv_out.returncode == 0 and "DX777+PX777" not in csv_out.stdout


def test_the_morning_page_shows_the_month_to_date(tmp_path, patient_nights):
    """With --store, the HTML page sums the month's recorded nights and this one."""
    url = str(tmp_path / "history.sqlite")
    recorder = Recorder.open(url, None, [], "06:00")
    for report, stamps in patient_nights[:-1]:
        recorder.record(report, stamps)
    recorder.store.dispose()
    [tonight] = patient_nights[-1][1]
    page = tmp_path / "night.html"
    done = cli("check", "-q", "--store", url, "-f", "html", "-o", str(page), tonight)
    assert done.returncode == 0, done.stderr
    html = page.read_text(encoding="utf-8")
    assert "Month to date, 2026-11-01 to 2026-11-06 (6 night(s), this one included)" in html
    assert "player PX777 with dealer DX777 won" in html.split('id="month"')[1]
    alone = tmp_path / "alone.html"
    done = cli("check", "-q", "-f", "html", "-o", str(alone), tonight)
    assert done.returncode == 0 and 'id="month"' not in alone.read_text(encoding="utf-8")


# --- the seal -------------------------------------------------------------------------------------


def _verify(store_url: str, *args: str) -> tuple[int, dict]:
    done = cli("history", "verify", "--store", store_url, "--format", "json", *args)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def test_the_seal_shows_a_row_changed_an_input_removed_or_a_seal_cleared(store_url, base_reports):
    recorder = Recorder.open(store_url, None, [], "06:00")
    seals = []
    for k, name in enumerate(("a.del", "b.del", "c.del")):
        stamp = {name: f"2026-11-2{k}T21:00:00.000+01:00"}
        seals.append(recorder.record(night_as(base_reports[k], name), stamp).head)
    recorder.store.dispose()
    status, v = _verify(store_url)
    assert status == 0 and v["holds"] and v["sealed"] == 3 and v["head"] == seals[-1]
    assert len(set(seals)) == 3
    text = cli("history", "verify", "--store", store_url)
    assert text.returncode == 0 and f"the seal holds: 3 input(s) sealed, head {seals[-1]}" in (
        text.stdout
    )
    store = parse(store_url)
    groups, inputs = metadata.tables["audit_stat_group"], metadata.tables["audit_input"]

    def change(statement, **values) -> None:
        with store.engine.begin() as conn:
            conn.execute(statement, values)

    # a group's result rewritten in the second night: that night's seal no longer holds
    with store.engine.connect() as conn:
        gid, result = conn.execute(
            sqlalchemy.select(groups.c.id, groups.c.result)
            .where(groups.c.input_id == 2, groups.c.result.is_not(None))
            .limit(1)
        ).one()
    change(sqlalchemy.update(groups).where(groups.c.id == gid).values(result="0.00"))
    status, v = _verify(store_url)
    assert status == 1 and not v["holds"] and [b["input"] for b in v["broken"]] == [2]
    assert v["broken"][0]["path"] == "b.del"
    change(sqlalchemy.update(groups).where(groups.c.id == gid).values(result=result))
    assert _verify(store_url)[0] == 0  # as it was: it holds again
    # the head an earlier report wrote down: still a seal of the store, one input sealed since
    status, v = _verify(store_url, "--head", seals[1])
    assert status == 0 and v["anchor_input"] == 2 and v["sealed_after_anchor"] == 1
    # the second night removed: the third is no longer chained to what came before it, and the
    # head written down after the second night is no seal of the store any more
    change(sqlalchemy.delete(inputs).where(inputs.c.id == 2))
    status, v = _verify(store_url, "--head", seals[1])
    assert status == 1 and [b["input"] for b in v["broken"]] == [3]
    assert v["anchor_input"] is None
    text = cli("history", "verify", "--store", store_url, "--head", seals[1])
    assert text.returncode == 1 and "is not a seal of this store" in text.stdout
    if not store_url.startswith("postgresql"):  # SQLite keeps in a column whatever it is given
        # a value of a type the column never holds: a break, never a crash of the verification
        change(
            sqlalchemy.text("UPDATE audit_dealer_night SET rounds = :b WHERE input_id = 1"),
            b=b"\x00",
        )
        status, v = _verify(store_url)
        assert 1 in [b["input"] for b in v["broken"]]
        change(sqlalchemy.text("UPDATE audit_input SET gaming_day = 'tuesday' WHERE id = 1"))
        status, v = _verify(store_url)
        assert {b["input"]: b["gaming_day"] for b in v["broken"]}[1] == "tuesday"
        change(sqlalchemy.text("UPDATE audit_input SET path = :b, seal = :b WHERE id = 1"), b=b"x")
        status, v = _verify(store_url)
        assert {b["input"]: b["path"] for b in v["broken"]}[1] == "b'x'"
    # a path rewritten to move the cursor of whoever reads the verdict: shown escaped
    change(sqlalchemy.update(inputs).where(inputs.c.id == 1).values(path="a\x1b[2Jb.del"))
    text = cli("history", "verify", "--store", store_url)
    assert "input #1 (a\\x1b[2Jb.del" in text.stdout and "\x1b" not in text.stdout
    # a seal cleared, so that its input would pass for one recorded before the seal
    change(sqlalchemy.update(inputs).where(inputs.c.id == 3).values(seal=None))
    status, v = _verify(store_url)
    assert status == 1 and "it has no seal" in {b["input"]: b["why"] for b in v["broken"]}[3]
    store.dispose()
    bad = cli("history", "verify", "--store", store_url, "--head", "not-a-seal")
    assert bad.returncode == 2 and "64 lowercase hexadecimal digits" in bad.stderr


def test_a_store_recorded_before_the_seal_is_sealed_from_its_next_night(tmp_path, base_reports):
    """A store of the schema before the seal, with a night in it: migrated, that night is counted
    as unsealed, and the nights recorded after it are sealed and verified."""
    from alembic import command
    from alembic.config import Config

    from audit.history.migrate import MIGRATIONS

    url = str(tmp_path / "old.sqlite")
    store = parse(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with store.engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0002")
        columns = [c for c in metadata.tables["audit_input"].c if c.name not in ("id", "seal")]
        conn.execute(
            metadata.tables["audit_input"]
            .insert()
            .values(
                **{
                    c.name: (
                        "0" * 64 if c.name == "sha256" else "x" if c.type.python_type is str else 0
                    )
                    for c in columns
                    if not c.nullable or c.name == "sha256"
                }
            )
        )
    store.dispose()
    recorder = Recorder.open(url, None, [], "06:00")
    assert recorder.before == (0, None)
    head = recorder.record(
        night_as(base_reports[0], "new.del"), {"new.del": "2026-11-20T21:00:00.000+01:00"}
    ).head
    recorder.store.dispose()
    status, v = _verify(url)
    assert status == 0 and (v["inputs"], v["sealed"], v["unsealed"]) == (2, 1, 1)
    assert v["head"] == head


def test_every_format_names_the_store_and_its_head_before_the_run(tmp_path):
    night = ROOT / "fixtures" / "acceptance" / "three-breaches.del"
    store = tmp_path / "h.sqlite"
    first = cli("check", "-q", "--store", str(store), str(night))
    head = first.stderr.rstrip("\n").rsplit("; head ", 1)[1]
    other = tmp_path / "other.del"
    other.write_text(night.read_text(encoding="utf-8") + "# another file\n", encoding="utf-8")
    page = tmp_path / "night.html"
    done = cli(
        "check",
        *("-f", "text", "-f", "junit", "-f", "html"),
        *("-o", str(tmp_path / "night.txt"), "-o", str(tmp_path / "night.xml"), "-o", str(page)),
        *("--store", str(store), str(other)),
    )
    assert done.returncode == 1, done.stderr
    text = (tmp_path / "night.txt").read_text(encoding="utf-8")
    assert f"history store {store}: 1 input(s) sealed before this run, head {head}" in text
    junit = (tmp_path / "night.xml").read_text(encoding="utf-8")
    assert f'name="configuration.store.head" value="{head}"' in junit
    assert 'name="configuration.store.sealed" value="1"' in junit
    html = page.read_text(encoding="utf-8")
    assert "history store" in html and head in html


def test_a_night_whose_file_name_is_not_utf8_is_recorded_as_the_report_names_it(
    store_url, tmp_path
):
    """Neither backend holds a lone surrogate (a file name's byte that is not UTF-8): the store
    keeps the name as the JSON report writes it, and the night is recorded and sealed."""
    folder = tmp_path / "logs"
    folder.mkdir()
    night = os.fsencode(folder) + b"/nuit-\xff.del"
    shutil.copy(ROOT / "fixtures" / "acceptance" / "three-breaches.del", night)
    done = cli("check", "-f", "json", "--store", store_url, str(folder))
    assert done.returncode == 1, done.stderr
    assert "recorded 1 night" in done.stderr and "internal error" not in done.stderr
    (reported,) = json.loads(done.stdout)["inputs"]
    shown = cli("history", "nights", "--inputs", "--store", store_url, "-f", "json")
    (one,) = json.loads(shown.stdout)
    assert one["path"] == reported["path"] == str(folder) + "/nuit-\\xff.del"
    assert cli("history", "verify", "--store", store_url).returncode == 0


# --- values no recording writes -------------------------------------------------------------------

#: every view of ``audit history`` (verify reads any value: its own test)
VIEWS = ["nights", "tables", "compare", "dealers", "rules", "anomalies"]


def _altered(store_url: str, statement: str, **values) -> None:
    store = parse(store_url)
    with store.engine.begin() as conn:
        conn.execute(sqlalchemy.text(statement), values)
    store.dispose()


def test_a_recorded_store_holds_no_value_a_recording_never_writes(store_url, base_reports):
    """What a recording writes, findings, dealers and every kind of group included, is never taken
    for another hand's: a failure of the program is never blamed on the store."""
    from audit.history import misfits

    recorder = Recorder.open(store_url, None, [], "06:00")
    for k, report in enumerate(base_reports):
        recorder.record(night_as(report, f"n{k}.del"), {f"n{k}.del": "2026-11-20T21:00:00+01:00"})
    store = recorder.store
    with store.engine.connect() as conn:
        counted = {
            t: conn.execute(sqlalchemy.text(f"SELECT count(*) FROM {t}")).scalar()
            for t in ("audit_finding", "audit_dealer_night", "audit_stat_group")
        }
        assert all(counted.values()), counted
        assert misfits.find(conn, limit=10) == []
    store.dispose()


#: (statement, the view that reads it, what the message names): SQLite keeps whatever a column is
#: given; PostgreSQL holds a column's own type (``IN_TEXT``: a text that is no amount, or values of
#: the right type that no recording writes together)
ANY_TYPE = [
    (
        "UPDATE audit_table_night SET drop_amount = :b WHERE id = 1",
        "tables",
        "audit_table_night.drop_amount of row 1 (input #1) holds b'\\x00', not an amount",
    ),
    (
        "UPDATE audit_table_night SET rounds = 'many' WHERE id = 1",
        "tables",
        "audit_table_night.rounds of row 1 (input #1) holds 'many', not a whole number",
    ),
    (
        "UPDATE audit_input SET gaming_day = 'tuesday' WHERE id = 1",
        "nights",
        "audit_input.gaming_day of row 1 holds 'tuesday', not a date",
    ),
    (
        "UPDATE audit_input SET gaming_day = 20261120 WHERE id = 1",
        "dealers",
        "audit_input.gaming_day of row 1 holds 20261120, not a date",
    ),
    (
        "UPDATE audit_dealer_night SET rounds = :b WHERE id = 1",
        "dealers",
        "audit_dealer_night.rounds of row 1 (input #1) holds b'\\x00', not a whole number",
    ),
]
IN_TEXT = [
    (
        "UPDATE audit_stat_group SET ident = 'nobody' WHERE scope = 'pair'",
        "anomalies",
        "audit_stat_group.ident of row",
    ),
    (
        "UPDATE audit_stat_group SET bets = 12 WHERE test = 'result'",
        "anomalies",
        "holds 12, not nothing (a units test's)",
    ),
    (
        "UPDATE audit_stat_group SET result = 'lots' WHERE id = "
        "(SELECT min(id) FROM audit_stat_group WHERE scope = 'player')",
        "anomalies",
        "audit_stat_group.result of row",
    ),
    (
        "UPDATE audit_table_night SET paid = 'twelve' WHERE id = 1",
        "tables",
        "audit_table_night.paid of row 1 (input #1) holds 'twelve', not an amount",
    ),
]


def _named_by_the_views(store_url, base_reports, statement, reader, named) -> None:
    recorder = Recorder.open(store_url, None, [], "06:00")
    for k in range(2):
        name = f"n{k}.del"
        recorder.record(night_as(base_reports[k], name), {name: "2026-11-20T21:00:00+01:00"})
    recorder.store.dispose()
    _altered(store_url, statement, b=b"\x00")
    met = []
    for view in VIEWS:
        done = cli("history", view, "--store", store_url)  # an exception fails the helper
        if done.returncode:
            assert done.returncode == 2 and named in done.stderr, (view, done.stderr)
            assert "changed by another hand" in done.stderr and "history verify" in done.stderr
            met.append(view)
    assert reader in met
    assert cli("history", "verify", "--store", store_url).returncode == 1  # and which night


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize(("statement", "reader", "named"), ANY_TYPE)
def test_a_value_of_another_type_is_named_by_every_view_that_meets_it(
    store_url, base_reports, statement, reader, named
):
    _named_by_the_views(store_url, base_reports, statement, reader, named)


@pytest.mark.parametrize(("statement", "reader", "named"), IN_TEXT)
def test_a_text_that_is_no_amount_is_named_by_every_view_that_meets_it(
    store_url, base_reports, statement, reader, named
):
    _named_by_the_views(store_url, base_reports, statement, reader, named)


def test_a_failure_of_the_program_on_a_sound_store_stays_the_programs(
    tmp_path, base_reports, monkeypatch
):
    from typer.testing import CliRunner

    from audit.cli import app

    store = str(tmp_path / "h.sqlite")
    recorder = Recorder.open(store, None, [], "06:00")
    recorder.record(night_as(base_reports[0], "n.del"), {"n.del": "2026-11-20T21:00:00+01:00"})
    recorder.store.dispose()

    def broken(*args):
        raise TypeError("a bug of the view's own")

    monkeypatch.setattr(views, "nights", broken)
    result = CliRunner().invoke(app, ["history", "nights", "--store", store])
    assert isinstance(result.exception, TypeError)  # the command line calls it an internal error


def test_a_damaged_store_never_costs_the_nights_report(store_url, tmp_path):
    """The month to date meets a value no recording writes: the report is written all the same,
    says so in every format, the night is recorded, and the run ends with exit status 2."""
    nights = ROOT / "fixtures" / "nights"
    first = cli("check", "-q", "--store", store_url, str(nights / "example-night.del"))
    assert first.returncode == 0, first.stderr
    _altered(
        store_url,
        "UPDATE audit_stat_group SET result = 'lots' WHERE id = "
        "(SELECT min(id) FROM audit_stat_group WHERE scope = 'player')",
    )
    out = {f: tmp_path / f"night.{f}" for f in ("json", "html", "junit", "text")}
    done = cli(
        "check",
        *(a for f, path in out.items() for a in ("-f", f, "-o", str(path))),
        *("--store", store_url, str(nights / "mixed-night.del")),
    )
    assert done.returncode == 2
    assert "audit_stat_group.result of row" in done.stderr
    assert "the report leaves the month to date out" in done.stderr
    assert "recorded 1 night" in done.stderr  # recorded first: the evidence kept
    damaged = json.loads(out["json"].read_text(encoding="utf-8"))["configuration"]["store"]
    assert "holds 'lots', not an amount" in damaged["damaged"]
    page = out["html"].read_text(encoding="utf-8")
    assert "Month to date left out" in page and 'id="hidden-findings"' in page
    assert 'name="configuration.store.damaged"' in out["junit"].read_text(encoding="utf-8")
    text = out["text"].read_text(encoding="utf-8")
    assert text.startswith("audit: history store") and "store damaged: " in text
    quiet = cli("check", "-q", "--store", store_url, str(nights / "cdf-night.del"))
    assert (
        quiet.returncode == 2 and "could not be read, the month to date is left out" in quiet.stdout
    )
    listed = json.loads(
        cli("history", "nights", "--inputs", "-f", "json", "--store", store_url).stdout
    )
    assert len(listed) == 3


def test_a_month_the_store_cannot_give_is_left_out_never_shown_as_tonight_alone(tmp_path):
    """The month to date read from a store that fails (here a column renamed by another hand) was
    the night alone, as if the month had no other night: it is now left out, and said so."""
    nights = ROOT / "fixtures" / "nights"
    store = str(tmp_path / "h.sqlite")
    assert cli("check", "-q", "--store", store, str(nights / "example-night.del")).returncode == 0
    _altered(store, "ALTER TABLE audit_stat_group RENAME COLUMN units_sd TO sd_of_units")
    report = tmp_path / "night.json"
    done = cli(
        "check", "-f", "json", "-o", str(report), "--store", store, str(nights / "mixed-night.del")
    )
    assert done.returncode == 2, done.stderr
    damaged = json.loads(report.read_text(encoding="utf-8"))["configuration"]["store"]["damaged"]
    assert damaged.startswith("cannot read the month to date: ") and "units_sd" in damaged
