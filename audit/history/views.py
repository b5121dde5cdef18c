"""The views of ``audit history``: nights, tables, dealers, rules (compare: ``compare.py``).

Each view is a list of rows (dicts) under named columns, the same on every backend: the SQL
selects and counts, money is added up here as ``Decimal`` from the exact strings stored.
Suppressed findings (accepted by a run's baseline) are counted in ``nights`` only.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from . import periods, schema

HUNDREDTH = Decimal("0.01")
ZERO = Decimal(0)


@dataclass
class View:
    columns: list[str]
    rows: list[dict]
    #: what the text says when there is no row
    empty: str = "nothing recorded in this range"


@dataclass
class TableNight:
    day: date
    input_id: int
    table: str
    game: str
    house_banked: bool
    rounds: int
    drop: Decimal
    result: Decimal


def _between(query, column, since: date | None, until: date | None):
    query = query.where(column.is_not(None))
    if since is not None:
        query = query.where(column >= since)
    if until is not None:
        query = query.where(column <= until)
    return query


def table_nights(conn, since: date | None, until: date | None) -> list[TableNight]:
    """Every table of every input whose gaming day is in the range, in a stable order."""
    from sqlalchemy import select

    i, t = schema.inputs, schema.tables
    query = select(
        i.c.gaming_day,
        i.c.id,
        t.c.table_id,
        t.c.game,
        t.c.house_banked,
        t.c.rounds,
        t.c.drop_amount,
        t.c.paid,
        t.c.collected,
    ).join(t, t.c.input_id == i.c.id)
    query = _between(query, i.c.gaming_day, since, until).order_by(
        i.c.gaming_day, t.c.table_id, i.c.sha256
    )
    return [
        TableNight(
            r.gaming_day,
            r.id,
            r.table_id,
            r.game,
            bool(r.house_banked),
            r.rounds,
            Decimal(r.drop_amount),
            Decimal(r.collected) - Decimal(r.paid),
        )
        for r in conn.execute(query)
    ]


def hold(win: Decimal, drop: Decimal) -> Decimal | None:
    """Win as a percentage of the drop, to the hundredth (None: nothing staked)."""
    return (win * 100 / drop).quantize(HUNDREDTH) if drop > 0 else None


def rate(count: int, rounds: int) -> Decimal | None:
    """Findings per 100 rounds, to the hundredth (None: no round)."""
    return (Decimal(count) * 100 / rounds).quantize(HUNDREDTH) if rounds else None


INPUTS = [
    "path",
    "sha256",
    "gaming_day",
    "first_event",
    "tables",
    "rounds",
    "findings",
    "suppressed",
    "lines",
    "size",
    "audit_version",
    "recorded_at",
]


def inputs(conn, since: date | None, until: date | None) -> View:
    """The recorded inputs, by gaming day (an input without a time shows only when no range is given)."""
    from sqlalchemy import select

    i = schema.inputs
    query = select(*(i.c[name] for name in INPUTS))
    query = _between(query, i.c.gaming_day, since, until) if since or until else query
    rows = [dict(r._mapping) for r in conn.execute(query)]
    for row in rows:
        row["gaming_day"] = row["gaming_day"].isoformat() if row["gaming_day"] else None
    rows.sort(key=lambda r: (r["gaming_day"] or "", r["path"], r["sha256"]))
    return View(INPUTS, rows)


NIGHTS = [
    "gaming_day",
    "inputs",
    "first_event",
    "tables",
    "rounds",
    "findings",
    "suppressed",
    "lines",
    "size",
    "recorded_at",
]
_SUMMED = ("tables", "rounds", "findings", "suppressed", "lines", "size")


def nights(conn, since: date | None, until: date | None) -> View:
    """One row a night, that is a gaming day, whatever the files it came in (one file a table, or
    several logs of a night, are one night): how many inputs, its first event, the sums of its
    inputs, the last time one was recorded. The inputs without a time, shown only when no range
    is given, are one row without a gaming day."""
    by_day: dict[str | None, dict] = {}
    for row in inputs(conn, since, until).rows:
        night = by_day.setdefault(
            row["gaming_day"],
            {
                "gaming_day": row["gaming_day"],
                "inputs": 0,
                "first_event": None,
                "recorded_at": None,
                **{name: 0 for name in _SUMMED},
            },
        )
        night["inputs"] += 1
        for name in _SUMMED:
            night[name] += row[name] or 0
        if row["first_event"] and (
            night["first_event"] is None or row["first_event"] < night["first_event"]
        ):
            night["first_event"] = row["first_event"]
        if row["recorded_at"] and (
            night["recorded_at"] is None or row["recorded_at"] > night["recorded_at"]
        ):
            night["recorded_at"] = row["recorded_at"]
    return View(NIGHTS, sorted(by_day.values(), key=lambda r: r["gaming_day"] or ""))


TABLES = ["period", "game", "table", "nights", "rounds", "drop", "result", "hold"]


def tables(conn, period: str, since: date | None, until: date | None) -> View:
    """Drop, result and hold per table and per game (``table`` null), each period: the daily,
    month-to-date and year-to-date report. The hold is the house's win over the drop, at the
    tables the house banks (null where the bank is a player's)."""
    sums: dict[tuple[str, str, str | None], dict] = {}
    for n in table_nights(conn, since, until):
        p = periods.key(n.day, period)
        for k in ((p, n.game, n.table), (p, n.game, None)):
            s = sums.setdefault(
                k,
                {
                    "nights": set(),
                    "rounds": 0,
                    "drop": ZERO,
                    "result": ZERO,
                    "banked_drop": ZERO,
                    "banked_win": ZERO,
                },
            )
            s["nights"].add(n.day)  # a night is a gaming day, however many files it came in
            s["rounds"] += n.rounds
            s["drop"] += n.drop
            s["result"] += n.result
            if n.house_banked:
                s["banked_drop"] += n.drop
                s["banked_win"] += n.result
    rows = []
    for (p, game, table), s in sorted(
        sums.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] is None, kv[0][2] or "")
    ):
        rows.append(
            {
                "period": p,
                "game": game,
                "table": table,
                "nights": len(s["nights"]),
                "rounds": s["rounds"],
                "drop": s["drop"],
                "result": s["result"],
                "hold": hold(s["banked_win"], s["banked_drop"]),
            }
        )
    return View(TABLES, rows)


