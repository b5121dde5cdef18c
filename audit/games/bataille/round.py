"""One round (coup) of la bataille: bets, "rien ne va plus", the first deal, the end.

A state object with a ``verify_<verb>`` / ``apply_<verb>`` pair per event:
verify compares an event with what the ruleset allows at this point of the
round and flags each breach; apply then records what happened, so that the
replay follows the log even where the log breaks the rules. The bataille
itself (choices, the war's cards and burns) is in ``war``, the settlements in
``settle``; the checks each part raises are declared beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from ... import events as ev
from ...engine.checks import Check, NoParams, Params, declare
from ...engine.format_checks import OUT_OF_CONTEXT
from ...engine.game import Events, Round
from ...engine.table import BURN_UNEXPECTED, SEAT_RANGE
from ...values import SEATED, Card, Owner, fmt_amount
from . import events as own
from .hands import EGALITE_SPOTS, WAR_SPOTS, ZERO, HandState, Spot
from .settle import Settlement
from .war import War

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import Table
    from .table import BatailleTable

SCOPE = "bataille"  # the checks declared below are this game's
_SETTLEMENTS = frozenset(("PAY", "COLLECT", "PUSH"))
#: the spots of a hand at war that its bataille decides (its égalité bet, the first cards do)
WAR_DECIDED = frozenset(("main", "war", "egalite-war"))
SpotName = Literal["main", "egalite", "war", "egalite-war"]


class LateBets(Params):
    #: spots that may still receive chips after "rien ne va plus", at a bataille
    at_bataille: list[SpotName]


class EgaliteNeedsStake(Params):
    #: anytime: the hand has an initial stake when bets close; after: placed after the owner's stake
    order: Literal["anytime", "after"]


class EgaliteOffered(Params):
    offered: bool


class BoxesPerPlayer(Params):
    max_boxes: int = Field(gt=0)


class BetLimits(Params):
    """``per_player``: the maximum also bounds each player's stakes on every hand together (Monaco's
    « le montant par joueur »), beside each hand's."""

    per_player: bool = False


BET_LIMITS = declare("bet-limits", BetLimits, SCOPE)
EGALITE_LIMITS = declare("egalite-limits", NoParams, SCOPE)
LATE_BET = declare("late-bet", LateBets, SCOPE)
EGALITE_NEEDS_STAKE = declare("egalite-needs-stake", EgaliteNeedsStake, SCOPE)
EGALITE_OFFERED = declare("egalite-offered", EgaliteOffered, SCOPE)
VACANT_SEAT_APPROVAL = declare("vacant-seat-approval", NoParams, SCOPE)
STANDING_SUPERVISOR = declare("standing-supervisor", NoParams, SCOPE)
STANDING_FORBIDDEN = declare("standing-forbidden", NoParams, SCOPE)
LONE_PLAYER_TWO_BOXES = declare("lone-player-two-boxes", NoParams, SCOPE)
BOXES_PER_PLAYER = declare("boxes-per-player", BoxesPerPlayer, SCOPE)
DEAL_FIRST = declare("deal-first", NoParams, SCOPE)


