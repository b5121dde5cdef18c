"""The money groups: each table's, dealer's, player's and shoe's result against its exact expectation.

The accumulators (``engine.surveillance``) hold, per group and per bet kind, the sum of the
stakes and the per-round products of stakes; the odds (``audit.odds``) give each kind's exact
edge and variance per unit. Expected = sum of edge × stake, exact. The variance treats the
bets of one round as perfectly correlated (sum over rounds of (sum of stake × sd)²): an upper
bound, since hands share the dealer's card, so |z| is never overstated.

The units test of one bettor's group (player, pair, a game's own scope) needs no stake: each round's
result per unit staked on the main bet, summed, against the bets' exact mean and variance per
unit. Stakes that vary tenfold and the side bets' wide swings weigh nothing in it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction

from ..odds import OddsError, compute, game_odds
from ..odds.params import per_bet
from ..rulesets import LoadedRuleset

ZERO = Decimal(0)

#: a kind's exact edge per unit staked (for the side the group's result is counted from) and variance
Unit = tuple[Fraction, Fraction]


def units(ruleset: LoadedRuleset) -> dict[str, Unit]:
    """The per-unit figures of every bet kind the ruleset offers, by "bet strategy" (or "bet"):
    its game's (``GameOdds.units``), else each figure as it is; none for a ruleset without odds."""
    try:
        odds = compute(ruleset)
    except OddsError:
        return {}
    kind = game_odds(ruleset)
    assert kind is not None  # computed
    return (kind.units or per_bet)(odds.figures)


class Figures:
    """A ruleset's per-unit figures made ready for summing many groups: each kind's edge as an integer
    numerator over one denominator shared by the ruleset's kinds, its variance and sd as floats."""

    def __init__(self, units: dict[str, Unit]) -> None:
        self.units = units
        self.denominator = (
            math.lcm(*(edge.denominator for edge, _ in units.values())) if units else 1
        )
        self.cache: dict[str, tuple[int, float, float, bool]] = {}
        #: the main bet (the odds' first row's): the units test counts its kinds, not the side bets
        self.main = next(iter(units)).split(" ", 1)[0] if units else None

    def is_main(self, kind: str) -> bool:
        """Whether the kind is one of the main bet's (the units test counts it)."""
        return kind.split(" ", 1)[0] == self.main

    def of(self, kind: str) -> tuple[int, float, float, bool]:
        """The kind's edge numerator (over ``denominator``), variance and sd per unit, and whether
        the units test counts it (``is_main``)."""
        known = self.cache.get(kind)
        if known is None:
            edge, variance = _unit(self.units, kind)
            known = self.cache[kind] = (
                edge.numerator * (self.denominator // edge.denominator),
                float(variance),
                math.sqrt(variance),
                self.is_main(kind),
            )
        return known


class MoneyGroup:
    """One group's figures, summed over the tables it played at.

    The expectation is summed in integers, by denominator (a stake's, times its ruleset's), and
    made a fraction once: the same exact figure as a sum of fractions, without their cost."""

    __slots__ = (
        "bets",
        "dealers",
        "first",
        "handle",
        "last",
        "parts",
        "placed",
        "result",
        "rounds",
        "rulesets",
        "tables",
        "units",
        "units_parts",
        "units_variance",
        "variance",
    )

    def __init__(self) -> None:
        self.rounds = 0
        self.handle = ZERO
        self.result = ZERO
        self.parts: dict[int, int] = {}
        self.variance = 0.0
        self.tables: set[str] = set()
        self.rulesets: set[str] = set()
        #: where the group's rounds were: each table's shoe numbers (``shoes``), dealers, first and
        #: last (line, time)
        self.placed: list[tuple[str, Iterable[int]]] = []
        self.dealers: set[str] = set()
        self.first: tuple | None = None
        self.last: tuple | None = None
        #: the units test (main bet): bets, their results per unit staked, its exact mean (integer
        #: numerators by denominator, as ``parts``) and its variance
        self.bets = 0
        self.units = ZERO
        self.units_parts: dict[int, int] = {}
        self.units_variance = 0.0

    @property
    def shoes(self) -> set[tuple[str, int]]:
        """(table, shoe number) of the group's rounds: made only for a group that says where it was
        (a tested one), shoe 0 (rounds before any) left out later."""
        return {(table, n) for table, numbers in self.placed for n in numbers}

    def add(self, acc, figures: Figures, table: str, ruleset: str) -> None:
        self.rounds += acc.rounds
        self.result += acc.result
        self.tables.add(table)
        self.rulesets.add(ruleset)
        self.placed.append((table, acc.shoes))
        self.dealers |= acc.dealers
        if acc.first is not None and (self.first is None or acc.first[0] < self.first[0]):
            self.first = acc.first
        if acc.last is not None and (self.last is None or acc.last[0] > self.last[0]):
            self.last = acc.last
        parts, scale, of, known = self.parts, figures.denominator, figures.of, figures.cache
        # the sums in locals, stored once (a house group has four or five kinds and their products);
        # the floats added in the same order as one by one
        handle, spread = self.handle, self.variance
        kinds = acc.kinds.items()
        for kind, (stake, square, bets, total) in sorted(kinds) if len(kinds) > 1 else kinds:
            handle += stake
            numerator, denominator = stake.as_integer_ratio()
            edge, variance, _, main = known.get(kind) or of(kind)
            denominator *= scale
            parts[denominator] = parts.get(denominator, 0) + numerator * edge
            spread += float(square) * variance
            if bets and main:
                self.bets += bets
                self.units += total
                units = self.units_parts
                units[scale] = units.get(scale, 0) + bets * edge
                self.units_variance += bets * variance
        if acc.cross:  # floats summed in one order, whatever the dictionaries'
            for (one, two), product in sorted(acc.cross.items()):
                spread += (
                    2
                    * float(product)
                    * (known.get(one) or of(one))[2]
                    * (known.get(two) or of(two))[2]
                )
        self.handle, self.variance = handle, spread

    @property
    def expected(self) -> Fraction:
        """The plain figure: a sum of fractions (``ratio`` is the same, in integers)."""
        return sum(
            (Fraction(numerator, denominator) for denominator, numerator in self.parts.items()),
            Fraction(0),
        )

    def ratio(self) -> tuple[int, int]:
        """The expectation as (numerator, denominator), over the parts' common denominator, not reduced:
        what the report needs of it (its cents, the gap to the result) without a fraction's gcd each time."""
        return _common(self.parts)

    @property
    def units_mean(self) -> Fraction:
        """The units test's exact expectation: the main bets' edges per unit, summed (the plain
        figure; ``units_ratio`` is the same, in integers)."""
        return sum(
            (Fraction(numerator, scale) for scale, numerator in self.units_parts.items()),
            Fraction(0),
        )

    def units_ratio(self) -> tuple[int, int]:
        """``units_mean`` as (numerator, denominator), not reduced, as ``ratio`` is."""
        return _common(self.units_parts)

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)


