"""Baccara chemin de fer: the banker's exact edge for each choice the rules leave to the
ponte (his point of choice) and to the banker (the drawing table's "O" cells).

The house is not a party: the banker's expected gain per unit staked against him is the
figure. The coup is enumerated exactly over the shoe's ten point classes without replacement
(up to six cards): first over the four cards of the deal, grouped by the two hands' cards
(their order does not change their probability), then over each third card. Every path is
weighed over six cards (the unseen cards after it count once each), so the weights are
integers with one common denominator and a strategy only picks which of them add up.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement, product
from math import perm

from ...odds.params import Figure, GameOdds, OddsError, setting, shoe
from ...rulesets import LoadedRuleset
from .cards import BACCARA_POINTS

#: a two-card point that ends the coup at once; the game's definition, as the engine's (cdf-natural)
NATURALS = frozenset({8, 9})
NON = 10  # the drawing table's last column: the ponte stood
CARDS = 6  # the most a coup deals: two hands of two cards and two third cards
MAX_CHOICES = 8  # choices enumerated together (2**8 strategies); more would be a table no one reads


def _check(where: str, covered: list[list[int]]) -> None:
    seen = [p for group in covered for p in group]
    missing = sorted(set(range(10)) - NATURALS - set(seen))
    if missing or len(seen) != len(set(seen)):
        raise OddsError(
            f"{where}: the drawing rule must name each point 0-7 once "
            f"({'missing ' + ', '.join(map(str, missing)) if missing else 'a point named twice'})"
        )


@lru_cache(maxsize=8)
def outcome_weights(counts: tuple[int, ...]) -> dict[tuple, tuple[int, int]]:
    """For a shoe of ``counts`` cards of points 0-9: the weight of every way a coup can end.

    Keys: ``("natural",)`` for every coup a natural ends, and ``(ponte point, banker point,
    ponte drew, column, banker drew)`` for the others, with both choices of both sides, so
    that any drawing rule is a choice of keys. Values: (banker wins, ponte wins) weights, over
    ``perm(total, 6)`` ordered six-card sequences; the rest is a tie.
    """
    total = sum(counts)
    out: dict[tuple, list[int]] = {}

    def add(key: tuple, banker_weight: int, ponte_weight: int) -> None:
        cell = out.setdefault(key, [0, 0])
        cell[0] += banker_weight
        cell[1] += ponte_weight

    pairs = list(combinations_with_replacement(range(10), 2))
    for pa, pb in pairs:
        for ba, bb in pairs:
            left = list(counts)
            deal = 1
            for v in (pa, pb, ba, bb):
                deal *= left[v]
                left[v] -= 1
            if not deal:
                continue
            deal *= (1 + (pa != pb)) * (1 + (ba != bb))  # the orders the hands' cards came in
            p, b = (pa + pb) % 10, (ba + bb) % 10
            if p in NATURALS or b in NATURALS:
                add(("natural",), *_split(p, b, deal * perm(total - 4, CARDS - 4)))
                continue
            after5 = total - 5
            add((p, b, False, NON, False), *_split(p, b, deal * perm(total - 4, 2)))
            above, below = _banker_draws(left, b)
            add((p, b, False, NON, True), above[p] * deal * after5, below[p] * deal * after5)
            for c in range(10):
                if not left[c]:
                    continue
                third = deal * left[c]
                pc = (p + c) % 10
                add((p, b, True, c, False), *_split(pc, b, third * after5))
                # the ponte's third card c is not in the shoe for the banker's: one card fewer that
                # gives him the point (b + c) % 10
                given = (b + c) % 10
                wins, losses = above[pc] - (given > pc), below[pc] - (given < pc)
                add((p, b, True, c, True), wins * third, losses * third)
    return {k: (v[0], v[1]) for k, v in out.items()}


def _split(ponte: int, banker: int, weight: int) -> tuple[int, int]:
    """A path's weight as (banker wins, ponte wins): to the higher point, to neither at a tie."""
    return (weight, 0) if banker > ponte else (0, weight) if ponte > banker else (0, 0)


def _banker_draws(left: list[int], banker: int) -> tuple[list[int], list[int]]:
    """The banker draws a third card from ``left``: for each final point of the ponte, the cards that
    make him win (``above``) and lose (``below``). ``_banker_third`` for the ten points at once, by
    running sums over the points a card gives him (a test compares the two)."""
    by_point = [left[(point - banker) % 10] for point in range(10)]
    above, below = [0] * 10, [0] * 10
    running = 0
    for point in range(9, -1, -1):
        above[point] = running
        running += by_point[point]
    running = 0
    for point in range(10):
        below[point] = running
        running += by_point[point]
    return above, below


def _banker_third(left: list[int], ponte: int, banker: int) -> tuple[int, int]:
    """The banker draws a third card from ``left``: (cards that make him win, cards that make him lose)
    against the ponte's final point (the plain version of ``_banker_draws``)."""
    wins = losses = 0
    for card, n in enumerate(left):
        if n:
            point = (banker + card) % 10
            if point > ponte:
                wins += n
            elif point < ponte:
                losses += n
    return wins, losses


