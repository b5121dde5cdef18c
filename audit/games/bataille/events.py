"""Bataille's own events, their grammar and wording: the bets on a box's spots, the choice after
a tie; the spots it adds to the format's ``main`` and the égalité's own pair of limits."""

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


def _after_eq(token: str) -> str:
    return token.split("=", 1)[1]


def _amount(token: str) -> Decimal:
    return Decimal(_after_eq(token))


#: what an amount may be, in words (as the format's own amounts say it)
_AMOUNT = "an amount: digits, no sign, at most 2 decimals (e.g. 50 or 12.50)"

_GRAMMAR = r"""
bet: "BET" (_WS bet_arg)+
?bet_arg: SEAT_KV | SPOT_KV | AMOUNT_KV | BY_KV | APPROVED
withdraw: "WITHDRAW" (_WS withdraw_arg)+
?withdraw_arg: SEAT_KV | SPOT_KV | AMOUNT_KV | BY_KV
choice: "CHOICE" _WS SEAT_KV _WS (WAR | SURRENDER)

// the égalité's own limits, beside the main pair
%extend open_arg: EGALITE_MIN_KV | EGALITE_MAX_KV
%extend limits_arg: EGALITE_MIN_KV | EGALITE_MAX_KV

EGALITE_MIN_KV: /egalite-min=(0|[1-9][0-9]{0,11})(\.[0-9]{1,2})?(?![^ \t])/
EGALITE_MAX_KV: /egalite-max=(0|[1-9][0-9]{0,11})(\.[0-9]{1,2})?(?![^ \t])/
WAR: "war"
SURRENDER: "surrender"
APPROVED: "approved"
"""

SYNTAX = Syntax(
    models=(Bet, Withdraw, Choice),
    grammar=_GRAMMAR,
    fields={
        "EGALITE_MIN_KV": ("side_min", _amount),
        "EGALITE_MAX_KV": ("side_max", _amount),
    },
    words={
        "WAR": ("choice", "war"),
        "SURRENDER": ("choice", "surrender"),
        "APPROVED": ("approved", True),
    },
    values={
        "EGALITE_MIN_KV": _AMOUNT,
        "EGALITE_MAX_KV": _AMOUNT,
    },
    spellings={"side_min": "egalite-min=AMOUNT", "side_max": "egalite-max=AMOUNT"},
    free=("side_min", "side_max"),
    spots=("egalite", "war", "egalite-war"),
    side=("egalite", "égalité"),
)
