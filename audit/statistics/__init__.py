"""The surveillance statistics of an audit (contract ``statistics.md``, section 2).

Built once the tables of every part are merged, in the report's order (tables sorted), so
that the figures are the same byte for byte whatever ``--jobs``. Groups: money (the result
against its exact expectation) per table, dealer, player and shoe (and per player in a game's
own scopes), and the card tests per shoe and per table. Anomalies: the groups
whose p-value, corrected by Holm's step-down method for the number of groups tested in
the run, is below alpha.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import groupby
from operator import attrgetter, itemgetter

from ..engine import card_tests
from ..engine.surveillance import SCOPES, Acc, CardSums, Record, record_order
from ..registry import game_scopes
from .money import Figures, MoneyGroup, cents, float_places, rounded, units
from .store import GroupStore

DEFAULT_ALPHA = 0.001
#: how the p-values are corrected for the number of groups tested (the report says it)
CORRECTION = "holm"
#: fewest rounds for a money group to be tested (the normal approximation needs a sample)
MIN_ROUNDS = 30
#: fewest main bets for a units test: its results per unit are skewed (a hand that doubles its
#: stake loses two units), and at 30 bets the normal tail far out, where Holm looks, is too thin
MIN_BETS = 100
#: the units test's figures (results per unit staked) are written to four decimals
UNIT_DIGITS = 4
UNIT_PLACES = Decimal(1).scaleb(-UNIT_DIGITS)


@dataclass(slots=True)
class Group:
    scope: str
    id: str
    path: str
    #: what was measured: "result" (money), "units" (results per unit staked), "ranks" (rank
    #: frequencies) or "order" (neighbours of equal rank)
    test: str
    table: str | None
    ruleset: str | None
    rounds: int
    handle: Decimal | None = None
    result: Decimal | None = None
    expected: Decimal | None = None
    sd: Decimal | None = None
    cards: int | None = None
    statistic: float | None = None
    z: float | None = None
    p: float | None = None
    #: the exact p-value, before rounding (for the correction)
    p_exact: float | None = None
    message: str = ""
    #: a pair's dealer and player (scope ``pair``, id ``DEALER+PLAYER``)
    dealer: str | None = None
    player: str | None = None
    #: where the group's rounds were, for whoever pulls the footage: the dealers on duty, the shoes
    #: (``TABLE#N``), the first round's beginning and the last round's end (line, time as written)
    dealers: tuple[str, ...] = ()
    shoes: tuple[str, ...] = ()
    first_line: int | None = None
    last_line: int | None = None
    first_time: str | None = None
    last_time: str | None = None
    #: the units test (test "units"): the main bets counted, the sum of their results per unit
    #: staked, its exact expectation and its sd (per unit, from the same side as ``result``)
    bets: int | None = None
    units: Decimal | None = None
    units_expected: Decimal | None = None
    units_sd: Decimal | None = None

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What names the group in a run (a group read back from a file is another object)."""
        return (self.path, self.scope, self.id, self.test)


@dataclass
class Anomaly:
    group: Group
    p_adjusted: float
    #: a player's or pair's anomaly: the shoes of the same table whose cards are an anomaly too
    linked: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        """The group's message, and, for a player at a table with a clumped shoe, where his rounds were."""
        g = self.group
        if not self.linked:
            return g.message
        mine = [shoe for shoe in self.linked if shoe in g.shoes]
        others = [shoe for shoe in self.linked if shoe not in g.shoes]
        side = "the beneficiary" if (g.z or 0) < 0 else "the victim"
        parts = []
        if mine:
            parts.append(
                f"his rounds include shoe {', '.join(mine)}, whose cards are an anomaly too: "
                f"he was {side}"
            )
        if others:
            parts.append(f"none of his rounds were at the anomalous shoe {', '.join(others)}")
        return g.message + "; " + "; ".join(parts)


