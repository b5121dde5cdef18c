"""A game's second pair of limits (``Syntax.side``): its log keys come from its grammar, and a
house may bound its maximum under the game's key, as under any parameter of ``house-limits``."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from audit.engine.limits import SIDES, HouseLimits
from audit.registry import GAMES


def _side() -> tuple[str, str]:
    sides = [g.syntax.side for g in GAMES.values() if g.syntax is not None and g.syntax.side]
    assert sides, "a registered game posts a second pair of limits"
    return sides[0]


def test_the_registry_adds_each_game_s_side_to_the_engine():
    key, name = _side()
    assert SIDES[key] == name


def test_a_house_bounds_a_registered_side_and_the_value_is_an_amount():
    key, _ = _side()
    house = HouseLimits.model_validate({"max_at_most": 500, f"{key}_max_at_most": "100.5"})
    assert house.side_max_at_most(key) == Decimal("100.5")
    assert HouseLimits.accepts(f"{key}_max_at_most") and not HouseLimits.accepts("x_max_at_most")


@pytest.mark.parametrize(
    "params, loc, kind",
    [
        ({"nosuchside_max_at_most": 1}, ("nosuchside_max_at_most",), "extra_forbidden"),
        ({"max_at_most": "many"}, ("max_at_most",), "decimal_parsing"),
    ],
)
def test_other_keys_and_bad_values_are_refused_where_they_are(params, loc, kind):
    with pytest.raises(ValidationError) as err:
        HouseLimits.model_validate(params)
    first = err.value.errors()[0]
    assert (first["loc"], first["type"]) == (loc, kind)


def test_a_bad_bound_of_a_side_is_refused_at_its_key():
    key, _ = _side()
    with pytest.raises(ValidationError) as err:
        HouseLimits.model_validate({f"{key}_max_at_most": "lots"})
    assert err.value.errors()[0]["loc"] == (f"{key}_max_at_most",)
