"""Recording a run in the store: every input of the report, all or nothing, each input once.

An input is known by its SHA-256: recorded again (the same night audited twice, or under
another name) it is left as it was. Everything a run records is written in one transaction,
so a run that fails or is interrupted while recording leaves the store as it found it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from decimal import Decimal
from itertools import chain
from pathlib import Path

from .. import __version__
from ..escape import undecodable_escaped
from . import schema, seal
from .gaming_day import GamingDayError, day_start, of_stamp
from .migrate import prepare
from .store import Store, StoreError, parse

#: finding rows inserted at a time
BATCH = 5_000


@dataclass
class Outcome:
    """What a recording did: the paths recorded, and those already in the store."""

    recorded: list[str] = field(default_factory=list)
    known: list[str] = field(default_factory=list)
    #: the gaming day of each input recorded (None: an input without a time)
    days: list[date | None] = field(default_factory=list)
    #: the store's seal after the run (``seal.py``): the last input's, None if nothing was recorded
    head: str | None = None

    def summary(self, store: Store) -> str:
        """``audit: recorded 1 night (gaming day 2026-11-20, 3 inputs) in STORE``: the nights are
        the gaming days, however many files they came in."""
        days = sorted({d for d in self.days if d is not None})
        if not self.recorded:
            said = "recorded nothing new"
        else:
            span = (
                ""
                if not days
                else f"gaming day {days[0]}"
                if len(days) == 1
                else f"gaming days {days[0]} to {days[-1]}"
            )
            files = f"{len(self.recorded)} input{'s' if len(self.recorded) != 1 else ''}"
            undated = len([d for d in self.days if d is None])
            nights = len(days) + (1 if undated and not days else 0)
            said = (
                f"recorded {nights} night{'s' if nights != 1 else ''} "
                f"({', '.join(p for p in (span, files) if p)}"
                f"{f', {undated} without a time' if undated and days else ''})"
            )
        known = (
            f"; {len(self.known)} input{'s' if len(self.known) != 1 else ''} already there"
            if self.known
            else ""
        )
        sealed = f"; head {self.head}" if self.head else ""
        return f"audit: {said} in {store.shown}{known}{sealed}\n"


class Recorder:
    """The store a run records into, opened (and its schema made current) before the audit.

    What the command line got wrong (standard input, a gaming day start, a store of an unknown
    kind) stops the run before a log is read (``made``); a store that is there but cannot be
    opened (``prepare``) does not keep the night from being audited and its reports written."""

    def __init__(self, store: Store, start: time):
        self.store = store
        self.start = start
        #: the statistics measured for the store, kept when the reports were not to show them
        self.statistics = None
        #: the store's sealed inputs and head when it was opened, before this run records (the
        #: reports name them: ``configuration.store``)
        self.before: tuple[int, str | None] = (0, None)

    @classmethod
    def open(
        cls, value: str, base: Path | None, files: list[str], gaming_day_start: str
    ) -> Recorder:
        """``made``, then ``prepare``: the recorder of a store ready to record into."""
        recorder = cls.made(value, base, files, gaming_day_start)
        recorder.prepare()
        return recorder

    @classmethod
    def made(
        cls, value: str, base: Path | None, files: list[str], gaming_day_start: str
    ) -> Recorder:
        """The recorder the options ask for, its store not yet opened: StoreError for what the
        options themselves get wrong."""
        if "-" in files:
            raise StoreError(
                "standard input cannot be recorded in a store (the store lists each night by its "
                "file's name): name the log's file"
            )
        try:
            start = day_start(gaming_day_start)
        except GamingDayError as err:
            raise StoreError(str(err)) from None
        return cls(parse(value, base), start)

    def prepare(self) -> None:
        """Create the store, or migrate it, or refuse it."""
        from sqlalchemy.exc import SQLAlchemyError

        try:
            with self.store.engine.begin() as conn:
                prepare(self.store, conn, create=True)
                self.before = seal.head(conn)
        except SQLAlchemyError as err:
            raise self.store.error("cannot open", err) from None
        except OSError as err:
            raise StoreError(
                self.store.mask(f"store {self.store.shown}: cannot open: {err.strerror or err}")
            ) from None

    def keep_statistics(self, report, shown: bool) -> None:
        """Take the report's statistics for the store; the reports show them only if asked."""
        self.statistics = report.statistics
        if not shown:
            report.statistics = None

    def record(self, report, stamps: dict[str, str | None] | None = None) -> Outcome:
        """Record every input of ``report``: the bytes the audit read (their SHA-256, size, first
        event time and gaming day, from the audit itself: the path may name other bytes by now),
        unless ``stamps`` gives the first event times by path (their days then taken from them)."""
        from sqlalchemy.exc import SQLAlchemyError

        days = None
        if stamps is None:
            stamps = {inp.path: inp.first_event for inp in report.inputs}
            days = {
                inp.path: inp.gaming_day
                or (of_stamp(inp.first_event, self.start) if inp.first_event else None)
                for inp in report.inputs
            }
        statistics = self.statistics if self.statistics is not None else report.statistics
        try:
            with self.store.engine.begin() as conn:
                prepare(self.store, conn, create=True)
                return record(conn, self.store, report, statistics, stamps, self.start, days)
        except SQLAlchemyError as err:
            raise self.store.error("cannot record", err) from None


