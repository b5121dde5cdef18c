"""The catalogue of checks the engine knows, and the parameters each takes.

A ruleset rule names one check (``check: burn-start``) and gives its
parameters; this catalogue is the schema those parameters are validated
against. The logic of each check lives in one place in the engine; which
checks apply to a table, with which parameters, severity and citation, is
entirely the ruleset's business.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Outcome = Literal["pay", "push", "collect"]
SpotName = Literal["main", "egalite", "war", "egalite-war"]


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NoParams(Params):
    pass


class TimeOrder(Params):
    #: how far behind the latest time seen in a file a line of another table may be
    tolerance_seconds: int = Field(ge=0)


class Decks(Params):
    decks: int = Field(gt=0)


class Procedures(Params):
    allowed: list[Literal["sabot", "shuffler", "shuffler-dealer"]] = Field(min_length=1)


class CutPattern(Params):
    #: last-by-player: any cuts, the last by a player; dealer-then-player: exactly those two
    pattern: Literal["last-by-player", "dealer-then-player"]


class Talon(Params):
    min_talon: int = Field(gt=0)


class BurnCount(Params):
    count: int = Field(ge=0)


class WarBurns(Params):
    before_players: int = Field(ge=0)
    before_each_player: int = Field(ge=0)
    before_dealer: int = Field(ge=0)


class Odds(Params):
    odds: Decimal = Field(gt=0)


class Surrender(Params):
    #: the share of the initial stake the house keeps
    fraction: Decimal = Field(gt=0, lt=1)
    #: when that share is not a whole number of cents
    rounding: Literal["down", "up", "half-even"]


class SpotOutcomes(Params):
    main: Outcome
    war: Outcome


class BatailleOutcomes(Params):
    odds: Decimal = Field(gt=0)
    higher: SpotOutcomes
    equal: SpotOutcomes
    lower: SpotOutcomes


class PayOrder(Params):
    order: Literal["descending", "ascending"]


class LateBets(Params):
    #: spots that may still receive chips after "rien ne va plus", at a bataille
    at_bataille: list[SpotName]


class EgaliteNeedsStake(Params):
    #: anytime: the hand has an initial stake when bets close; after: placed after the owner's stake
    order: Literal["anytime", "after"]


class EgaliteOffered(Params):
    offered: bool


class MaxMultiples(Params):
    multiples: list[int] = Field(min_length=1)


class SeatLimit(Params):
    max_seats: int = Field(gt=0)


class EndAnnounced(Params):
    last_rounds: int = Field(gt=0)


class HouseLimits(Params):
    min_at_least: Decimal | None = None
    max_at_most: Decimal | None = None
    egalite_max_at_most: Decimal | None = None


class BoxesPerPlayer(Params):
    max_boxes: int = Field(gt=0)


class MinPlayers(Params):
    min_players: int = Field(gt=0)


class MinCards(Params):
    min_cards: int = Field(gt=0)


DrawCell = Literal["T", "R", "O"]


class BankerTable(Params):
    """The banker's drawing table: rows by banker's point, 11 cells: ponte's third card 0-9, then NON."""

    rows: dict[int, list[DrawCell]]
    always_draw: list[int]
    always_stand: list[int]

    @field_validator("rows")
    @classmethod
    def _eleven(cls, rows: dict[int, list[str]]) -> dict[int, list[str]]:
        for point, cells in rows.items():
            if not 0 <= point <= 9 or len(cells) != 11:
                raise ValueError(f"row {point}: a row is a point 0-9 with 11 cells (third card 0-9, then NON)")
        return rows


class PonteDrawing(Params):
    draw_on: list[int]
    stand_on: list[int]
    choice_on: list[int]


class AdviceOn(Params):
    #: the ponte's point on which the employee's advice is always "non"
    points: list[int]


class AuctionStep(Params):
    below: Decimal | None  # the bracket applies to bids below this amount; None: no upper bound
    step: Decimal = Field(gt=0)


