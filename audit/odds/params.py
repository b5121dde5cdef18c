"""What the odds read from a ruleset: the one accessor, the shoe, and a bet's figures.

Every figure comes from the ruleset's parameters, read here by check name and
nowhere else, so that a change in how checks are declared is made in one place.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal
from fractions import Fraction
from typing import Any

from ..registry import declared
from ..rulesets import LoadedRuleset
from ..values import RANKS, SUITS


class OddsError(Exception):
    """A ruleset whose odds cannot be computed; the message says why."""


@dataclass(frozen=True)
class GameOdds:
    """What a game gives ``audit odds`` and the statistics: whose edge, the figures, the units."""

    #: whose edge the figures are: the JSON's ``<party>_edge`` keys
    party: str
    #: the figure's name in the text table's heading ("house edge")
    title: str
    #: the figures of a ruleset for a shoe of so many decks, in the contract's order
    figures: Callable[[LoadedRuleset, int], list[Figure]]
    #: the rules that would give a figure, for a ruleset that offers none
    none: str
    #: the statistics' per-unit figures of each kind of stake, by "bet strategy" (or "bet"), from
    #: the figures; None: each figure as it is (``per_bet``)
    units: Callable[[list[Figure]], dict[str, tuple[Fraction, Fraction]]] | None = None


def per_bet(figures: list[Figure]) -> dict[str, tuple[Fraction, Fraction]]:
    """Each figure's (edge, variance) per unit, by "bet strategy", and by "bet" (its first row:
    a strategy the ruleset has no row for)."""
    out: dict[str, tuple[Fraction, Fraction]] = {}
    for f in figures:
        out[f.bet if f.strategy is None else f"{f.bet} {f.strategy}"] = (f.edge, f.variance)
        out.setdefault(f.bet, (f.edge, f.variance))
    return out


def setting(ruleset: LoadedRuleset, check: str) -> Any:
    """The parameters of the ruleset's enabled rule of this check, or None if it has none."""
    return ruleset.settings(declared(check))


def decks(ruleset: LoadedRuleset) -> int:
    shoe = setting(ruleset, "shoe-decks")
    if shoe is None:
        raise OddsError(f"{ruleset.id}: no shoe-decks rule: the shoe's composition is unknown")
    return shoe.decks


def shoe(deck_count: int, value: dict[str, int]) -> dict[int, int]:
    """How many cards of each value a full shoe holds (``value``: a card's value by rank, the game's)."""
    counts: Counter[int] = Counter()
    for rank in RANKS:
        counts[value[rank]] += len(SUITS) * deck_count
    return dict(sorted(counts.items()))


@dataclass(frozen=True)
class Figure:
    """One bet's exact figures: the expected gain of the side that books it, per unit of
    the bet's initial stake, and the second moment of that gain (for the standard deviation)."""

    bet: str
    strategy: str | None
    edge: Fraction
    second_moment: Fraction

    @property
    def variance(self) -> Fraction:
        return self.second_moment - self.edge * self.edge

    @property
    def pct(self) -> float:
        return float(round(self.edge * 100, 4))

    @property
    def sd(self) -> float:
        """The standard deviation, to 4 decimals (an exact square root to 30 digits, then rounded)."""
        var = self.variance
        root = (Decimal(var.numerator) / Decimal(var.denominator)).sqrt(Context(prec=30))
        return float(root.quantize(Decimal("0.0001"), rounding=ROUND_HALF_EVEN))


def moments(outcomes: dict[Fraction, Fraction]) -> tuple[Fraction, Fraction]:
    """Mean and second moment of a distribution given as {result: probability}."""
    mean = sum((p * x for x, p in outcomes.items()), Fraction(0))
    square = sum((p * x * x for x, p in outcomes.items()), Fraction(0))
    return mean, square
