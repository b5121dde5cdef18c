"""Exact odds of every bet a ruleset offers (``audit odds``), from the ruleset's parameters.

Each game gives its own (``Game.odds``, a ``GameOdds``): whose edge the figures are (the
house's at a house-banked game, else the side that books the bets), and the figures, exact
fractions from an enumeration of the shoe without replacement (docs/statistics.md). A
ruleset of a game without odds (the log format's) has no bet to compute.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from types import ModuleType

from ..registry import GAMES
from ..rulesets import LoadedRuleset
from .params import Figure, GameOdds, OddsError, decks, shoe

__all__ = ["Figure", "GameOdds", "Odds", "OddsError", "compute", "game_odds", "shoe"]


@dataclass(frozen=True)
class Odds:
    ruleset: str
    decks: int
    #: the house overlay applied, if any
    house: str | None
    #: whose the figures are: "house", or the side that books the bets (``GameOdds.party``)
    party: str
    figures: list[Figure]
    #: the figure's name in a table's heading ("house edge")
    title: str = "house edge"


def game_odds(ruleset: LoadedRuleset) -> GameOdds | None:
    """The odds of the ruleset's game, None for a game that has none (or an unknown game)."""
    game = GAMES.get(ruleset.game)
    return game.part("odds") if game is not None else None


def compute(ruleset: LoadedRuleset) -> Odds:
    """Every bet's figures; ``OddsError`` if the ruleset offers none that can be computed."""
    odds = game_odds(ruleset)
    if odds is None:
        raise OddsError(f"{ruleset.id}: a ruleset of the log format, with no bet to compute")
    count = decks(ruleset)
    figures = odds.figures(ruleset, count)
    if not figures:
        raise OddsError(
            f"{ruleset.id}: the ruleset offers no bet whose odds can be computed ({odds.none})"
        )
    overlay = ruleset.overlay.model.overlay if ruleset.overlay is not None else None
    return Odds(ruleset.id, count, overlay, odds.party, figures, odds.title)


def __getattr__(name: str) -> ModuleType:
    """A registered game's odds module by its package's name (``audit.odds.<game_package>``)."""
    for game in GAMES.values():
        if game.odds is not None and game.name.replace("-", "_") == name:
            return import_module(game.odds.partition(":")[0])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
