"""Anomalies for the tests of the statistics: every round stays legal, only the numbers are improbable.

- ``collusion``: one dealer (``COLLUDER``) gives one player (``FAVOURED``, the first seated at
  the table) the best of the next ``PEEK`` cards of the shoe for his first card, at each of his
  hands that dealer deals with probability ``strength``; the player never leaves. The table's
  dealers take turns, the colluder one in ``CREW``: the others deal him fair cards. The shoe's
  cards are the same, only their order. The names are the same every night, so a store of
  nights can sum the pair.
- ``stacked-shoe``: the table's ``STACKED`` shoe comes in clumps: after the shuffle, its cards
  are sorted by rank in blocks of ``CLUMP``.

The anomaly is played at the first table of a game whose simulator plays anomalies
(``GameSimulator.anomalies``), which ranks the cards by its own order; ``expected`` says which
group the statistics should name.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

KINDS = ("collusion", "stacked-shoe")
PEEK = 3
#: the colluding dealer, the player he favours, and the dealers who take turns at his table
COLLUDER = "DX777"
FAVOURED = "PX777"
CREW = 3
STACKED = 2
CLUMP = 26


@dataclass
class Anomaly:
    kind: str
    strength: float = 1.0
    #: filled as the night is played: the table, and the player favoured or the shoe stacked
    table: str | None = None
    id: str | None = None
    #: collusion: the dealer who favours the player
    dealer: str | None = None

    def expected(self) -> dict:
        """The group the statistics should name: the pair (collusion) or the shoe."""
        if self.kind == "collusion":
            return {
                "anomaly": self.kind,
                "strength": self.strength,
                "table": self.table,
                "scope": "pair",
                "id": f"{self.dealer}+{self.id}",
                "dealer": self.dealer,
                "player": self.id,
            }
        return {
            "anomaly": self.kind,
            "strength": self.strength,
            "table": self.table,
            "scope": "shoe",
            "id": self.id,
        }


def favour(
    cards: list, drawn: int, rng: random.Random, strength: float, value: Mapping[str, int]
) -> None:
    """Put the best of the next ``PEEK`` cards next (by ``value``, a rank's), with probability
    ``strength``."""
    if rng.random() >= strength:
        return
    ahead = range(drawn, min(drawn + PEEK, len(cards)))
    best = max(ahead, key=lambda i: value[cards[i].rank])
    cards[drawn], cards[best] = cards[best], cards[drawn]


def stack(cards: list, value: Mapping[str, int]) -> None:
    """Sort the shuffled cards by rank (``value``, a rank's) in blocks of ``CLUMP``: clumps of
    equal ranks."""
    for start in range(0, len(cards), CLUMP):
        cards[start : start + CLUMP] = sorted(
            cards[start : start + CLUMP], key=lambda c: value[c.rank]
        )
