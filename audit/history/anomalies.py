"""``audit history anomalies``: each statistics group of the recorded nights summed over a period.

A patient cheat, invisible in any one night, shows in the month. Each group (table, dealer,
player, pair, and a game's own scopes) is summed per period over every recorded night
whose gaming day falls in it: rounds, handle, result and expected add up, and so do the
variances (the nights are independent). A shoe is one night's and is not summed. The sums are
tested as a night's groups are (``audit.statistics``: from 30 rounds, z against the normal
distribution; a bettor's units test, his main bets' results per unit staked, summed the same
way) and corrected together by Holm's method, every period of the view at once: one
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
from ..statistics import DEFAULT_ALPHA, MIN_BETS, MIN_ROUNDS, Group, Statistics
from . import periods, schema
from .gaming_day import of_stamp
from .misfits import reading
from .views import View

COLUMNS = [
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
#: the scopes summed over nights (a shoe is one night's)
SUMMED = ("table", "dealer", "player", "pair", *game_scopes())
CENT = Decimal("0.01")


#: the tests summed over nights: money, and results per unit staked
TESTS = ("result", "units")


class _Sum:
    __slots__ = (
        "bets",
        "days",
        "expected",
        "handle",
        "result",
        "rounds",
        "units",
        "units_expected",
        "units_variance",
        "variance",
    )

    def __init__(self) -> None:
        self.days: set[date] = set()
        self.rounds = 0
        self.handle = self.result = self.expected = self.variance = Decimal(0)
        #: the units test's sums (test "units")
        self.bets = 0
        self.units = self.units_expected = self.units_variance = Decimal(0)

    def add_units(self, bets, units, expected, sd) -> None:
        if bets is not None:
            self.bets += bets
            self.units += Decimal(units)
            self.units_expected += Decimal(expected)
            self.units_variance += Decimal(sd) ** 2


def summed(
    conn, period: str, since: date | None, until: date | None, skip: Collection[str] = frozenset()
) -> dict[tuple, _Sum]:
    """(period, scope, id, table, test) -> the group's sums over the period's recorded nights (but
    the inputs whose SHA-256 is in ``skip``)."""
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
            g.c.test,
            g.c.bets,
            g.c.units,
            g.c.units_expected,
            g.c.units_sd,
        )
        .join(g, g.c.input_id == i.c.id)
        .where(g.c.test.in_(TESTS), g.c.scope.in_(SUMMED))
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
        s = sums[(periods.key(r.gaming_day, period), r.scope, r.ident, r.table_id, r.test)]
        s.days.add(r.gaming_day)
        s.rounds += r.rounds
        s.handle += Decimal(r.handle)
        s.result += Decimal(r.result)
        s.expected += Decimal(r.expected)
        s.variance += Decimal(r.sd) ** 2
        s.add_units(r.bets, r.units, r.units_expected, r.units_sd)
    return sums


def tested(sums: dict[tuple, _Sum], alpha: float) -> Statistics:
    """Every summed group as a ``Group`` (its ``path`` the period), tested, for Holm's correction."""
    groups = []
    for (when, scope, ident, table, test), s in sorted(
        sums.items(), key=lambda kv: kv[0][:3] + (kv[0][3] or "", kv[0][4])
    ):
        sd = s.variance.sqrt()
        g = Group(
            scope,
            ident,
            when,
            test,
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
        if test == "units":
            _units(g, s)
        elif s.rounds >= MIN_ROUNDS and s.variance > 0:
            z = float((s.result - s.expected) / sd)
            g.z = round(z, 2) + 0.0
            g.p_exact = math.erfc(abs(z) / math.sqrt(2))
            g.p = float(f"{g.p_exact:.3g}")
            g.message = _message(g, s)
        groups.append(g)
    return Statistics(alpha=alpha, groups=groups)


def _units(g: Group, s: _Sum) -> None:
    """The units test summed over nights: the main bets' results per unit staked (the nights'
    expectations and variances add up)."""
    g.bets, g.units, g.units_expected = s.bets, s.units, s.units_expected
    g.units_sd = s.units_variance.sqrt().quantize(Decimal("0.0001"))
    if s.bets < MIN_BETS or s.units_variance <= 0:
        return
    gap = s.units - s.units_expected
    z = float(gap / s.units_variance.sqrt())
    g.z = round(z, 2) + 0.0
    g.p_exact = math.erfc(abs(z) / math.sqrt(2))
    g.p = float(f"{g.p_exact:.3g}")
    amount = format(abs(gap).quantize(CENT), ",.2f")
    nights = f"{len(s.days)} night{'s' if len(s.days) != 1 else ''}"
    over = f"over {s.bets} main bets in {nights} of {g.path}, per unit staked (z = {g.z:.2f})"
    if g.scope in game_scopes():
        did = "won" if gap > 0 else "lost"
        g.message = f"player {g.id} as {g.scope} {did} {amount} units more than expected {over}"
        return
    who = f"player {g.id}" if g.scope == "player" else f"player {g.player} with dealer {g.dealer}"
    g.message = f"{who} {'won' if gap < 0 else 'lost'} {amount} units more than expected {over}"


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
    found.sort(
        key=lambda a: (a.group.p_exact, a.group.path, a.group.scope, a.group.id, a.group.test)
    )
    rows = [
        {
            "period": a.group.path,
            "scope": a.group.scope,
            "id": a.group.id,
            "table": a.group.table,
            "test": a.group.test,
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
    spent = statistics.alpha / calendar.monthrange(last.year, last.month)[1]

    def month(conn) -> MonthToDate:
        sums = summed(conn, "month", first, last, skip=tonight)
        for g in statistics.groups:
            if g.test not in TESTS or g.scope not in SUMMED or g.handle is None:
                continue
            s = sums[(when, g.scope, g.id, g.table, g.test)]
            s.days.add(last)
            s.rounds += g.rounds
            s.handle += g.handle
            s.result += g.result
            s.expected += g.expected
            s.variance += g.sd**2
            s.add_units(g.bets, g.units, g.units_expected, g.units_sd)
        found = tested(sums, spent).anomalies()
        found.sort(key=lambda a: (a.group.p_exact, a.group.scope, a.group.id, a.group.test))
        nights = set().union(*(s.days for s in sums.values())) if sums else set()
        return MonthToDate(first, last, len(nights), spent, found)

    try:  # a value no recording writes, met anywhere on the way: DamagedStore
        with recorder.store.engine.connect() as conn:
            return reading(conn, recorder.store.shown, lambda: month(conn))
    except SQLAlchemyError as err:  # never tonight alone, as if the month had no other night
        raise recorder.store.error("cannot read the month to date", err) from None


@dataclass
class MonthToDate:
    """What the morning page shows beside the night: the month to date's anomalies."""

    first: date
    last: date
    nights: int
    alpha: float
    anomalies: list
