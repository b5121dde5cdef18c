"""The surveillance statistics of an audit (contract ``statistics.md``, section 2).

Built once the tables of every part are merged, in the report's order (tables sorted), so
that the figures are the same byte for byte whatever ``--jobs``. Groups: money (the result
against its exact expectation) per table, dealer, player and shoe (chemin de fer: per player
as banker and as ponte), and the card tests per shoe and per table. Anomalies: the groups
whose p-value, corrected by Holm's step-down method for the number of groups tested in
the run, is below alpha.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from . import cards
from .money import Figures, MoneyGroup, units

DEFAULT_ALPHA = 0.001
#: fewest rounds for a money group to be tested (the normal approximation needs a sample)
MIN_ROUNDS = 30
SCOPES = ("table", "dealer", "player", "banker", "ponte", "shoe")


@dataclass
class Group:
    scope: str
    id: str
    path: str
    #: what was measured: "result" (money), "ranks" (rank frequencies) or "order" (neighbours of equal rank)
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


@dataclass
class Anomaly:
    group: Group
    p_adjusted: float


@dataclass
class Statistics:
    alpha: float = DEFAULT_ALPHA
    groups: list[Group] = field(default_factory=list)

    def anomalies(self) -> list[Anomaly]:
        """Holm: the k-th smallest of m p-values times (m - k + 1), never below the one before."""
        tested = sorted((g for g in self.groups if g.p_exact is not None), key=lambda g: g.p_exact)  # type: ignore[arg-type, return-value]
        out, running, m = [], 0.0, len(tested)
        for k, group in enumerate(tested):
            running = max(running, min(1.0, (m - k) * group.p_exact))  # type: ignore[operator]
            if running >= self.alpha:
                break
            out.append(Anomaly(group, _round_p(running)))
        return out


def build(report, library) -> Statistics:
    """Every group of the report's tables (``report.table_stats``, in report order).

    Each table's accumulators are let go once read: the groups are all the report keeps, and
    the memory the sums held serves the report's writing."""
    stats = Statistics()
    figures: dict[tuple[str, str], Figures] = {}
    money: dict[tuple[int, str, str], MoneyGroup] = {}
    paths = {inp.path: i for i, inp in enumerate(report.inputs)}
    for t in report.table_stats:
        watch = t.surveillance
        if watch is None:
            continue
        key = (t.ruleset, t.overlay)
        if key not in figures:
            ruleset = library.for_table(t.ruleset, t.table)
            figures[key] = Figures(units(ruleset) if ruleset is not None else {})
        for (scope, ident), acc in watch.rounds_by().items():
            group = money.setdefault((paths[t.path], t.path, scope, ident), MoneyGroup())
            group.add(acc, figures[key], t.table, t.ruleset)
        stats.groups.extend(_card_groups(t))
        t.surveillance = None
    for (_, path, scope, ident), group in sorted(money.items()):
        stats.groups.append(_money_group(path, scope, ident, group))
    stats.groups.sort(key=lambda g: (paths[g.path], SCOPES.index(g.scope), g.id, g.test))
    return stats


def _money_group(path: str, scope: str, ident: str, m: MoneyGroup) -> Group:
    table = next(iter(m.tables)) if len(m.tables) == 1 else None
    ruleset = next(iter(m.rulesets)) if len(m.rulesets) == 1 else None
    expected = m.expected
    g = Group(scope, ident, path, "result", table, ruleset, m.rounds, handle=m.handle, result=m.result,
              expected=_cents(expected), sd=_cents(Fraction(m.sd)))
    if m.rounds >= MIN_ROUNDS and m.variance > 0:
        gap = Fraction(m.result) - expected
        z = float(gap) / m.sd
        _set_z(g, z, math.erfc(abs(z) / math.sqrt(2)))
        g.message = _money_message(g, m, gap)
    return g


