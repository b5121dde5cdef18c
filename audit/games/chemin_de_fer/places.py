"""Places at a chemin de fer table and the hand that goes round them: arts. 8 and 10 on moving seat.

The hand (la main) goes from a banker to the players at his right, seat after
seat (ascending, wrapping round). A player who changes place (``MOVE``, an
extension of DEL v1) so that the hand reaches him sooner moves "closer to the
shoe": during a taille he must let the hand pass him once (art. 10, the
salute); while a passed hand is looking for its banker he may not move to
follow it (art. 8). The hand that finds no bidder goes to the next player,
who takes it or gives up his place (art. 8, ``HAND how=next``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ... import events as ev
from ...engine.checks import NoParams, declare
from ...engine.game import Events
from ...values import Owner
from ..seats import SeatMoves
from . import events as own

if TYPE_CHECKING:  # pragma: no cover
    from .hand import BankState

SCOPE = "chemin-de-fer"  # the checks declared below are this game's

CDF_NEXT_HAND = declare("cdf-next-hand", NoParams, SCOPE)
CDF_FOLLOW_HAND = declare("cdf-follow-hand", NoParams, SCOPE)
CDF_SALUTE = declare("cdf-salute", NoParams, SCOPE)


class Places(SeatMoves):
    """The seats the hand passes, who must salute it, who moved to follow it."""

    bank: BankState

    def _init_places(self) -> None:
        #: seat -> the player who moved there closer to the shoe and owes the hand a salute (art. 10)
        self.salute: dict[int, str | None] = {}
        #: who moved to follow a passed hand: « ramassés les premiers et payés les derniers » (art. 8)
        self.penalised: set[Owner] = set()
        self.follow = self.flagger.enabled(CDF_FOLLOW_HAND)
        #: player id -> the seat he left during this taille (``SEAT N out``): if he sits down again
        #: (``SEAT M in player=`` the same id) he has changed place, as by a MOVE (arts. 8 and 10)
        self.left: dict[str, int] = {}

    def _places_before(self, seat: int, start: int) -> int:
        """How many places the hand passes, from the banker at ``start``, before it reaches ``seat``."""
        return (seat - start - 1) % self.table.seats

    def _passing(self) -> bool:
        """A passed hand is looking for its banker: passed, or lost in this taille, and no HAND since."""
        b, rnd = self.bank, self.table.round
        if b.holder is None or (rnd is not None and rnd.saw_hand):  # type: ignore[attr-defined]
            return False
        return b.passed_by is not None or (b.last_result == "lost" and b.coups_in_shoe > 0)

    def new_taille(self) -> None:
        self.salute.clear()
        self.penalised.clear()
        self.left.clear()

    def verify_move(self, e: ev.Move) -> None:
        super().verify_move(e)
        self._verify_follow(
            e.seat,
            e.to_seat,
            f"the player at seat {e.seat} moves to seat {e.to_seat}",
            "no MOVE while the hand is passed",
        )

    def _verify_follow(self, seat: int, to_seat: int, who: str, expected: str) -> None:
        start = self.bank.holder_seat
        if start is None or not self.follow or not self._passing():
            return
        if self._closer(seat, to_seat):
            self.flagger.flag(
                CDF_FOLLOW_HAND,
                f"{who}, closer to the hand passed by seat {start} before it has found "
                "its banker: players may not move to follow the hand",
                round=self._round_n(),
                expected=expected,
            )

    def apply_move(self, e: ev.Move) -> None:
        player = self.table.seated.get(e.seat)
        super().apply_move(e)
        self._moved(e.seat, e.to_seat, player)

    def seat_changed(self, e: ev.Seat, player: str | None) -> None:
        """``SEAT N out``, then ``SEAT M in`` with the same ``player=`` id in the same taille: the
        player has changed place from N to M, as by ``MOVE seat=N to=M`` (arts. 8 and 10 speak of the
        player, not of how the log writes his move). A player with no id cannot be followed."""
        if player is None:
            return
        if e.action == "out":
            shoe = self.table.shoe
            if shoe is not None and shoe.dealt_any:  # « au cours d'une taille »
                self.left[player] = e.seat
            return
        seat = self.left.pop(player, None)
        if seat is None or seat == e.seat:
            return
        self._verify_follow(
            seat,
            e.seat,
            f"player {player} leaves seat {seat} and sits at seat {e.seat}",
            f"no change of place (SEAT {seat} out, SEAT {e.seat} in) while the hand is passed",
        )
        self._moved(seat, e.seat, player)

    def _moved(self, seat: int, to_seat: int, player: str | None) -> None:
        """The player from ``seat`` now sits at ``to_seat``: the penalty and the salute he owes follow him."""
        moved = Owner.seated(seat)
        if moved in self.penalised:
            self.penalised.discard(moved)
            self.penalised.add(Owner.seated(to_seat))
        elif (
            self.follow
            and self.bank.holder_seat is not None
            and self._passing()
            and self._closer(seat, to_seat)
        ):
            self.penalised.add(Owner.seated(to_seat))
        owed = self.salute.pop(seat, ...)
        shoe = self.table.shoe
        if owed is not ... or (
            shoe is not None
            and shoe.dealt_any
            and self.bank.holder_seat is not None
            and self._closer(seat, to_seat)
        ):
            self.salute[to_seat] = player  # during a taille: the hand must pass him once

    def _closer(self, seat: int, to_seat: int) -> bool:
        start = self.bank.holder_seat
        if start is None or seat == start:
            return False
        return self._places_before(to_seat, start) < self._places_before(seat, start)

    # -- the hand moves: called by HandPassing --------------------------------------------------

    def verify_salute(self, e: own.Hand, coup: int | None) -> None:
        """The player who moved closer to the shoe takes the hand the first time it reaches him. Not a
        hand no one bid for (how=next): art. 8 obliges the next player to take it."""
        if (
            e.seat in self.salute
            and self.table.seated.get(e.seat, ...) == self.salute[e.seat]
            and e.how not in ("suite", "taux", "auction", "first", "next")
        ):
            self.flagger.flag(
                CDF_SALUTE,
                f"seat {e.seat} takes the hand the first time it reaches him after moving "
                "closer to the shoe during the taille; he must salute it (let it pass) once",
                round=coup,
                expected=f"the hand passes seat {e.seat} once, then HAND seat={e.seat}",
            )

    def hand_passes(self, start: int | None, e: own.Hand) -> None:
        """The hand went from the banker at ``start`` to seat ``e.seat``: the salutes it discharges."""
        if (
            not self.salute
            or start is None
            or e.seat == start
            or e.how in ("suite", "taux", "auction", "first")
        ):
            return  # the hand stays, goes back, or is bought: it passes in front of no one
        reached = self._places_before(e.seat, start)
        for seat in [s for s in self.salute if self._places_before(s, start) <= reached]:
            del self.salute[seat]

    def verify_next(self, e: own.Hand, coup: int | None) -> None:
        """``HAND how=next``: the hand that found no bidder goes to the next player from the passing
        banker's right, who takes it or leaves his place (art. 8)."""
        b = self.bank
        if b.passed_by is None or b.bids or b.award is not None:
            self.flagger.flag(
                CDF_NEXT_HAND,
                "how=next is for a passed hand that found no bidder; "
                + ("no hand is passed" if b.passed_by is None else "this one had bids"),
                round=coup,
                expected="HAND seat=N how=taken, taux or auction",
            )
            return
        start = b.holder_seat
        others = [s for s in self.table.seated if s != start]
        if start is None or not others:
            return
        nxt = min(others, key=lambda s: self._places_before(s, start))
        if e.seat != nxt:
            self.flagger.flag(
                CDF_NEXT_HAND,
                f"the hand no one bid for goes to seat {e.seat}; it goes to the next "
                f"player from the banker's right, seat {nxt}, who must take it or give up his place",
                round=coup,
                expected=f"HAND seat={nxt} how=next (or SEAT {nxt} out first)",
            )

    #: the events it plays: verb -> (verify, apply)
    EVENTS: ClassVar[dict[str, Events]] = {
        **SeatMoves.EVENTS,
        "MOVE": (verify_move, apply_move),
    }
