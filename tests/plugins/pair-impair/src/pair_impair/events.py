"""The game's own event: a wager on the card's parity."""

from decimal import Decimal
from typing import Literal

from audit.plugin import EventBase, event


@event
class Wager(EventBase):
    verb: Literal["WAGER"] = "WAGER"
    seat: int
    on: Literal["pair", "impair"]
    amount: Decimal