def _money_message(g: Group, m: MoneyGroup, gap: Fraction) -> str:
    amount = format(abs(_cents(gap)), ",.2f")
    unit = "coups" if g.scope in ("banker", "ponte") else "rounds"
    if g.scope in ("banker", "ponte"):
        who = f"player {g.id} as {g.scope}"
        did = "won" if gap > 0 else "lost"
        return f"{who} {did} {amount} more than expected over {m.rounds} {unit} (z = {g.z:.2f})"
    if g.scope == "player":
        did = "won" if gap < 0 else "lost"
        return f"player {g.id} {did} {amount} more than expected over {m.rounds} {unit} (z = {g.z:.2f})"
    where = {"table": f"at table {g.id}", "dealer": f"with dealer {g.id} in charge", "shoe": f"over shoe {g.id}"}[g.scope]
    did = "more" if gap > 0 else "less"
    return f"the house won {amount} {did} than expected {where}, {m.rounds} {unit} (z = {g.z:.2f})"


def _card_groups(t) -> list[Group]:
    """Each shoe's two card tests, then the table's (its shoes' statistics summed)."""
    out: list[Group] = []
    sums = [0.0, 0, 0, 0, 0.0, 0.0, 0, 0]  # chi-square, df, cards (ranks), repeats, mean, variance, cards (order), rounds
    for shoe in t.surveillance.shoes:
        seen = sum(shoe.ranks.values())
        sums[7] += shoe.rounds
        chi = cards.chi_square(shoe.ranks, shoe.decks)
        if chi is not None:
            out.append(_ranks_group(t, "shoe", shoe.id, shoe.rounds, seen, *chi))
            sums[0] += chi[0]
            sums[1] += chi[1]
            sums[2] += seen
        if seen >= cards.MIN_CARDS:
            mean, var = cards.repeats_null(shoe.decks, seen)
            out.append(_order_group(t, "shoe", shoe.id, shoe.rounds, seen, shoe.repeats, mean, var))
            sums[3] += shoe.repeats
            sums[4] += mean
            sums[5] += var
            sums[6] += seen
    if sums[1]:
        out.append(_ranks_group(t, "table", t.table, sums[7], sums[2], sums[0], sums[1]))
    if sums[6]:
        out.append(_order_group(t, "table", t.table, sums[7], sums[6], sums[3], sums[4], sums[5]))
    return out


def _ranks_group(t, scope: str, ident: str, rounds: int, seen: int, stat: float, df: int) -> Group:
    g = Group(scope, ident, t.path, "ranks", t.table, t.ruleset, rounds, cards=seen, statistic=round(stat, 2))
    _set_z(g, cards.chi_square_z(stat, df), cards.chi_square_p(stat, df))
    g.message = (f"the ranks of the {seen} cards seen from {scope} {ident} depart from its shoes' composition "
                 f"(chi-square {stat:.2f}, {df} degrees of freedom)")
    return g


def _order_group(t, scope: str, ident: str, rounds: int, seen: int, repeats: int, mean: float, var: float) -> Group:
    g = Group(scope, ident, t.path, "order", t.table, t.ruleset, rounds, cards=seen, statistic=float(repeats))
    z = (repeats - mean) / math.sqrt(var)
    _set_z(g, z, math.erfc(abs(z) / math.sqrt(2)))
    how = "more" if z > 0 else "fewer"
    g.message = (f"{repeats} of the {seen} cards seen from {scope} {ident} followed a card of the same rank, "
                 f"{how} than the {mean:.1f} a shuffled shoe gives (z = {g.z:.2f})")
    return g


def _set_z(g: Group, z: float, p: float) -> None:
    g.z = round(z, 2) + 0.0  # never -0.0
    g.p_exact = p
    g.p = _round_p(p)


def _round_p(p: float) -> float:
    """Three significant digits: the same figure on every machine."""
    return float(f"{p:.3g}")


def _cents(value: Fraction) -> Decimal:
    return Decimal(round(value * 100)).scaleb(-2)
