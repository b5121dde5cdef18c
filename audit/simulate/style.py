"""How the simulated people behave where the rules leave room: the plain style, or a casino's.

The plain style is the simulator's own (round sums, three standing players,
one change of limits a night): its logs are pinned byte for byte, so it never
changes. The realistic style is for the benchmark (issue 21): real nights are
less regular, and an auditor tuned on regular text would be measured on the
wrong thing. In it, stakes come from a heavy-tailed law over the whole posted
range (any whole euro, now and then a half), players come and go more often,
standing players are many and new ones keep arriving, and the limits change
several times a night. Every round stays legal: the limits, odds and burns are
still the ruleset's (``params``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal

#: a stake's law: P(stake > x) = (low / x) ** TAIL, cut at the high end of the range
TAIL = 1.2
#: the share of stakes in half euros (the rest are whole euros) in the realistic style
HALVES = 0.15
WHOLE, HALF = Decimal(1), Decimal("0.5")


@dataclass(frozen=True)
class Style:
    """What the tables' people do, where the rules leave them free."""

    name: str
    #: stakes from the heavy-tailed law (``heavy``), else round sums (``money.pick``)
    heavy_stakes: bool = False
    #: seat changes happen this many times as often as the game's own rate
    churn: float = 1.0
    #: the chance, each round, that a new standing player joins the ones around the table
    standing_arrivals: float = 0.0
    #: besides the planned change, the limits change again every ``limits_every`` rounds or so
    #: (a change away from the opening limits, then back to them), None: once a night
    limits_every: tuple[int, int] | None = None


PLAIN = Style("plain")
REALISTIC = Style(
    "realistic", heavy_stakes=True, churn=2.5, standing_arrivals=0.03, limits_every=(60, 240)
)
STYLES = {s.name: s for s in (PLAIN, REALISTIC)}


def heavy(rng: random.Random, low: Decimal, high: Decimal) -> Decimal:
    """A stake between ``low`` and ``high``: a Pareto law from ``low``, cut at ``high``, in whole
    euros or (``HALVES``) half euros; ``low`` or ``high`` themselves when the unit falls outside."""
    unit = HALF if rng.random() < HALVES else WHOLE
    raw = float(low) * (1.0 - rng.random()) ** (-1.0 / TAIL)
    value = (Decimal(repr(min(raw, float(high)))) / unit).to_integral_value(
        rounding=ROUND_DOWN
    ) * unit
    return low if value < low else min(value, high)


def extra_limit_rounds(rng: random.Random, style: Style, rounds: int) -> set[int]:
    """The rounds before which the limits change besides the planned one (none in the plain style)."""
    if style.limits_every is None:
        return set()
    out, n = set(), rng.randint(*style.limits_every)
    while n <= rounds:
        out.add(n)
        n += rng.randint(*style.limits_every)
    return out
