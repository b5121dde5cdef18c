"""The names a game plugin may import: a small surface the auditor keeps stable (docs/plugins.md).

A game is a package publishing a ``Game`` under the ``del_audit.games`` entry
point group. Its package imports this module (the game, its round, its
checks, its events) and, in the modules its ``Game`` names by reference,
``audit.plugin.odds`` and ``audit.plugin.simulate``; nothing else of
``audit``. ``tests/test_plugin_game.py`` holds a plugin to that.
"""

from __future__ import annotations

from .. import events
from ..engine.checks import EVERY_GAME, Check, NoParams, Params, declare
from ..engine.game import Game, Round, TableExtension
from ..events import EventBase, Syntax, event
from ..values import RANKS, SUITS, Card, Owner, fmt_amount

__all__ = [
    "EVERY_GAME",
    "RANKS",
    "SUITS",
    "Card",
    "Check",
    "EventBase",
    "Game",
    "NoParams",
    "Owner",
    "Params",
    "Round",
    "Syntax",
    "TableExtension",
    "declare",
    "event",
    "events",
    "fmt_amount",
]