class BatailleRound(War, Settlement, Round):
    """Bets → "rien ne va plus" → first deal → choices and first settlements → bataille → settlements."""

    def __init__(self, n: int, line: int, table: Table):
        super().__init__(n, line, table)
        self.limits = table.limits
        self.rules: BatailleTable = table.ext  # type: ignore[assignment]
        self.stats = table.stats
        self.seated = table.seated  # the table's live seat map
        self.seats = table.seats
        self.hands: dict[int, HandState] = {}
        self.closed_bets_line = 0
        self.phase: str = "betting"  # betting, dealing, choices, bataille
        self.dealt: set[int] = set()
        self.dealer_card: Card | None = None
        self.dealer_war_card: Card | None = None
        self.war_queue: list[
            int | None
        ] = []  # seats still to get a bataille card; None: the dealer
        self.war_players_dealt = 0
        self.burn_lines: list[int] = []  # bataille burns since the last card
        self.closed_by_deal = False
        self.last_settled_seat: int | None = None
        self._staked: list[int] | None = None
        self.egalite_war_checked: set[int] = set()
        #: cards reported missing where they were first due (seats; None: the dealer), reported once:
        #: the first deal's and the bataille's
        self.first_missing: set[int | None] = set()
        self.war_missing: set[int | None] = set()
        #: while cards are owed (``owed``: the first deal's, the bataille's, from the first hand that
        #: goes to war): the first settlement that came, where any still missing were due (0: none
        #: yet), and the settlement findings that wait on those cards: reported if
        #: the cards come (the settlement was early), dropped if they never do (the missing card is
        #: the finding; the settlement it left undecided is not another)
        self.due_line: int = 0
        self.deferred: list[tuple[Check, str, int, str, Callable[[], bool]]] = []
        self.choice_missing_seats: set[int] = set()
        #: (seat, spot, house's result) of each spot settled, for the statistics
        self.settlements: list[tuple[int, str, Decimal]] = []

    # -- helpers -----------------------------------------------------------------

    def hand(self, seat: int) -> HandState:
        if seat not in self.hands:
            self.hands[seat] = HandState(seat)
        return self.hands[seat]

    def staked_seats(self) -> list[int]:
        """Seats whose hand holds an initial stake, ascending (cached until a main stake changes)."""
        if self._staked is None:
            self._staked = sorted([s for s, h in self.hands.items() if h.stake("main") > ZERO])
        return self._staked

    def warring(self) -> list[int]:
        return sorted(s for s, h in self.hands.items() if h.choice == "war" and h.card is not None)

    # -- bets ------------------------------------------------------------------------

    def verify_bet(self, e: own.Bet) -> None:
        seat, spot = e.seat, e.spot
        owner = e.by or SEATED[seat]
        if e.amount <= ZERO:
            self.flag(
                BET_LIMITS,
                f"a bet of {fmt_amount(e.amount)} on seat {seat} {spot}",
                expected=f"BET seat={seat} spot={spot} amount=<more than 0>",
            )
        if seat > self.seats:
            self.flag(
                SEAT_RANGE,
                f"bet on seat {seat}; the table has {self.seats} places",
                expected=f"BET seat=N with N from 1 to {self.seats}",
            )
        # a seated player's own bet needs no more
        if spot not in WAR_SPOTS and (e.by is not None or seat not in self.seated):
            self._verify_owner(seat, owner, e.approved)
        if spot in EGALITE_SPOTS:
            offered = self.rules.egalite_offered
            if offered is not None and not offered.offered:
                self.flag(
                    EGALITE_OFFERED,
                    "an égalité bet at a table whose house rules do not offer it",
                    expected="no égalité bet: the house does not offer it",
                )
        if self.phase != "betting":
            self._verify_late(seat, spot, "BET")
        elif spot in WAR_SPOTS:
            self.flag(
                OUT_OF_CONTEXT,
                f"a {spot} bet before any card is dealt",
                expected=f"BET seat={seat} spot={spot} after CHOICE seat={seat} war",
            )
        if spot == "egalite":
            rule = self.rules.egalite_needs_stake
            if (
                rule is not None
                and rule.order == "after"
                and self.hand(seat).spot("main").held(owner) <= 0
            ):
                self.flag(
                    EGALITE_NEEDS_STAKE,
                    f"égalité bet on seat {seat} by {owner} before any initial stake of theirs",
                    expected=f"BET seat={seat} spot=main by={owner} before the égalité bet",
                )

    def _verify_owner(self, seat: int, owner: Owner, approved: bool) -> None:
        occupied = seat in self.seated
        owner_seat = int(owner.id) if owner.kind == "seat" else None
        if owner_seat is not None and owner_seat != seat and owner_seat not in self.seated:
            self.flag(
                OUT_OF_CONTEXT,
                f"by={owner}: nobody sits at seat {owner_seat}",
                expected="by= naming a seated player",
            )
        if not occupied:
            if owner.kind == "standing":
                self.flag(
                    VACANT_SEAT_APPROVAL,
                    f"standing player {owner.id} bets on vacant seat {seat}: a standing player bets only on a seated player's hand",
                    expected="a standing player bets on an occupied seat only",
                )
            elif owner_seat == seat:
                self.flag(
                    VACANT_SEAT_APPROVAL,
                    f"bet on vacant seat {seat} with no seated player named as its owner",
                    expected=f"BET seat={seat} ... by=seat:M approved",
                )
            elif not approved:
                self.flag(
                    VACANT_SEAT_APPROVAL,
                    f"seat {owner_seat} bets on vacant seat {seat} without the dealer's approval",
                    expected=f"BET seat={seat} ... by={owner} approved",
                )
            return
        if owner.kind == "standing":
            self.flag(
                STANDING_FORBIDDEN,
                f"standing player {owner.id} bets on seat {seat}; the house rules forbid it",
                expected="no bet by a standing player",
            )
            if not self.table.supervisor:
                self.flag(
                    STANDING_SUPERVISOR,
                    f"standing player {owner.id} bets on seat {seat} with no table supervisor present",
                    expected="SUPERVISOR present (before the bet)",
                )

    def _verify_late(self, seat: int, spot: str, verb: str) -> None:
        allowed = self.rules.late_bet
        hand = self.hands.get(seat)
        window = (
            ("choices",) if spot == "war" else ("choices", "bataille")
        )  # the war stake opens the bataille
        if (
            verb == "BET"
            and allowed is not None
            and spot in allowed.at_bataille
            and hand is not None
            and hand.choice == "war"
            and self.phase in window
            and hand.war_card is None
        ):
            return
        what = "placed" if verb == "BET" else "withdrawn"
        self.flag(
            LATE_BET,
            f'chips {what} on seat {seat} {spot} after "rien ne va plus" (line {self.closed_bets_line})',
            expected=f"no {verb} after NOMOREBETS (line {self.closed_bets_line})",
        )

    def apply_bet(self, e: own.Bet) -> None:
        self.stats.drop += e.amount
        hand = self.hands.get(e.seat)
        if hand is None:
            hand = self.hands[e.seat] = HandState(e.seat)
        spot = hand.spots.get(e.spot)
        if spot is None:
            spot = hand.spots[e.spot] = Spot()
        spot.add(e.by or SEATED[e.seat], e.amount, e.line)
        self.flagger.keep()  # the limits are judged at "rien ne va plus", at this line
        if e.spot == "main":
            self._staked = None

    def verify_withdraw(self, e: own.Withdraw) -> None:
        owner = e.by or Owner.seated(e.seat)
        if self.phase != "betting":
            self._verify_late(e.seat, e.spot, "WITHDRAW")
        held = self.hands.get(e.seat)
        have = held.spots[e.spot].held(owner) if held and e.spot in held.spots else ZERO
        if e.amount > have:
            self.flag(
                OUT_OF_CONTEXT,
                f"{owner} withdraws {fmt_amount(e.amount)} from seat {e.seat} {e.spot}, "
                f"which holds {fmt_amount(have)} of theirs",
                expected=f"WITHDRAW seat={e.seat} spot={e.spot} amount={fmt_amount(have)} (at most)",
            )

    def apply_withdraw(self, e: own.Withdraw) -> None:
        self.stats.drop -= e.amount
        self.hand(e.seat).spot(e.spot).add(e.by or Owner.seated(e.seat), -e.amount, e.line)
        self.flagger.keep()
        if e.spot == "main":
            self._staked = None

    def verify_nomorebets(self, e: ev.NoMoreBets) -> None:
        if self.phase != "betting" and not self.closed_by_deal:
            self.flag(
                OUT_OF_CONTEXT,
                '"rien ne va plus" announced twice',
                expected="one NOMOREBETS per round",
            )
        self.closed_by_deal = False

    def _check_player_totals(self, most: Decimal) -> None:
        """A player's initial stakes on two hands or more, together, at most the table maximum (one
        hand's are its own total's, which ``_check_stakes`` judges)."""
        totals: dict[Owner, list] = {}
        for seat in sorted(self.hands):
            main = self.hands[seat].spots.get("main")
            if main is None:
                continue
            for owner, (amount, line) in main.stakes.items():
                if amount > ZERO:
                    mine = totals.setdefault(owner, [ZERO, [], line])
                    mine[0] += amount
                    mine[1].append(seat)
                    mine[2] = max(mine[2], line)
        for owner, (total, seats, line) in totals.items():
            if len(seats) > 1 and total > most:
                self.flag(
                    BET_LIMITS,
                    f"{owner} stakes {fmt_amount(total)} in all on seats "
                    f"{', '.join(map(str, seats))}, above the table maximum {fmt_amount(most)}",
                    line=line,
                    expected=f"at most {fmt_amount(most)} a player",
                )

    def apply_nomorebets(self, e: ev.NoMoreBets | ev.Deal) -> None:
        if self.phase != "betting":
            return
        self.phase = "dealing"
        self.owed = True  # the first cards: due before the settlements
        self.closed_bets_line = e.line
        self._check_stakes()

    def _check_stakes(self) -> None:
        lim = self.limits
        if self.rules.player_max:
            self._check_player_totals(lim.max)
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
                        self.flag(
                            BET_LIMITS,
                            f"seat {seat} main: {owner} stakes {fmt_amount(amount)}, "
                            f"below the table minimum {fmt_amount(lim.min)}",
                            line=line,
                            expected=f"a stake of at least {fmt_amount(lim.min)}",
                        )
                    if count_boxes and owner.kind == "seat":
                        boxes[owner] = boxes.get(owner, 0) + 1
                        players.add(int(owner.id))
                if main.total > lim.max:
                    self.flag(
                        BET_LIMITS,
                        f"seat {seat} main: stakes total {fmt_amount(main.total)}, "
                        f"above the table maximum {fmt_amount(lim.max)}",
                        line=main.last_line,
                        expected=f"at most {fmt_amount(lim.max)} on the hand",
                    )
            eg = hand.spots.get("egalite")
            if eg is not None and eg.total > ZERO:
                self._check_egalite(seat, "egalite", eg)
                needs = self.rules.egalite_needs_stake
                if needs is not None and needs.order == "anytime" and hand.stake("main") <= 0:
                    self.flag(
                        EGALITE_NEEDS_STAKE,
                        f"égalité bet on seat {seat}, which holds no initial stake",
                        line=eg.last_line,
                        expected=f"BET seat={seat} spot=main with the égalité bet",
                    )
        self._check_house_boxes(players, boxes)

    def _check_egalite(self, seat: int, name: str, spot: Spot) -> None:
        lim = self.limits
        eg_min = lim.side_lo
        for owner, (amount, line) in spot.stakes.items():
            if ZERO < amount < eg_min:
                self.flag(
                    EGALITE_LIMITS,
                    f"seat {seat} {name}: {owner} stakes {fmt_amount(amount)}, below the "
                    f"égalité minimum {fmt_amount(eg_min)}",
                    line=line,
                    expected=f"an égalité stake of at least {fmt_amount(eg_min)}",
                )
        if spot.total > lim.side_hi:
            self.flag(
                EGALITE_LIMITS,
                f"seat {seat} {name}: {fmt_amount(spot.total)} staked, above the égalité "
                f"maximum {fmt_amount(lim.side_hi)}",
                line=spot.last_line,
                expected=f"at most {fmt_amount(lim.side_hi)} on the égalité",
            )

    def _check_house_boxes(self, players: set[int], boxes: dict[Owner, int]) -> None:
        if self.rules.lone_player_two_boxes and len(self.seated) == 1:
            owner = Owner.seated(next(iter(self.seated)))
            count = boxes.get(owner, 0)
            if 0 < count < 2:
                self.flag(
                    LONE_PLAYER_TWO_BOXES,
                    f"the only player ({owner}) plays {count} box; the house requires two",
                    line=self.closed_bets_line,
                    expected=f"two boxes played by {owner}",
                )
        cap = self.rules.boxes_per_player
        if cap is not None and len(players) > 1:
            for owner, count in boxes.items():
                if count > cap.max_boxes:
                    self.flag(
                        BOXES_PER_PLAYER,
                        f"{owner} plays {count} boxes while others play; "
                        f"the house allows {cap.max_boxes}",
                        line=self.closed_bets_line,
                        expected=f"at most {cap.max_boxes} boxes for {owner}",
                    )

    # -- cards -----------------------------------------------------------------------

    def verify_deal(self, e: ev.Deal) -> None:
        if self.phase == "dealing" and e.to == "seat" and e.seat == self._next_first():
            return  # the usual card: the next staked seat's, in order
        if e.to in ("ponte", "banker"):
            self.flag(
                OUT_OF_CONTEXT,
                f"DEAL {e.to} is a chemin de fer event",
                expected="DEAL seat=N <card> or DEAL dealer <card>",
            )
            return
        if self.phase == "betting":
            self.cards_before_close('a card dealt before "rien ne va plus"')
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
            self.flag(
                DEAL_FIRST,
                "a card too many: the round's cards are all dealt",
                expected="no further DEAL in the round",
            )

    def _verify_first_deal(self, e: ev.Deal) -> None:
        order = self.staked_seats()
        pending = [s for s in order if s not in self.dealt]
        if e.to == "dealer":
            if pending:  # where their cards were due: reported here once, dealt late or never
                self.first_missing.update(pending)
                self.flag(
                    DEAL_FIRST,
                    "the dealer took his card before seat(s) "
                    + ", ".join(map(str, pending))
                    + " got theirs",
                    expected=f"DEAL seat={pending[0]} <card>",
                )
            return
        seat = e.seat or 0
        if seat not in order:
            self.flag(
                DEAL_FIRST,
                f"a card to seat {seat}, which holds no initial stake",
                expected=f"DEAL seat={pending[0]} <card>" if pending else "DEAL dealer <card>",
            )
        elif seat in self.dealt:
            self.flag(
                DEAL_FIRST,
                f"a second card to seat {seat}",
                expected=f"DEAL seat={pending[0]} <card>" if pending else "DEAL dealer <card>",
            )
        elif pending and seat != pending[0]:
            self.flag(
                DEAL_FIRST,
                f"seat {seat} dealt before seat {pending[0]}: cards go from the dealer's left, clockwise",
                expected=f"DEAL seat={pending[0]} <card>",
            )

    def _pending_first(self) -> list[int]:
        return [s for s in self.staked_seats() if s not in self.dealt]

    def _next_first(self) -> int | None:
        """The staked seat due the next first-deal card (None: the dealer's turn)."""
        dealt = self.dealt
        staked = self._staked  # (``staked_seats``, without its call on every card of the deal)
        for seat in staked if staked is not None else self.staked_seats():
            if seat not in dealt:
                return seat
        return None

    def apply_deal(self, e: ev.Deal) -> None:
        if e.to in ("ponte", "banker"):
            return
        phase = self.phase
        if phase == "dealing" and e.to == "seat":  # the usual card first
            hand = self.hands.get(e.seat)  # type: ignore[arg-type]
            main = (
                hand.spots.get("main") if hand is not None else None
            )  # (``stake("main")``, without its call)
            if main is not None and e.seat not in self.dealt and main.total > ZERO:
                hand.card = e.card  # type: ignore[union-attr]
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
                self.cards_came()
            elif (
                e.seat in self.hands
                and e.seat not in self.dealt
                and self.hands[e.seat].stake("main") > ZERO
            ):
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
            where = {
                "betting": "while bets are placed",
                "dealing": "during the first deal",
                "choices": "with no bataille to deal",
            }[self.phase]
            self.flag(
                BURN_UNEXPECTED,
                f"a card burned where the rules require none ({where})",
                expected="no BURN there",
            )

    def apply_burn(self, e: ev.Burn) -> None:
        if self.phase == "bataille":
            self.burn_lines.append(e.line)
            self.flagger.keep()

    # -- missing events, at the first line they were due -----------------------------

    def report_owed(self, e: ev.Event) -> None:
        """A round event other than a card or a burn while cards are owed. The cards are due before
        the settlements: the first settlement is where any that never come were due (reported at
        the round's end, when they are known missing). A bataille owed that has not begun (a hand
        chose war) is due before the settlements it decides only: the others, the first cards
        decide, and they come first. A bet, a choice or "rien ne va plus" keep their own windows
        and show nothing missing."""
        if (
            e.verb in _SETTLEMENTS
            and not self.due_line
            and (self.phase != "choices" or self._bataille_decides(e))  # type: ignore[arg-type]  # a settlement (its verb)
        ):
            self.due_line = e.line
            self.flagger.keep()

    def _bataille_decides(self, e: ev.Pay | ev.Collect | ev.Push) -> bool:
        """A settlement of a spot the bataille owed decides: a hand's at war, its main, war or égalité
        re-bet (the spots the first cards decide are settled before the bataille, as the text orders)."""
        hand = self.hands.get(e.seat) if e.seat is not None else None
        return hand is not None and hand.choice == "war" and e.spot in WAR_DECIDED

    def defer(self, check: Check, message: str, expected: str, decided: Callable[[], bool]) -> None:
        """A settlement that owed cards leave undecided: judged when they come, dropped if they never do.
        ``decided`` tells, when the round ends with cards still owed, whether the ones this settlement
        waited on came after all (it was early) or are among the missing (the missing card is the finding)."""
        if self.owed and self.due_line:
            self.deferred.append((check, message, self.flagger.sink.line, expected, decided))
            self.flagger.keep()  # (the finding, if it comes, names this line)
        else:
            self.flag(check, message, expected=expected)

    def cards_came(self) -> None:
        """The cards owed have all come: the settlements made before them were early."""
        self.owed = False
        for check, message, line, expected, _ in self.deferred:
            self.flag(check, message, line=line, expected=expected)
        self.deferred = []
        self.due_line = 0

    def _cards_missing(self, line: int) -> None:
        """The round ends with cards owed: each reported missing where it was first due."""
        at = self.due_line or line
        self.owed = False
        for check, message, early, expected, decided in self.deferred:
            if decided():  # the cards it waited on came, after it; others are the missing ones
                self.flag(check, message, line=early, expected=expected)
        self.deferred = []
        self.due_line = 0
        if self.phase == "dealing":
            self._first_cards_missing(at)
        elif self.phase == "bataille":
            self._war_cards_missing(at)
        else:  # "choices": a bataille owed that never began
            self._bataille_missing(at)

    def _first_cards_missing(self, at: int) -> None:
        """Each staked hand, then the dealer, owed a card of the first deal; reported once each."""
        if not self.staked_seats():
            return  # nothing staked: no card owed
        for seat in self._pending_first():
            if seat not in self.first_missing:
                self.first_missing.add(seat)
                self.flag(
                    DEAL_FIRST,
                    f"seat {seat} holds a stake but got no card",
                    line=at,
                    actual=None,
                    expected=f"DEAL seat={seat} <card>",
                )
        if self.dealer_card is None and None not in self.first_missing:
            self.first_missing.add(None)
            self.flag(
                DEAL_FIRST,
                "the first deal ended with no card to the dealer",
                line=at,
                actual=None,
                expected="DEAL dealer <card> after the hands' cards",
            )

    # -- end of the round -------------------------------------------------------------

    def finish(self, line: int) -> None:
        """At ROUND end: every staked hand got its card, every stake was settled."""
        if self.phase == "betting":
            return
        if self.owed:  # cards still owed: missing, reported where they were first due
            self._cards_missing(line)
        hands = self.hands
        for seat in self.staked_seats():
            if hands[seat].card is None and seat not in self.first_missing:
                self.first_missing.add(seat)
                self.flag(
                    DEAL_FIRST,
                    f"seat {seat} holds a stake but got no card",
                    line=line,
                    actual=None,
                    expected=f"DEAL seat={seat} <card>",
                )
        self._finish_war(line)
        self._finish_settlements(line)
        if self.table.surveillance is not None:
            self.table.surveillance.add_round(self.table.dealer, *self.surveyed_round())

    #: the events it plays: verb -> (verify, apply)
    EVENTS: ClassVar[dict[str, Events]] = {
        **War.EVENTS,
        **Settlement.EVENTS,
        "BET": (verify_bet, apply_bet),
        "WITHDRAW": (verify_withdraw, apply_withdraw),
        "NOMOREBETS": (verify_nomorebets, apply_nomorebets),
    }
