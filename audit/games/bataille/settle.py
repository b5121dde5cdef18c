"""The settlements of a bataille round: what each spot is owed, in which order.

Part of ``BatailleRound`` (a mixin over its state, ``round_state.RoundState``):
``verify_pay``, ``verify_collect`` and ``verify_push`` compare a settlement
with what the rules require for the spot now; the checks they raise are
declared here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_UP, Decimal
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from ... import events as ev
from ...engine.checks import Check, NoParams, Params, declare
from ...engine.format_checks import OUT_OF_CONTEXT
from ...engine.game import Events
from ...engine.surveillance import add_bet
from ...values import SEATED, fmt_amount
from .hands import ZERO, HandState, compare

if TYPE_CHECKING:  # pragma: no cover
    from .round_state import RoundState

SCOPE = "bataille"  # the checks declared below are this game's
CENT = Decimal("0.01")
_ROUNDING = {"down": ROUND_DOWN, "up": ROUND_UP, "half-even": ROUND_HALF_EVEN}
Outcome = Literal["pay", "push", "collect"]


class Odds(Params):
    odds: Decimal = Field(gt=0)


class Surrender(Params):
    #: the share of the initial stake the house keeps
    fraction: Decimal = Field(gt=0, lt=1)
    #: when that share is not a whole number of cents
    rounding: Literal["down", "up", "half-even"]


class SpotOutcomes(Params):
    main: Outcome
    war: Outcome


class BatailleOutcomes(Params):
    odds: Decimal = Field(gt=0)
    higher: SpotOutcomes
    equal: SpotOutcomes
    lower: SpotOutcomes


class PayOrder(Params):
    order: Literal["descending", "ascending"]


PAY_MAIN = declare("pay-main", Odds, SCOPE)
PAY_EGALITE = declare("pay-egalite", Odds, SCOPE)
PAY_EGALITE_WAR = declare("pay-egalite-war", Odds, SCOPE)
SURRENDER = declare("surrender", Surrender, SCOPE)
PAY_BATAILLE = declare("pay-bataille", BatailleOutcomes, SCOPE)
SETTLE_ONCE = declare("settle-once", NoParams, SCOPE)
PAY_ORDER = declare("pay-order", PayOrder, SCOPE)


#: the statistics' bet kinds, named as ``audit odds`` names the rows
MAIN_BATAILLE, MAIN_SURRENDER, EGALITE = "main bataille", "main surrender", "egalite"
EGALITE_WAR_ALONE, EGALITE_WAR_OTHERS = (
    "egalite-war alone at bataille",
    "egalite-war others at bataille",
)


@dataclass(frozen=True)
class Due:
    """What the rules require for a spot: the check that judges it, the verb and amount, and
    why, in words written only when a finding needs them."""

    check: Check
    verb: str
    amount: Decimal | None
    why: Callable[[], str]


class Settlement:
    """The settlements of a ``BatailleRound``."""

    # the round's state these steps assign, typed as ``BatailleRound`` types it: the type checker
    # takes an assignment through ``self`` as declaring the attribute on this class too
    last_settled_seat: int | None

    def verify_settle(self: RoundState, e: ev.Pay | ev.Collect | ev.Push) -> None:
        if e.seat is None or e.spot is None:
            self.flag(
                OUT_OF_CONTEXT,
                f"{e.verb} by= is a chemin de fer settlement",
                expected=f"{e.verb} seat=N spot=S",
            )
            return
        hand = self.hands.get(e.seat)
        spot = hand.spots.get(e.spot) if hand else None
        if (
            spot is None or spot.total <= ZERO
        ):  # (ZERO: a Decimal compares with an int by converting it first)
            self.flag(
                SETTLE_ONCE,
                f"seat {e.seat} {e.spot} settled, but nothing is staked there",
                expected=f"no {e.verb} on an empty spot",
            )
            return
        if spot.settled_line:
            self.flag(
                SETTLE_ONCE,
                f"seat {e.seat} {e.spot} settled twice (first at line {spot.settled_line})",
                expected=f"one settlement of seat {e.seat} {e.spot} (line {spot.settled_line})",
            )
            return
        assert hand is not None  # a spot is a hand's
        self._verify_order(e.seat)
        due = self._due(hand, e.spot)
        if due is None:
            return
        check, verb, amount = due.check, due.verb, due.amount
        got_amount = getattr(e, "amount", None)
        if verb == e.verb and (amount is None or amount == got_amount):
            return
        why = due.why()
        want = f"{verb} seat={e.seat} spot={e.spot}" + (
            f" amount={fmt_amount(amount)}" if amount is not None else ""
        )
        self.flag(
            check,
            f"seat {e.seat} {e.spot}: {_said(e.verb, got_amount)}, rules {_said(verb, amount, rule=True)} ({why})",
            expected=want,
        )

    def _verify_order(self: RoundState, seat: int) -> None:
        rule = self.rules.pay_order
        if rule is None:
            return
        last = self.last_settled_seat
        if last is not None and (
            (rule.order == "descending" and seat > last)
            or (rule.order == "ascending" and seat < last)
        ):
            way = (
                "right to left (descending seats)"
                if rule.order == "descending"
                else "ascending seats"
            )
            self.flag(
                PAY_ORDER,
                f"seat {seat} settled after seat {last}: settlements go {way}",
                expected=f"seat {seat} settled before seat {last}",
            )

    verify_pay = verify_collect = verify_push = verify_settle

    def apply_settle(self: RoundState, e: ev.Pay | ev.Collect | ev.Push) -> None:
        """The money the log shows moving, right or wrong (the findings judge it); the spot settled."""
        verb = e.verb
        if verb == "PAY":
            self.stats.paid += e.amount  # type: ignore[union-attr]
        elif verb == "COLLECT":
            self.stats.collected += e.amount  # type: ignore[union-attr]
        if e.seat is None or e.spot is None:
            return
        hand = self.hands.get(e.seat)
        spot = hand.spots.get(e.spot) if hand else None
        if spot is None or spot.total <= ZERO or spot.settled_line:
            return
        spot.settled_line = e.line
        self.last_settled_seat = e.seat
        self.settlements.append(
            (
                e.seat,
                e.spot,
                -e.amount if verb == "PAY" else e.amount if verb == "COLLECT" else ZERO,  # type: ignore[union-attr]  # a PUSH: ZERO
            )
        )

    apply_pay = apply_collect = apply_push = apply_settle

    def _due(self: RoundState, hand: HandState, spot: str) -> Due | None:
        """What the rules require for a spot now, or None if it cannot be settled yet (then the
        finding, if any, is made or deferred here)."""
        stake = hand.stake(spot)
        if hand.card is None and hand.stake("main") <= ZERO:
            return Due(
                SETTLE_ONCE,
                "PUSH",
                None,
                lambda: "the hand holds no initial stake and got no card: the bet is returned",
            )
        if hand.card is None or self.dealer_card is None:
            if hand.card is None and hand.seat in self.first_missing:
                return None  # the missing card is the finding (reported where it was due), not this settlement
            self.defer(
                SETTLE_ONCE,
                f"seat {hand.seat} {spot} settled before its card and the dealer's were dealt",
                f"DEAL seat={hand.seat} and DEAL dealer before the settlement",
                lambda: hand.card is not None and self.dealer_card is not None,
            )
            return None
        first = compare(hand.card, self.dealer_card)
        if spot == "egalite":
            return self._due_egalite(hand, stake, first)
        if spot == "main" and first != "equal":
            return self._due_main(hand, stake, first)
        if spot == "main" and hand.choice == "surrender":
            return self._due_surrender(stake)
        outcome = self._bataille_outcome(hand, spot, first)
        if outcome is None:
            return None
        if spot == "egalite-war":
            return self._due_egalite_war(hand, spot, stake)
        return self._due_bataille(hand, spot, stake, outcome)

    def _due_egalite(self: RoundState, hand: HandState, stake: Decimal, first: str) -> Due | None:
        """The égalité bet: paid at its odds when the first cards are equal, else collected."""
        odds = self.rules.pay_egalite
        if odds is None:
            return None
        if first == "equal":
            return Due(
                PAY_EGALITE,
                "PAY",
                stake * odds.odds,
                lambda: (
                    f"égalité {fmt_amount(odds.odds)} to 1 on {fmt_amount(stake)}, first cards equal"
                ),
            )
        dealer = self.dealer_card
        return Due(
            PAY_EGALITE, "COLLECT", stake, lambda: f"first cards {hand.card} and {dealer} differ"
        )

    def _due_main(self: RoundState, hand: HandState, stake: Decimal, first: str) -> Due | None:
        """The initial stake of a hand whose first card is not tied: paid if higher, else collected."""
        odds = self.rules.pay_main
        if odds is None:
            return None
        dealer = self.dealer_card
        if first == "higher":
            return Due(
                PAY_MAIN,
                "PAY",
                stake * odds.odds,
                lambda: (
                    f"{fmt_amount(odds.odds)} to 1 on a stake of {fmt_amount(stake)}, {hand.card} beats {dealer}"
                ),
            )
        return Due(PAY_MAIN, "COLLECT", stake, lambda: f"{hand.card} loses to {dealer}")

    def _due_surrender(self: RoundState, stake: Decimal) -> Due | None:
        """A surrendered hand: the house keeps its share of the stake, rounded to the cent."""
        rule = self.rules.surrender
        if rule is None:
            return None
        share = (stake * rule.fraction).quantize(CENT, rounding=_ROUNDING[rule.rounding])
        return Due(
            SURRENDER,
            "COLLECT",
            share,
            lambda: f"surrender: the house keeps {rule.fraction} of {fmt_amount(stake)}",
        )

    def _bataille_outcome(self: RoundState, hand: HandState, spot: str, first: str) -> str | None:
        """How the bataille went for a tied hand that chose war (``higher``, ``equal``, ``lower``),
        or None, with the finding made or deferred, when it cannot decide the settlement yet."""
        if first == "equal" and hand.choice is None:
            # the choice was due before the hand is settled: its absence is the finding, and no
            # settlement of a hand that never chose can be judged
            self.choice_missing(hand.seat, "made no choice before its settlement")
            return None
        if first != "equal" or hand.choice != "war":
            self.flag(
                SETTLE_ONCE,
                f"seat {hand.seat} {spot} settled, but the hand is tied and no bataille decides it",
                expected=f"CHOICE seat={hand.seat} war and its bataille before the settlement",
            )
            return None
        outcome = self._war_outcome(hand)
        if outcome is None:
            self.defer(
                SETTLE_ONCE,
                f"seat {hand.seat} {spot} settled before the bataille decided it",
                f"the bataille cards of seat {hand.seat} and the dealer before the settlement",
                lambda: self._war_outcome(hand) is not None,
            )
        return outcome

    def _due_egalite_war(
        self: RoundState, hand: HandState, spot: str, stake: Decimal
    ) -> Due | None:
        """The égalité re-bet at the bataille: paid when the bataille cards are equal, else collected."""
        odds = self.rules.pay_egalite_war
        if odds is None:
            return None
        if (
            self.dealer_war_card is None and not self._lone_ace()
        ):  # (an Ace wins, but ties the dealer's Ace)
            self.defer(
                SETTLE_ONCE,
                f"seat {hand.seat} {spot} settled before the dealer's bataille card",
                "DEAL dealer <card> (the bataille's) before the settlement",
                lambda: self.dealer_war_card is not None,
            )
            return None
        assert hand.war_card is not None  # the bataille decided it: the hand has its card
        equal = (
            self.dealer_war_card is not None
            and compare(hand.war_card, self.dealer_war_card) == "equal"
        )
        if equal:
            return Due(
                PAY_EGALITE_WAR,
                "PAY",
                stake * odds.odds,
                lambda: f"égalité re-bet {fmt_amount(odds.odds)} to 1, bataille cards equal",
            )
        return Due(PAY_EGALITE_WAR, "COLLECT", stake, lambda: "the bataille cards are not equal")

    def _due_bataille(
        self: RoundState, hand: HandState, spot: str, stake: Decimal, outcome: str
    ) -> Due | None:
        """The main and war spots of a hand at bataille, as the ruleset settles its outcome."""
        rule = self.rules.pay_bataille
        if rule is None:
            return None
        verb = getattr(rule, outcome).main if spot == "main" else getattr(rule, outcome).war
        dealer = self.dealer_war_card

        def why() -> str:
            ace = self.rules.bataille_ace and hand.war_card.rank == "A"  # type: ignore[union-attr]
            vs = (
                f"{hand.war_card} vs {dealer}" + (": an Ace wins" if ace else "")
                if dealer
                else f"{hand.war_card} (Ace)"
            )
            return f"bataille {outcome} ({vs})"

        if verb == "pay":
            return Due(PAY_BATAILLE, "PAY", stake * rule.odds, why)
        if verb == "collect":
            return Due(PAY_BATAILLE, "COLLECT", stake, why)
        return Due(PAY_BATAILLE, "PUSH", None, why)

    def surveyed_round(self: RoundState) -> tuple[dict, tuple[dict, Decimal] | None]:
        """The round's settled bets for the statistics, summed as ``Surveillance.add_round`` takes them:
        by player, and the round's whole (stakes by kind, the house's result), None if nothing was settled.

        The main bet's row is the strategy the hand followed at its tie (surrender or bataille),
        the bataille row when it did not tie; the war stake has no row of its own: its result is
        the main bet's (the main row's edge is per unit of initial stake, war included). A stake of
        several owners is shared in proportion; an anonymous seat counts in the whole only."""
        if not self.settlements:
            return {}, None
        players: dict = {}
        whole: dict = {}
        total = ZERO
        hands, seated = self.hands, self.seated
        for seat, name, result in self.settlements:
            hand = hands[seat]
            kind: str | None
            # the war stake has no row: its result is the main bet's, per unit of the initial stake
            if name == "main":
                kind = counted = MAIN_SURRENDER if hand.choice == "surrender" else MAIN_BATAILLE
            elif name == "egalite":
                kind = counted = EGALITE
            elif name == "war":
                kind, counted = (
                    None,
                    MAIN_SURRENDER if hand.choice == "surrender" else MAIN_BATAILLE,
                )
            elif name == "egalite-war":
                kind = counted = (
                    EGALITE_WAR_ALONE if len(self.warring()) == 1 else EGALITE_WAR_OTHERS
                )
            else:
                kind = counted = None
            spot = hand.spots[name]
            stakes = spot.stakes
            if len(stakes) == 1:
                total += result
                ((owner, (amount, _)),) = stakes.items()
                if kind is not None:
                    whole[kind] = whole[kind] + amount if kind in whole else amount
                # the seat's own stake (its owner the seat's one ``Owner``): the seat's player, no id read
                who = (
                    seated.get(seat)
                    if owner is SEATED.get(seat)
                    else owner.id
                    if owner.kind == "standing"
                    else seated.get(int(owner.id))
                )
                if who is None:
                    continue
                if kind is not None and kind is counted and who not in players:
                    players[who] = (kind, amount, result)  # ``add_bet``'s usual first bet, inline
                else:
                    add_bet(players, who, kind, amount, result, counted)
                continue
            spot_total = spot.total
            for owner, (amount, _) in stakes.items():
                if amount > ZERO:
                    if kind is not None:
                        whole[kind] = whole[kind] + amount if kind in whole else amount
                    share = result * amount / spot_total
                    total += share
                    who = owner.id if owner.kind == "standing" else seated.get(int(owner.id))
                    if who is not None:
                        add_bet(players, who, kind, amount, share, counted)
        return players, (whole, total)

    def _war_outcome(self: RoundState, hand: HandState) -> str | None:
        """higher, equal or lower; None while the bataille has not decided it. Where the rules say so
        (Monaco), a player's Ace « est automatiquement gagnant »: decided by his card alone, whatever
        the dealer's card, dealt or not (the dealer's card is still owed to the others)."""
        if hand.war_card is None:
            return None
        if self.rules.bataille_ace and hand.war_card.rank == "A":
            return "higher"
        if self.dealer_war_card is None:
            return None
        return compare(hand.war_card, self.dealer_war_card)

    def _finish_settlements(self: RoundState, line: int) -> None:
        """At ROUND end: every stake was settled."""
        for seat, hand in self.hands.items():
            for name, spot in hand.spots.items():
                if spot.total > ZERO and not spot.settled_line:
                    self.flag(
                        SETTLE_ONCE,
                        f"seat {seat} {name} ({fmt_amount(spot.total)}) was never settled",
                        line=line,
                        actual=None,
                        expected=f"PAY, COLLECT or PUSH seat={seat} spot={name} before ROUND {self.n} end",
                    )

    #: the events it plays: verb -> (verify, apply)
    EVENTS: ClassVar[dict[str, Events]] = {
        "PAY": (verify_settle, apply_settle),
        "COLLECT": (verify_settle, apply_settle),
        "PUSH": (verify_settle, apply_settle),
    }


def _said(verb: str, amount: Decimal | None, rule: bool = False) -> str:
    if verb == "PAY":
        return (
            f"{'pay' if rule else 'paid'} {fmt_amount(amount)}"
            if amount is not None
            else ("pay" if rule else "paid")
        )
    if verb == "COLLECT":
        return (
            f"{'collect' if rule else 'collected'} {fmt_amount(amount)}"
            if amount is not None
            else "collect"
        )
    return "push (return the stake)" if rule else "pushed"
