"""Chemin de fer's own events, their grammar and wording: the verbs only this game plays, and
the two sides (``ponte``, ``banker``) that a card may be dealt to (``DEAL``, a format verb)."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from ...events import EventBase, Syntax, event
from ...values import Owner

Side = Literal["ponte", "banker"]


@event
class Hand(EventBase):
    verb: Literal["HAND"] = "HAND"
    seat: int
    by: Owner | None = None
    how: Literal["first", "suite", "taken", "taux", "auction", "next"] | None = None


@event
class Bank(EventBase):
    verb: Literal["BANK"] = "BANK"
    amount: Decimal


@event
class Associate(EventBase):
    verb: Literal["ASSOCIATE"] = "ASSOCIATE"
    by: Owner
    amount: Decimal


@event
class Pass(EventBase):
    verb: Literal["PASS"] = "PASS"


@event
class Bid(EventBase):
    verb: Literal["BID"] = "BID"
    by: Owner
    amount: Decimal


@event
class Award(EventBase):
    verb: Literal["AWARD"] = "AWARD"
    by: Owner
    amount: Decimal


@event
class Banco(EventBase):
    verb: Literal["BANCO"] = "BANCO"
    by: Owner
    mode: Literal["solo", "table", "suivi"] = "solo"


@event
class Stake(EventBase):
    verb: Literal["STAKE"] = "STAKE"
    by: Owner
    amount: Decimal


@event
class Ponte(EventBase):
    verb: Literal["PONTE"] = "PONTE"
    by: Owner


@event
class Abat(EventBase):
    verb: Literal["ABAT"] = "ABAT"
    side: Side
    point: int


@event
class Call(EventBase):
    verb: Literal["CALL"] = "CALL"
    side: Side
    draw: bool


@event
class Tableau(EventBase):
    verb: Literal["TABLEAU"] = "TABLEAU"


@event
class Advice(EventBase):
    verb: Literal["ADVICE"] = "ADVICE"
    draw: bool


@event
class Point(EventBase):
    verb: Literal["POINT"] = "POINT"
    ponte: int
    banker: int


def _after_eq(token: str) -> str:
    return token.split("=", 1)[1]


def _point(token: str) -> int:
    return int(_after_eq(token))


_GRAMMAR = r"""
hand: "HAND" (_WS hand_arg)+
?hand_arg: SEAT_KV | BY_KV | HOW_KV
bank: "BANK" _WS AMOUNT_KV
associate: "ASSOCIATE" (_WS owner_amount_arg)+
pass: "PASS"
bid: "BID" (_WS owner_amount_arg)+
award: "AWARD" (_WS owner_amount_arg)+
stake: "STAKE" (_WS owner_amount_arg)+
?owner_amount_arg: BY_KV | AMOUNT_KV
banco: "BANCO" (_WS banco_arg)+
?banco_arg: BY_KV | MODE_KV
ponte: "PONTE" _WS BY_KV
abat: "ABAT" _WS (PONTE | BANKER) _WS POINT_DIGIT
call: "CALL" _WS (PONTE | BANKER) _WS (CARD_WORD | NON)
// the side is the only one possible: written, not kept
tableau: "TABLEAU" _WS "banker"
advice: "ADVICE" _WS "ponte" _WS (CARD_WORD | NON)
point: "POINT" (_WS point_arg)+
?point_arg: PONTE_POINT_KV | BANKER_POINT_KV

// a card is dealt to a side
%extend deal_to: PONTE | BANKER

POINT_DIGIT: /[0-9](?![^ \t])/
HOW_KV: /how=(first|suite|taken|taux|auction|next)(?![^ \t])/
MODE_KV: /mode=(solo|table|suivi)(?![^ \t])/
PONTE_POINT_KV: /ponte=[0-9](?![^ \t])/
BANKER_POINT_KV: /banker=[0-9](?![^ \t])/
PONTE: "ponte"
BANKER: "banker"
CARD_WORD: "card"
NON: "non"
"""

SYNTAX = Syntax(
    models=(Hand, Bank, Associate, Pass, Bid, Award, Banco, Stake, Ponte, Abat, Call, Tableau)
    + (Advice, Point),
    grammar=_GRAMMAR,
    fields={
        "HOW_KV": ("how", _after_eq),
        "MODE_KV": ("mode", _after_eq),
        "PONTE_POINT_KV": ("ponte", _point),
        "BANKER_POINT_KV": ("banker", _point),
        "POINT_DIGIT": ("point", int),
    },
    words={
        "PONTE": ("side", "ponte"),
        "BANKER": ("side", "banker"),
        "CARD_WORD": ("draw", True),
        "NON": ("draw", False),
    },
    values={
        "HOW_KV": "first, suite, taken, taux, auction or next",
        "MODE_KV": "solo, table or suivi",
        "PONTE_POINT_KV": "a point from 0 to 9",
        "BANKER_POINT_KV": "a point from 0 to 9",
        "POINT_DIGIT": "a point from 0 to 9",
    },
    spellings={
        "how": "how=H",
        "mode": "mode=M",
        "ponte": "ponte=P",
        "banker": "banker=B",
        "point": "a point",
    },
    free=("ponte", "banker"),
)