class Auction(Params):
    steps: list[AuctionStep] = Field(min_length=1)


class BancoRules(Params):
    #: the share of the bank the ponte who calls "banco avec la table" stakes himself
    table_share: Decimal = Field(gt=0, le=1)


class Associates(Params):
    max_associates: int = Field(ge=0)


#: check name -> parameter schema. Games: which tables a check can apply to.
CATALOGUE: dict[str, type[Params]] = {
    # the format itself (ruleset del-v1)
    "syntax": NoParams,
    "del-version": NoParams,
    "table-unopened": NoParams,
    "ruleset-unknown": NoParams,
    "time-order": TimeOrder,
    "round-number": NoParams,
    "round-open": NoParams,
    "out-of-context": NoParams,
    "stopcard-depth": NoParams,
    "table-unclosed": NoParams,
    "shoe-unfinished": NoParams,
    # shoe
    "shoe-decks": Decks,
    "shoe-procedure": Procedures,
    "shoe-cut": CutPattern,
    "machine-no-cut": NoParams,
    "stopcard-talon": Talon,
    "play-past-stopcard": NoParams,
    "card-count": NoParams,
    "burn-start": BurnCount,
    "burn-start-extra": BurnCount,
    "burn-resume": BurnCount,
    "burn-resume-extra": BurnCount,
    "burn-unexpected": NoParams,
    # table
    "seat-limit": SeatLimit,
    "seat-range": NoParams,
    "dealer-relief": NoParams,
    "end-announced": EndAnnounced,
    "vacant-seat-approval": NoParams,
    "standing-supervisor": NoParams,
    "standing-forbidden": NoParams,
    "lone-player-two-boxes": NoParams,
    "boxes-per-player": BoxesPerPlayer,
    # bets
    "bet-limits": NoParams,
    "egalite-limits": NoParams,
    "limits-multiple": MaxMultiples,
    "limits-min-change": NoParams,
    "house-limits": HouseLimits,
    "late-bet": LateBets,
    "war-stake": NoParams,
    "egalite-needs-stake": EgaliteNeedsStake,
    "egalite-offered": EgaliteOffered,
    "no-more-bets": NoParams,
    # dealing
    "deal-first": NoParams,
    "deal-bataille": NoParams,
    "bataille-ace": NoParams,
    "burn-bataille": WarBurns,
    "burn-bataille-extra": WarBurns,
    # settlement
    "pay-main": Odds,
    "pay-egalite": Odds,
    "pay-egalite-war": Odds,
    "surrender": Surrender,
    "pay-bataille": BatailleOutcomes,
    "settle-once": NoParams,
    "pay-order": PayOrder,
    "bataille-choice": NoParams,
    # chemin de fer
    "cdf-min-players": MinPlayers,
    "cdf-first-hand": NoParams,
    "cdf-cut-order": NoParams,
    "cdf-hand-passing": NoParams,
    "cdf-auction": Auction,
    "cdf-bank-announced": NoParams,
    "cdf-bank-min": NoParams,
    "cdf-bank-lowered": NoParams,
    "cdf-stakes-bank": BancoRules,
    "cdf-associate": Associates,
    "cdf-banco-priority": NoParams,
    "cdf-banco-suivi": NoParams,
    "cdf-cards-largest": NoParams,
    "cdf-late-stake": NoParams,
    "cdf-cards-left": MinCards,
    "cdf-deal-order": NoParams,
    "cdf-natural": NoParams,
    "cdf-ponte-first": NoParams,
    "cdf-draw-ponte": PonteDrawing,
    "cdf-draw-ponte-table": PonteDrawing,
    "cdf-draw-banker": BankerTable,
    "cdf-tableau": BankerTable,
    "cdf-advice": AdviceOn,
    "cdf-point": NoParams,
    "cdf-settle": NoParams,
    "cdf-pay-order": NoParams,
}
