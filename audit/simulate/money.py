"""Amounts the simulated players put down, and the roundings of money (``Decimal`` throughout)."""

from __future__ import annotations

import itertools
import random
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_HALF_EVEN, ROUND_UP, Decimal

CENT = Decimal("0.01")
#: Round sums players like to stake, besides multiples of the minimum.
NICE = tuple(
    Decimal(v)
    for v in (
        5,
        10,
        20,
        25,
        50,
        75,
        100,
        150,
        200,
        250,
        300,
        500,
        750,
        1000,
        1500,
        2000,
        2500,
        5000,
        10000,
    )
)
#: A ruleset's rounding name -> the ``decimal`` rounding mode.
ROUNDING = {"down": ROUND_DOWN, "up": ROUND_UP, "half-even": ROUND_HALF_EVEN}


def amounts(low: Decimal, high: Decimal) -> list[Decimal]:
    """Amounts a player would put down between ``low`` and ``high``."""
    steps = {low * k for k in (1, 2, 3, 4, 5, 10, 20, 50)}
    return sorted(v for v in steps | set(NICE) if low <= v <= high)


def pick(rng: random.Random, low: Decimal, high: Decimal) -> Decimal:
    """One of ``amounts(low, high)``, the small ones likelier."""
    values = amounts(low, high)
    weights = [1 / (i + 1) for i in range(len(values))]
    return rng.choices(values, weights)[0]


def share(amount: Decimal, fraction: Decimal, rounding: str) -> Decimal:
    """``fraction`` of ``amount`` in whole cents, rounded as a ruleset says (``ROUNDING``)."""
    return (amount * fraction).quantize(CENT, rounding=ROUNDING[rounding])


def round_up(amount: Decimal, unit: Decimal) -> Decimal:
    return (amount / unit).to_integral_value(rounding=ROUND_CEILING) * unit


def round_down(amount: Decimal, unit: Decimal) -> Decimal:
    return (amount // unit) * unit


def split(rng: random.Random, total: Decimal, parts: int) -> list[Decimal]:
    """``total`` in ``parts`` positive amounts, multiples of 10 where it can (the last takes the odd part)."""
    unit = Decimal(10) if total >= 10 * parts else CENT
    units = int(total // unit)
    cuts = sorted(rng.sample(range(1, units), parts - 1)) if parts > 1 and units > parts else []
    if len(cuts) != parts - 1:
        return [total]
    edges = [0, *cuts, units]
    out = [unit * (b - a) for a, b in itertools.pairwise(edges)]
    out[-1] += total - unit * units
    return out
