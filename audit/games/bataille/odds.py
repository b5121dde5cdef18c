"""La bataille: the exact edge of the main bet (for each choice at a tie), of the égalité bet
and of the égalité re-bet at a bataille, from the ruleset's payouts and a shoe's composition.

Cards come from the shoe without replacement: the two first cards, then (at a tie) the two
bataille cards from the shoe less the two tied cards. Burned cards, and the cards of other
hands, are cards this bet does not see: for it they are as unknown as those still in the shoe,
so they do not change its probabilities (docs/statistics.md, "Odds").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from ...odds.params import Figure, GameOdds, moments, setting, shoe
from ...rulesets import LoadedRuleset
from .cards import BATAILLE_VALUE

Outcomes = dict[str, tuple[str, str]]  # higher/equal/lower -> (main spot, war spot)


@dataclass(frozen=True)
class BatailleRules:
    """What the ruleset pays; None where it does not offer the bet or the choice."""

    main_odds: Fraction | None
    war_odds: Fraction | None
    war_outcomes: Outcomes | None
    surrender: Fraction | None
    egalite_odds: Fraction | None
    egalite_war_odds: Fraction | None
    #: the Ace's value when a lone player's Ace wins the bataille at once (no dealer card)
    ace: int | None


def rules_of(ruleset: LoadedRuleset) -> BatailleRules:
    main, war, give_up = (
        setting(ruleset, "pay-main"),
        setting(ruleset, "pay-bataille"),
        setting(ruleset, "surrender"),
    )
    offered = setting(ruleset, "egalite-offered")
    egalite_on = offered is None or offered.offered
    egalite, egalite_war = setting(ruleset, "pay-egalite"), setting(ruleset, "pay-egalite-war")
    return BatailleRules(
        main_odds=Fraction(main.odds) if main else None,
        war_odds=Fraction(war.odds) if war else None,
        war_outcomes={
            side: (getattr(war, side).main, getattr(war, side).war)
            for side in ("higher", "equal", "lower")
        }
        if war
        else None,
        surrender=Fraction(give_up.fraction) if give_up else None,
        egalite_odds=Fraction(egalite.odds) if egalite and egalite_on else None,
        egalite_war_odds=Fraction(egalite_war.odds) if egalite_war and egalite_on else None,
        ace=BATAILLE_VALUE["A"] if setting(ruleset, "bataille-ace") is not None else None,
    )


def _pairs(counts: dict[int, int]) -> Iterator[tuple[int, int, int]]:
    """Two cards drawn without replacement: (player's value, dealer's value, number of ordered ways),
    out of ``_deals(counts)`` ways in all."""
    for i, ci in counts.items():
        for j, cj in counts.items():
            ways = ci * (cj - (i == j))
            if ways:
                yield i, j, ways


def _deals(counts: dict[int, int]) -> int:
    """The ordered ways of drawing two cards from the shoe."""
    total = sum(counts.values())
    return total * (total - 1)


def _less(counts: dict[int, int], value: int) -> dict[int, int]:
    """The shoe less the two tied cards of this value."""
    return {v: c - 2 * (v == value) for v, c in counts.items()}


def _side(rules: BatailleRules, player: int, dealer: int, alone: bool) -> str:
    if alone and player == rules.ace:
        return "higher"
    return "higher" if player > dealer else "equal" if player == dealer else "lower"


def _spot(outcome: str, odds: Fraction) -> Fraction:
    """The house's gain on one spot staked 1."""
    return {"pay": -odds, "push": Fraction(0), "collect": Fraction(1)}[outcome]


def _distribution(ways: dict[Fraction, int], out_of: int) -> dict[Fraction, Fraction]:
    """{result: number of ways} out of ``out_of`` ways, as {result: probability}."""
    return {result: Fraction(count, out_of) for result, count in ways.items()}