DEALERS = [
    "period",
    "dealer",
    "tables",
    "nights",
    "rounds",
    "findings",
    "errors",
    "per_100_rounds",
    "handle",
    "result",
]


def dealers(conn, period: str, since: date | None, until: date | None) -> View:
    """Per dealer and period: rounds dealt, findings at that dealer's tables while in charge and
    their rate per 100 rounds; the handle and the house's result from the statistics, when
    recorded. ``dealer`` null: rounds before any DEALER line, and findings at no dealer."""
    from sqlalchemy import func, select

    i, d, f, g = schema.inputs, schema.dealers, schema.findings, schema.groups
    sums: dict[tuple[str, str | None], dict] = defaultdict(
        lambda: {
            "tables": set(),
            "nights": set(),
            "rounds": 0,
            "findings": 0,
            "errors": 0,
            "handle": None,
            "result": None,
        }
    )
    q = select(i.c.gaming_day, i.c.id, d.c.table_id, d.c.dealer, d.c.rounds).join(
        d, d.c.input_id == i.c.id
    )
    for r in conn.execute(_between(q, i.c.gaming_day, since, until)):
        s = sums[(periods.key(r.gaming_day, period), r.dealer)]
        s["tables"].add(r.table_id)
        s["nights"].add(r.gaming_day)
        s["rounds"] += r.rounds
    q = (
        select(i.c.gaming_day, f.c.dealer, f.c.severity, func.count())
        .join(f, f.c.input_id == i.c.id)
        .where(f.c.suppressed.is_(False))
        .group_by(i.c.gaming_day, f.c.dealer, f.c.severity)
    )
    for day, dealer, severity, count in conn.execute(_between(q, i.c.gaming_day, since, until)):
        s = sums[(periods.key(day, period), dealer)]
        s["findings"] += count
        s["errors"] += count if severity == "error" else 0
    q = (
        select(i.c.gaming_day, g.c.ident, g.c.handle, g.c.result)
        .join(g, g.c.input_id == i.c.id)
        .where(g.c.scope == "dealer", g.c.test == "result")
    )
    for r in conn.execute(_between(q, i.c.gaming_day, since, until)):
        s = sums[(periods.key(r.gaming_day, period), r.ident)]
        s["handle"] = (s["handle"] or ZERO) + Decimal(r.handle)
        s["result"] = (s["result"] or ZERO) + Decimal(r.result)
    rows = [
        {
            "period": p,
            "dealer": dealer,
            "tables": len(s["tables"]),
            "nights": len(s["nights"]),
            "rounds": s["rounds"],
            "findings": s["findings"],
            "errors": s["errors"],
            "per_100_rounds": rate(s["findings"], s["rounds"]),
            "handle": s["handle"],
            "result": s["result"],
        }
        for (p, dealer), s in sums.items()
    ]
    rows.sort(key=lambda r: (r["period"], r["dealer"] is None, r["dealer"] or ""))
    return View(DEALERS, rows)


