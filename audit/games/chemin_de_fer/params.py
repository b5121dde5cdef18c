"""What the chemin de fer simulator reads from a loaded ruleset (its overlay applied), by check name."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ...rulesets import LoadedRuleset
from ...simulate.params import needed


@dataclass(frozen=True)
class CdfParams:
    ruleset: str
    decks: int
    min_players: int
    #: a new shoe once fewer cards than this remain
    min_cards: int
    #: the banker's drawing table: a row of 11 cells (T, R, O) per point, by the ponte's third card 0-9 then NON
    banker_rows: dict[int, str]
    banker_always_draws: tuple[int, ...]
    banker_always_stands: tuple[int, ...]
    ponte_draws_on: tuple[int, ...]
    ponte_stands_on: tuple[int, ...]
    ponte_chooses_on: tuple[int, ...]
    #: the ponte's points on which the employee's advice is always "non"
    advice_non_on: tuple[int, ...]
    #: auction brackets: (bids below this amount or None, rise by this step)
    bid_steps: tuple[tuple[Decimal | None, Decimal], ...]
    #: the share of the bank the caller of "banco avec la table" stakes himself
    table_share: Decimal
    max_associates: int


def cdf_params(ruleset: LoadedRuleset) -> CdfParams:
    """The parameters of a chemin de fer table of ``ruleset``."""
    banker = needed(ruleset, "cdf-draw-banker")
    ponte = needed(ruleset, "cdf-draw-ponte")
    return CdfParams(
        ruleset=ruleset.id,
        decks=needed(ruleset, "shoe-decks").decks,
        min_players=needed(ruleset, "cdf-min-players").min_players,
        min_cards=needed(ruleset, "cdf-cards-left").min_cards,
        banker_rows={point: "".join(cells) for point, cells in banker.rows.items()},
        banker_always_draws=tuple(banker.always_draw),
        banker_always_stands=tuple(banker.always_stand),
        ponte_draws_on=tuple(ponte.draw_on),
        ponte_stands_on=tuple(ponte.stand_on),
        ponte_chooses_on=tuple(ponte.choice_on),
        advice_non_on=tuple(needed(ruleset, "cdf-advice").points),
        bid_steps=tuple((s.below, s.step) for s in needed(ruleset, "cdf-auction").steps),
        table_share=needed(ruleset, "cdf-stakes-bank").table_share,
        max_associates=needed(ruleset, "cdf-associate").max_associates,
    )
