"""The chemin de fer's part of a table: the hand (la main) across coups, its passing and auction.

``BankState`` lives as long as the table: who holds the hand, what the bank
held after the last coup, a passed hand's auction. ``HandPassing`` verifies the
events that move the hand (HAND, PASS, BID, AWARD), each with a verify/apply
pair, and the cut of a new shoe; the checks it raises are declared here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from ...engine.checks import NoParams, Params, declare
from ...engine.flagger import CURRENT
from ...engine.format_checks import OUT_OF_CONTEXT
from ...engine.game import Events
from ...values import Owner, fmt_amount
from . import events as own
from .places import Places

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.shoe import ShoeState
    from ...engine.table import Table

SCOPE = "chemin-de-fer"  # the checks declared below are this game's


class AuctionStep(Params):
    below: Decimal | None  # the bracket applies to bids below this amount; None: no upper bound
    step: Decimal = Field(gt=0)


class Auction(Params):
    steps: list[AuctionStep] = Field(min_length=1)
    #: previous-bracket: a bid rises by the step of the bracket the highest bid is in (180 → 260 is
    #: legal); landing-bracket: a bid lands on the grid of its own bracket (from 180: 200, 300...)
    grid: Literal["previous-bracket", "landing-bracket"] = "previous-bracket"
    #: the awardee's first bank is at least the price he bid (the price is the bank he puts up)
    bank_at_least_price: bool = True


CDF_FIRST_HAND = declare("cdf-first-hand", NoParams, SCOPE)
CDF_HAND_PASSING = declare("cdf-hand-passing", NoParams, SCOPE)
CDF_AUCTION = declare("cdf-auction", Auction, SCOPE)
CDF_CUT_ORDER = declare("cdf-cut-order", NoParams, SCOPE)


@dataclass
class BankState:
    """The hand (la main) across coups."""

    holder: Owner | None = None
    holder_seat: int | None = None
    coups_in_shoe: int = 0
    last_bank: Decimal | None = None
    last_net: Decimal = Decimal(0)
    last_result: str | None = None  # "won", "lost", "push" for the bank
    passed_by: Owner | None = None
    associates: list[Owner] = field(default_factory=list)
    associate_of_passed: list[Owner] = field(default_factory=list)
    bids: list[tuple[Owner, Decimal]] = field(default_factory=list)
    award: tuple[Owner, Decimal] | None = None
    #: who may not bid when an awarded hand refused is auctioned again (art. 9)
    excluded: tuple[Owner | None, ...] = ()
    #: the awardee holds the hand and must give the first coup (art. 9)
    must_deal: bool = False
    #: the price of the hand just awarded, until its first coup is dealt
    award_price: Decimal | None = None
    #: the shoe's first hand was given (art. 4); a pass before the first coup then goes as arts. 7-9 say
    first_given: bool = False
    prev_banco: Owner | None = None
    prev_sole_staker: Owner | None = None
    #: the ponte of the last coup's "banco avec la table": first for the next solo banco (art. 21),
    #: whoever then holds the hand
    prev_table_banco: Owner | None = None


class HandPassing(Places):
    """The hand and its passing, the auction, the cut of a new shoe."""

    def __init__(self, table: Table):
        super().__init__(table)
        self.bank = BankState()
        self.auction = self.flagger.settings(CDF_AUCTION)
        self._init_places()

    def _coup(self) -> int | None:
        rnd = self.table.round
        return rnd.n if rnd is not None else None

    def new_shoe(self, shoe: ShoeState) -> None:
        self.bank.coups_in_shoe = 0
        self.bank.first_given = False
        self.new_taille()

    # -- the hand --------------------------------------------------------------------------

    def verify_hand(self, e: own.Hand) -> None:
        b, table = self.bank, self.table
        who = e.by or Owner.seated(e.seat)
        how = e.how
        coup = self._coup()
        first_of_shoe = (
            b.coups_in_shoe == 0
            and not b.first_given
            and (table.round is None or not table.round.started)  # type: ignore[attr-defined]  # a CdfRound
        )
        if first_of_shoe:
            lowest = min(table.seated) if table.seated else None
            if how != "first" or e.seat != lowest:
                self.flagger.flag(
                    CDF_FIRST_HAND,
                    f"the first hand of the shoe goes to seat {e.seat} ({how or 'no how'}); "
                    f"it belongs to the first seated player at the employee's right (seat {lowest})",
                    round=coup,
                    expected=f"HAND seat={lowest} how=first",
                )
            return
        if how == "next":
            self.verify_next(e, coup)
        self.verify_salute(e, coup)
        problem = expected = None
        if how == "first":
            problem, expected = (
                "how=first is only for the first coup of a shoe",
                f"HAND seat={e.seat} how=suite, taken, taux or auction",
            )
        elif how == "suite":
            if who != b.holder:
                problem, expected = (
                    f"{who} goes on (suite) with a hand held by {b.holder}",
                    f"HAND seat={e.seat} how=taken",
                )
            elif b.passed_by is not None:
                problem, expected = (
                    "the banker goes on (suite) after passing the hand",
                    f"HAND by={who} how=taux",
                )
            elif b.last_result == "lost":
                problem, expected = (
                    "the banker goes on (suite) after the bank lost",
                    "HAND seat=N how=taken by another player",
                )
        elif how == "taken":
            if b.award is not None and who != b.award[0]:
                problem = f"{who} takes a hand awarded to {b.award[0]}; only the awardee takes it"
                expected = f"HAND by={b.award[0]} how=auction"
            elif b.passed_by is None and b.last_result != "lost":
                problem = f"{who} takes a hand nobody passed and the bank did not lose"
                expected = f"HAND seat={b.holder_seat} how=suite"
            elif who == b.passed_by or (b.last_result == "lost" and who == b.holder):
                problem = f"{who} takes back the hand he passed or lost; a passed hand is retaken only au taux"
                expected = (
                    f"HAND by={who} how=taux"
                    if who == b.passed_by
                    else "HAND seat=N how=taken by another player"
                )
        elif how == "taux":
            if b.passed_by is None or who != b.passed_by:
                problem = (
                    f"{who} takes the hand au taux, which only the banker who passed it may do"
                )
                expected = f"HAND seat={e.seat} how=taken"
            elif b.bids or b.award is not None:
                problem = f"{who} takes the hand back au taux after the auction began (art. 8: « Toute main qui n'est pas reprise à son taux est mise à prix »)"
                expected = (
                    f"HAND by={b.award[0]} how=auction"
                    if b.award is not None
                    else "AWARD by=<highest bidder>, then HAND how=auction"
                )
        elif how == "auction" and (b.award is None or b.award[0] != who):
            problem = f"{who} takes the hand by auction, but it was not awarded to him"
            expected = (
                f"HAND by={b.award[0]} how=auction"
                if b.award is not None
                else "AWARD by=OWNER before HAND how=auction"
            )
        if problem:
            self.flagger.flag(CDF_HAND_PASSING, problem, round=coup, expected=expected)

    def apply_hand(self, e: own.Hand) -> None:
        b = self.bank
        who = e.by or Owner.seated(e.seat)
        previous = b.holder
        self.hand_passes(b.holder_seat, e)
        rightful_taux = e.how == "taux" and b.passed_by == who
        changed = who != b.holder
        if e.how != "taux" and (changed or e.how in ("taken", "auction", "first", "next")):
            b.last_bank, b.last_net = None, Decimal(0)
        if changed or e.how in ("taken", "taux", "auction", "first", "next"):
            b.associates = []
        if changed:
            b.prev_banco = b.prev_sole_staker = None
        b.holder, b.holder_seat = who, e.seat
        b.first_given = True
        b.must_deal = e.how == "auction"
        b.award_price = (
            b.award[1] if e.how == "auction" and b.award is not None and b.award[0] == who else None
        )
        b.excluded = ()
        b.passed_by = None
        b.associate_of_passed = []
        b.bids, b.award = [], None
        rnd = self.table.round
        if rnd is not None:  # the coup about to be dealt: who goes on, who took the hand back
            rnd.saw_hand = True  # type: ignore[attr-defined]
            rnd.suite = e.how == "suite" or (e.how is None and previous == b.holder)  # type: ignore[attr-defined]
            rnd.taux = rightful_taux  # type: ignore[attr-defined]

    def verify_pass(self, e: own.Pass) -> None:
        if self.bank.holder is None:
            self.flagger.flag(
                OUT_OF_CONTEXT,
                "PASS with no banker",
                round=self._coup(),
                expected="HAND seat=N before PASS",
            )
        elif self.bank.must_deal:
            self.flagger.flag(
                CDF_HAND_PASSING,
                f"{self.bank.holder} passes a hand awarded to him before giving its "
                "first coup (art. 9: « l'adjudicataire doit donner le premier coup »)",
                round=self._coup(),
                expected="the awardee's first coup dealt before PASS",
            )

    def apply_pass(self, e: own.Pass) -> None:
        b = self.bank
        if b.holder is None:
            return
        b.passed_by = b.holder
        b.associate_of_passed = list(b.associates)
        b.bids, b.award = [], None
        b.excluded = ()

    # -- the auction of a passed hand ---------------------------------------------------------

    def verify_bid(self, e: own.Bid) -> None:
        b, rule, coup = self.bank, self.auction, self._coup()
        if b.passed_by is None:
            self.flagger.flag(
                OUT_OF_CONTEXT,
                "a bid with no passed hand to auction",
                round=coup,
                expected="PASS before BID",
            )
        elif rule is not None:
            again = b.award is not None  # the awardee refused: the hand is auctioned again (art. 9)
            if e.by == b.passed_by or e.by in b.associate_of_passed:
                self.flagger.flag(
                    CDF_AUCTION,
                    f"{e.by} bids on the hand he (or his banker) passed",
                    round=coup,
                    expected="no BID by the banker who passed or his associate",
                )
            elif e.by == (b.award[0] if again else None) or e.by in b.excluded:  # type: ignore[index]
                self.flagger.flag(
                    CDF_AUCTION,
                    f"{e.by} bids again on a hand awarded to him and refused (art. 9: "
                    "« ni le dernier adjudicataire ni le précédent détenteur de la main […] n'ont "
                    "droit aux enchères »)",
                    round=coup,
                    expected=f"no BID by {e.by}",
                )
            top = None if again else max((amount for _, amount in b.bids), default=None)
            minimum = self.table.limits.min
            if top is None:
                if e.amount < minimum:
                    self.flagger.flag(
                        CDF_AUCTION,
                        f"first bid {fmt_amount(e.amount)} below the table minimum "
                        f"{fmt_amount(minimum)}",
                        round=coup,
                        expected=f"BID ... amount={fmt_amount(minimum)} (or more)",
                    )
            else:
                rise = e.amount - top
                if rule.grid == "landing-bracket":
                    step = next(s.step for s in rule.steps if s.below is None or e.amount < s.below)
                    off = rise != 0 and e.amount % step != 0
                else:
                    step = next(s.step for s in rule.steps if s.below is None or top < s.below)
                    off = rise % step != 0
                nxt = (top // step + 1) * step if rule.grid == "landing-bracket" else top + step
                if rise < 0 or off:  # equal bids are allowed (art. 8)
                    self.flagger.flag(
                        CDF_AUCTION,
                        f"bid {fmt_amount(e.amount)} after {fmt_amount(top)}: bids rise by "
                        f"steps of {fmt_amount(step)} at that level",
                        round=coup,
                        expected=f"BID ... amount={fmt_amount(nxt)} (or more by {fmt_amount(step)})",
                    )

    def apply_bid(self, e: own.Bid) -> None:
        b = self.bank
        if b.award is not None:  # a new auction after the awardee's refusal
            b.excluded = (*b.excluded, b.award[0])
            b.bids, b.award = [], None
        b.bids.append((e.by, e.amount))

    def _place_from_banker(self, owner: Owner, index: int) -> tuple[int, int]:
        """Equal bids: seated players first, from the banker's right; then standing ones (art. 8)."""
        if owner.kind == "seat" and owner.seat is not None:
            return (0, (owner.seat - (self.bank.holder_seat or 0) - 1) % self.table.seats)
        return (1, index)

    def verify_award(self, e: own.Award) -> None:
        b, coup = self.bank, self._coup()
        if b.bids:
            top_amount = max(a for _, a in b.bids)
            tied = [o for o, a in b.bids if a == top_amount]
            top_owner = min(tied, key=lambda o: self._place_from_banker(o, tied.index(o)))
            if (e.by, e.amount) != (top_owner, top_amount):
                self.flagger.flag(
                    CDF_AUCTION,
                    f"hand awarded to {e.by} for {fmt_amount(e.amount)}; the highest bid is "
                    f"{top_owner}'s {fmt_amount(top_amount)}",
                    round=coup,
                    expected=f"AWARD by={top_owner} amount={fmt_amount(top_amount)}",
                )
        else:
            self.flagger.flag(
                CDF_AUCTION, "a hand awarded with no bid", round=coup, expected="BID before AWARD"
            )

    def apply_award(self, e: own.Award) -> None:
        self.bank.award = (e.by, e.amount)

    # -- the cut of a new shoe ----------------------------------------------------------------

    def preparation_due(self, shoe: ShoeState) -> None:
        """The cut is offered from the employee's left to each previous player in turn; judged at the
        shoe's first card. A shoe no one cut is reported where the cut was due done: its first round
        (``shoe.due_line``), or this card if none began before it."""
        if shoe.cut_order_checked or not self.flagger.enabled(CDF_CUT_ORDER):
            return
        shoe.cut_order_checked = True
        offered = shoe.seated_at_cut if shoe.seated_at_cut is not None else self.table.seated
        order = sorted(offered, reverse=True)  # the players seated when the cut was offered
        cuts = shoe.all_cuts
        problem = None
        if not cuts or cuts[-1].refused:
            problem = "no player cut the shoe"
        else:
            for i, cut in enumerate(cuts):
                seat = cut.by.seat if cut.by != "dealer" else None
                want = order[i] if i < len(order) else None
                if seat is None or seat != want:
                    problem = (
                        f"cut {i + 1} by {cut.by}; the cut is offered from the employee's left (seat "
                        f"{order[0] if order else '?'}) to each previous player in turn"
                    )
                    break
        if problem:
            self.flagger.flag(
                CDF_CUT_ORDER,
                problem,
                line=cuts[-1].line if cuts else (shoe.due_line or None),
                expected=f"CUT by=seat:{order[0]}" if order else None,
                actual=CURRENT
                if cuts
                else None,  # the last CUT, else where the cut was due: no evidence
                round=None if shoe.due_line else self._coup(),
            )  # a shoe finding, before the round

    #: the events it plays: verb -> (verify, apply)
    EVENTS: ClassVar[dict[str, Events]] = {
        **Places.EVENTS,
        "HAND": (verify_hand, apply_hand),
        "PASS": (verify_pass, apply_pass),
        "BID": (verify_bid, apply_bid),
        "AWARD": (verify_award, apply_award),
    }
