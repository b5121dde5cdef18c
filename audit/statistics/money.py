"""The money groups: each table's, dealer's, player's and shoe's result against its exact expectation.

The accumulators (``engine.surveillance``) hold, per group and per bet kind, the sum of the
stakes and the per-round products of stakes; the odds (``audit.odds``) give each kind's exact
edge and variance per unit. Expected = sum of edge × stake, exact. The variance treats the
bets of one round as perfectly correlated (sum over rounds of (sum of stake × sd)²): an upper
bound, since hands share the dealer's card, so |z| is never overstated.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

from ..odds import OddsError, compute
from ..rulesets import LoadedRuleset

#: a kind's exact edge per unit staked (for the side the group's result is counted from) and variance
Unit = tuple[Fraction, Fraction]


def units(ruleset: LoadedRuleset) -> dict[str, Unit]:
    """The per-unit figures of every bet kind the ruleset offers, by "bet strategy" (or "bet").

    Chemin de fer: the banker's edge is the mean of the rows (each choice of the ponte at 5 and
    of the banker's "O" cells made either way, half and half: the expectation is linear in each
    choice, so this is the exact figure for a player who chooses at random); the ponte's is its
    opposite. The rows differ by less than 0.4 % of the stake."""
    try:
        odds = compute(ruleset)
    except OddsError:
        return {}
    out: dict[str, Unit] = {}
    if odds.party == "banker":
        rows = odds.figures
        edge = sum((f.edge for f in rows), Fraction(0)) / len(rows)
        square = sum((f.second_moment for f in rows), Fraction(0)) / len(rows)
        out["coup banker"] = (edge, square - edge * edge)
        out["coup ponte"] = (-edge, square - edge * edge)
        return out
    for f in odds.figures:
        out[f.bet if f.strategy is None else f"{f.bet} {f.strategy}"] = (f.edge, f.variance)
        out.setdefault(f.bet, (f.edge, f.variance))  # a strategy the ruleset has no row for: the bet's first
    return out


class MoneyGroup:
    """One group's figures, summed over the tables it played at."""

    def __init__(self) -> None:
        self.rounds = 0
        self.handle = Decimal(0)
        self.result = Decimal(0)
        self.expected = Fraction(0)
        self.variance = 0.0
        self.tables: set[str] = set()
        self.rulesets: set[str] = set()

    def add(self, acc, figures: dict[str, Unit], table: str, ruleset: str) -> None:
        self.rounds += acc.rounds
        self.result += acc.result
        self.tables.add(table)
        self.rulesets.add(ruleset)
        for kind, stake in sorted(acc.stakes.items()):
            edge, _ = _unit(figures, kind)
            self.handle += stake
            self.expected += edge * Fraction(stake)
        for kind, product in sorted(acc.square.items()):
            self.variance += float(product) * float(_unit(figures, kind)[1])
        for (one, two), product in sorted(acc.cross.items()):
            sd_one = math.sqrt(_unit(figures, one)[1])
            sd_two = math.sqrt(_unit(figures, two)[1])
            self.variance += 2 * float(product) * sd_one * sd_two

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)


def _unit(figures: dict[str, Unit], kind: str) -> Unit:
    return figures.get(kind) or figures.get(kind.split(" ", 1)[0]) or (Fraction(0), Fraction(0))
