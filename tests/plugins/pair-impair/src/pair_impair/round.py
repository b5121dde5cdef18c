"""One coup: wagers, "rien ne va plus", one card, the settlements."""

from __future__ import annotations

from decimal import Decimal
from typing import ClassVar

from pydantic import Field

from audit.plugin import NoParams, Params, Round, declare, events, fmt_amount

from .cards import parity


class Payouts(Params):
    pair: Decimal = Field(gt=0)
    impair: Decimal = Field(gt=0)


#: a wager after "rien ne va plus"
LATE_WAGER = declare("pi-late-wager", NoParams, "pair-impair")
#: a winning wager paid other than at the odds, or a losing one paid
PAYOUT = declare("pi-payout", Payouts, "pair-impair")


class PairImpairRound(Round):
    def __init__(self, n, line, table):
        super().__init__(n, line, table)
        self.open = True
        self.wagers: dict[int, tuple[str, Decimal]] = {}
        self.card = None

    def verify_wager(self, e) -> None:
        if not self.open:
            self.flag(
                LATE_WAGER,
                f"wager at seat {e.seat} after NOMOREBETS",
                expected="WAGER before NOMOREBETS",
            )

    def apply_wager(self, e) -> None:
        self.wagers[e.seat] = (e.on, e.amount)

    def verify_nomorebets(self, e: events.NoMoreBets) -> None:
        pass

    def apply_nomorebets(self, e: events.NoMoreBets) -> None:
        self.open = False

    def verify_deal(self, e: events.Deal) -> None:
        if self.open:
            self.cards_before_close("a card dealt before NOMOREBETS")

    def apply_deal(self, e: events.Deal) -> None:
        self.card = e.card

    def verify_burn(self, e: events.Burn) -> None:
        pass

    def apply_burn(self, e: events.Burn) -> None:
        pass

    def _won(self, seat: int) -> tuple[bool, Decimal] | None:
        wager = self.wagers.get(seat)
        if wager is None or self.card is None:
            return None
        return parity(self.card.rank) == wager[0], wager[1]

    def verify_pay(self, e: events.Pay) -> None:
        odds = self.flagger.settings(PAYOUT)
        known = self._won(e.seat) if e.seat is not None else None
        if odds is None or known is None:
            return
        won, stake = known
        due = stake * getattr(odds, self.wagers[e.seat][0])
        if not won:
            self.flag(PAYOUT, f"seat {e.seat} paid on a losing wager", expected="COLLECT")
        elif e.amount != due:
            self.flag(
                PAYOUT,
                f"seat {e.seat} paid {fmt_amount(e.amount)}, the odds pay {fmt_amount(due)}",
                expected=f"PAY amount={fmt_amount(due)}",
            )

    def apply_pay(self, e: events.Pay) -> None:
        if e.seat is not None:
            self.wagers.pop(e.seat, None)

    def verify_collect(self, e: events.Collect) -> None:
        known = self._won(e.seat) if e.seat is not None else None
        if known is not None and known[0] and self.flagger.settings(PAYOUT) is not None:
            self.flag(PAYOUT, f"seat {e.seat}'s winning wager collected", expected="PAY")

    def apply_collect(self, e: events.Collect) -> None:
        if e.seat is not None:
            self.wagers.pop(e.seat, None)

    def finish(self, line: int) -> None:
        pass

    #: the events it plays: verb -> (verify, apply)
    EVENTS: ClassVar[dict] = {
        "WAGER": (verify_wager, apply_wager),
        "NOMOREBETS": (verify_nomorebets, apply_nomorebets),
        "PAY": (verify_pay, apply_pay),
        "COLLECT": (verify_collect, apply_collect),
    }
