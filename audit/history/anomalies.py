"""``audit history anomalies``: each statistics group of the recorded nights summed over a period.

A patient cheat, invisible in any one night, shows in the month. Each group (table, dealer,
player, pair, and a game's own scopes) is summed per period over every recorded night
whose gaming day falls in it: rounds, handle, result and expected add up, and so do the
variances (the nights are independent). A shoe is one night's and is not summed. The sums are
tested as a night's groups are (``audit.statistics``: from 30 rounds, z against the normal
distribution) and corrected together by Holm's method, every period of the view at once: one
look at each period, as it stands on the last night recorded in the range (docs/statistics.md
says how the morning page's nightly look at the month to date spends alpha).
"""

from __future__ import annotations

import calendar
import math
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from ..registry import game_scopes
from ..statistics import DEFAULT_ALPHA, MIN_ROUNDS, Group, Statistics
from . import periods, schema
from .gaming_day import of_stamp
from .views import View

COLUMNS = [
    "period",
    "scope",
    "id",
    "table",
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
#: the scopes summed over nights (a shoe is one night's)
SUMMED = ("table", "dealer", "player", "pair", *game_scopes())
CENT = Decimal("0.01")


class _Sum:
    __slots__ = ("days", "expected", "handle", "result", "rounds", "variance")

    def __init__(self) -> None:
        self.days: set[date] = set()
        self.rounds = 0
        self.handle = self.result = self.expected = self.variance = Decimal(0)


def summed(
    conn, period: str, since: date | None, until: date | None, skip: Collection[str] = frozenset()
) -> dict[tuple, _Sum]:
    """(period, scope, id, table) -> the group's sums over the period's recorded nights (but the
    inputs whose SHA-256 is in ``skip``)."""
    from sqlalchemy import select

    i, g = schema.inputs, schema.groups
    query = (
        select(
            i.c.gaming_day,
            g.c.scope,
            g.c.ident,
            g.c.table_id,
            g.c.rounds,
            g.c.handle,
            g.c.result,
            g.c.expected,
            g.c.sd,
        )
        .join(g, g.c.input_id == i.c.id)
        .where(g.c.test == "result", g.c.scope.in_(SUMMED))
    )
    query = query.where(i.c.gaming_day.is_not(None))
    if since is not None:
        query = query.where(i.c.gaming_day >= since)
    if until is not None:
        query = query.where(i.c.gaming_day <= until)
    if skip:
        query = query.where(i.c.sha256.not_in(sorted(skip)))
    sums: dict[tuple, _Sum] = defaultdict(_Sum)
    for r in conn.execute(query):
        s = sums[(periods.key(r.gaming_day, period), r.scope, r.ident, r.table_id)]
        s.days.add(r.gaming_day)
        s.rounds += r.rounds
        s.handle += Decimal(r.handle)
        s.result += Decimal(r.result)
        s.expected += Decimal(r.expected)
        s.variance += Decimal(r.sd) ** 2
    return sums


def tested(sums: dict[tuple, _Sum], alpha: float) -> Statistics:
    """Every summed group as a ``Group`` (its ``path`` the period), tested, for Holm's correction."""
    groups = []
    for (when, scope, ident, table), s in sorted(
        sums.items(), key=lambda kv: kv[0][:3] + (kv[0][3] or "",)
    ):
        sd = s.variance.sqrt()
        g = Group(
            scope,
            ident,
            when,
            "result",
            table,
            None,
            s.rounds,
            handle=s.handle,
            result=s.result,
            expected=s.expected,
            sd=sd.quantize(CENT),
            cards=len(s.days),  # here: the nights summed
        )
        if scope == "pair":
            g.dealer, g.player = ident.split("+", 1)
        if s.rounds >= MIN_ROUNDS and s.variance > 0:
            z = float((s.result - s.expected) / sd)
            g.z = round(z, 2) + 0.0
            g.p_exact = math.erfc(abs(z) / math.sqrt(2))
            g.p = float(f"{g.p_exact:.3g}")
            g.message = _message(g, s)
        groups.append(g)
    return Statistics(alpha=alpha, groups=groups)


def _message(g: Group, s: _Sum) -> str:
    gap = s.result - s.expected  # the bank's excess (the house's, or a player's who holds it)
    amount = format(abs(gap).quantize(CENT), ",.2f")
    nights = f"{len(s.days)} night{'s' if len(s.days) != 1 else ''}"
    over = f"over {s.rounds} rounds in {nights} of {g.path} (z = {g.z:.2f})"
    if g.scope in game_scopes():
        return f"player {g.id} as {g.scope} {'won' if gap > 0 else 'lost'} {amount} more than expected {over}"
    if g.scope in ("player", "pair"):
        who = (
            f"player {g.id}" if g.scope == "player" else f"player {g.player} with dealer {g.dealer}"
        )
        return f"{who} {'won' if gap < 0 else 'lost'} {amount} more than expected {over}"
    where = f"at table {g.id}" if g.scope == "table" else f"with dealer {g.id} in charge"
    return f"the house won {amount} {'more' if gap > 0 else 'less'} than expected {where} {over}"


def anomalies(
    conn, period: str, since: date | None, until: date | None, alpha: float = DEFAULT_ALPHA
) -> View:
    """The groups summed per period whose Holm-corrected p is below alpha, most improbable first."""
    found = tested(summed(conn, period, since, until), alpha).anomalies()
    found.sort(key=lambda a: (a.group.p_exact, a.group.path, a.group.scope, a.group.id))
    rows = [
        {
            "period": a.group.path,
            "scope": a.group.scope,
            "id": a.group.id,
            "table": a.group.table,
            "nights": a.group.cards,
            "rounds": a.group.rounds,
            "handle": a.group.handle,
            "result": a.group.result,
            "expected": a.group.expected,
            "sd": a.group.sd,
            "z": a.group.z,
            "p": a.group.p,
            "p_adjusted": a.p_adjusted,
            "message": a.group.message,
        }
        for a in found
    ]
    return View(COLUMNS, rows, empty="no anomaly in this range")


def month_to_date(recorder, report, statistics) -> MonthToDate | None:
    """The month of the night's gaming day, its recorded nights and this run's groups summed, tested
    at alpha spent over the month's nights (``alpha / days in the month``: one look a night, the
    chance of a false alarm in the month's looks held at alpha). None without a gaming day."""
    from sqlalchemy.exc import SQLAlchemyError

    days = [
        i.gaming_day or of_stamp(i.first_event, recorder.start)
        for i in report.inputs
        if i.first_event
    ]
    days = [d for d in days if d is not None]
    if statistics is None or not days:
        return None
    last = max(days)
    first = periods.start(last, "month")
    when = periods.key(last, "month")
    tonight = {i.sha256 for i in report.inputs}
    try:
        with recorder.store.engine.connect() as conn:
            sums = summed(conn, "month", first, last, skip=tonight)
    except SQLAlchemyError:  # no store yet, or not readable: tonight alone
        sums = defaultdict(_Sum)
    for g in statistics.groups:
        if g.test != "result" or g.scope not in SUMMED or g.handle is None:
            continue
        s = sums[(when, g.scope, g.id, g.table)]
        s.days.add(last)
        s.rounds += g.rounds
        s.handle += g.handle
        s.result += g.result
        s.expected += g.expected
        s.variance += g.sd**2
    spent = statistics.alpha / calendar.monthrange(last.year, last.month)[1]
    found = tested(sums, spent).anomalies()
    found.sort(key=lambda a: (a.group.p_exact, a.group.scope, a.group.id))
    nights = set().union(*(s.days for s in sums.values())) if sums else set()
    return MonthToDate(first, last, len(nights), spent, found)


@dataclass
class MonthToDate:
    """What the morning page shows beside the night: the month to date's anomalies."""

    first: date
    last: date
    nights: int
    alpha: float
    anomalies: list
