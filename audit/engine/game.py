"""What a game gives the engine: its round, its table extension, its verbs and checks.

A game is a package, built in (``audit.games``) or a plugin, found by the
registry (``audit.registry``); the engine knows none by name. A ``Game`` names
the round class (one coup, its round events declared in ``EVENTS``: verb ->
verify and apply functions) and the table extension (what lives as long as
the table, with its own ``EVENTS``), and, by reference, its odds and
simulator. The verbs each plays are its declarations, and the checks it
answers for are read off the check declarations.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any, ClassVar

from .. import events as ev
from .checks import EVERY_GAME, FORMAT, Check, NoParams, checks_in, declare
from .flagger import Flagger
from .shoe import ShoeState
from .table import TABLE_VERBS, Table

#: how an event is played: its verification (flags each breach, never raises), then its application
Events = tuple[Callable[[Any, Any], None], Callable[[Any, Any], None]]

#: cards dealt before "rien ne va plus": a check every game's round raises (``Round.cards_before_close``)
NO_MORE_BETS = declare("no-more-bets", NoParams, EVERY_GAME)


class Round(ABC):
    """One round (coup). Its class has a ``verify_<verb>`` / ``apply_<verb>`` pair per
    round event: verify compares the event with what the rules allow now and flags each
    breach (never raises); apply records what happened, so the replay follows the log
    even where it breaks the rules. The table calls ``verify_deal``/``apply_deal`` and
    ``verify_burn``/``apply_burn`` after its own shoe work, and ``finish`` at ROUND end."""

    #: verb -> (verify, apply): the round events it plays, declared in its class (DEAL and BURN
    #: are the table's, which calls ``verify_deal``... after its own shoe work)
    EVENTS: ClassVar[Mapping[str, Events]] = {}

    #: True while the round owes events (cards, a natural shown...) that its next event other than a
    #: card or a burn shows missing: the table then calls ``report_owed`` before that event's verify
    owed: bool = False

    def __init__(self, n: int, line: int, table: Table):
        self.n = n
        self.line = line
        self.table = table
        self.flagger: Flagger = table.flagger

    def report_owed(self, e: ev.Event) -> None:
        """A missing event is reported at the first line it was due: this event (not a DEAL or a BURN,
        which the round's own verify judges; ROUND end is ``finish``'s) comes while ``owed``."""
        self.owed = False

    def flag(self, check: Check, message: str, **kw) -> None:
        self.flagger.flag(check, message, round=self.n, **kw)

    def cards_before_close(self, message: str) -> None:
        """Cards dealt while bets are still open."""
        self.flag(NO_MORE_BETS, message, expected="NOMOREBETS")

    @abstractmethod
    def verify_deal(self, e: ev.Deal) -> None: ...

    @abstractmethod
    def apply_deal(self, e: ev.Deal) -> None: ...

    @abstractmethod
    def verify_burn(self, e: ev.Burn) -> None: ...

    @abstractmethod
    def apply_burn(self, e: ev.Burn) -> None: ...

    @abstractmethod
    def finish(self, line: int) -> None: ...


class TableExtension:
    """A game's part of a table, for the table's life: settings read once, state across
    rounds, and verify/apply pairs for the events that are not a round's."""

    #: verb -> (verify, apply): the events it plays that are not a round's, declared in its class
    EVENTS: ClassVar[Mapping[str, Events]] = {}

    def __init__(self, table: Table):
        self.table = table
        self.flagger: Flagger = table.flagger

    def new_shoe(self, shoe: ShoeState) -> None:
        """A new shoe was prepared."""

    def seat_changed(self, e: ev.Seat, player: str | None) -> None:
        """A ``SEAT`` line was applied: ``player`` is the id of who left (``out``) or sat down (``in``)."""

    def preparation_due(self, shoe: ShoeState) -> None:
        """The shoe's first card is being dealt (its burns already judged): the preparation is judged;
        ``shoe.due_line`` is its first round's line if one began before, where the preparation was due."""


class RegistryError(Exception):
    """A game that cannot be registered (not a ``Game``, a name or verb two games claim, a plugin
    that fails to load); the message says which."""


@dataclass(frozen=True)
class Game:
    """Everything a game contributes. The engine's part (round, extension, verbs, checks) is
    given as classes; the parts beside the audit (odds, simulator, faults, statistics) as
    ``"module:attribute"`` references, imported only when used (``part``), so that loading the
    registry never loads a simulator."""

    #: as written in ``OPEN game=``
    name: str
    #: as written in a sentence (``a <title> event, at a <name> table``)
    title: str
    round: type[Round]
    extension: type[TableExtension]
    #: the house is the bank (the drop, house win and hold are the house's)
    house_banked: bool
    #: the words that are this game's alone (beside its name and title): what no module outside
    #: the game's own package may spell (``tests/test_game_names.py``)
    words: tuple[str, ...] = ()
    #: the statistics' scopes of its own, before the shoe's: a player's result in each part he
    #: plays where the game's parts are not the house's and a box's (counted in coups)
    scopes: tuple[str, ...] = ()
    #: its own events, their grammar and wording (None: it plays the format's events only)
    syntax: ev.Syntax | None = None
    #: the folder of the game's shipped rulesets (None: it ships none)
    rulesets: Path | None = None
    #: the folder of its rules' fixtures, ``<ruleset>/<RULE-ID>.del`` (None: the auditor's own
    #: ``fixtures/rules``, where the built-in games' are); the sentences its rulesets cite are
    #: indexed in ``<rulesets>/sentences/<ruleset>.yaml``
    fixtures: Path | None = None
    #: the game's exact odds: an ``audit.odds.GameOdds``
    odds: str | None = None
    #: the game's simulator: an ``audit.simulate.GameSimulator``
    simulator: str | None = None
    #: verb -> titles of the games that play it, for the verbs of other games (set by the registry)
    foreign: Mapping[str, str] = field(default_factory=dict)

    def part(self, which: str) -> Any:
        """The object a reference field (``odds``, ``simulator``) names, imported; None if the game
        has none."""
        reference = getattr(self, which)
        if reference is None:
            return None
        module, _, attribute = reference.partition(":")
        found: Any = import_module(module)
        for name in attribute.split("."):
            found = getattr(found, name)
        return found

    def vocabulary(self) -> tuple[str, ...]:
        """The game's own words: its name, its title and ``words``."""
        return tuple(dict.fromkeys((self.name, self.title, *self.words)))

    def verbs(self) -> frozenset[str]:
        """The verbs its round or extension declares (``EVENTS``), apart from those the table
        handles."""
        return frozenset((*self.round.EVENTS, *self.extension.EVENTS)) - TABLE_VERBS

    def checks(self) -> dict[str, Check]:
        """The checks a ruleset of this game may bind, by name: the format's, every game's, its own."""
        return checks_in({FORMAT, EVERY_GAME, self.name})
