"""The games the auditor knows, by the name ``OPEN game=`` gives: found, not listed.

A game is a plugin: a ``Game`` (``audit.engine.game``) published under the
entry point group ``del_audit.games``. The built-in games are published the
same way, in this project's own metadata; a source tree that is not
installed has no metadata, so the built-in games' own list
(``audit.games.BUILTIN``) is the fallback, and is always registered. Nothing
here names a game: the grammar, the events, the help, ``audit odds``,
``audit simulate`` and the statistics ask this registry.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, replace
from importlib import import_module
from importlib.metadata import Distribution, EntryPoint, PathDistribution
from pathlib import Path

from . import events as ev
from .engine.checks import DECLARED, EVERY_GAME, FORMAT, Check, checks_in
from .engine.game import Game, RegistryError
from .engine.limits import add_side
from .engine.surveillance import add_scopes

#: the entry point group a game package publishes its ``Game`` under
GROUP = "del_audit.games"


def _load(reference: str) -> object:
    """``module:attribute``, imported."""
    module, _, attribute = reference.partition(":")
    found: object = import_module(module)
    for part in attribute.split(".") if attribute else ():
        found = getattr(found, part)
    return found


def _publishers() -> list[Distribution]:
    """The distributions on ``sys.path`` whose entry points name ``GROUP``, the first of each
    name: read as files (a few milliseconds), where ``importlib.metadata.entry_points`` parses
    every installed distribution's (some 80 ms with a few hundred installed, each run)."""
    header = f"[{GROUP}]"
    found: dict[str, Distribution] = {}
    for folder in sys.path:
        try:
            entries = sorted(os.scandir(folder or "."), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if not entry.name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(entry.path, "entry_points.txt"), encoding="utf-8") as f:
                    if header not in f.read():
                        continue
            except OSError:
                continue
            dist = PathDistribution(Path(entry.path))
            found.setdefault((dist.name or entry.name).lower().replace("_", "-"), dist)
    return list(found.values())


def entry_points(group: str) -> list[EntryPoint]:
    """The entry points of ``group`` of the distributions that publish games."""
    return [p for dist in _publishers() for p in dist.entry_points if p.group == group]


@dataclass(frozen=True)
class Plugin:
    """A game whose code is not the auditor's own: the entry point that published it, and the
    distribution (and its version) that holds that code. The report names it (third-party code
    ran inside the audit: ``configuration.plugins``)."""

    game: str
    entry_point: str
    distribution: str | None
    version: str | None


#: by reference (``module:attribute``): the distribution that published it, as (name, version)
_PUBLISHED_BY: dict[str, tuple[str | None, str | None]] = {}


def published() -> list[tuple[str, object]]:
    """(reference, object) of every game published under ``GROUP``, by reference."""
    found = []
    for point in sorted(entry_points(group=GROUP), key=lambda p: (p.value, p.name)):
        try:
            found.append((point.value, point.load()))
        except Exception as error:  # a broken plugin is named, never a traceback
            raise RegistryError(f"game plugin {point.value!r} cannot be loaded: {error}") from None
        dist = getattr(point, "dist", None)
        _PUBLISHED_BY.setdefault(
            point.value,
            (dist.name, dist.version) if dist is not None else (None, None),
        )
    return found


def builtin() -> list[tuple[str, object]]:
    """The built-in games from their own list: what a source tree without metadata registers."""
    listed: Iterable[str] = getattr(import_module("audit.games"), "BUILTIN", ())
    return [(reference, _load(reference)) for reference in listed]


def discover() -> list[Game]:
    """Every game: those published under ``GROUP`` and the built-in ones not published (no
    metadata), each once, in name order. Fills ``PLUGINS``: the games that are not built in."""
    games: dict[str, tuple[str, Game]] = {}
    seen: set[int] = set()
    built_in = builtin()
    own = {id(game) for _, game in built_in}
    for reference, game in published() + built_in:
        if id(game) in seen:
            continue
        seen.add(id(game))
        if not isinstance(game, Game):
            raise RegistryError(f"game plugin {reference!r} is not a Game")
        if game.name in games:
            raise RegistryError(
                f"two games are named {game.name!r}: {games[game.name][0]} and {reference}"
            )
        games[game.name] = (reference, game)
    PLUGINS[:] = [
        Plugin(name, reference, *_PUBLISHED_BY.get(reference, (None, None)))
        for name, (reference, game) in sorted(games.items())
        if id(game) not in own
    ]
    return [games[name][1] for name in sorted(games)]


#: the games registered from code that is not the auditor's own, in name order (``discover``)
PLUGINS: list[Plugin] = []


def registry(games: list[Game]) -> dict[str, Game]:
    """Games by name, each told which verbs belong only to other games, and to which (a verb
    several games play belongs to each of them)."""
    verbs = {game.name: game.verbs() for game in games}
    out = {}
    for game in games:
        players: dict[str, list[str]] = {}
        for other in games:
            if other is not game:
                for verb in sorted(verbs[other.name] - verbs[game.name]):
                    players.setdefault(verb, []).append(other.title)
        foreign = {verb: " or ".join(titles) for verb, titles in players.items()}
        out[game.name] = replace(game, foreign=foreign)
    return out


def _events(games: list[Game]) -> list[Game]:
    """Register the games' own events (``Game.syntax``) with the format's; a verb two games
    write differently is an error."""
    for game in games:
        if game.syntax is not None and game.syntax.side is not None:
            add_side(*game.syntax.side)
        for model in game.syntax.models if game.syntax is not None else ():
            try:
                ev.register(model)
            except ValueError as error:
                raise RegistryError(f"game {game.name}: {error}") from None
    return games


def _scopes(games: list[Game]) -> list[Game]:
    """Register the games' own statistics scopes (``Game.scopes``), in the games' name order."""
    for game in games:
        add_scopes(game.scopes)
    return games


GAMES: dict[str, Game] = registry(_scopes(_events(discover())))


def game_scopes() -> tuple[str, ...]:
    """The statistics' scopes the games add (a player's result in a part of their own)."""
    return tuple(scope for name in sorted(GAMES) for scope in GAMES[name].scopes)


def syntaxes() -> list[ev.Syntax]:
    """The registered games' own syntax, each once, in the games' name order."""
    out: list[ev.Syntax] = []
    for name in sorted(GAMES):
        syntax = GAMES[name].syntax
        if syntax is not None and syntax not in out:
            out.append(syntax)
    return out


def fixtures_of(game: str) -> Path | None:
    """The folder of the rule fixtures of a game's rulesets, when the game ships its own."""
    known = GAMES.get(game)
    return known.fixtures if known is not None else None


def spots() -> list[str]:
    """The spots of a box a stake may be on: the format's ``main``, then the games' own
    (``Syntax.spots``), each once."""
    out = ["main"]
    for syntax in syntaxes():
        out.extend(spot for spot in syntax.spots if spot not in out)
    return out


def names() -> list[str]:
    """The registered games' names, sorted."""
    return sorted(GAMES)


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