RULES = [
    "period",
    "rule",
    "category",
    "findings",
    "per_100_rounds",
    "nights",
    "tables",
    "repeat_tables",
    "previous",
    "trend",
]


def rules(conn, period: str, since: date | None, until: date | None) -> View:
    """Each rule's findings per period, against the period before (the trend), and its repeat
    breaches: the tables where it fired on two gaming days or more of the period."""
    from sqlalchemy import func, select

    i, f = schema.inputs, schema.findings
    first = periods.before(since, period) if since is not None else None
    q = (
        select(i.c.gaming_day, i.c.id, f.c.rule, f.c.category, f.c.table_id, func.count())
        .join(f, f.c.input_id == i.c.id)
        .where(f.c.suppressed.is_(False))
        .group_by(i.c.gaming_day, i.c.id, f.c.rule, f.c.category, f.c.table_id)
    )
    sums: dict[tuple[str, str], dict] = defaultdict(
        lambda: {"category": "", "findings": 0, "nights": set(), "tables": defaultdict(set)}
    )
    for day, _input_id, rule, category, table, count in conn.execute(
        _between(q, i.c.gaming_day, first, until)
    ):
        s = sums[(periods.key(day, period), rule)]
        s["category"] = category
        s["findings"] += count
        s["nights"].add(day)
        if table is not None:
            s["tables"][table].add(day)
    rounds: dict[str, int] = defaultdict(int)
    for n in table_nights(conn, first, until):
        rounds[periods.key(n.day, period)] += n.rounds
    shown = periods.key(since, period) if since is not None else ""
    rows = []
    for (p, rule), s in sorted(sums.items()):
        if p < shown:
            continue
        earlier = sums.get((_previous_key(p, period), rule))
        previous = earlier["findings"] if earlier else 0
        trend = (
            "new"
            if not previous
            else "up"
            if s["findings"] > previous
            else "down"
            if s["findings"] < previous
            else "same"
        )
        rows.append(
            {
                "period": p,
                "rule": rule,
                "category": s["category"],
                "findings": s["findings"],
                "per_100_rounds": rate(s["findings"], rounds[p]),
                "nights": len(s["nights"]),
                "tables": len(s["tables"]),
                "repeat_tables": sum(1 for days in s["tables"].values() if len(days) > 1),
                "previous": previous,
                "trend": trend,
            }
        )
    return View(RULES, rows)


def _previous_key(key: str, period: str) -> str:
    day = date.fromisoformat(
        key if period == "day" else f"{key}-01" if period == "month" else f"{key}-01-01"
    )
    earlier = periods.before(day, period)
    return (
        periods.key(earlier, period) if earlier is not None else ""
    )  # the year 0001 has no period before
