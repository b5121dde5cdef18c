"""The games the auditor knows, one package each: the registry, by the name ``OPEN game=`` gives.

Each package declares its checks beside the code that raises them and
exposes a ``GAME`` (``audit.engine.game.Game``): its round, its table
extension, whether the house banks. Adding a game is adding a package and
its line below.
"""

from __future__ import annotations

from dataclasses import replace

from ..engine.checks import DECLARED, EVERY_GAME, FORMAT, Check, checks_in
from ..engine.game import Game
from . import bataille, chemin_de_fer


def _registry(games: list[Game]) -> dict[str, Game]:
    """Games by name, each told which verbs belong to another game (for its findings)."""
    verbs = {game.name: game.verbs() for game in games}
    out = {}
    for game in games:
        foreign = {
            verb: other.title
            for other in games
            if other is not game
            for verb in verbs[other.name] - verbs[game.name]
        }
        out[game.name] = replace(game, foreign=foreign)
    return out


GAMES: dict[str, Game] = _registry([bataille.GAME, chemin_de_fer.GAME])


def checks_for(game: str) -> dict[str, Check] | None:
    """The checks a ruleset of this game may bind, by name (``any``: those every game answers
    for); None for a game the auditor does not know."""
    if game == "any":
        return checks_in({FORMAT, EVERY_GAME})
    known = GAMES.get(game)
    return known.checks() if known is not None else None


def declared(name: str) -> Check:
    """The declaration of a check as rulesets name it, for code that reads a ruleset by check
    name (the simulator, the odds): an undeclared name is an error, never a silent None."""
    try:
        return DECLARED[name]
    except KeyError:
        raise KeyError(f"no check {name!r} is declared") from None
