"""Baccara chemin de fer: the bank that passes between players, and one coup at a time.

``BankState`` lives as long as the table: who holds the hand, how it was
taken, what the bank held after the last coup, a passed hand's auction.
``CdfRound`` is one coup, with a verify/apply pair per event like the
bataille round; the shoe, table and findings machinery is shared.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from .. import events as ev
from ..values import Card, Owner, fmt_amount
from .context import Flagger

if TYPE_CHECKING:  # pragma: no cover
    from .table import Table


def points(cards: list[Card]) -> int:
    return sum(c.baccara_points for c in cards) % 10


def _natural(cards: list[Card]) -> bool:
    return len(cards) == 2 and points(cards) >= 8


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
    prev_banco: Owner | None = None
    prev_sole_staker: Owner | None = None
    took_how: str | None = None


class CdfTable:
    """The chemin de fer part of a table: the hand and its passing, the auction."""

    def __init__(self, table: "Table"):
        self.t = table
        self.f = table.f
        self.bank = BankState()

    def new_shoe(self) -> None:
        self.bank.coups_in_shoe = 0

    def verify_hand(self, e: ev.Hand, coup: int | None) -> None:
        b = self.bank
        who = e.by or Owner.seated(e.seat)
        how = e.how
        first_of_shoe = b.coups_in_shoe == 0 and (self.t.round is None or not self.t.round.started)
        if first_of_shoe:
            lowest = min(self.t.seated) if self.t.seated else None
            if how != "first" or e.seat != lowest:
                self.f.flag("cdf-first-hand", f"the first hand of the shoe goes to seat {e.seat} ({how or 'no how'}); "
                            f"it belongs to the first seated player at the employee's right (seat {lowest})",
                            round=coup, expected=f"HAND seat={lowest} how=first")
            return
        problem = None
        if how == "first":
            problem = "how=first is only for the first coup of a shoe"
        elif how == "suite":
            if who != b.holder:
                problem = f"{who} goes on (suite) with a hand held by {b.holder}"
            elif b.passed_by is not None:
                problem = "the banker goes on (suite) after passing the hand"
            elif b.last_result == "lost":
                problem = "the banker goes on (suite) after the bank lost"
        elif how == "taken":
            if b.passed_by is None and b.last_result != "lost":
                problem = f"{who} takes a hand nobody passed and the bank did not lose"
            elif who == b.passed_by or (b.last_result == "lost" and who == b.holder):
                problem = f"{who} takes back the hand he passed or lost; a passed hand is retaken only au taux"
        elif how == "taux":
            if b.passed_by is None or who != b.passed_by:
                problem = f"{who} takes the hand au taux, which only the banker who passed it may do"
        elif how == "auction":
            if b.award is None or b.award[0] != who:
                problem = f"{who} takes the hand by auction, but it was not awarded to him"
        if problem:
            self.f.flag("cdf-hand-passing", problem, round=coup)

    def apply_hand(self, e: ev.Hand) -> None:
        b = self.bank
        who = e.by or Owner.seated(e.seat)
        changed = who != b.holder
        if e.how != "taux" and (changed or e.how in ("taken", "auction", "first")):
            b.last_bank, b.last_net = None, Decimal(0)
        if changed or e.how in ("taken", "taux", "auction", "first"):
            b.associates = []
        if changed:
            b.prev_banco = b.prev_sole_staker = None
        b.holder, b.holder_seat, b.took_how = who, e.seat, e.how
        b.passed_by = None
        b.associate_of_passed = []
        b.bids, b.award = [], None

    def on_pass(self, e: ev.Pass, coup: int | None) -> None:
        b = self.bank
        if b.holder is None:
            self.f.flag("out-of-context", "PASS with no banker", round=coup)
            return
        b.passed_by = b.holder
        b.associate_of_passed = list(b.associates)
        b.bids, b.award = [], None

    def on_bid(self, e: ev.Bid, coup: int | None) -> None:
        b = self.bank
        rule = self.f.settings("cdf-auction")
        if b.passed_by is None:
            self.f.flag("out-of-context", "a bid with no passed hand to auction", round=coup)
        elif rule is not None:
            if e.by == b.passed_by or e.by in b.associate_of_passed:
                self.f.flag("cdf-auction", f"{e.by} bids on the hand he (or his banker) passed", round=coup)
            top = max((amount for _, amount in b.bids), default=None)
            if top is None:
                if e.amount < self.t.limits.min:
                    self.f.flag("cdf-auction", f"first bid {fmt_amount(e.amount)} below the table minimum "
                                f"{fmt_amount(self.t.limits.min)}", round=coup,
                                expected=f"BID ... amount={fmt_amount(self.t.limits.min)} (or more)")
            else:
                step = next(s.step for s in rule.steps if s.below is None or top < s.below)
                rise = e.amount - top
                if rise < 0 or rise % step != 0:  # equal bids are allowed (art. 8)
                    self.f.flag("cdf-auction", f"bid {fmt_amount(e.amount)} after {fmt_amount(top)}: bids rise by "
                                f"steps of {fmt_amount(step)} at that level", round=coup,
                                expected=f"BID ... amount={fmt_amount(top + step)} (or more by {fmt_amount(step)})")
        b.bids.append((e.by, e.amount))

    def _place_from_banker(self, owner: Owner, index: int) -> tuple[int, int]:
        """Equal bids: seated players first, from the banker's right; then standing ones (art. 8)."""
        if owner.kind == "seat" and owner.seat is not None:
            return (0, (owner.seat - (self.bank.holder_seat or 0) - 1) % self.t.seats)
        return (1, index)

    def on_award(self, e: ev.Award, coup: int | None) -> None:
        b = self.bank
        if b.bids:
            top_amount = max(a for _, a in b.bids)
            tied = [o for o, a in b.bids if a == top_amount]
            top_owner = min(tied, key=lambda o: self._place_from_banker(o, tied.index(o)))
            if (e.by, e.amount) != (top_owner, top_amount):
                self.f.flag("cdf-auction", f"hand awarded to {e.by} for {fmt_amount(e.amount)}; the highest bid is "
                            f"{top_owner}'s {fmt_amount(top_amount)}", round=coup,
                            expected=f"AWARD by={top_owner} amount={fmt_amount(top_amount)}")
        else:
            self.f.flag("cdf-auction", "a hand awarded with no bid", round=coup)
        b.award = (e.by, e.amount)


