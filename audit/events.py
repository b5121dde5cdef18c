"""Typed DEL events: one pydantic model per verb, a discriminated union on ``verb``.

The parser builds these from the Lark tree; the engine only ever sees these
models, never raw text, so a value that reached the engine is already valid.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from .values import Card, Owner

Spot = Literal["main", "egalite", "war", "egalite-war"]
Game = Literal["bataille", "chemin-de-fer"]


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    ts: datetime
    table: str
    line: int = 0


# -- common to every game -------------------------------------------------

class Open(_Event):
    verb: Literal["OPEN"] = "OPEN"
    game: Game
    ruleset: str
    seats: int
    min: Decimal
    max: Decimal
    egalite_min: Decimal | None = None
    egalite_max: Decimal | None = None


class Limits(_Event):
    verb: Literal["LIMITS"] = "LIMITS"
    min: Decimal
    max: Decimal
    egalite_min: Decimal | None = None
    egalite_max: Decimal | None = None


class Dealer(_Event):
    verb: Literal["DEALER"] = "DEALER"
    id: str


class Supervisor(_Event):
    verb: Literal["SUPERVISOR"] = "SUPERVISOR"
    present: bool


class Seat(_Event):
    verb: Literal["SEAT"] = "SEAT"
    seat: int
    action: Literal["in", "out"]
    player: str | None = None


class Announce(_Event):
    verb: Literal["ANNOUNCE"] = "ANNOUNCE"
    what: Literal["last-shoe", "last-rounds"]
    n: int | None = None


class Note(_Event):
    verb: Literal["NOTE"] = "NOTE"
    text: str


class Close(_Event):
    verb: Literal["CLOSE"] = "CLOSE"


# -- shoe -----------------------------------------------------------------

class Shoe(_Event):
    verb: Literal["SHOE"] = "SHOE"
    decks: int
    procedure: Literal["sabot", "shuffler", "shuffler-dealer"]


class Shuffle(_Event):
    verb: Literal["SHUFFLE"] = "SHUFFLE"


class Cut(_Event):
    verb: Literal["CUT"] = "CUT"
    by: Literal["dealer"] | Owner
    refused: bool = False


class StopCard(_Event):
    verb: Literal["STOPCARD"] = "STOPCARD"
    action: Literal["place", "out"]
    talon: int | None = None


class Burn(_Event):
    verb: Literal["BURN"] = "BURN"
    card: Card | None = None


class Pause(_Event):
    verb: Literal["PAUSE"] = "PAUSE"


class Resume(_Event):
    verb: Literal["RESUME"] = "RESUME"


# -- rounds ---------------------------------------------------------------

class Round(_Event):
    verb: Literal["ROUND"] = "ROUND"
    n: int
    action: Literal["begin", "end"]


class Bet(_Event):
    verb: Literal["BET"] = "BET"
    seat: int
    spot: Spot
    amount: Decimal
    by: Owner | None = None
    approved: bool = False


class Withdraw(_Event):
    verb: Literal["WITHDRAW"] = "WITHDRAW"
    seat: int
    spot: Spot
    amount: Decimal
    by: Owner | None = None


class NoMoreBets(_Event):
    verb: Literal["NOMOREBETS"] = "NOMOREBETS"


class Deal(_Event):
    """``DEAL seat=N C`` / ``DEAL dealer C`` (bataille), ``DEAL ponte|banker C`` (chemin de fer)."""

    verb: Literal["DEAL"] = "DEAL"
    to: Literal["seat", "dealer", "ponte", "banker"]
    seat: int | None = None
    card: Card


class Choice(_Event):
    verb: Literal["CHOICE"] = "CHOICE"
    seat: int
    choice: Literal["war", "surrender"]


class Pay(_Event):
    """Bataille: ``seat``/``spot`` set; chemin de fer: ``by`` set."""

    verb: Literal["PAY"] = "PAY"
    seat: int | None = None
    spot: Spot | None = None
    by: Owner | None = None
    amount: Decimal


class Collect(_Event):
    verb: Literal["COLLECT"] = "COLLECT"
    seat: int | None = None
    spot: Spot | None = None
    by: Owner | None = None
    amount: Decimal


class Push(_Event):
    verb: Literal["PUSH"] = "PUSH"
    seat: int | None = None
    spot: Spot | None = None
    by: Owner | None = None


# -- chemin de fer --------------------------------------------------------

class Hand(_Event):
    verb: Literal["HAND"] = "HAND"
    seat: int
    by: Owner | None = None
    how: Literal["first", "suite", "taken", "taux", "auction"] | None = None


class Bank(_Event):
    verb: Literal["BANK"] = "BANK"
    amount: Decimal


class Associate(_Event):
    verb: Literal["ASSOCIATE"] = "ASSOCIATE"
    by: Owner
    amount: Decimal


class Pass(_Event):
    verb: Literal["PASS"] = "PASS"


class Bid(_Event):
    verb: Literal["BID"] = "BID"
    by: Owner
    amount: Decimal


class Award(_Event):
    verb: Literal["AWARD"] = "AWARD"
    by: Owner
    amount: Decimal


class Banco(_Event):
    verb: Literal["BANCO"] = "BANCO"
    by: Owner
    mode: Literal["solo", "table", "suivi"] = "solo"


class Stake(_Event):
    verb: Literal["STAKE"] = "STAKE"
    by: Owner
    amount: Decimal


class Ponte(_Event):
    verb: Literal["PONTE"] = "PONTE"
    by: Owner


class Abat(_Event):
    verb: Literal["ABAT"] = "ABAT"
    side: Literal["ponte", "banker"]
    point: int


class Call(_Event):
    verb: Literal["CALL"] = "CALL"
    side: Literal["ponte", "banker"]
    draw: bool


class Tableau(_Event):
    verb: Literal["TABLEAU"] = "TABLEAU"


class Advice(_Event):
    verb: Literal["ADVICE"] = "ADVICE"
    draw: bool


class Point(_Event):
    verb: Literal["POINT"] = "POINT"
    ponte: int
    banker: int


Event = Annotated[
    Union[
        Open, Limits, Dealer, Supervisor, Seat, Announce, Note, Close,
        Shoe, Shuffle, Cut, StopCard, Burn, Pause, Resume,
        Round, Bet, Withdraw, NoMoreBets, Deal, Choice, Pay, Collect, Push,
        Hand, Bank, Associate, Pass, Bid, Award, Banco, Stake, Ponte,
        Abat, Call, Tableau, Advice, Point,
    ],
    Field(discriminator="verb"),
]

#: verb -> model, for the parser.
MODELS: dict[str, type[_Event]] = {
    m.model_fields["verb"].default: m
    for m in _Event.__subclasses__()
}
