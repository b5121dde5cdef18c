"""One round (coup) of la bataille: a state object with a verify/apply pair per event.

``verify_*`` compares an event with what the ruleset allows at this point of
the round and flags each breach; ``apply_*`` then records what happened, so
that the replay follows the log even where the log breaks the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_UP, Decimal

from .. import events as ev
from ..values import BATAILLE_VALUE, SEATED, Card, Owner, fmt_amount
from .context import Flagger

CENT = Decimal("0.01")
ZERO = Decimal(0)
WAR_SPOTS = frozenset(("war", "egalite-war"))
EGALITE_SPOTS = frozenset(("egalite", "egalite-war"))
_ROUNDING = {"down": ROUND_DOWN, "up": ROUND_UP, "half-even": ROUND_HALF_EVEN}


@dataclass
class Limits:
    min: Decimal
    max: Decimal
    egalite_min: Decimal | None = None
    egalite_max: Decimal | None = None

    @property
    def eg_min(self) -> Decimal:
        return self.min if self.egalite_min is None else self.egalite_min

    @property
    def eg_max(self) -> Decimal:
        return self.max if self.egalite_max is None else self.egalite_max


class Spot:
    """The chips on one betting spot of a hand, by owner."""

    __slots__ = ("stakes", "last_line", "settled_line", "settled_phase", "total")

    def __init__(self) -> None:
        #: owner -> [their chips, the line of their last move]: one dictionary, one hash of the owner
        self.stakes: dict[Owner, list] = {}
        self.last_line = 0
        self.settled_line = 0
        self.settled_phase = 0
        #: kept as chips come and go: the sum of the owners' chips
        self.total = ZERO

    def add(self, owner: Owner, amount: Decimal, line: int) -> None:
        """Chips placed (amount > 0) or taken back (< 0, never below what the owner has)."""
        stake = self.stakes.get(owner)
        if stake is None:
            stake = self.stakes[owner] = [ZERO, line]
        before = stake[0]
        after = before + amount
        if after < ZERO:
            after = ZERO
        stake[0] = after
        stake[1] = self.last_line = line
        self.total += after - before

    def held(self, owner: Owner) -> Decimal:
        """The owner's chips on the spot."""
        stake = self.stakes.get(owner)
        return stake[0] if stake is not None else ZERO


class HandState:
    """One seat's hand in a round: its spots, its cards, its choice at a tie."""

    __slots__ = ("seat", "spots", "card", "war_card", "choice")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.spots: dict[str, Spot] = {}
        self.card: Card | None = None
        self.war_card: Card | None = None
        self.choice: str | None = None

    def spot(self, name: str) -> Spot:
        if name not in self.spots:
            self.spots[name] = Spot()
        return self.spots[name]

    def stake(self, name: str) -> Decimal:
        spot = self.spots.get(name)
        return spot.total if spot else ZERO


def _cmp(a: Card, b: Card) -> str:
    va, vb = BATAILLE_VALUE[a.rank], BATAILLE_VALUE[b.rank]
    return "higher" if va > vb else "lower" if va < vb else "equal"


class BatailleRules:
    """The settings a round reads at nearly every event, looked up once per table."""

    def __init__(self, f: Flagger):
        s = f.settings
        self.late_bet = s("late-bet")
        self.egalite_offered = s("egalite-offered")
        self.egalite_needs_stake = s("egalite-needs-stake")
        self.pay_order = s("pay-order")
        self.pay_main = s("pay-main")
        self.pay_egalite = s("pay-egalite")
        self.pay_egalite_war = s("pay-egalite-war")
        self.pay_bataille = s("pay-bataille")
        self.surrender = s("surrender")
        self.war_burns = s("burn-bataille") or s("burn-bataille-extra")
        self.boxes_per_player = s("boxes-per-player")
        self.bataille_ace = f.enabled("bataille-ace")
        self.lone_player_two_boxes = f.enabled("lone-player-two-boxes")