class CdfRound:
    """One coup: bank, associates, bancos and stakes → rien ne va plus → cards → settlements."""

    def __init__(self, n: int, line: int, table: "Table", cdf: CdfTable):
        self.n = n
        self.t = table
        self.f: Flagger = table.f
        self.cdf = cdf
        self.limits = table.limits
        self.bank: Decimal | None = None
        self.associates: list[tuple[Owner, Decimal]] = []
        self.bancos: list[tuple[Owner, str]] = []
        self.stakes: dict[Owner, Decimal] = {}
        self.stake_order: list[Owner] = []
        self.closed = False
        self.announced = False
        self.ponte: Owner | None = None
        self.ponte_mode: str | None = None  # solo, suivi, table, or None (largest stake)
        self.cards: dict[str, list[Card]] = {"ponte": [], "banker": []}
        self.dealt = 0
        self.abat: dict[str, bool] = {"ponte": False, "banker": False}
        self.calls: dict[str, bool | None] = {"ponte": None, "banker": None}
        self.tableau = False
        self.burned_third: dict[str, bool] = {"ponte": False, "banker": False}
        self.settled: dict[Owner, int] = {}
        self.last_order: int | None = None
        self.flagged: set[str] = set()
        self.started = False
        self.drew_cards = False
        self.supervisor = table.supervisor
        #: the banker goes on with the hand he held last coup (no HAND event, or how=suite)
        self.suite = cdf.bank.holder is not None and cdf.bank.coups_in_shoe > 0
        self.saw_hand = False
        self.taux = False  # the hand was taken back au taux this coup

    def flag(self, check: str, message: str, **kw) -> None:
        self.f.flag(check, message, round=self.n, **kw)

    def once(self, key: str) -> bool:
        if key in self.flagged:
            return False
        self.flagged.add(key)
        return True

    # -- the bank and the stakes ----------------------------------------------------------

    def on_bank(self, e: ev.Bank) -> None:
        b = self.cdf.bank
        if not self.suite and e.amount < self.limits.min:
            self.flag("cdf-bank-min", f"bank of {fmt_amount(e.amount)}, below the table minimum {fmt_amount(self.limits.min)}",
                      expected=f"BANK amount={fmt_amount(self.limits.min)} (or more)")
        if (self.suite or self.taux) and b.last_bank is not None and b.last_result != "lost":
            floor = b.last_bank + b.last_net
            if e.amount < floor:
                how = "taken back au taux" if self.taux else "after the last coup"
                self.flag("cdf-bank-lowered", f"bank lowered to {fmt_amount(e.amount)}; the hand holds "
                          f"{fmt_amount(floor)} {how}", expected=f"BANK amount={fmt_amount(floor)} (or more)")
        self.bank = e.amount

    def on_associate(self, e: ev.Associate) -> None:
        b = self.cdf.bank
        rule = self.f.settings("cdf-associate")
        if rule is not None:
            if self.suite:
                self.flag("cdf-associate", f"{e.by} joins as associate of a hand already in play")
            elif len(b.associates) + 1 > rule.max_associates:
                self.flag("cdf-associate", f"{e.by} is associate number {len(b.associates) + 1}; "
                          f"the banker may take {rule.max_associates}")
            if self.bank is not None and e.amount > self.bank - e.amount:
                self.flag("cdf-associate", f"associate's share {fmt_amount(e.amount)} exceeds the banker's own "
                          f"{fmt_amount(self.bank - e.amount)}")
        b.associates.append(e.by)
        self.associates.append((e.by, e.amount))

    def on_banco(self, e: ev.Banco) -> None:
        follower = e.mode == "suivi" and e.by == self.cdf.bank.prev_banco  # art. 23's exception
        if self.closed and not follower:
            self.flag("cdf-late-stake", f"banco by {e.by} after \"rien ne va plus\"")
        if e.mode == "suivi":
            b = self.cdf.bank
            if e.by not in (b.prev_banco, b.prev_sole_staker):
                self.flag("cdf-banco-suivi", f"{e.by} calls banco suivi without having held or alone staked the last coup")
        self.bancos.append((e.by, e.mode))

    def on_stake(self, e: ev.Stake) -> None:
        if self.closed:
            self.flag("cdf-late-stake", f"stake by {e.by} after \"rien ne va plus\"")
        if e.by not in self.stakes:
            self.stake_order.append(e.by)
        self.stakes[e.by] = self.stakes.get(e.by, Decimal(0)) + e.amount

    def on_nomorebets(self, e: ev.NoMoreBets) -> None:
        if self.announced:
            self.f.flag("out-of-context", "\"rien ne va plus\" announced twice", round=self.n)
        self.closed = self.announced = True

    def _priority(self, owner: Owner, mode: str, index: int) -> tuple:
        kind = {"suivi": 0, "solo": 1, "table": 2}[mode]
        return (kind, *self._place(owner, index))

    def _place(self, owner: Owner, index: int) -> tuple[int, int]:
        """Order from the banker's right: seated by place, then standing in the order they played."""
        seats = self.t.seats
        if owner.kind == "seat" and owner.seat is not None:
            banker = self.cdf.bank.holder_seat or 0
            return (0, (owner.seat - banker - 1) % seats)
        return (1, index)

    def on_ponte(self, e: ev.Ponte) -> None:
        if self.bancos:
            ranked = sorted(((self._priority(o, m, i), o, m) for i, (o, m) in enumerate(self.bancos)), key=lambda r: r[0])
            _, best, mode = ranked[0]
            chosen = next((m for o, m in self.bancos if o == e.by), None)
            if e.by != best:
                self.flag("cdf-banco-priority", f"cards held by {e.by}; the banco with priority is {best}'s ({mode})",
                          expected=f"PONTE by={best}")
            self.ponte_mode = chosen or mode
        else:
            seated = {o: a for o, a in self.stakes.items() if o.kind == "seat" and a > 0}
            pool = seated or {o: a for o, a in self.stakes.items() if a > 0}
            if pool and self._follower_keeps_cards(e.by):
                pool = {}
            if pool:
                top = max(pool.values())
                best = min((o for o, a in pool.items() if a == top),
                           key=lambda o: self._place(o, self.stake_order.index(o)))
                if e.by != best:
                    self.flag("cdf-cards-largest", f"cards held by {e.by}; the largest seated stake is {best}'s "
                              f"({fmt_amount(top)})", expected=f"PONTE by={best}")
            self.ponte_mode = None
        self.ponte = e.by

    def bank_amount(self) -> Decimal | None:
        """The bank announced, or else what it holds after the last coup (art. 12)."""
        if self.bank is not None:
            return self.bank
        b = self.cdf.bank
        if b.last_bank is None or b.last_result == "lost":
            return None
        return b.last_bank + b.last_net

    def _follower_keeps_cards(self, who: Owner) -> bool:
        """Art. 12: when the bank is raised, the ponte who follows the banco may hold the cards."""
        b = self.cdf.bank
        if who != b.prev_banco or who not in self.stakes or self.bank is None or b.last_bank is None:
            return False
        return self.bank > b.last_bank + b.last_net

    def in_play(self) -> dict[Owner, Decimal]:
        """The stakes the coup decides, once the bets are closed."""
        bank = self.bank_amount() or Decimal(0)
        if self.bancos:
            holder = self.ponte or self.bancos[0][0]
            mode = self.ponte_mode or next((m for o, m in self.bancos if o == holder), "solo")
            if mode in ("solo", "suivi"):
                out = {o: a for o, a in self.stakes.items() if a > 0 and o != holder}
                out[holder] = bank
                return out
            rule = self.f.settings("cdf-stakes-bank")
            share = rule.table_share if rule is not None else Decimal("0.5")
            out = {o: a for o, a in self.stakes.items() if a > 0 and o != holder}
            out[holder] = (bank * share).quantize(Decimal("0.01")) + self.stakes.get(holder, Decimal(0))
            return out
        return {o: a for o, a in self.stakes.items() if a > 0}

    def _check_cover(self) -> None:
        bank = self.bank_amount()
        if bank is None:
            return
        total = sum(self.in_play().values(), Decimal(0))
        if total > bank:
            self.flag("cdf-stakes-bank", f"stakes of {fmt_amount(total)} against a bank of {fmt_amount(bank)}",
                      expected=f"at most {fmt_amount(bank)} staked")

    # -- cards -------------------------------------------------------------------------------

    def verify_deal(self, e: ev.Deal) -> None:
        if e.to not in ("ponte", "banker"):
            self.f.flag("out-of-context", f"DEAL {e.to} is a bataille event", round=self.n)
            return
        if not self.started:
            self._first_card()
        side = e.to
        n = self.dealt
        if n < 4:
            want = "ponte" if n % 2 == 0 else "banker"
            if side != want:
                self.flag("cdf-deal-order", f"card {n + 1} of the coup to the {side}; the first four alternate "
                          "ponte, banker, ponte, banker", expected=f"DEAL {want} <card>")
            return
        if self.abat["ponte"] or self.abat["banker"]:
            self.flag("cdf-deal-order", f"a card to the {side} after a natural was shown")
        elif len(self.cards[side]) >= 3:
            self.flag("cdf-deal-order", f"a fourth card to the {side}")
        elif self.calls[side] is not True:
            self.flag("cdf-deal-order", f"a third card to the {side}, who did not call for one",
                      expected=f"CALL {side} card")

    def verify_burn(self, e: ev.Burn) -> None:
        """Chemin de fer burns cards only to mend a fault (arts. 11, 14, 15, 26): nothing to check."""

    def apply_burn(self, e: ev.Burn) -> None:
        """A card burned after a call: either a lifted card replaced by the next (art. 14), or a
        draw against the rules cancelled (arts. 11, 26). Which one shows in what follows."""
        self.drew_cards = True
        for side in ("ponte", "banker"):
            if self.calls[side] is True and len(self.cards[side]) == 2 and not self.burned_third[side]:
                self.burned_third[side] = True
                break

    def _first_card(self) -> None:
        self.started = True
        b = self.cdf.bank
        if b.holder is None:
            self.f.flag("out-of-context", "a coup dealt with no banker (HAND)", round=self.n)
        elif not self.saw_hand and b.coups_in_shoe == 0:
            lowest = min(self.t.seated) if self.t.seated else None
            self.flag("cdf-first-hand", f"the first coup of the shoe is dealt by the last shoe's banker ({b.holder}); "
                      f"the first hand belongs to the first seated player at the employee's right (seat {lowest})",
                      expected=f"HAND seat={lowest} how=first")
        elif not self.saw_hand and (b.last_result == "lost" or b.passed_by is not None):
            self.flag("cdf-hand-passing", "the banker goes on with a hand he "
                      + ("passed" if b.passed_by is not None else "lost"), expected="HAND seat=N how=...")
        if not self.closed:
            self.flag("no-more-bets", "the cards are dealt before \"rien ne va plus\"", expected="NOMOREBETS")
            self.closed = True
        if self.bank is None:
            self.flag("cdf-bank-announced", "coup dealt with no bank announced", expected="BANK amount=<taux>")
        shoe = self.t.shoe
        rule = self.f.settings("cdf-cards-left")
        if shoe is not None and rule is not None and shoe.size - shoe.drawn < rule.min_cards:
            self.flag("cdf-cards-left", f"coup dealt with {shoe.size - shoe.drawn} cards left in the shoe; "
                      f"the rules require {rule.min_cards}")
        self._check_cover()

    def apply_deal(self, e: ev.Deal) -> None:
        if e.to in ("ponte", "banker"):
            self.cards[e.to].append(e.card)
            self.dealt += 1
            self.drew_cards = True

    def on_abat(self, e: ev.Abat) -> None:
        hand = self.cards[e.side]
        if not _natural(hand):
            self.flag("cdf-natural", f"the {e.side} shows {e.point} with {' '.join(map(str, hand)) or 'no card'}: "
                      "only a natural (8 or 9 on two cards) is shown")
        elif points(hand) != e.point:
            self.flag("cdf-point", f"the {e.side} shows {e.point}; the cards make {points(hand)}",
                      expected=f"ABAT {e.side} {points(hand)}")
        self.abat[e.side] = True

    def _natural_not_shown(self, side: str) -> None:
        if _natural(self.cards[side][:2]) and not self.abat[side] and self.once(f"natural-{side}"):
            self.flag("cdf-natural", f"the {side} holds a natural ({points(self.cards[side][:2])}) and does not show it",
                      expected=f"ABAT {side} {points(self.cards[side][:2])}")

    def on_call(self, e: ev.Call) -> None:
        if self.dealt < 4 or self.abat["ponte"] or self.abat["banker"]:
            self.f.flag("out-of-context", f"CALL {e.side} when no third card can be asked", round=self.n)
            return
        self._natural_not_shown(e.side)
        if e.side == "ponte":
            self._ponte_call(e)
        else:
            self._banker_call(e)
        self.calls[e.side] = e.draw

    def _ponte_call(self, e: ev.Call) -> None:
        if self.calls["banker"] is not None:
            self.flag("cdf-ponte-first", "the ponte speaks after the banker")
        p = points(self.cards["ponte"][:2])
        check = "cdf-draw-ponte" if self.ponte_mode in ("solo", "suivi") else "cdf-draw-ponte-table"
        rule = self.f.settings(check)
        if rule is None:
            return
        wrong = (e.draw and p in rule.stand_on) or (not e.draw and p in rule.draw_on)
        if wrong:
            who = "the banco ponte" if check == "cdf-draw-ponte" else "the ponte holding the cards for the table"
            self.flag(check, f"faux tirage: {who} {'draws' if e.draw else 'stands'} on {p}",
                      expected=f"CALL ponte {'non' if e.draw else 'card'}")

    def _banker_call(self, e: ev.Call) -> None:
        if self.calls["ponte"] is None or (self.calls["ponte"] and len(self.cards["ponte"]) < 3
                                           and not self.burned_third["ponte"]):
            self.flag("cdf-ponte-first", "the banker plays before the ponte has spoken and drawn")
        want = self.banker_should()
        if want is None or want == "O" or (want == "T") == e.draw:
            return
        check = "cdf-tableau" if self.tableau else "cdf-draw-banker"
        b = points(self.cards["banker"][:2])
        third = self._ponte_third()
        col = "NON" if third is None else str(third)
        self.flag(check, f"{'faux tirage: ' if check == 'cdf-draw-banker' else ''}banker on {b} against "
                  f"{'a ponte who stood' if third is None else f'a third card worth {third}'} "
                  f"{'draws' if e.draw else 'stands'}; the tableau says {'draw' if want == 'T' else 'stand'} (row {b}, column {col})"
                  + (" — he asked for the tableau" if self.tableau else ""),
                  expected=f"CALL banker {'card' if want == 'T' else 'non'}")

    def _ponte_third(self) -> int | None:
        return self.cards["ponte"][2].baccara_points if len(self.cards["ponte"]) >= 3 else None

    def banker_should(self) -> str | None:
        rule = self.f.settings("cdf-tableau" if self.tableau else "cdf-draw-banker") or \
            self.f.settings("cdf-draw-banker") or self.f.settings("cdf-tableau")
        if rule is None:
            return None
        b = points(self.cards["banker"][:2])
        if b in rule.always_draw:
            return "T"
        if b in rule.always_stand:
            return "R"
        row = rule.rows.get(b)
        if row is None:
            return None
        third = self._ponte_third()
        return row[10 if third is None else third]

    def on_tableau(self, e: ev.Tableau) -> None:
        self.tableau = True

    def on_advice(self, e: ev.Advice) -> None:
        rule = self.f.settings("cdf-advice")
        p = points(self.cards["ponte"][:2])
        if rule is not None and p in rule.points and e.draw:
            self.flag("cdf-advice", f"the employee advises a ponte on {p} to draw; the answer is always \"non\"",
                      expected="ADVICE ponte non")

    def on_point(self, e: ev.Point) -> None:
        p, b = points(self.cards["ponte"]), points(self.cards["banker"])
        if (e.ponte, e.banker) != (p, b):
            self.flag("cdf-point", f"points announced ponte {e.ponte}, banker {e.banker}; the cards make {p} and {b}",
                      expected=f"POINT ponte={p} banker={b}")

    # -- settlement ----------------------------------------------------------------------------

    def decided(self) -> bool:
        if self.abat["ponte"] or self.abat["banker"]:
            return True
        if self.dealt < 4:
            return False
        if self.calls["banker"] is None:
            return _natural(self.cards["ponte"][:2]) or _natural(self.cards["banker"][:2])
        return not self.calls["banker"] or len(self.cards["banker"]) >= 3 or self.burned_third["banker"]

    def outcome(self) -> str:
        p, b = points(self.cards["ponte"]), points(self.cards["banker"])
        return "ponte" if p > b else "banker" if b > p else "tie"

    def on_settle(self, e: ev.Pay | ev.Collect | ev.Push) -> None:
        if e.by is None:
            self.f.flag("out-of-context", f"{e.verb} seat= spot= is a bataille settlement", round=self.n)
            return
        stakes = self.in_play()
        if e.by not in stakes:
            self.flag("cdf-settle", f"{e.verb} for {e.by}, who has no stake in play")
            return
        if e.by in self.settled:
            self.flag("cdf-settle", f"{e.by} settled twice (first at line {self.settled[e.by]})")
            return
        self.settled[e.by] = e.line
        self._verify_order(e.by)
        if not self.decided():
            self.flag("cdf-settle", f"{e.by} settled before the coup was decided")
            return
        stake = stakes[e.by]
        result = self.outcome()
        verb = {"ponte": "PAY", "banker": "COLLECT", "tie": "PUSH"}[result]
        amount = getattr(e, "amount", None)
        if e.verb != verb or (verb != "PUSH" and amount != stake):
            want = f"{verb} by={e.by}" + (f" amount={fmt_amount(stake)}" if verb != "PUSH" else "")
            self.flag("cdf-settle", f"{e.by}: {e.verb}{' ' + fmt_amount(amount) if amount is not None else ''}; "
                      f"the {'ponte wins' if result == 'ponte' else 'banker wins' if result == 'banker' else 'coup is a tie'} "
                      f"({points(self.cards['ponte'])} to {points(self.cards['banker'])}) on a stake of {fmt_amount(stake)}",
                      expected=want)

    def _verify_order(self, owner: Owner) -> None:
        index = self.stake_order.index(owner) if owner in self.stake_order else len(self.stake_order)
        key = self._place(owner, index)
        order = key[0] * 1000 + key[1]
        if self.last_order is not None and order < self.last_order:
            self.flag("cdf-pay-order", f"{owner} settled after a place further from the banker's right")
        self.last_order = order

    def finish(self, line: int) -> None:
        if not self.started:
            return
        for side in ("ponte", "banker"):
            self._natural_not_shown(side)
        if self.decided():
            for owner in sorted(self.in_play(), key=str):
                if owner not in self.settled:
                    self.flag("cdf-settle", f"{owner}'s stake of {fmt_amount(self.in_play()[owner])} was never settled",
                              line=line, actual=None)
        self._record()

    def _record(self) -> None:
        b = self.cdf.bank
        stakes = self.in_play()
        total = sum(stakes.values(), Decimal(0))
        self.t.stats.drop += total
        result = self.outcome() if self.decided() else "tie"
        b.last_result = {"ponte": "lost", "banker": "won", "tie": "push"}[result]
        b.last_bank = self.bank if self.bank is not None else b.last_bank
        b.last_net = total if result == "banker" else -total if result == "ponte" else Decimal(0)
        b.prev_banco = self.ponte if self.bancos else None
        positive = [o for o, a in self.stakes.items() if a > 0]
        b.prev_sole_staker = positive[0] if not self.bancos and len(positive) == 1 else None
        b.coups_in_shoe += 1
