"""The chemin de fer's part of a table: the hand's passing (``HandPassing``) and the
settings its coups read, looked up once per table rather than at every event."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .drawing import CDF_ADVICE, CDF_DRAW_BANKER, CDF_DRAW_PONTE, CDF_DRAW_PONTE_TABLE, CDF_TABLEAU
from .hand import HandPassing
from .round import CDF_ASSOCIATE, CDF_CARDS_LEFT, CDF_LATE_STAKE, CDF_MIN_PLAYERS, CDF_STAKES_BANK

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import Table


class CdfTable(HandPassing):
    def __init__(self, table: Table):
        super().__init__(table)
        s = self.flagger.settings
        self.min_players = s(CDF_MIN_PLAYERS)
        self.associate = s(CDF_ASSOCIATE)
        self.stakes_bank = s(CDF_STAKES_BANK)
        self.cards_left = s(CDF_CARDS_LEFT)
        self.late_stake = s(CDF_LATE_STAKE)
        self.draw_ponte = s(CDF_DRAW_PONTE)
        self.draw_ponte_table = s(CDF_DRAW_PONTE_TABLE)
        self.draw_banker = s(CDF_DRAW_BANKER)
        self.tableau = s(CDF_TABLEAU)
        self.advice = s(CDF_ADVICE)
