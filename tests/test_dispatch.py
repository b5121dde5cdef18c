"""Verb dispatch is a table built from declarations: each table, round and extension class lists
the events it plays (``EVENTS``: verb -> verify and apply functions), and the table's handlers are
made from those lists, not from method names."""

from __future__ import annotations

import pytest

from audit import events as ev
from audit.engine.game import Round, TableExtension
from audit.engine.table import TABLE_VERBS, Table, _dispatch
from audit.registry import GAMES


def test_the_table_plays_the_format_events_it_declares():
    assert set(Table.EVENTS) == TABLE_VERBS and {"OPEN", "DEAL", "BURN", "ROUND"} <= TABLE_VERBS
    assert all(callable(handler) for handler in Table.EVENTS.values())


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_verify_method_of_a_game_is_declared(name):
    """A ``verify_<verb>`` left out of ``EVENTS`` would silently make its verb another game's."""
    game = GAMES[name]
    for cls in (game.round, game.extension):
        named = {
            verb
            for verb in ev.MODELS
            if verb not in TABLE_VERBS and hasattr(cls, "verify_" + verb.lower())
        }
        assert named <= set(cls.EVENTS), (cls.__name__, named - set(cls.EVENTS))
        for verify, apply in cls.EVENTS.values():
            # the functions the class has under those names: no override left undeclared
            assert verify is getattr(cls, verify.__name__), (cls.__name__, verify.__qualname__)
            assert apply is getattr(cls, apply.__name__), (cls.__name__, apply.__qualname__)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_handlers_follow_the_declarations(name):
    game = GAMES[name]
    handlers = _dispatch(Table, game.round, game.extension)
    assert set(handlers) == set(ev.MODELS)
    for verb, handler in handlers.items():
        if verb in TABLE_VERBS:
            assert handler is Table.EVENTS[verb]
        elif verb in game.verbs():
            assert handler is not Table._foreign
        else:
            assert handler is Table._foreign


def test_a_verb_only_named_like_a_handler_is_not_played():
    class Quiet(Round):
        def verify_bet(self, e):  # not declared: not played
            raise AssertionError

        apply_bet = verify_bet
        verify_deal = apply_deal = verify_burn = apply_burn = finish = verify_bet

    handlers = _dispatch(Table, Quiet, TableExtension)
    assert handlers["BET"] is Table._foreign