def _insert(store: Store, table):
    if store.is_sqlite:
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(table)
    from sqlalchemy.dialects.postgresql import insert as postgresql_insert

    return postgresql_insert(table)


def record(
    conn,
    store: Store,
    report,
    statistics,
    stamps: dict[str, str | None],
    start: time,
    days: dict[str, date | None] | None = None,
) -> Outcome:
    """Every input of ``report`` in ``conn``'s transaction; an input whose SHA-256 the store
    holds is skipped (ON CONFLICT DO NOTHING: a concurrent job recording it too waits, then skips)."""
    out = Outcome()
    if not store.is_sqlite:  # one recording at a time, as SQLite's BEGIN IMMEDIATE does: each
        # input is sealed to the one recorded before it (``seal.py``), never two to the same
        conn.exec_driver_sql("LOCK TABLE audit_input IN EXCLUSIVE MODE")
    now = datetime.now(UTC).isoformat(timespec="seconds")
    anomalies = (
        {a.group.key: a.p_adjusted for a in statistics.anomalies()}
        if statistics is not None
        else {}
    )
    # by input, each gathered once (not searched again for each input of a folder of thousands)
    tables_of: dict[str, list] = defaultdict(list)
    for t in report.table_stats:
        tables_of[t.path].append(t)
    suppressed_of: dict[str, list] = defaultdict(list)
    for s in report.suppressed:
        suppressed_of[s.finding.path].append((s.finding, s.fingerprint, True))
    findings_of: dict[str, int] = defaultdict(int)
    for (path, _), n in report.tally().categories.items():
        findings_of[path] += sum(n.values())
    for inp in report.inputs:
        tables = tables_of.get(inp.path, [])
        suppressed = suppressed_of.get(inp.path, [])
        findings = findings_of.get(inp.path, 0)
        stamp = stamps.get(inp.path)
        row = {
            "sha256": inp.sha256,
            "path": inp.path,
            "size": inp.size,
            "lines": inp.lines,
            "events": inp.accounting.get("events", 0),
            "first_event": stamp,
            "gaming_day": (
                days.get(inp.path)
                if days is not None
                else of_stamp(stamp, start)
                if stamp is not None
                else None
            ),
            "tables": len(tables),
            "rounds": sum(t.rounds for t in tables),
            "findings": findings,
            "suppressed": len(suppressed),
            "alpha": statistics.alpha if statistics is not None else None,
            "audit_version": __version__,
            "recorded_at": now,
        }
        ins = (
            _insert(store, schema.inputs)
            .values(**_storable(row))
            .on_conflict_do_nothing(index_elements=["sha256"])
        )
        input_id = conn.execute(ins.returning(schema.inputs.c.id)).scalar()
        if input_id is None:
            out.known.append(inp.path)
            continue
        _many(conn, schema.tables, [_table_row(input_id, t) for t in tables])
        _many(
            conn,
            schema.dealers,
            [
                {"input_id": input_id, "table_id": t.table, "dealer": dealer, "rounds": n}
                for t in tables
                for dealer, n in sorted(t.dealer_rounds.items(), key=lambda kv: kv[0] or "")
            ],
        )
        found = ((f, fp, False) for f, fp in report.fingerprinted() if f.path == inp.path)
        for rows in _batches(_finding_row(input_id, *f) for f in chain(found, suppressed)):
            _many(conn, schema.findings, rows)
        if statistics is not None:  # read from the run's group store, a batch at a time
            for rows in _batches(
                _group_row(input_id, g, anomalies.get(g.key))
                for g in statistics.groups
                if g.path == inp.path
            ):
                _many(conn, schema.groups, rows)
        out.head = seal.seal(conn, input_id)
        out.recorded.append(inp.path)
        out.days.append(row["gaming_day"])
    return out