def _main(
    rules: BatailleRules, counts: dict[int, int], strategy: str, alone: bool
) -> dict[Fraction, Fraction]:
    """The house's result on an initial stake of 1 (the bataille stake equals it).

    Counted in whole numbers of ordered deals: the two first cards, and at a tie the two bataille
    cards, each deal of the first two weighing as many deals of the next two as the rest of the
    shoe allows (all the same: the shoe less two cards), so every probability has one denominator."""
    first, second = _deals(counts), _deals(counts) - 4 * sum(counts.values()) + 6  # (n-2)(n-3)
    # the ways are counted by result as (numerator, denominator): a tuple hashes in C, a Fraction
    # in Python, thousands of times a strategy
    ways: dict[tuple[int, int], int] = defaultdict(int)
    assert rules.main_odds is not None  # ``figures`` asks only for a main bet the rules pay
    win, loss = _key(-rules.main_odds), _key(Fraction(1))
    if strategy != "surrender" and rules.war_outcomes is not None:
        assert rules.war_odds is not None  # set with the outcomes (``rules_of``)
        war = {
            side: _key(_spot(main, rules.war_odds) + _spot(bet, rules.war_odds))
            for side, (main, bet) in rules.war_outcomes.items()
        }
    for i, j, w in _pairs(counts):
        if i > j:
            ways[win] += w * second
        elif i < j:
            ways[loss] += w * second
        elif strategy == "surrender":
            assert rules.surrender is not None  # ``figures`` asks for it only when offered
            ways[_key(rules.surrender)] += w * second
        else:
            for k, m, v in _pairs(_less(counts, i)):
                ways[war[_side(rules, k, m, alone)]] += w * v
    return _distribution({Fraction(*key): count for key, count in ways.items()}, first * second)


def _key(value: Fraction) -> tuple[int, int]:
    return value.numerator, value.denominator


def _egalite(odds: Fraction, counts: dict[int, int]) -> dict[Fraction, Fraction]:
    tie = Fraction(sum(w for i, j, w in _pairs(counts) if i == j), _deals(counts))
    return {-odds: tie, Fraction(1): 1 - tie}


def _egalite_war(
    rules: BatailleRules, counts: dict[int, int], alone: bool
) -> dict[Fraction, Fraction]:
    """The re-bet, placed only at a bataille: given a tie, on the bataille cards being equal."""
    ties = {i: w for i, j, w in _pairs(counts) if i == j}
    tied = sum(ties.values())
    second = _deals(counts) - 4 * sum(counts.values()) + 6
    equal_ways = sum(
        w * sum(v for k, m, v in _pairs(_less(counts, i)) if _side(rules, k, m, alone) == "equal")
        for i, w in ties.items()
    )
    equal = Fraction(equal_ways, tied * second)
    assert rules.egalite_war_odds is not None  # ``figures`` asks for it only when offered
    return {-rules.egalite_war_odds: equal, Fraction(1): 1 - equal}


def _figure(bet: str, strategy: str | None, dist: dict[Fraction, Fraction]) -> Figure:
    return Figure(bet, strategy, *moments(dist))


def _both(rules: BatailleRules, bet: str, strategy: str | None, compute) -> list[Figure]:
    """One row, or two where a lone player's Ace (no dealer card) changes the figure."""
    if rules.ace is None:
        return [_figure(bet, strategy, compute(False))]
    alone, others = compute(True), compute(False)
    if alone == others:
        return [_figure(bet, strategy, alone)]
    prefix = f"{strategy}, " if strategy else ""
    return [
        _figure(bet, prefix + "alone at bataille", alone),
        _figure(bet, prefix + "others at bataille", others),
    ]


def figures(rules: BatailleRules, counts: dict[int, int]) -> list[Figure]:
    """Every bet the rules offer, in the contract's order: main (bataille, surrender), égalité, re-bet."""
    rows: list[Figure] = []
    if rules.main_odds is not None:
        if rules.war_outcomes is not None:
            rows += _both(
                rules, "main", "bataille", lambda alone: _main(rules, counts, "bataille", alone)
            )
        if rules.surrender is not None:
            rows.append(_figure("main", "surrender", _main(rules, counts, "surrender", False)))
    if rules.egalite_odds is not None:
        rows.append(_figure("egalite", None, _egalite(rules.egalite_odds, counts)))
    if rules.egalite_war_odds is not None:
        rows += _both(rules, "egalite-war", None, lambda alone: _egalite_war(rules, counts, alone))
    return rows


def _figures(ruleset: LoadedRuleset, decks: int) -> list[Figure]:
    return figures(rules_of(ruleset), shoe(decks, BATAILLE_VALUE))


#: the house banks every bet: its edge per unit of a bet's initial stake
ODDS = GameOdds(
    party="house",
    title="house edge",
    figures=_figures,
    none="no pay-main, pay-egalite or pay-egalite-war rule enabled",
)