def _points_shoe(counts: dict[int, int]) -> tuple[int, ...]:
    return tuple(counts.get(v, 0) for v in range(10))


def _cell_words(point: int, column: int) -> str:
    return f"on {point} against {'no third card' if column == NON else f'a {column}'}"


class CoupRules:
    """The drawing rules: the ponte's (draw, stand, choice) and the banker's table."""

    def __init__(self, ruleset: LoadedRuleset):
        ponte = setting(ruleset, "cdf-draw-ponte") or setting(ruleset, "cdf-draw-ponte-table")
        banker = setting(ruleset, "cdf-draw-banker") or setting(ruleset, "cdf-tableau")
        if ponte is None or banker is None:
            raise OddsError(
                f"{ruleset.id}: no drawing rule for the {'ponte' if ponte is None else 'banker'}"
            )
        _check(f"{ruleset.id}: the ponte", [ponte.draw_on, ponte.stand_on, ponte.choice_on])
        _check(
            f"{ruleset.id}: the banker",
            [banker.always_draw, banker.always_stand, list(banker.rows)],
        )
        self.ponte, self.banker = ponte, banker
        self.choices = sorted(ponte.choice_on)
        self.o_cells = sorted(
            (b, col)
            for b, cells in banker.rows.items()
            for col, cell in enumerate(cells)
            if cell == "O"
        )
        if len(self.choices) + len(self.o_cells) > MAX_CHOICES:
            raise OddsError(
                f"{ruleset.id}: {len(self.choices)} choices of the ponte and {len(self.o_cells)} O cells: "
                f"more than {MAX_CHOICES} choices, too many strategies to list"
            )

    def strategies(self) -> list[tuple[dict[int, bool], dict[tuple[int, int], bool]]]:
        """Every combination of the ponte's choices and the banker's O cells (draw first)."""
        return [
            (dict(zip(self.choices, ponte)), dict(zip(self.o_cells, banker)))
            for ponte in product((True, False), repeat=len(self.choices))
            for banker in product((True, False), repeat=len(self.o_cells))
        ]

    def ponte_draws(self, p: int, choice: dict[int, bool]) -> bool:
        return choice.get(p, p in self.ponte.draw_on)

    def banker_draws(self, b: int, column: int, choice: dict[tuple[int, int], bool]) -> bool:
        if b in self.banker.always_draw or b in self.banker.always_stand:
            return b in self.banker.always_draw
        cell = self.banker.rows[b][column]
        return choice[(b, column)] if cell == "O" else cell == "T"

    def name(self, ponte: dict[int, bool], banker: dict[tuple[int, int], bool]) -> str:
        said = []
        if ponte:
            said.append(
                "ponte "
                + ", ".join(f"{'draws' if draw else 'stands'} on {p}" for p, draw in ponte.items())
            )
        if banker:
            said.append(
                "banker "
                + ", ".join(
                    f"{'draws' if draw else 'stands'} {_cell_words(b, col)}"
                    for (b, col), draw in banker.items()
                )
            )
        return "; ".join(said) or "the drawing rules leave no choice"


def figures(rules: CoupRules, counts: dict[int, int]) -> list[Figure]:
    """One row per strategy: the banker's edge per unit staked against him."""
    shoe = _points_shoe(counts)
    weights = outcome_weights(shoe)
    whole = perm(sum(shoe), CARDS)
    rows = []
    for ponte, banker in rules.strategies():
        won, lost = weights[("natural",)]
        for p, b in product(range(10), repeat=2):
            if p in NATURALS or b in NATURALS:
                continue
            drew = rules.ponte_draws(p, ponte)
            for column in range(10) if drew else (NON,):
                key = (p, b, drew, column, rules.banker_draws(b, column, banker))
                more_won, more_lost = weights.get(key, (0, 0))
                won, lost = won + more_won, lost + more_lost
        rows.append(
            Figure(
                "coup",
                rules.name(ponte, banker),
                Fraction(won - lost, whole),
                Fraction(won + lost, whole),
            )
        )
    return rows


def _figures(ruleset: LoadedRuleset, decks: int) -> list[Figure]:
    return figures(CoupRules(ruleset), shoe(decks, BACCARA_POINTS))


def units(rows: list[Figure]) -> dict[str, tuple[Fraction, Fraction]]:
    """The statistics' units: the banker's edge is the mean of the rows (each choice of the ponte
    at 5 and of the banker's "O" cells made either way, half and half: the expectation is linear
    in each choice, so this is the exact figure for a player who chooses at random); the ponte's
    is its opposite. The rows differ by less than 0.4 % of the stake."""
    edge = sum((f.edge for f in rows), Fraction(0)) / len(rows)
    square = sum((f.second_moment for f in rows), Fraction(0)) / len(rows)
    return {
        "coup banker": (edge, square - edge * edge),
        "coup ponte": (-edge, square - edge * edge),
    }


#: the house is not a party: the banker's edge per unit staked against him
ODDS = GameOdds(
    party="banker",
    title="banker's edge",
    figures=_figures,
    none="no pay-main, pay-egalite or pay-egalite-war rule enabled",
    units=units,
)
