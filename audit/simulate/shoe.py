"""The shoe: real cards of the ruleset's decks in shuffled order, drawn one by one."""

from __future__ import annotations

import random

from ..values import RANKS, SUITS, Card

#: The cards of one deck.
DECK = len(RANKS) * len(SUITS)
#: How far past the ruleset's minimum talon the dealer puts the stop card (about half a deck at most);
#: a shuffling-dealing machine is refilled at an unlogged threshold drawn from the same range.
TALON_SPREAD = 28


class Shoe:
    """``decks`` decks of ``DECK`` cards, shuffled by the table's generator."""

    def __init__(self, rng: random.Random, decks: int):
        self.cards = [Card(rank=r, suit=s) for _ in range(decks) for r in RANKS for s in SUITS]
        rng.shuffle(self.cards)
        self.drawn = 0

    @property
    def left(self) -> int:
        return len(self.cards) - self.drawn

    def take(self) -> Card:
        card = self.cards[self.drawn]
        self.drawn += 1
        return card


class StopCardShoe(Shoe):
    """A shoe with a stop card a talon of ``min_talon`` or a little more from its end, or a
    shuffling-dealing machine's (no stop card: refilled before it runs dry)."""

    def __init__(self, rng: random.Random, decks: int, procedure: str, min_talon: int):
        super().__init__(rng, decks)
        spread = (min_talon, min_talon + TALON_SPREAD)
        self.machine = procedure == "shuffler-dealer"
        self.talon = None if self.machine else rng.randint(*spread)
        self.reload = rng.randint(*spread) if self.machine else 0
        self.stop_out = False

    def stop_due(self) -> bool:
        return (
            self.talon is not None
            and not self.stop_out
            and self.drawn == len(self.cards) - self.talon
        )

    def spent(self) -> bool:
        if self.machine:
            return self.left < self.reload
        return self.stop_out