def _many(conn, table, rows: list[dict]) -> None:
    if rows:
        conn.execute(table.insert(), [_storable(row) for row in rows])


def _storable(row: dict) -> dict:
    """The row with each text UTF-8 can hold: a file name's byte that is not UTF-8 (a lone
    surrogate) written ``\\xNN``, as the JSON report writes it (SQLite and PostgreSQL refuse a
    lone surrogate, and the night would not be recorded)."""
    for key, value in row.items():
        if type(value) is str and not value.isascii():
            row[key] = undecodable_escaped(value)
    return row


def _batches(rows: Iterable[dict], size: int = BATCH) -> Iterator[list[dict]]:
    """``rows`` a list of ``size`` at a time: a night's findings are inserted without all their rows in memory."""
    batch: list[dict] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def money(value: Decimal | None) -> str | None:
    return None if value is None else format(value, "f")


def _table_row(input_id: int, t) -> dict:
    return {
        "input_id": input_id,
        "table_id": t.table,
        "game": t.game,
        "ruleset": t.ruleset,
        "overlay": t.overlay,
        "house_banked": t.house_banked,
        "rounds": t.rounds,
        "drop_amount": money(t.drop),
        "paid": money(t.paid),
        "collected": money(t.collected),
    }


def _finding_row(input_id: int, f, fingerprint: str, suppressed: bool) -> dict:
    return {
        "input_id": input_id,
        "rule": f.rule,
        "category": f.category,
        "severity": f.severity,
        "line": f.line,
        "table_id": f.table,
        "round": f.round,
        "time": f.time,
        "dealer": f.dealer,
        "shoe": f.shoe,
        "fingerprint": fingerprint,
        "message": f.message,
        "suppressed": suppressed,
    }


def _group_row(input_id: int, g, p_adjusted: float | None) -> dict:
    return {
        "input_id": input_id,
        "scope": g.scope,
        "ident": g.id,
        "test": g.test,
        "table_id": g.table,
        "ruleset": g.ruleset,
        "rounds": g.rounds,
        "handle": money(g.handle),
        "result": money(g.result),
        "expected": money(g.expected),
        "sd": money(g.sd),
        "cards": g.cards,
        "statistic": g.statistic,
        "z": g.z,
        "p": g.p,
        "p_adjusted": p_adjusted,
        "message": g.message,
        "bets": g.bets,
        "units": None if g.units is None else str(g.units),
        "units_expected": None if g.units_expected is None else str(g.units_expected),
        "units_sd": None if g.units_sd is None else str(g.units_sd),
    }
