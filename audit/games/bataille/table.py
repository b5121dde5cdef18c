"""The bataille's part of a table: the settings its rounds read at nearly every event.

Looked up once per table, not per event; the bataille keeps no other state
between rounds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...engine.game import TableExtension
from .round import BOXES_PER_PLAYER, EGALITE_NEEDS_STAKE, EGALITE_OFFERED, LATE_BET, LONE_PLAYER_TWO_BOXES
from .settle import PAY_BATAILLE, PAY_EGALITE, PAY_EGALITE_WAR, PAY_MAIN, PAY_ORDER, SURRENDER
from .war import BATAILLE_ACE, BURN_BATAILLE, BURN_BATAILLE_EXTRA

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import Table


class BatailleTable(TableExtension):
    def __init__(self, table: Table):
        super().__init__(table)
        s = self.flagger.settings
        self.late_bet = s(LATE_BET)
        self.egalite_offered = s(EGALITE_OFFERED)
        self.egalite_needs_stake = s(EGALITE_NEEDS_STAKE)
        self.pay_order = s(PAY_ORDER)
        self.pay_main = s(PAY_MAIN)
        self.pay_egalite = s(PAY_EGALITE)
        self.pay_egalite_war = s(PAY_EGALITE_WAR)
        self.pay_bataille = s(PAY_BATAILLE)
        self.surrender = s(SURRENDER)
        self.war_burns = s(BURN_BATAILLE) or s(BURN_BATAILLE_EXTRA)
        self.boxes_per_player = s(BOXES_PER_PLAYER)
        self.bataille_ace = self.flagger.enabled(BATAILLE_ACE)
        self.lone_player_two_boxes = self.flagger.enabled(LONE_PLAYER_TWO_BOXES)
