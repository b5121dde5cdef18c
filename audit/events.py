"""Typed DEL events: one pydantic dataclass per verb, a discriminated union on ``verb``.

The parser builds these from the Lark tree; the engine only ever sees these
events, never raw text, so a value that reached the engine is already valid.

They are pydantic *dataclasses*, validated on construction like models (frozen,
extra fields forbidden), because the replay reads their fields millions of times
a night: a ``BaseModel`` defines ``__getattr__``, which keeps CPython from
specialising attribute reads (about 40 ns a read against 13 ns here).
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass as plain_dataclass
from dataclasses import field
from datetime import datetime
from decimal import Decimal
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, dataclass_transform

from pydantic import ConfigDict, Field, StringConstraints
from pydantic.dataclasses import dataclass

from .values import Card, Owner

#: a game's name as ``OPEN game=`` writes it; which names are games is the registry's
#: (``audit.registry``: the grammar admits those only, the replay finds the game by it)
Game = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]{0,31}$")]

#: how every event class is declared: immutable, keyword arguments only, no unknown field; its
#: validator is built when first used (a night of one game never builds another game's)
if TYPE_CHECKING:  # what ``event`` makes, as a type checker must see it (it cannot see a partial)
    _T = TypeVar("_T")

    @dataclass_transform(frozen_default=True, kw_only_default=True)
    def event(cls: type[_T]) -> type[_T]: ...
else:
    event = partial(
        dataclass, frozen=True, kw_only=True, config=ConfigDict(extra="forbid", defer_build=True)
    )


@event
class _Event:
    ts: datetime
    table: str
    line: int = 0


# -- common to every game -------------------------------------------------


@event
class Open(_Event):
    verb: Literal["OPEN"] = "OPEN"
    game: Game
    ruleset: str
    seats: int
    min: Decimal
    max: Decimal
    #: a second pair of limits, for a bet a game posts apart (its key=value terminals: ``Syntax``)
    side_min: Decimal | None = None
    side_max: Decimal | None = None


@event
class Limits(_Event):
    verb: Literal["LIMITS"] = "LIMITS"
    min: Decimal
    max: Decimal
    #: a second pair of limits, for a bet a game posts apart (its key=value terminals: ``Syntax``)
    side_min: Decimal | None = None
    side_max: Decimal | None = None


@event
class Dealer(_Event):
    verb: Literal["DEALER"] = "DEALER"
    id: str


@event
class Supervisor(_Event):
    verb: Literal["SUPERVISOR"] = "SUPERVISOR"
    present: bool


@event
class Seat(_Event):
    verb: Literal["SEAT"] = "SEAT"
    seat: int
    action: Literal["in", "out"]
    player: str | None = None


@event
class Move(_Event):
    """``MOVE seat=N to=M``: the player at seat N changes place to seat M (an extension of DEL v1)."""

    verb: Literal["MOVE"] = "MOVE"
    seat: int
    to_seat: int


@event
class Announce(_Event):
    verb: Literal["ANNOUNCE"] = "ANNOUNCE"
    what: Literal["last-shoe", "last-rounds"]
    n: int | None = None


@event
class Note(_Event):
    verb: Literal["NOTE"] = "NOTE"
    text: str


@event
class Close(_Event):
    verb: Literal["CLOSE"] = "CLOSE"


# -- shoe -----------------------------------------------------------------


@event
class Shoe(_Event):
    verb: Literal["SHOE"] = "SHOE"
    decks: int
    procedure: Literal["sabot", "shuffler", "shuffler-dealer"]


@event
class Shuffle(_Event):
    verb: Literal["SHUFFLE"] = "SHUFFLE"


@event
class Cut(_Event):
    verb: Literal["CUT"] = "CUT"
    by: Literal["dealer"] | Owner
    refused: bool = False


@event
class StopCard(_Event):
    verb: Literal["STOPCARD"] = "STOPCARD"
    action: Literal["place", "out"]
    talon: int | None = None


@event
class Burn(_Event):
    verb: Literal["BURN"] = "BURN"
    card: Card | None = None


@event
class Pause(_Event):
    verb: Literal["PAUSE"] = "PAUSE"


@event
class Resume(_Event):
    verb: Literal["RESUME"] = "RESUME"


# -- rounds ---------------------------------------------------------------


@event
class Round(_Event):
    verb: Literal["ROUND"] = "ROUND"
    n: int
    action: Literal["begin", "end"]


@event
class NoMoreBets(_Event):
    verb: Literal["NOMOREBETS"] = "NOMOREBETS"


@event
class Deal(_Event):
    """``DEAL seat=N C``, ``DEAL dealer C``, or a word a game adds (``Syntax``: the ``side``
    its grammar reads becomes ``to``)."""

    verb: Literal["DEAL"] = "DEAL"
    to: str
    seat: int | None = None
    card: Card


@event
class Pay(_Event):
    """A box's stake (``seat``/``spot`` set, the spots a game's grammar admits) or an owner's
    (``by`` set)."""

    verb: Literal["PAY"] = "PAY"
    seat: int | None = None
    spot: str | None = None
    by: Owner | None = None
    amount: Decimal


@event
class Collect(_Event):
    verb: Literal["COLLECT"] = "COLLECT"
    seat: int | None = None
    spot: str | None = None
    by: Owner | None = None
    amount: Decimal


@event
class Push(_Event):
    verb: Literal["PUSH"] = "PUSH"
    seat: int | None = None
    spot: str | None = None
    by: Owner | None = None


Event = Annotated[
    Open
    | Limits
    | Dealer
    | Supervisor
    | Seat
    | Announce
    | Note
    | Close
    | Shoe
    | Shuffle
    | Cut
    | StopCard
    | Burn
    | Pause
    | Resume
    | Round
    | NoMoreBets
    | Deal
    | Pay
    | Collect
    | Push,
    Field(discriminator="verb"),
]

#: the base of every event class: a game's own events (``Syntax``) derive from it too
EventBase = _Event


def verb_of(model: type[_Event]) -> str:
    """The verb an event class is written with."""
    return model.__dataclass_fields__["verb"].default


#: verb -> model, for the parser: the format's, then the registered games' own (``register``).
MODELS: dict[str, type[_Event]] = {verb_of(m): m for m in _Event.__subclasses__()}


@plain_dataclass(frozen=True)
class Syntax:
    """What a game adds to the format: its own events and how a line writes them.

    ``grammar`` holds Lark rules and terminals in the grammar's own terms (``_WS``, ``CARD``,
    ``SEAT_KV``...): one rule per verb, named as the verb in lower case, whose tokens become the
    event's fields by ``fields`` (a key=value or value terminal: field and converter) and
    ``words`` (a bare word: field and value, None for a word that carries none); ``values`` says
    in words what a terminal accepts and ``spellings`` how a field is written, for the error
    messages; ``spots`` are the spots of a box it adds to the format's ``main``; ``side`` is the key and
    the name of a second pair of limits it posts (``<key>-min=``, a house's ``<key>_max_at_most``); ``free`` names the fields whose values are free (amounts, points: not a choice of
    words), which the fast parser may take out of a line to share one parse among lines. The
    rules may also extend the format's (``%extend deal_to: ...``)."""

    models: tuple[type[_Event], ...]
    grammar: str
    fields: Mapping[str, tuple[str, Callable[[str], Any]]] = field(default_factory=dict)
    words: Mapping[str, tuple[str, Any] | None] = field(default_factory=dict)
    values: Mapping[str, str] = field(default_factory=dict)
    spellings: Mapping[str, str] = field(default_factory=dict)
    free: tuple[str, ...] = ()
    spots: tuple[str, ...] = ()
    side: tuple[str, str] | None = None

    def verbs(self) -> list[str]:
        return [verb_of(model) for model in self.models]


def register(model: type[_Event]) -> None:
    """Add a game's event class to ``MODELS``; a verb already written otherwise is an error."""
    verb = verb_of(model)
    known = MODELS.setdefault(verb, model)
    if known is not model:
        raise ValueError(f"the verb {verb} is already an event of another shape ({known.__name__})")