@dataclass
class Statistics:
    alpha: float = DEFAULT_ALPHA
    #: every group, in report order (a ``GroupStore`` after a build: read, not held, on a long night)
    groups: list[Group] | GroupStore = field(default_factory=list)
    #: the last answer of ``anomalies``, for the alpha and the number of groups it was read for
    _anomalies: tuple[float, int, list[Anomaly]] | None = field(
        default=None, repr=False, compare=False
    )
    _tested: int = field(default=0, repr=False, compare=False)
    #: what ``add`` counted as the groups were made: [alpha, groups added, groups tested, the
    #: groups whose p-value is below that alpha]
    _tally: list = field(default_factory=list, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._tally = [self.alpha, 0, 0, []]

    @property
    def tested(self) -> int:
        """The groups whose p-value counts in the correction (a money group of 30 rounds or more, a
        card test of 65 cards or more)."""
        self.anomalies()
        return self._tested

    def add(self, group: Group) -> None:
        """A group appended as the build makes it, and counted for the correction on the way: the
        anomalies then need no second pass over the groups (written out, on a long night)."""
        self.groups.append(group)
        tally = self._tally
        tally[1] += 1
        p = group.p_exact
        if p is not None:
            tally[2] += 1
            if p < tally[0]:
                tally[3].append(group)

    def changed(self) -> None:
        """The groups were edited after the build (a test making an anomaly, say): the anomalies are
        read again from the groups, not from what ``add`` counted."""
        self._anomalies = None
        self._tally[1] = -1

    def anomalies(self) -> list[Anomaly]:
        """Holm: the k-th smallest of m p-values times (m - k + 1), never below the one before.

        Only a p-value below alpha can be an anomaly (the product is never below the p-value),
        so those are all the sort needs, with m: as ``add`` counted them when every group was
        added that way for this alpha, else read in one pass."""
        seen = (self.alpha, len(self.groups))
        if self._anomalies is not None and self._anomalies[:2] == seen:
            return self._anomalies[2]
        alpha, added, m, found = self._tally
        candidates: list[Group] = found
        if (alpha, added) != seen:
            m, candidates = 0, []
            for g in self.groups:
                if g.p_exact is not None:
                    m += 1
                    if g.p_exact < self.alpha:
                        candidates.append(g)
        candidates = sorted(candidates, key=lambda g: g.p_exact)  # type: ignore[arg-type, return-value]
        out, running = [], 0.0
        for k, group in enumerate(candidates):
            running = max(running, min(1.0, (m - k) * group.p_exact))
            if running >= self.alpha:
                break
            out.append(Anomaly(group, _round_p(running)))
        _link(out)
        self._anomalies = (*seen, out)
        self._tested = m
        return out


def _link(anomalies: list[Anomaly]) -> None:
    """A player's or pair's anomaly linked to the card anomalies of shoes at its tables that night."""
    clumped: dict[tuple[str, str], list[str]] = {}
    for a in anomalies:
        g = a.group
        if g.scope == "shoe" and g.test != "result" and g.table is not None:
            shoes = clumped.setdefault((g.path, g.table), [])
            if g.id not in shoes:
                shoes.append(g.id)
    if not clumped:
        return
    for a in anomalies:
        g = a.group
        if g.scope in ("player", "pair"):
            tables = {g.table} if g.table is not None else {s.rsplit("#", 1)[0] for s in g.shoes}
            a.linked = tuple(
                shoe for table in sorted(tables) for shoe in clumped.get((g.path, table), ())
            )


def build(report, library, alpha: float = DEFAULT_ALPHA) -> Statistics:
    """Every group of the report's tables (``report.table_stats``, in report order), made one at a time.

    For each input, its tables' records are read merged in report order (``Surveillance.records_in_order``);
    the records of one money group at one table (a shoe's, a player's sums written out in parts) are added
    exactly, then the group's tables in report order, as one table's sums were before. Each table's
    accumulators are let go once read."""
    stats = Statistics(alpha=alpha, groups=GroupStore(Group))
    figures: dict[tuple[str, str | None], Figures] = {}
    for path, tables in groupby(report.table_stats, key=attrgetter("path")):
        watched = [t for t in tables if t.surveillance is not None]
        played: dict[str, tuple[Figures, str]] = {}
        for t in watched:
            key = (t.ruleset, t.overlay)
            if key not in figures:
                ruleset = library.for_table(t.ruleset, t.table)
                figures[key] = Figures(units(ruleset) if ruleset is not None else {})
            played[t.table] = (figures[key], t.ruleset)
        merged = heapq.merge(
            *(t.surveillance.records_in_order() for t in watched), key=record_order
        )
        for groups in made_groups(path, merged, played):
            for g in groups:
                stats.add(g)
        for t in watched:
            t.surveillance.release()
            t.surveillance = None
    return stats


def made_groups(
    path: str, merged: Iterable[Record], played: dict[str, tuple[Figures, str]]
) -> Iterator[list[Group]]:
    """The groups of one input's records merged in report order, one (scope, id) at a time: its
    card tests (lent its money group's figures), its money group, and a bettor's units test, in
    report order. ``played``: each table's figures and ruleset. The report's build and the live
    looks make their groups here, the same way."""
    #: the card groups of the (scope, id) being read: its money group, next, lends them its figures
    pending: list[Group] = []
    for (scope, ident, test), records in groupby(merged, key=itemgetter(0, 1, 2)):
        if pending and (pending[0].scope, pending[0].id) != (SCOPES[scope], ident):
            yield pending
            pending = []
        if test == "result":
            money = MoneyGroup()
            for table, parts in groupby(records, key=_TABLE):
                figures, ruleset = played[table]
                money.add(_summed(parts), figures, table, ruleset)
            group = _money_group(path, SCOPES[scope], ident, money)
            for card in pending:
                card.handle, card.result = group.handle, group.result
                card.expected, card.sd = group.expected, group.sd
            pending.append(group)
            if money.bets:  # a bettor's group: its units test too
                pending.append(_units_group(group, money))
            yield pending
            pending = []
        else:
            for record in records:  # one: a shoe's test, or a table's shoes summed
                pending.append(_placed_card_group(path, record, played[record[3]][1]))
    if pending:
        yield pending


#: a record's table: the key its group's records are summed by, table by table
_TABLE = itemgetter(3)


def _summed(parts: Iterator[Record]) -> Acc:
    """One group's sums at one table, from its records (usually one: then it, not a copy)."""
    first = next(parts)[5]
    second = next(parts, None)
    if second is None:
        return first
    total = Acc()
    total.merge(first)
    total.merge(second[5])
    for record in parts:
        total.merge(record[5])
    return total


def _place(g: Group, shoes: set[tuple[str, int]], where) -> None:
    """Where the group's rounds were: ``where`` has their dealers and first and last marks."""
    g.dealers = tuple(sorted(where.dealers))
    g.shoes = tuple(f"{table}#{n}" for table, n in sorted(shoes) if n)
    if where.first is not None:
        g.first_line, g.first_time = where.first
    if where.last is not None:
        g.last_line, g.last_time = where.last


def _money_group(path: str, scope: str, ident: str, m: MoneyGroup) -> Group:
    table = next(iter(m.tables)) if len(m.tables) == 1 else None
    ruleset = next(iter(m.rulesets)) if len(m.rulesets) == 1 else None
    numerator, denominator = m.ratio()
    # positional, in the fields' order (scope to sd): tens of thousands of groups a long night, and a
    # call by keywords costs twice as much
    g = Group(
        scope,
        ident,
        path,
        "result",
        table,
        ruleset,
        m.rounds,
        m.handle,
        m.result,
        cents(numerator, denominator),
        float_places(m.sd, 2),
    )
    if scope == "pair":
        g.dealer, g.player = ident.split("+", 1)
    if m.rounds >= MIN_ROUNDS and m.variance > 0:  # tested: it may be an anomaly, which says where
        _place(g, m.shoes, m)
        result, scale = m.result.as_integer_ratio()
        gap = (result * denominator - numerator * scale, scale * denominator)  # result - expected
        z = gap[0] / gap[1] / m.sd  # int / int: correctly rounded, as float(Fraction) is
        _set_z(g, z, math.erfc(abs(z) / math.sqrt(2)))
        g.message = _money_message(g, m, *gap)
    return g


def _placed_card_group(path: str, record: tuple, ruleset: str) -> Group:
    """A card test's group from its record (scope, id, test, table, seq, sums), with where its
    rounds were (the report's and the live statistics' one way)."""
    scope, ident, test, table = record[:4]
    card = _card_group(path, SCOPES[scope], ident, test, table, ruleset, record[5])
    where = record[5].where
    _place(card, {(table, n) for n in where.shoes if n}, where)
    return card


def _units_group(money: Group, m: MoneyGroup) -> Group:
    """The units test of a bettor's group: its main bets' results per unit staked, summed, against
    their exact mean and variance per unit. It lends the money group's figures and places."""
    g = Group(  # positional, in the fields' order (scope to last_time), as ``_money_group``'s
        money.scope,
        money.id,
        money.path,
        "units",
        money.table,
        money.ruleset,
        money.rounds,
        money.handle,
        money.result,
        money.expected,
        money.sd,
        None,  # cards
        None,  # statistic
        None,  # z
        None,  # p
        None,  # p_exact
        "",  # message
        money.dealer,
        money.player,
        money.dealers,
        money.shoes,
        money.first_line,
        money.last_line,
        money.first_time,
        money.last_time,
    )
    g.bets = m.bets
    g.units = m.units.quantize(UNIT_PLACES)
    numerator, denominator = m.units_ratio()  # the exact mean per unit
    g.units_expected = rounded(numerator, denominator, UNIT_DIGITS)
    g.units_sd = float_places(math.sqrt(m.units_variance), UNIT_DIGITS)
    if m.bets >= MIN_BETS and m.units_variance > 0:
        if not g.dealers and not g.shoes and g.first_line is None:
            _place(g, m.shoes, m)
        units, scale = m.units.as_integer_ratio()
        gap = (units * denominator - numerator * scale) / (
            scale * denominator
        )  # int / int: exact rounding
        z = gap / math.sqrt(m.units_variance)
        _set_z(g, z, math.erfc(abs(z) / math.sqrt(2)))
        g.message = _units_message(g, gap)
    return g


def _units_message(g: Group, gap: float) -> str:
    """``gap``: the results per unit less their expectation, from the side of the group's result."""
    amount = f"{abs(gap):,.2f}"
    over = f"over {g.bets} main bets, per unit staked (z = {g.z:.2f})"
    if g.scope in game_scopes():  # a bettor who may hold the bank
        did = "won" if gap > 0 else "lost"
        return f"player {g.id} as {g.scope} {did} {amount} units more than expected {over}"
    did = "won" if gap < 0 else "lost"
    who = f"player {g.id}" if g.scope == "player" else f"player {g.player} with dealer {g.dealer}"
    return f"{who} {did} {amount} units more than expected {over}"


def _money_message(g: Group, m: MoneyGroup, gap: int, scale: int) -> str:
    """``gap / scale``: the result less the expectation."""
    amount = format(abs(cents(gap, scale)), ",.2f")
    unit = "coups" if g.scope in game_scopes() else "rounds"
    if g.scope in game_scopes():
        who = f"player {g.id} as {g.scope}"
        did = "won" if gap > 0 else "lost"
        return f"{who} {did} {amount} more than expected over {m.rounds} {unit} (z = {g.z:.2f})"
    if g.scope in ("player", "pair"):
        did = "won" if gap < 0 else "lost"
        who = (
            f"player {g.id}" if g.scope == "player" else f"player {g.player} with dealer {g.dealer}"
        )
        return f"{who} {did} {amount} more than expected over {m.rounds} {unit} (z = {g.z:.2f})"
    where = {
        "table": f"at table {g.id}",
        "dealer": f"with dealer {g.id} in charge",
        "shoe": f"over shoe {g.id}",
    }[g.scope]
    did = "more" if gap > 0 else "less"
    return f"the house won {amount} {did} than expected {where}, {m.rounds} {unit} (z = {g.z:.2f})"


def _card_group(
    path: str, scope: str, ident: str, test: str, table: str, ruleset: str, cards
) -> Group:
    """A shoe's card test (``ShoeCards``) or a table's, its shoes summed (``CardSums``)."""
    if isinstance(cards, CardSums):
        if test == "ranks":
            return _ranks_group(
                path, table, ruleset, scope, ident, cards.rounds, cards.ranked, cards.chi, cards.df
            )
        return _order_group(
            path,
            table,
            ruleset,
            scope,
            ident,
            cards.rounds,
            cards.ordered,
            cards.repeats,
            cards.mean,
            cards.variance,
        )
    if test == "ranks":
        return _ranks_group(
            path, table, ruleset, scope, ident, cards.rounds, cards.seen, *cards.chi
        )
    return _order_group(
        path, table, ruleset, scope, ident, cards.rounds, cards.seen, cards.repeats, *cards.null
    )


def _ranks_group(
    path: str,
    table: str,
    ruleset: str,
    scope: str,
    ident: str,
    rounds: int,
    seen: int,
    stat: float,
    df: int,
) -> Group:
    g = Group(
        scope, ident, path, "ranks", table, ruleset, rounds, cards=seen, statistic=round(stat, 2)
    )
    _set_z(g, card_tests.chi_square_z(stat, df), card_tests.chi_square_p(stat, df))
    g.message = (
        f"the ranks of the {seen} cards seen from {scope} {ident} depart from its shoes' composition "
        f"(chi-square {stat:.2f}, {df} degrees of freedom)"
    )
    return g


def _order_group(
    path: str,
    table: str,
    ruleset: str,
    scope: str,
    ident: str,
    rounds: int,
    seen: int,
    repeats: int,
    mean: float,
    var: float,
) -> Group:
    g = Group(
        scope, ident, path, "order", table, ruleset, rounds, cards=seen, statistic=float(repeats)
    )
    z = (repeats - mean) / math.sqrt(var)
    _set_z(g, z, math.erfc(abs(z) / math.sqrt(2)))
    how = "more" if z > 0 else "fewer"
    g.message = (
        f"{repeats} of the {seen} cards seen from {scope} {ident} followed a card of the same rank, "
        f"{how} than the {mean:.1f} a shuffled shoe gives (z = {g.z:.2f})"
    )
    return g


def _set_z(g: Group, z: float, p: float) -> None:
    g.z = round(z, 2) + 0.0  # never -0.0
    g.p_exact = p
    g.p = _round_p(p)


def _round_p(p: float) -> float:
    """Three significant digits: the same figure on every machine."""
    return float(f"{p:.3g}")
