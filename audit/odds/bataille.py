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

from ..rulesets import LoadedRuleset
from ..values import BATAILLE_VALUE
from .params import Figure, moments, setting

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
    main, war, give_up = setting(ruleset, "pay-main"), setting(ruleset, "pay-bataille"), setting(ruleset, "surrender")
    offered = setting(ruleset, "egalite-offered")
    egalite_on = offered is None or offered.offered
    egalite, egalite_war = setting(ruleset, "pay-egalite"), setting(ruleset, "pay-egalite-war")
    return BatailleRules(
        main_odds=Fraction(main.odds) if main else None,
        war_odds=Fraction(war.odds) if war else None,
        war_outcomes={side: (getattr(war, side).main, getattr(war, side).war)
                      for side in ("higher", "equal", "lower")} if war else None,
        surrender=Fraction(give_up.fraction) if give_up else None,
        egalite_odds=Fraction(egalite.odds) if egalite and egalite_on else None,
        egalite_war_odds=Fraction(egalite_war.odds) if egalite_war and egalite_on else None,
        ace=BATAILLE_VALUE["A"] if setting(ruleset, "bataille-ace") is not None else None,
    )


def _pairs(counts: dict[int, int]) -> Iterator[tuple[int, int, Fraction]]:
    """Two cards drawn without replacement: (player's value, dealer's value, probability)."""
    total = sum(counts.values())
    pairs = total * (total - 1)
    for i, ci in counts.items():
        for j, cj in counts.items():
            ways = ci * (cj - (i == j))
            if ways:
                yield i, j, Fraction(ways, pairs)


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


def _main(rules: BatailleRules, counts: dict[int, int], strategy: str, alone: bool) -> dict[Fraction, Fraction]:
    """The house's result on an initial stake of 1 (the bataille stake equals it)."""
    out: dict[Fraction, Fraction] = defaultdict(Fraction)
    for i, j, p in _pairs(counts):
        if i > j:
            out[-rules.main_odds] += p
        elif i < j:
            out[Fraction(1)] += p
        elif strategy == "surrender":
            out[rules.surrender] += p
        else:
            for k, m, q in _pairs(_less(counts, i)):
                main, war = rules.war_outcomes[_side(rules, k, m, alone)]
                out[_spot(main, rules.war_odds) + _spot(war, rules.war_odds)] += p * q
    return out


def _egalite(odds: Fraction, counts: dict[int, int]) -> dict[Fraction, Fraction]:
    tie = sum((p for i, j, p in _pairs(counts) if i == j), Fraction(0))
    return {-odds: tie, Fraction(1): 1 - tie}


def _egalite_war(rules: BatailleRules, counts: dict[int, int], alone: bool) -> dict[Fraction, Fraction]:
    """The re-bet, placed only at a bataille: given a tie, on the bataille cards being equal."""
    ties = {i: p for i, j, p in _pairs(counts) if i == j}
    tie = sum(ties.values())
    equal = Fraction(0)
    for i, p in ties.items():
        equal += p / tie * sum((q for k, m, q in _pairs(_less(counts, i))
                                if _side(rules, k, m, alone) == "equal"), Fraction(0))
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
    return [_figure(bet, prefix + "alone at bataille", alone), _figure(bet, prefix + "others at bataille", others)]


def figures(rules: BatailleRules, counts: dict[int, int]) -> list[Figure]:
    """Every bet the rules offer, in the contract's order: main (bataille, surrender), égalité, re-bet."""
    rows: list[Figure] = []
    if rules.main_odds is not None:
        if rules.war_outcomes is not None:
            rows += _both(rules, "main", "bataille", lambda alone: _main(rules, counts, "bataille", alone))
        if rules.surrender is not None:
            rows.append(_figure("main", "surrender", _main(rules, counts, "surrender", False)))
    if rules.egalite_odds is not None:
        rows.append(_figure("egalite", None, _egalite(rules.egalite_odds, counts)))
    if rules.egalite_war_odds is not None:
        rows += _both(rules, "egalite-war", None, lambda alone: _egalite_war(rules, counts, alone))
    return rows