def cents(numerator: int, denominator: int) -> Decimal:
    """numerator / denominator (denominator > 0) to the cent, half to even: ``round(Fraction(n, d) * 100)``
    in integers."""
    return rounded(numerator, denominator, 2)


def float_places(value: float, places: int) -> Decimal:
    """A finite float not below zero (an sd) to ``places`` decimals, half to even on its exact binary
    value: the text ``format`` writes, read exactly; ``rounded(*value.as_integer_ratio(), places)``
    at half its cost (a test compares the two)."""
    return Decimal(f"{value:.{places}f}")


def rounded(numerator: int, denominator: int, places: int) -> Decimal:
    """numerator / denominator (denominator > 0) to ``places`` decimals, half to even, in integers:
    ``round(Fraction(n, d) * 10**places)`` scaled back, rounded once (never a division's 28 digits
    rounded again)."""
    whole, rest = divmod(numerator * 10**places, denominator)
    if 2 * rest > denominator or (2 * rest == denominator and whole % 2):
        whole += 1
    return Decimal(whole).scaleb(-places)


def _common(parts: dict[int, int]) -> tuple[int, int]:
    """A sum of ``{denominator: numerator}`` as (numerator, denominator) over their common denominator."""
    if not parts:
        return 0, 1
    if len(parts) == 1:
        ((denominator, numerator),) = parts.items()
        return numerator, denominator
    common = math.lcm(*parts)
    return sum(
        numerator * (common // denominator) for denominator, numerator in parts.items()
    ), common


def _unit(figures: dict[str, Unit], kind: str) -> Unit:
    return figures.get(kind) or figures.get(kind.split(" ", 1)[0]) or (Fraction(0), Fraction(0))