class BatailleRound:
    """Bets → "rien ne va plus" → first deal → choices and first settlements → bataille → settlements."""

    def __init__(self, n: int, line: int, limits: Limits, flagger: Flagger, seated: dict[int, str | None],
                 seats: int, supervisor: bool, rules: BatailleRules):
        self.n = n
        self.line = line
        self.limits = limits
        self.f = flagger
        self.rules = rules
        self.seated = seated  # the table's live seat map
        self.seats = seats
        self.supervisor = supervisor
        self.hands: dict[int, HandState] = {}
        self.closed_bets_line = 0
        self.phase = "betting"  # betting, dealing, choices, bataille
        self.dealt: set[int] = set()
        self.dealer_card: Card | None = None
        self.dealer_war_card: Card | None = None
        self.war_queue: list[int | None] = []  # seats still to get a bataille card; None: the dealer
        self.war_players_dealt = 0
        self.burn_lines: list[int] = []  # bataille burns since the last card
        self.closed_by_deal = False
        self.settle_phase = 1
        self.last_settled_seat: int | None = None
        self.drew_cards = False
        self._staked: list[int] | None = None
        self.egalite_war_checked: set[int] = set()

    # -- helpers -----------------------------------------------------------------

    def flag(self, check: str, message: str, **kw) -> None:
        self.f.flag(check, message, round=self.n, **kw)

    def hand(self, seat: int) -> HandState:
        if seat not in self.hands:
            self.hands[seat] = HandState(seat)
        return self.hands[seat]

    def staked_seats(self) -> list[int]:
        """Seats whose hand holds an initial stake, ascending (cached until a main stake changes)."""
        if self._staked is None:
            self._staked = sorted(s for s, h in self.hands.items() if h.stake("main") > 0)
        return self._staked

    def warring(self) -> list[int]:
        return sorted(s for s, h in self.hands.items() if h.choice == "war" and h.card is not None)

    # -- bets ------------------------------------------------------------------------

    def verify_bet(self, e: ev.Bet) -> None:
        seat, spot = e.seat, e.spot
        owner = e.by or SEATED[seat]
        if e.amount <= ZERO:
            self.flag("bet-limits", f"a bet of {fmt_amount(e.amount)} on seat {seat} {spot}")
        if seat > self.seats:
            self.flag("seat-range", f"bet on seat {seat}; the table has {self.seats} places")
        if spot not in WAR_SPOTS:
            if e.by is not None or seat not in self.seated:  # a seated player's own bet needs no more
                self._verify_owner(seat, owner, e.approved)
        if spot in EGALITE_SPOTS:
            offered = self.rules.egalite_offered
            if offered is not None and not offered.offered:
                self.flag("egalite-offered", "an égalité bet at a table whose house rules do not offer it")
        if self.phase != "betting":
            self._verify_late(seat, spot, "BET")
        elif spot in WAR_SPOTS:
            self.f.flag("out-of-context", f"a {spot} bet before any card is dealt", round=self.n)
        if spot == "egalite":
            rule = self.rules.egalite_needs_stake
            if rule is not None and rule.order == "after" and self.hand(seat).spot("main").held(owner) <= 0:
                self.flag("egalite-needs-stake",
                          f"égalité bet on seat {seat} by {owner} before any initial stake of theirs")

    def _verify_owner(self, seat: int, owner: Owner, approved: bool) -> None:
        occupied = seat in self.seated
        owner_seat = int(owner.id) if owner.kind == "seat" else None
        if owner_seat is not None and owner_seat != seat and owner_seat not in self.seated:
            self.f.flag("out-of-context", f"by={owner}: nobody sits at seat {owner_seat}", round=self.n)
        if not occupied:
            if owner.kind == "standing":
                self.flag("vacant-seat-approval",
                          f"standing player {owner.id} bets on vacant seat {seat}: a standing player bets only on a seated player's hand")
            elif owner_seat == seat:
                self.flag("vacant-seat-approval", f"bet on vacant seat {seat} with no seated player named as its owner",
                          expected=f"BET seat={seat} ... by=seat:M approved")
            elif not approved:
                self.flag("vacant-seat-approval", f"seat {owner_seat} bets on vacant seat {seat} without the dealer's approval",
                          expected=f"BET seat={seat} ... by={owner} approved")
            return
        if owner.kind == "standing":
            self.flag("standing-forbidden", f"standing player {owner.id} bets on seat {seat}; the house rules forbid it")
            if not self.supervisor:
                self.flag("standing-supervisor",
                          f"standing player {owner.id} bets on seat {seat} with no table supervisor present",
                          expected="SUPERVISOR present (before the bet)")

    def _verify_late(self, seat: int, spot: str, verb: str) -> None:
        allowed = self.rules.late_bet
        hand = self.hands.get(seat)
        window = ("choices",) if spot == "war" else ("choices", "bataille")  # the war stake opens the bataille
        if verb == "BET" and allowed is not None and spot in allowed.at_bataille and hand is not None \
                and hand.choice == "war" and self.phase in window and hand.war_card is None:
            return
        what = "placed" if verb == "BET" else "withdrawn"
        self.flag("late-bet", f"chips {what} on seat {seat} {spot} after \"rien ne va plus\" (line {self.closed_bets_line})",
                  expected=f"no {verb} after NOMOREBETS (line {self.closed_bets_line})")

    def apply_bet(self, e: ev.Bet) -> None:
        hand = self.hands.get(e.seat)
        if hand is None:
            hand = self.hands[e.seat] = HandState(e.seat)
        spot = hand.spots.get(e.spot)
        if spot is None:
            spot = hand.spots[e.spot] = Spot()
        spot.add(e.by or SEATED[e.seat], e.amount, e.line)
        if e.spot == "main":
            self._staked = None

    def verify_withdraw(self, e: ev.Withdraw) -> None:
        owner = e.by or Owner.seated(e.seat)
        if self.phase != "betting":
            self._verify_late(e.seat, e.spot, "WITHDRAW")
        held = self.hands.get(e.seat)
        have = held.spots[e.spot].held(owner) if held and e.spot in held.spots else ZERO
        if e.amount > have:
            self.f.flag("out-of-context", f"{owner} withdraws {fmt_amount(e.amount)} from seat {e.seat} {e.spot}, "
                        f"which holds {fmt_amount(have)} of theirs", round=self.n)

    def apply_withdraw(self, e: ev.Withdraw) -> None:
        self.hand(e.seat).spot(e.spot).add(e.by or Owner.seated(e.seat), -e.amount, e.line)
        if e.spot == "main":
            self._staked = None

    def verify_nomorebets(self, e: ev.NoMoreBets) -> None:
        if self.phase != "betting" and not self.closed_by_deal:
            self.f.flag("out-of-context", "\"rien ne va plus\" announced twice", round=self.n)
        self.closed_by_deal = False

    def apply_nomorebets(self, e: ev.NoMoreBets) -> None:
        if self.phase != "betting":
            return
        self.phase = "dealing"
        self.closed_bets_line = e.line
        self._check_stakes()

    def _check_stakes(self) -> None:
        lim = self.limits
        players: set[int] = set()
        boxes: dict[Owner, int] = {}
        count_boxes = self.rules.lone_player_two_boxes or self.rules.boxes_per_player is not None
        for seat, hand in self.hands.items():
            main = hand.spots.get("main")
            if main is not None and main.total > ZERO:
                for owner, (amount, line) in main.stakes.items():
                    if amount <= ZERO:
                        continue
                    if amount < lim.min:
                        self.flag("bet-limits", f"seat {seat} main: {owner} stakes {fmt_amount(amount)}, "
                                  f"below the table minimum {fmt_amount(lim.min)}", line=line,
                                  expected=f"a stake of at least {fmt_amount(lim.min)}", actual=None)
                    if count_boxes and owner.kind == "seat":
                        boxes[owner] = boxes.get(owner, 0) + 1
                        players.add(int(owner.id))
                if main.total > lim.max:
                    self.flag("bet-limits", f"seat {seat} main: stakes total {fmt_amount(main.total)}, "
                              f"above the table maximum {fmt_amount(lim.max)}", line=main.last_line,
                              expected=f"at most {fmt_amount(lim.max)} on the hand", actual=None)
            eg = hand.spots.get("egalite")
            if eg is not None and eg.total > ZERO:
                self._check_egalite(seat, "egalite", eg)
                needs = self.rules.egalite_needs_stake
                if needs is not None and needs.order == "anytime" and hand.stake("main") <= 0:
                    self.flag("egalite-needs-stake", f"égalité bet on seat {seat}, which holds no initial stake",
                              line=eg.last_line, actual=None)
        self._check_house_boxes(players, boxes)

    def _check_egalite(self, seat: int, name: str, spot: Spot) -> None:
        lim = self.limits
        eg_min = lim.eg_min
        for owner, (amount, line) in spot.stakes.items():
            if ZERO < amount < eg_min:
                self.flag("egalite-limits", f"seat {seat} {name}: {owner} stakes {fmt_amount(amount)}, below the "
                          f"égalité minimum {fmt_amount(eg_min)}", line=line,
                          actual=None)
        if spot.total > lim.eg_max:
            self.flag("egalite-limits", f"seat {seat} {name}: {fmt_amount(spot.total)} staked, above the égalité "
                      f"maximum {fmt_amount(lim.eg_max)}", line=spot.last_line, actual=None)

    def _check_house_boxes(self, players: set[int], boxes: dict[Owner, int]) -> None:
        if self.rules.lone_player_two_boxes and len(self.seated) == 1:
            owner = Owner.seated(next(iter(self.seated)))
            count = boxes.get(owner, 0)
            if 0 < count < 2:
                self.flag("lone-player-two-boxes", f"the only player ({owner}) plays {count} box; the house requires two",
                          line=self.closed_bets_line)
        cap = self.rules.boxes_per_player
        if cap is not None and len(players) > 1:
            for owner, count in boxes.items():
                if count > cap.max_boxes:
                    self.flag("boxes-per-player", f"{owner} plays {count} boxes while others play; "
                              f"the house allows {cap.max_boxes}", line=self.closed_bets_line)

    # -- cards -----------------------------------------------------------------------

    def verify_deal(self, e: ev.Deal) -> None:
        if self.phase == "dealing" and e.to == "seat" and e.seat == self._next_first():
            return  # the usual card: the next staked seat's, in order
        if e.to in ("ponte", "banker"):
            self.f.flag("out-of-context", f"DEAL {e.to} is a chemin de fer event", round=self.n)
            return
        if self.phase == "betting":
            self.flag("no-more-bets", "a card dealt before \"rien ne va plus\"", expected="NOMOREBETS")
            self.apply_nomorebets(e)  # the bets are closed in fact
            self.closed_bets_line = e.line
            self.closed_by_deal = True
        if self.phase == "choices" and e.to == "seat" and e.seat in self._pending_first():
            return  # a late first card: reported at the dealer's card
        if self.phase == "choices" and (self.warring() or self.burn_lines):
            self._start_bataille()
        if self.phase == "bataille":
            self._verify_war_deal(e)
        elif self.phase == "dealing":
            self._verify_first_deal(e)
        else:
            self.flag("deal-first", "a card too many: the round's cards are all dealt")

    def _verify_first_deal(self, e: ev.Deal) -> None:
        order = self.staked_seats()
        pending = [s for s in order if s not in self.dealt]
        if e.to == "dealer":
            if pending:
                self.flag("deal-first", "the dealer took his card before seat(s) "
                          + ", ".join(map(str, pending)) + " got theirs",
                          expected=f"DEAL seat={pending[0]} <card>")
            return
        seat = e.seat or 0
        if seat not in order:
            self.flag("deal-first", f"a card to seat {seat}, which holds no initial stake",
                      expected=f"DEAL seat={pending[0]} <card>" if pending else "DEAL dealer <card>")
        elif seat in self.dealt:
            self.flag("deal-first", f"a second card to seat {seat}",
                      expected=f"DEAL seat={pending[0]} <card>" if pending else "DEAL dealer <card>")
        elif pending and seat != pending[0]:
            self.flag("deal-first", f"seat {seat} dealt before seat {pending[0]}: cards go from the dealer's left, clockwise",
                      expected=f"DEAL seat={pending[0]} <card>")

    def _pending_first(self) -> list[int]:
        return [s for s in self.staked_seats() if s not in self.dealt]

    def _next_first(self) -> int | None:
        """The staked seat due the next first-deal card (None: the dealer's turn)."""
        dealt = self.dealt
        for seat in self.staked_seats():
            if seat not in dealt:
                return seat
        return None

    def apply_deal(self, e: ev.Deal) -> None:
        self.drew_cards = True
        if e.to in ("ponte", "banker"):
            return
        phase = self.phase
        if phase == "dealing" and e.to == "seat":  # the usual card first
            hand = self.hands.get(e.seat)  # type: ignore[arg-type]
            if hand is not None and e.seat not in self.dealt and hand.stake("main") > ZERO:
                hand.card = e.card
            self.dealt.add(e.seat)  # type: ignore[arg-type]
            self.burn_lines = []
            return
        if phase == "choices" and e.to == "seat" and e.seat in self._pending_first():
            self.hands[e.seat].card = e.card
            self.dealt.add(e.seat)
            return
        if self.phase == "dealing":
            if e.to == "dealer":
                self.dealer_card = e.card
                self.phase = "choices"
            elif e.seat in self.hands and e.seat not in self.dealt and self.hands[e.seat].stake("main") > 0:
                self.hands[e.seat].card = e.card
                self.dealt.add(e.seat)
            elif e.seat is not None:
                self.dealt.add(e.seat)
        elif self.phase == "bataille":
            self._apply_war_deal(e)
        self.burn_lines = []

    def verify_burn(self, e: ev.Burn) -> None:
        if self.phase == "choices" and self.warring():
            self._start_bataille()
        if self.phase != "bataille":
            where = {"betting": "while bets are placed", "dealing": "during the first deal",
                     "choices": "with no bataille to deal"}[self.phase]
            self.flag("burn-unexpected", f"a card burned where the rules require none ({where})")

    def apply_burn(self, e: ev.Burn) -> None:
        self.drew_cards = True
        if self.phase == "bataille":
            self.burn_lines.append(e.line)

    # -- the choice and the bataille ----------------------------------------------------

    def verify_choice(self, e: ev.Choice) -> None:
        hand = self.hands.get(e.seat)
        if hand is None or hand.card is None or self.dealer_card is None:
            self.flag("bataille-choice", f"seat {e.seat} chooses {e.choice} before its card and the dealer's are out")
            return
        if _cmp(hand.card, self.dealer_card) != "equal":
            self.flag("bataille-choice", f"seat {e.seat} chooses {e.choice}, but {hand.card} does not tie the dealer's {self.dealer_card}")
        elif hand.choice is not None:
            self.flag("bataille-choice", f"seat {e.seat} chooses twice")
        elif self.phase == "bataille":
            self.flag("bataille-choice", f"seat {e.seat} chooses after the bataille began")

    def apply_choice(self, e: ev.Choice) -> None:
        hand = self.hands.get(e.seat)
        if hand is not None and hand.choice is None and hand.card and self.dealer_card \
                and _cmp(hand.card, self.dealer_card) == "equal":
            hand.choice = e.choice

    def _tied_seats(self) -> list[int]:
        dealer = self.dealer_card
        if dealer is None:
            return []
        value, hands = BATAILLE_VALUE[dealer.rank], self.hands
        return [s for s in self.staked_seats()
                if hands[s].card is not None and BATAILLE_VALUE[hands[s].card.rank] == value]  # type: ignore[union-attr]

    def _start_bataille(self) -> None:
        self.phase = "bataille"
        self.settle_phase = 2
        self.last_settled_seat = None
        for seat in self._tied_seats():
            if self.hands[seat].choice is None:
                self.flag("bataille-choice", f"seat {seat} tied the dealer and made no choice before the bataille",
                          expected=f"CHOICE seat={seat} war|surrender")
        self.war_queue = [*self.warring(), None]
        for seat in self.warring():
            self._check_war_stake(seat)

    def _check_war_stake(self, seat: int) -> None:
        hand = self.hands[seat]
        main, war = hand.stake("main"), hand.stake("war")
        if war != main:
            self.flag("war-stake", f"seat {seat} goes to bataille with {fmt_amount(war)} on war; "
                      f"the initial stake is {fmt_amount(main)}",
                      expected=f"BET seat={seat} spot=war amount={fmt_amount(main)}", actual=None,
                      line=hand.spots["war"].last_line if "war" in hand.spots else None)

    def _check_egalite_war(self, seat: int) -> None:
        """The égalité re-bet may come until the seat's bataille card: judged then (or at the
        round's end if that card never came)."""
        egw = self.hands[seat].spots.get("egalite-war")
        if egw and egw.total > 0 and seat not in self.egalite_war_checked:
            self.egalite_war_checked.add(seat)
            self._check_egalite(seat, "egalite-war", egw)

    def _lone_ace(self) -> bool:
        players = self.warring()
        return (self.rules.bataille_ace and len(players) == 1
                and self.hands[players[0]].war_card is not None and self.hands[players[0]].war_card.rank == "A")

    def _burns_needed(self, key: int | None) -> int:
        """Burns the rules put before this bataille card: the first player's, a later player's, the dealer's."""
        burns = self.rules.war_burns
        if burns is None:
            return 0
        if key is None:
            return burns.before_dealer
        return (burns.before_players if self.war_players_dealt == 0 else 0) + burns.before_each_player

    def _verify_war_deal(self, e: ev.Deal) -> None:
        if not self.war_queue:
            self.flag("deal-bataille", "a card too many: the bataille's cards are all dealt")
            return
        target = self.war_queue[0]
        who = "the dealer" if e.to == "dealer" else f"seat {e.seat}"
        if e.to == "dealer" and self._lone_ace():
            self.flag("bataille-ace", "the only player at bataille received an Ace: the dealer's card is not needed")
        want = "dealer" if target is None else f"seat={target}"
        key = None if e.to == "dealer" else e.seat
        if key not in self.war_queue:
            self.flag("deal-bataille", f"a bataille card to {who}, which is not in the bataille or already has its card",
                      expected=f"DEAL {want} <card>")
            return
        if key != target:
            self.flag("deal-bataille", f"bataille card to {who} out of turn", expected=f"DEAL {want} <card>")
        self._verify_war_burns(key)
        if key is not None:
            self._check_egalite_war(key)

    def _verify_war_burns(self, key: int | None) -> None:
        need = self._burns_needed(key)
        got = len(self.burn_lines)
        card = "DEAL dealer" if key is None else f"DEAL seat={key}"
        if got < need:
            self.flag("burn-bataille", f"{got} card(s) burned before this bataille card; the rules burn {need}",
                      expected=f"BURN (×{need}) before {card}")
        elif got > need:
            self.flag("burn-bataille-extra", f"{got} cards burned before the next bataille card ({card}); "
                      f"the rules burn {need}", line=self.burn_lines[need], actual=None)

    def _apply_war_deal(self, e: ev.Deal) -> None:
        key = None if e.to == "dealer" else e.seat
        if key not in self.war_queue:
            return
        self.war_queue.remove(key)
        if key is None:
            self.dealer_war_card = e.card
        else:
            self.war_players_dealt += 1
            self.hands[key].war_card = e.card

    # -- settlements -------------------------------------------------------------------

    def verify_settle(self, e: ev.Pay | ev.Collect | ev.Push) -> None:
        if e.seat is None or e.spot is None:
            self.f.flag("out-of-context", f"{e.verb} by= is a chemin de fer settlement", round=self.n)
            return
        hand = self.hands.get(e.seat)
        spot = hand.spots.get(e.spot) if hand else None
        if spot is None or spot.total <= 0:
            self.flag("settle-once", f"seat {e.seat} {e.spot} settled, but nothing is staked there")
            return
        if spot.settled_line:
            self.flag("settle-once", f"seat {e.seat} {e.spot} settled twice (first at line {spot.settled_line})")
            return
        self._verify_order(e.seat)
        expected = self._expected(hand, e.spot)
        if expected is None:
            return
        check, verb, amount, _ = expected
        got_amount = getattr(e, "amount", None)
        if verb == e.verb and (amount is None or amount == got_amount):
            return
        why = self._expected(hand, e.spot, why=True)[3]  # type: ignore[index]
        want = f"{verb} seat={e.seat} spot={e.spot}" + (f" amount={fmt_amount(amount)}" if amount is not None else "")
        self.flag(check, f"seat {e.seat} {e.spot}: {_said(e.verb, got_amount)}, rules {_said(verb, amount, rule=True)} ({why})",
                  expected=want)

    def _verify_order(self, seat: int) -> None:
        rule = self.rules.pay_order
        if rule is None:
            return
        last = self.last_settled_seat
        if last is not None and ((rule.order == "descending" and seat > last) or (rule.order == "ascending" and seat < last)):
            way = "right to left (descending seats)" if rule.order == "descending" else "ascending seats"
            self.flag("pay-order", f"seat {seat} settled after seat {last}: settlements go {way}")

    def apply_settle(self, e: ev.Pay | ev.Collect | ev.Push) -> None:
        if e.seat is None or e.spot is None:
            return
        hand = self.hands.get(e.seat)
        spot = hand.spots.get(e.spot) if hand else None
        if spot is None or spot.total <= 0 or spot.settled_line:
            return
        spot.settled_line = e.line
        spot.settled_phase = self.settle_phase
        self.last_settled_seat = e.seat

    def _expected(self, hand: HandState, spot: str,
                  why: bool = False) -> tuple[str, str, Decimal | None, str] | None:
        """(check, verb, amount, reason) the rules require for a spot now, or None if it cannot be
        settled yet; the reason is written only when asked (``why``), for a finding."""
        stake = hand.stake(spot)
        if hand.card is None and hand.stake("main") <= 0:
            return "settle-once", "PUSH", None, ("the hand holds no initial stake and got no card: the bet is returned" if why else "")
        if hand.card is None or self.dealer_card is None:
            self.flag("settle-once", f"seat {hand.seat} {spot} settled before its card and the dealer's were dealt")
            return None
        first = _cmp(hand.card, self.dealer_card)
        if spot == "egalite":
            odds = self.rules.pay_egalite
            if odds is None:
                return None
            if first == "equal":
                return "pay-egalite", "PAY", stake * odds.odds, (f"égalité {fmt_amount(odds.odds)} to 1 on {fmt_amount(stake)}, first cards equal" if why else "")
            return "pay-egalite", "COLLECT", stake, (f"first cards {hand.card} and {self.dealer_card} differ" if why else "")
        if spot == "main" and first != "equal":
            odds = self.rules.pay_main
            if odds is None:
                return None
            if first == "higher":
                return "pay-main", "PAY", stake * odds.odds, (f"{fmt_amount(odds.odds)} to 1 on a stake of {fmt_amount(stake)}, {hand.card} beats {self.dealer_card}" if why else "")
            return "pay-main", "COLLECT", stake, (f"{hand.card} loses to {self.dealer_card}" if why else "")
        if spot == "main" and hand.choice == "surrender":
            rule = self.rules.surrender
            if rule is None:
                return None
            share = (stake * rule.fraction).quantize(CENT, rounding=_ROUNDING[rule.rounding])
            return "surrender", "COLLECT", share, (f"surrender: the house keeps {rule.fraction} of {fmt_amount(stake)}" if why else "")
        if first != "equal" or hand.choice != "war":
            self.flag("settle-once", f"seat {hand.seat} {spot} settled, but the hand is tied and no bataille decides it")
            return None
        outcome = self._war_outcome(hand)
        if outcome is None:
            self.flag("settle-once", f"seat {hand.seat} {spot} settled before the bataille decided it")
            return None
        if spot == "egalite-war":
            odds = self.rules.pay_egalite_war
            if odds is None:
                return None
            equal = self.dealer_war_card is not None and _cmp(hand.war_card, self.dealer_war_card) == "equal"  # type: ignore[arg-type]
            if equal:
                return "pay-egalite-war", "PAY", stake * odds.odds, (f"égalité re-bet {fmt_amount(odds.odds)} to 1, bataille cards equal" if why else "")
            return "pay-egalite-war", "COLLECT", stake, ("the bataille cards are not equal" if why else "")
        rule = self.rules.pay_bataille
        if rule is None:
            return None
        verb = getattr(rule, outcome).main if spot == "main" else getattr(rule, outcome).war
        reason = ""
        if why:
            vs = f"{hand.war_card} vs {self.dealer_war_card}" if self.dealer_war_card else f"{hand.war_card} (Ace)"
            reason = f"bataille {outcome} ({vs})"
        if verb == "pay":
            return "pay-bataille", "PAY", stake * rule.odds, reason
        if verb == "collect":
            return "pay-bataille", "COLLECT", stake, reason
        return "pay-bataille", "PUSH", None, reason

    def _war_outcome(self, hand: HandState) -> str | None:
        if hand.war_card is None:
            return None
        if self.dealer_war_card is None:
            if self.rules.bataille_ace and hand.war_card.rank == "A" and len(self.warring()) == 1:
                return "higher"
            return None
        return _cmp(hand.war_card, self.dealer_war_card)

    # -- end of the round -------------------------------------------------------------

    def finish(self, line: int) -> None:
        """At ROUND end: every staked hand got its card, every stake was settled."""
        if self.phase == "betting":
            return
        hands = self.hands
        for seat in self.staked_seats():
            if hands[seat].card is None:
                self.flag("deal-first", f"seat {seat} holds a stake but got no card", line=line, actual=None)
        for seat, hand in hands.items():
            if "egalite-war" in hand.spots:
                self._check_egalite_war(seat)
        for seat in self._tied_seats():
            hand = hands[seat]
            if hand.choice is None:
                self.flag("bataille-choice", f"seat {seat} tied the dealer and never chose", line=line, actual=None)
            elif hand.choice == "war" and hand.war_card is None:
                self.flag("deal-bataille", f"seat {seat} went to bataille but got no bataille card", line=line, actual=None)
        if self.phase == "bataille" and self.war_queue == [None] and not self._lone_ace():
            self.flag("deal-bataille", "the dealer took no bataille card", line=line, actual=None,
                      expected="DEAL dealer <card>")
        if self.burn_lines:
            self.flag("burn-bataille-extra", f"{len(self.burn_lines)} card(s) burned after the bataille's last card",
                      line=self.burn_lines[0], actual=None)
        for seat, hand in hands.items():
            for name, spot in hand.spots.items():
                if spot.total > ZERO and not spot.settled_line:
                    self.flag("settle-once", f"seat {seat} {name} ({fmt_amount(spot.total)}) was never settled",
                              line=line, actual=None)


def _said(verb: str, amount: Decimal | None, rule: bool = False) -> str:
    if verb == "PAY":
        return f"{'pay' if rule else 'paid'} {fmt_amount(amount)}" if amount is not None else ("pay" if rule else "paid")
    if verb == "COLLECT":
        return f"{'collect' if rule else 'collected'} {fmt_amount(amount)}" if amount is not None else "collect"
    return "push (return the stake)" if rule else "pushed"
