"""A table's posted limits (OPEN, LIMITS) and the checks on the limits themselves.

Every game posts a minimum and a maximum; a second pair, for a bet a game
posts apart, defaults to them. The checks here judge the posted figures, not the stakes:
the games judge the stakes against them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pydantic import ConfigDict, Field, TypeAdapter, model_validator

from ..values import fmt_amount
from .checks import EVERY_GAME, Params, declare
from .flagger import Flagger
from .format_checks import OUT_OF_CONTEXT


class MaxMultiples(Params):
    multiples: list[int] = Field(min_length=1)


#: the second pairs of limits the games post, by the key their logs and rulesets write
#: (``<key>-max=``, ``<key>_max_at_most``): the pair's name in a sentence. The registry adds each
#: game's (``Syntax.side``)
SIDES: dict[str, str] = {}
_SIDE_BOUND = "_max_at_most"


def add_side(key: str, name: str) -> None:
    """A game's second pair of limits, which a house may bound (``<key>_max_at_most``)."""
    SIDES.setdefault(key, name)


class _HouseRange(Params):
    min_at_least: Decimal | None = None
    max_at_most: Decimal | None = None


class HouseLimits(_HouseRange):
    """The house's range, and ``<key>_max_at_most`` for a game's second pair (``SIDES``)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _sides(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        sides = {k: v for k, v in data.items() if side_of(str(k)) in SIDES}
        _HouseRange.model_validate({k: v for k, v in data.items() if k not in sides})
        return {**data, **_BOUNDS.validate_python(sides)}

    @classmethod
    def accepts(cls, key: str) -> bool:
        return key in cls.model_fields or side_of(key) in SIDES

    def side_max_at_most(self, key: str) -> Decimal | None:
        """The house's bound on a second pair's maximum (None: not bounded)."""
        return (self.model_extra or {}).get(key + _SIDE_BOUND)


def side_of(param: str) -> str | None:
    """The key of the second pair a house parameter bounds (None: not such a parameter)."""
    return param.removesuffix(_SIDE_BOUND) if param.endswith(_SIDE_BOUND) else None


_BOUNDS = TypeAdapter(dict[str, Decimal | None])


LIMITS_MULTIPLE = declare("limits-multiple", MaxMultiples, EVERY_GAME)
HOUSE_LIMITS = declare("house-limits", HouseLimits, EVERY_GAME)


@dataclass
class Limits:
    min: Decimal
    max: Decimal
    #: the second pair, for a bet a game posts apart (None: not posted, the main pair holds)
    side_min: Decimal | None = None
    side_max: Decimal | None = None

    @property
    def side_lo(self) -> Decimal:
        return self.min if self.side_min is None else self.side_min

    @property
    def side_hi(self) -> Decimal:
        return self.max if self.side_max is None else self.side_max


def verify_limits(lim: Limits, flagger: Flagger, flag: Callable[..., None]) -> None:
    """Posted limits against the rules; ``flag`` is the table's (it names the round)."""
    if lim.min > lim.max or lim.side_lo > lim.side_hi:
        flag(OUT_OF_CONTEXT, "posted minimum above the maximum")
        return
    mult = flagger.settings(LIMITS_MULTIPLE)
    if mult is not None and lim.min > 0:
        ratio = lim.max / lim.min
        if ratio not in [Decimal(m) for m in mult.multiples]:
            allowed = ", ".join(str(m) for m in mult.multiples)
            flag(
                LIMITS_MULTIPLE,
                f"maximum {fmt_amount(lim.max)} is {fmt_amount(ratio.normalize())} times "
                f"the minimum {fmt_amount(lim.min)}; the rules allow {allowed} times",
                expected="max = " + " | ".join(fmt_amount(lim.min * m) for m in mult.multiples),
            )
    house = flagger.settings(HOUSE_LIMITS)
    if house is not None:
        if house.min_at_least is not None and lim.min < house.min_at_least:
            flag(
                HOUSE_LIMITS,
                f"minimum {fmt_amount(lim.min)} below the house's {fmt_amount(house.min_at_least)}",
            )
        if house.max_at_most is not None and lim.max > house.max_at_most:
            flag(
                HOUSE_LIMITS,
                f"maximum {fmt_amount(lim.max)} above the house's {fmt_amount(house.max_at_most)}",
            )
        for key, name in SIDES.items():
            bound = house.side_max_at_most(key)
            if bound is not None and lim.side_hi > bound:
                flag(
                    HOUSE_LIMITS,
                    f"{name} maximum {fmt_amount(lim.side_hi)} above the house's {fmt_amount(bound)}",
                )
