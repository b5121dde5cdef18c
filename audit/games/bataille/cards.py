"""A card's value at la bataille."""

from ...values import RANKS

#: Bataille order (art. 55-19: "as, roi, dame, valet, dix, neuf, ... deux").
BATAILLE_VALUE: dict[str, int] = {rank: 14 - i for i, rank in enumerate(RANKS)}
