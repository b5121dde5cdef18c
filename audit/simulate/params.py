"""What the simulator reads from a loaded ruleset (its overlay applied): the one place it names checks.

The simulator deals, burns, pays and draws as the regulation says, and the
regulation lives in ``rulesets/``: so every number the games' simulators use
(decks, burns, talon, odds, limits, the drawing tables) and every rule id the
fault injection expects comes from here, read from the rule bound to a check.
A parameter the simulator cannot do without (decks, burns, talon...) is read
from its rule even when a house turned the rule off (the house stops checking
it, the game keeps it); a behaviour that exists only with its rule (a machine's
restart, the announced end, the lone Ace) follows the rule's being on.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from ..registry import GAMES, declared
from ..rulesets import Library, LoadedRuleset, Rule


class SimulationError(ValueError):
    """A ruleset the simulator cannot play (a parameter it needs is missing)."""


def needed(ruleset: LoadedRuleset, check: str) -> Any:
    """The parameters of the rule bound to ``check``, on or off; a ``SimulationError`` if none is."""
    settings = ruleset.settings(declared(check))
    if settings is not None:
        return settings
    for rule in ruleset.model.rules:
        if rule.check == check:
            return rule.settings
    raise SimulationError(
        f"ruleset {ruleset.id} has no rule with check {check!r}: the simulator needs it"
    )


def enabled(ruleset: LoadedRuleset, check: str) -> Any:
    """The parameters of the rule bound to ``check`` if it is on, else None."""
    return ruleset.settings(declared(check))


# -- the rules fault injection breaks ---------------------------------------------------


@dataclass(frozen=True)
class FaultRules:
    """The rules (on, else None) that the injected faults break at a table, with their ids and
    categories: the format's and every game's here, a game's own in its subclass (``CHECKS``)."""

    syntax: Rule | None
    time_order: Rule | None
    no_more_bets: Rule | None = None
    seat_range: Rule | None = None

    #: field -> the check its rule is bound to (the format's fields read the format's ruleset)
    CHECKS: ClassVar[dict[str, str]] = {"no_more_bets": "no-more-bets", "seat_range": "seat-range"}


def fault_rules(library: Library, ruleset: LoadedRuleset) -> FaultRules:
    """The rules a fault at a table of ``ruleset`` can break (the format's from the library's
    format rules), in its game's ``FaultRules``."""
    fmt = library.format_rules
    kind = simulator(ruleset.game).faults.RULES
    return kind(
        syntax=fmt.rule(declared("syntax")),
        time_order=fmt.rule(declared("time-order")),
        **{name: ruleset.rule(declared(check)) for name, check in kind.CHECKS.items()},
    )


@lru_cache(maxsize=1)
def default_library() -> Library:
    """The shipped rulesets, no overlay: what the simulator plays unless told otherwise (loaded once)."""
    return Library.load()


def simulator(game: str) -> Any:
    """The simulator of a registered game (an ``audit.simulate.game.GameSimulator``), None for a
    game without one, or unknown."""
    known = GAMES.get(game)
    return known.part("simulator") if known is not None else None


def simulators() -> list[Any]:
    """The simulators of the registered games that have one, in the games' name order."""
    found = (simulator(name) for name in sorted(GAMES))
    return [one for one in found if one is not None]


def playable(library: Library, ruleset_id: str) -> LoadedRuleset | None:
    """The ruleset ``ruleset_id`` of ``library`` if the simulator plays its game, else None."""
    loaded = library.get(ruleset_id)
    return loaded if loaded is not None and simulator(loaded.game) is not None else None
