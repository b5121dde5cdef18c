"""Value types of the DEL format: cards, owners, amounts.

They are small and immutable because the engine keeps them in per-table
state and compares them constantly; amounts are always ``Decimal``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Literal, TypeVar, dataclass_transform

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

Rank = Literal["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
Suit = Literal["S", "H", "D", "C"]
RANKS: tuple[Rank, ...] = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
SUITS: tuple[Suit, ...] = ("S", "H", "D", "C")

#: value types are pydantic dataclasses, not models, for the reason ``events`` gives (attribute
#: reads); equality and hashing are their own (``eq=False``), cheap, as the engine needs
if TYPE_CHECKING:  # what ``value_type`` makes, as a type checker must see it
    _T = TypeVar("_T")

    @dataclass_transform(frozen_default=True, eq_default=False)
    def value_type(cls: type[_T]) -> type[_T]: ...
else:
    value_type = dataclass(frozen=True, eq=False, config=ConfigDict(extra="forbid"))


@value_type
class Card:
    """A card as the shoe reader saw it; ``T`` is normalised to ``10``."""

    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, text: str) -> Card:
        rank, suit = text[:-1], text[-1]
        if rank == "T":
            rank = "10"
        return cls(rank=rank, suit=suit)  # type: ignore[arg-type]  # pydantic validates them

    # cards are counted per shoe: hashing and comparing must be cheap
    def __hash__(self) -> int:
        return hash((self.rank, self.suit))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Card):
            return self.rank == other.rank and self.suit == other.suit
        return NotImplemented

    def __str__(self) -> str:
        return f"{self.rank}{self.suit}"


@value_type
class Owner:
    """Who owns a stake: a seated player (by seat) or a standing player (by id)."""

    kind: Literal["seat", "standing"]
    id: str

    @classmethod
    def parse(cls, text: str) -> Owner:
        kind, _, ident = text.partition(":")
        if kind == "seat":
            ident = str(int(ident))  # seat:07 is seat 7
        return cls(kind=kind, id=ident)  # type: ignore[arg-type]

    @classmethod
    def seated(cls, seat: int) -> Owner:
        return SEATED.get(seat) or cls(kind="seat", id=str(seat))

    # stakes are keyed by owner: hashing and comparing must be cheap
    def __hash__(self) -> int:
        return hash(self.id)  # seat:3 and standing:3 share a hash; equality tells them apart

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Owner):
            return self.kind == other.kind and self.id == other.id
        return NotImplemented

    @property
    def seat(self) -> int | None:
        return int(self.id) if self.kind == "seat" else None

    def __str__(self) -> str:
        return f"{self.kind}:{self.id}"


#: the owner of each seat's own stakes, made once (seats are 1 to 99)
SEATED = {n: Owner(kind="seat", id=str(n)) for n in range(1, 100)}


def fmt_amount(value: Decimal) -> str:
    """Write an amount the way the DEL format does: no exponent, no sign."""
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"
