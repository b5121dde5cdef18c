"""Exact odds of every bet a ruleset offers (``audit odds``), from the ruleset's parameters.

La bataille is house-banked: the figure is the house edge per unit of a bet's initial stake.
Chemin de fer is not: the figure is the banker's edge per unit staked against him. Both are
exact fractions from an enumeration of the shoe without replacement (docs/statistics.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rulesets import LoadedRuleset
from ..values import BACCARA_POINTS, BATAILLE_VALUE
from . import bataille, chemin_de_fer
from .params import Figure, OddsError, decks, shoe

__all__ = ["Figure", "Odds", "OddsError", "compute"]


@dataclass(frozen=True)
class Odds:
    ruleset: str
    decks: int
    #: the house overlay applied, if any
    house: str | None
    #: "house" (the figures are the house's) or "banker" (chemin de fer)
    party: str
    figures: list[Figure]


def compute(ruleset: LoadedRuleset) -> Odds:
    """Every bet's figures; ``OddsError`` if the ruleset offers none that can be computed."""
    if ruleset.game == "bataille":
        count = decks(ruleset)
        figures = bataille.figures(bataille.rules_of(ruleset), shoe(count, BATAILLE_VALUE))
        party = "house"
    elif ruleset.game == "chemin-de-fer":
        count = decks(ruleset)
        figures = chemin_de_fer.figures(
            chemin_de_fer.CoupRules(ruleset), shoe(count, BACCARA_POINTS)
        )
        party = "banker"
    else:
        raise OddsError(f"{ruleset.id}: a ruleset of the log format, with no bet to compute")
    if not figures:
        raise OddsError(
            f"{ruleset.id}: the ruleset offers no bet whose odds can be computed "
            "(no pay-main, pay-egalite or pay-egalite-war rule enabled)"
        )
    overlay = ruleset.overlay.model.overlay if ruleset.overlay is not None else None
    return Odds(ruleset.id, count, overlay, party, figures)
