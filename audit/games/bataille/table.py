"""The bataille's part of a table: the settings its rounds read at nearly every event.

Looked up once per table, not per event. Between rounds the bataille keeps
only the shoe in play, to see a shoe replaced while a machine stands paused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...engine.checks import NoParams, declare
from ..seats import SeatMoves
from .round import (
    BET_LIMITS,
    BOXES_PER_PLAYER,
    EGALITE_NEEDS_STAKE,
    EGALITE_OFFERED,
    LATE_BET,
    LONE_PLAYER_TWO_BOXES,
)
from .settle import PAY_BATAILLE, PAY_EGALITE, PAY_EGALITE_WAR, PAY_MAIN, PAY_ORDER, SURRENDER
from .war import BATAILLE_ACE, BURN_BATAILLE, BURN_BATAILLE_EXTRA

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.shoe import ShoeState
    from ...engine.table import Table

#: a new shoe while a shuffling-dealing machine stands paused: « la totalité des cartes reste dans l'appareil »
PAUSE_NEW_SHOE = declare("pause-new-shoe", NoParams, "bataille")


class BatailleTable(SeatMoves):
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
        limits = s(BET_LIMITS)
        self.player_max = limits is not None and limits.per_player
        self.bataille_ace = self.flagger.enabled(BATAILLE_ACE)
        self.lone_player_two_boxes = self.flagger.enabled(LONE_PLAYER_TWO_BOXES)
        self.pause_new_shoe = self.flagger.enabled(PAUSE_NEW_SHOE)
        self.shoe: ShoeState | None = None

    def new_shoe(self, shoe: ShoeState) -> None:
        """The cards of a paused machine stay in it until play resumes."""
        old, self.shoe = self.shoe, shoe
        if old is not None and old.paused and old.machine and self.pause_new_shoe:
            self.flagger.flag(
                PAUSE_NEW_SHOE,
                f"a new shoe while the machine of line {old.line} stands paused: the "
                "cards of a pause stay in the machine",
                expected="RESUME, then the paused shoe's cards",
            )
