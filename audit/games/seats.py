"""A player changing place at a table (``MOVE seat=N to=M``, an extension of DEL v1), for every game.

DEL v1 has only ``SEAT N in`` and ``SEAT N out``: a change of place written
as those two lines loses who moved. The move is a table event; the engine's
seats stay the engine's, so each game's table extension inherits this pair,
and a game whose rules speak of moves (chemin de fer, arts. 8 and 10)
extends it.
"""

from __future__ import annotations

from typing import ClassVar

from .. import events as ev
from ..engine.format_checks import OUT_OF_CONTEXT
from ..engine.game import Events, TableExtension
from ..engine.table import SEAT_RANGE


class SeatMoves(TableExtension):
    """``verify_move`` / ``apply_move``: the move keeps the player (and his id) from one seat to another."""

    def _round_n(self) -> int | None:
        rnd = self.table.round
        return rnd.n if rnd is not None else None

    def verify_move(self, e: ev.Move) -> None:
        table = self.table
        if e.seat not in table.seated:
            self.flagger.flag(
                OUT_OF_CONTEXT,
                f"a move from seat {e.seat}, which is vacant",
                round=self._round_n(),
                expected=f"SEAT {e.seat} in before MOVE seat={e.seat}",
            )
        if e.to_seat > table.seats:
            self.flagger.flag(
                SEAT_RANGE,
                f"a move to seat {e.to_seat} at a table of {table.seats} places",
                round=self._round_n(),
                expected=f"MOVE seat={e.seat} to=M with M from 1 to {table.seats}",
            )
        elif e.to_seat in table.seated or e.to_seat == e.seat:
            self.flagger.flag(
                OUT_OF_CONTEXT,
                f"a move to seat {e.to_seat}, which is occupied",
                round=self._round_n(),
                expected=f"MOVE seat={e.seat} to a free seat",
            )

    def apply_move(self, e: ev.Move) -> None:
        seated = self.table.seated
        seated[e.to_seat] = seated.pop(e.seat, None)

    #: the events it plays: verb -> (verify, apply)
    EVENTS: ClassVar[dict[str, Events]] = {
        "MOVE": (verify_move, apply_move),
    }
