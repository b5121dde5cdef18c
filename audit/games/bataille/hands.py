"""The chips and cards of a bataille round: a hand per seat, its spots, who staked what."""

from __future__ import annotations

from decimal import Decimal

from ...values import Card, Owner
from .cards import BATAILLE_VALUE

ZERO = Decimal(0)
WAR_SPOTS = frozenset(("war", "egalite-war"))
EGALITE_SPOTS = frozenset(("egalite", "egalite-war"))


class Spot:
    """The chips on one betting spot of a hand, by owner."""

    __slots__ = ("last_line", "settled_line", "stakes", "total")

    def __init__(self) -> None:
        #: owner -> [their chips, the line of their last move]: one dictionary, one hash of the owner
        self.stakes: dict[Owner, list] = {}
        self.last_line = 0
        self.settled_line = 0
        #: kept as chips come and go: the sum of the owners' chips
        self.total = ZERO

    def add(self, owner: Owner, amount: Decimal, line: int) -> None:
        """Chips placed (amount > 0) or taken back (< 0, never below what the owner has)."""
        stake = self.stakes.get(owner)
        if stake is None:
            stake = self.stakes[owner] = [ZERO, line]
        before = stake[0]
        after = before + amount
        if after < ZERO:
            after = ZERO
        stake[0] = after
        stake[1] = self.last_line = line
        self.total += after - before

    def held(self, owner: Owner) -> Decimal:
        """The owner's chips on the spot."""
        stake = self.stakes.get(owner)
        return stake[0] if stake is not None else ZERO


class HandState:
    """One seat's hand in a round: its spots, its cards, its choice at a tie."""

    __slots__ = ("card", "choice", "seat", "spots", "war_card")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.spots: dict[str, Spot] = {}
        self.card: Card | None = None
        self.war_card: Card | None = None
        self.choice: str | None = None

    def spot(self, name: str) -> Spot:
        if name not in self.spots:
            self.spots[name] = Spot()
        return self.spots[name]

    def stake(self, name: str) -> Decimal:
        spot = self.spots.get(name)
        return spot.total if spot else ZERO


def compare(a: Card, b: Card) -> str:
    """A card against another at la bataille: higher, equal or lower."""
    va, vb = BATAILLE_VALUE[a.rank], BATAILLE_VALUE[b.rank]
    return "higher" if va > vb else "lower" if va < vb else "equal"
