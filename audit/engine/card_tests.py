"""The card tests: is what a shoe dealt what a well-shuffled shoe of its decks would deal?

Two tests on the cards seen (burned face down cards are unseen; by symmetry the seen
cards are still a random sample, in random order, of the shoe):

- rank frequencies: Pearson's chi-square of the 13 ranks against the counts expected for
  the number of cards seen, times (N - 1) / (N - n), the finite population correction of
  sampling without replacement (the multivariate hypergeometric's covariance is the
  multinomial's times that factor); 12 degrees of freedom per shoe, summed over a table's
  shoes. Its p-value is exact for an even number of degrees of freedom.
- order: the number of cards seen right after a card of the same rank. Its mean and
  variance under a random order of the shoe are exact (sums over the shoe's composition
  of the chances that two, three or four given positions hold equal ranks); the z is
  read against the normal distribution. Clumps raise it; a shoe dealt "too evenly" lowers it.
"""

from __future__ import annotations

import math

from ..values import RANKS as NAMES

RANKS = len(NAMES)
#: fewest cards seen for a test: five expected per rank for the chi-square, as usual
MIN_CARDS = 5 * RANKS


def chi_square(ranks: dict[str, int], decks: int) -> tuple[float, int] | None:
    """(statistic, degrees of freedom) of one shoe's rank counts, or None if it cannot say."""
    size = RANKS * 4 * decks
    seen = sum(ranks.values())
    if seen < MIN_CARDS or seen >= size:
        return None
    each = seen / RANKS
    stat = sum((ranks.get(r, 0) - each) ** 2 for r in NAMES) / each
    return stat * (size - 1) / (size - seen), RANKS - 1


def chi_square_p(stat: float, df: int) -> float:
    """Upper tail of the chi-square for an even ``df``: e^(-x/2) * sum (x/2)^j / j!, j < df/2."""
    half = stat / 2
    if half == 0:
        return 1.0
    log_half = math.log(half)
    total = sum(math.exp(j * log_half - math.lgamma(j + 1) - half) for j in range(df // 2))
    return min(1.0, total)


def chi_square_z(stat: float, df: int) -> float:
    """The normal deviate of a chi-square (Wilson and Hilferty's cube root), for one scale of z."""
    third = (stat / df) ** (1 / 3)
    spread = 2 / (9 * df)
    return (third - (1 - spread)) / math.sqrt(spread)


def repeats_null(decks: int, seen: int) -> tuple[float, float]:
    """Mean and variance of the number of equal-rank neighbours among the first ``seen`` cards
    of a random order of a shoe of ``decks`` decks (13 ranks of 4 * decks cards)."""
    c, n = 4 * decks, RANKS * 4 * decks
    pair = RANKS * c * (c - 1) / (n * (n - 1))
    triple = RANKS * c * (c - 1) * (c - 2) / (n * (n - 1) * (n - 2))
    same4 = RANKS * c * (c - 1) * (c - 2) * (c - 3)
    two_pairs = RANKS * (RANKS - 1) * (c * (c - 1)) ** 2
    quad = (same4 + two_pairs) / (n * (n - 1) * (n - 2) * (n - 3))
    pairs = seen - 1
    mean = pairs * pair
    apart = (seen - 2) * (seen - 3)  # ordered count of neighbour pairs sharing no card, twice
    var = (
        pairs * pair * (1 - pair)
        + 2 * (seen - 2) * (triple - pair * pair)
        + apart * (quad - pair * pair)
    )
    return mean, var
