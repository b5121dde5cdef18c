"""Bataille's own events, their grammar and wording: the bets on a box's spots, the choice after
a tie, and the spots a settlement (a format verb) may name."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from ...events import EventBase, Syntax, event
from ...values import Owner

Spot = Literal["main", "egalite", "war", "egalite-war"]


@event
class Bet(EventBase):
    verb: Literal["BET"] = "BET"
    seat: int
    spot: Spot
    amount: Decimal
    by: Owner | None = None
    approved: bool = False


@event
class Withdraw(EventBase):
    verb: Literal["WITHDRAW"] = "WITHDRAW"
    seat: int
    spot: Spot
    amount: Decimal
    by: Owner | None = None


@event
class Choice(EventBase):
    verb: Literal["CHOICE"] = "CHOICE"
    seat: int
    choice: Literal["war", "surrender"]


_GRAMMAR = r"""
bet: "BET" (_WS bet_arg)+
?bet_arg: SEAT_KV | SPOT_KV | AMOUNT_KV | BY_KV | APPROVED
withdraw: "WITHDRAW" (_WS withdraw_arg)+
?withdraw_arg: SEAT_KV | SPOT_KV | AMOUNT_KV | BY_KV
choice: "CHOICE" _WS SEAT_KV _WS (WAR | SURRENDER)

// a box's stake is settled by seat= and spot=
%extend settle_arg: SPOT_KV
%extend push_arg: SPOT_KV

SPOT_KV: /spot=(main|egalite-war|egalite|war)(?![^ \t])/
WAR: "war"
SURRENDER: "surrender"
APPROVED: "approved"
"""

SYNTAX = Syntax(
    models=(Bet, Withdraw, Choice),
    grammar=_GRAMMAR,
    fields={"SPOT_KV": ("spot", lambda token: token.split("=", 1)[1])},
    words={
        "WAR": ("choice", "war"),
        "SURRENDER": ("choice", "surrender"),
        "APPROVED": ("approved", True),
    },
    values={"SPOT_KV": "main, egalite, war or egalite-war"},
)
