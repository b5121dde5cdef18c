"""La bataille itself: the choice at a tie, then the war's cards and burns.

Part of ``BatailleRound`` (a mixin over its state, ``round_state.RoundState``);
the checks these steps raise are declared here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from ... import events as ev
from ...engine.checks import NoParams, Params, declare
from ...engine.game import Events
from ...values import Card, fmt_amount
from . import events as own
from .cards import BATAILLE_VALUE
from .hands import compare

if TYPE_CHECKING:  # pragma: no cover
    from .round_state import RoundState

SCOPE = "bataille"  # the checks declared below are this game's


class WarBurns(Params):
    before_players: int = Field(ge=0)
    before_each_player: int = Field(ge=0)
    before_dealer: int = Field(ge=0)


DEAL_BATAILLE = declare("deal-bataille", NoParams, SCOPE)
BATAILLE_ACE = declare("bataille-ace", NoParams, SCOPE)
BURN_BATAILLE = declare("burn-bataille", WarBurns, SCOPE)
BURN_BATAILLE_EXTRA = declare("burn-bataille-extra", WarBurns, SCOPE)
BATAILLE_CHOICE = declare("bataille-choice", NoParams, SCOPE)
WAR_STAKE = declare("war-stake", NoParams, SCOPE)


class War:
    """The choices and the bataille of a ``BatailleRound``."""

    # the round's state these steps assign, typed as ``BatailleRound`` types it: the type checker
    # takes an assignment through ``self`` as declaring the attribute on this class too
    owed: bool
    dealer_war_card: Card | None
    last_settled_seat: int | None
    burn_lines: list[int]

    def verify_choice(self: RoundState, e: own.Choice) -> None:
        hand = self.hands.get(e.seat)
        if hand is None or hand.card is None or self.dealer_card is None:
            self.flag(
                BATAILLE_CHOICE,
                f"seat {e.seat} chooses {e.choice} before its card and the dealer's are out",
                expected=f"DEAL seat={e.seat} and DEAL dealer before CHOICE seat={e.seat}",
            )
            return
        if compare(hand.card, self.dealer_card) != "equal":
            self.flag(
                BATAILLE_CHOICE,
                f"seat {e.seat} chooses {e.choice}, but {hand.card} does not tie the dealer's {self.dealer_card}",
                expected=f"no CHOICE for seat {e.seat}: only a hand level with the dealer chooses",
            )
        elif hand.choice is not None:
            self.flag(
                BATAILLE_CHOICE,
                f"seat {e.seat} chooses twice",
                expected=f"one CHOICE for seat {e.seat}",
            )
        elif (
            self.phase == "bataille" and e.seat not in self.choice_missing_seats
        ):  # (else reported where it was due)
            self.flag(
                BATAILLE_CHOICE,
                f"seat {e.seat} chooses after the bataille began",
                expected=f"CHOICE seat={e.seat} before the bataille's first card",
            )

    def apply_choice(self: RoundState, e: own.Choice) -> None:
        hand = self.hands.get(e.seat)
        if (
            hand is not None
            and hand.choice is None
            and hand.card
            and self.dealer_card
            and compare(hand.card, self.dealer_card) == "equal"
        ):
            hand.choice = e.choice
            if e.choice == "war" and self.phase == "choices":
                self.owed = True  # the bataille: due before the settlements it decides

    def _tied_seats(self: RoundState) -> list[int]:
        dealer = self.dealer_card
        if dealer is None:
            return []
        value, hands = BATAILLE_VALUE[dealer.rank], self.hands
        return [
            s
            for s in self.staked_seats()
            if (card := hands[s].card) is not None and BATAILLE_VALUE[card.rank] == value
        ]

    def _start_bataille(self: RoundState) -> None:
        if self.due_line:  # settlements it decides came before it: early, now that it begins
            self.cards_came()
        self.phase = "bataille"
        self.last_settled_seat = None
        for seat in self._tied_seats():
            if self.hands[seat].choice is None:
                self.choice_missing(seat, "made no choice before the bataille")
        self.war_queue = [*self.warring(), None]
        self.owed = True  # the bataille's cards: due before its settlements
        for seat in self.warring():
            self._check_war_stake(seat)

    def choice_missing(self: RoundState, seat: int, what: str, **kw) -> None:
        """A tied hand's choice, missing where it was first due (the bataille's first card, the hand's
        settlement, the round's end): reported once."""
        if seat in self.choice_missing_seats:
            return
        self.choice_missing_seats.add(seat)
        self.flag(
            BATAILLE_CHOICE,
            f"seat {seat} tied the dealer and {what}",
            actual=None,
            expected=f"CHOICE seat={seat} war or CHOICE seat={seat} surrender",
            **kw,
        )

    def _check_war_stake(self: RoundState, seat: int) -> None:
        hand = self.hands[seat]
        main, war = hand.stake("main"), hand.stake("war")
        if war != main:
            # at the last war BET, which shows the stake; else where it was due, nothing to show
            where = (
                {"line": hand.spots["war"].last_line} if "war" in hand.spots else {"actual": None}
            )
            self.flag(
                WAR_STAKE,
                f"seat {seat} goes to bataille with {fmt_amount(war)} on war; "
                f"the initial stake is {fmt_amount(main)}",
                expected=f"BET seat={seat} spot=war amount={fmt_amount(main)}",
                **where,
            )

    def _check_egalite_war(self: RoundState, seat: int) -> None:
        """The égalité re-bet may come until the seat's bataille card: judged then (or at the
        round's end if that card never came)."""
        egw = self.hands[seat].spots.get("egalite-war")
        if egw and egw.total > 0 and seat not in self.egalite_war_checked:
            self.egalite_war_checked.add(seat)
            self._check_egalite(seat, "egalite-war", egw)

    def _lone_ace(self: RoundState) -> bool:
        players = self.warring()
        return (
            self.rules.bataille_ace
            and len(players) == 1
            and (card := self.hands[players[0]].war_card) is not None
            and card.rank == "A"
        )

    def _burns_needed(self: RoundState, key: int | None) -> int:
        """Burns the rules put before this bataille card: the first player's, a later player's, the dealer's."""
        burns = self.rules.war_burns
        if burns is None:
            return 0
        if key is None:
            return burns.before_dealer
        return (
            burns.before_players if self.war_players_dealt == 0 else 0
        ) + burns.before_each_player

    def _verify_war_deal(self: RoundState, e: ev.Deal) -> None:
        if not self.war_queue:
            self.flag(
                DEAL_BATAILLE,
                "a card too many: the bataille's cards are all dealt",
                expected="no further DEAL in the bataille",
            )
            return
        queue, skipped = self.war_queue, self.war_missing
        # the cards due now, in turn: those already reported missing (skipped) are not due again
        due = [k for k in queue if k not in skipped] if skipped else queue
        target = due[0] if due else queue[0]
        who = "the dealer" if e.to == "dealer" else f"seat {e.seat}"
        if e.to == "dealer" and self._lone_ace():
            self.flag(
                BATAILLE_ACE,
                "the only player at bataille received an Ace: the dealer's card is not needed",
                expected="no DEAL dealer: the lone player's Ace wins the bataille",
            )
        want = "dealer" if target is None else f"seat={target}"
        key = None if e.to == "dealer" else e.seat
        if key not in queue:
            self.flag(
                DEAL_BATAILLE,
                f"a bataille card to {who}, which is not in the bataille or already has its card",
                expected=f"DEAL {want} <card>",
            )
            return
        if key != target and key not in skipped:
            # the cards it skips were due here: this line is their one finding, whether they come late
            # (in turn then, no other finding) or never (not reported again where the round ends)
            skipped.update(due[: due.index(key)])
            self.flag(
                DEAL_BATAILLE, f"bataille card to {who} out of turn", expected=f"DEAL {want} <card>"
            )
        self._verify_war_burns(key)
        if key is not None:
            self._check_egalite_war(key)

    def _verify_war_burns(self: RoundState, key: int | None) -> None:
        need = self._burns_needed(key)
        got = len(self.burn_lines)
        card = "DEAL dealer" if key is None else f"DEAL seat={key}"
        if got < need:
            self.flag(
                BURN_BATAILLE,
                f"{got} card(s) burned before this bataille card; the rules burn {need}",
                expected=f"BURN (×{need}) before {card}",
            )
        elif got > need:
            self.flag(
                BURN_BATAILLE_EXTRA,
                f"{got} cards burned before the next bataille card ({card}); the rules burn {need}",
                line=self.burn_lines[need],
                expected=f"BURN (×{need}) before the bataille card",
            )

    def _apply_war_deal(self: RoundState, e: ev.Deal) -> None:
        key = None if e.to == "dealer" else e.seat
        if key not in self.war_queue:
            return
        self.war_queue.remove(key)
        if key is None:
            self.dealer_war_card = e.card
        else:
            self.war_players_dealt += 1
            self.hands[key].war_card = e.card
        if self.owed and (not self.war_queue or (self.war_queue == [None] and self._lone_ace())):
            self.cards_came()

    def _war_cards_missing(self: RoundState, at: int) -> None:
        """The round ended with the bataille's cards owed: the players still in the queue and the
        dealer (not after a lone player's Ace) are reported at ``at``, the first line after the last
        card dealt that was neither a burn nor a card (the first settlement, else ROUND end), each
        once. The burns made for the missing card were its own: not extra."""
        rest = self.war_queue
        queue = [
            key for key in rest if key not in self.war_missing
        ]  # (not those skipped: reported already)
        for key in queue:
            self.war_missing.add(key)
            if key is not None:
                self.flag(
                    DEAL_BATAILLE,
                    f"seat {key} went to bataille but got no bataille card",
                    line=at,
                    actual=None,
                    expected=f"DEAL seat={key} <card> (its bataille card)",
                )
            elif not self._lone_ace():
                need = self._burns_needed(None) - len(self.burn_lines)
                self.flag(
                    DEAL_BATAILLE,
                    "the dealer took no bataille card",
                    line=at,
                    actual=None,
                    expected=(f"BURN (×{need}), then " if need > 0 else "") + "DEAL dealer <card>",
                )
        if rest and len(self.burn_lines) <= self._burns_needed(rest[0]):
            self.burn_lines = []

    def _bataille_missing(self: RoundState, at: int) -> None:
        """The round ended with a bataille owed that never began (a hand chose war; no bataille burn
        or card came): one finding, at ``at``, the first settlement it decides (else ROUND end)."""
        seats = [s for s in self.warring() if s not in self.war_missing]
        if not seats:
            return
        self.war_missing.update(seats)
        burns = self._burns_needed(seats[0])
        listed = ", ".join(map(str, seats))
        self.flag(
            DEAL_BATAILLE,
            f"seat(s) {listed} went to bataille, but the bataille never began: no bataille "
            "burn or card",
            line=at,
            actual=None,
            expected=(f"BURN (×{burns}), then " if burns else "")
            + f"DEAL seat={seats[0]} <card> (the bataille's)",
        )

    def _finish_war(self: RoundState, line: int) -> None:
        """At ROUND end: every tie chose, every warring hand and the dealer got a bataille card."""
        for seat, hand in self.hands.items():
            if "egalite-war" in hand.spots:
                self._check_egalite_war(seat)
        for seat in self._tied_seats():
            hand = self.hands[seat]
            if hand.choice is None:
                self.choice_missing(seat, "never chose", line=line)
            elif hand.choice == "war" and hand.war_card is None and seat not in self.war_missing:
                # a choice too late for the bataille's queue: its card, missing, shows at the round's end
                self.war_missing.add(seat)
                self.flag(
                    DEAL_BATAILLE,
                    f"seat {seat} went to bataille but got no bataille card",
                    line=line,
                    actual=None,
                    expected=f"DEAL seat={seat} <card> (its bataille card)",
                )
        if self.burn_lines:
            self.flag(
                BURN_BATAILLE_EXTRA,
                f"{len(self.burn_lines)} card(s) burned after the bataille's last card",
                line=self.burn_lines[0],
                expected="no BURN after the bataille's last card",
            )

    #: the events it plays: verb -> (verify, apply)
    EVENTS: ClassVar[dict[str, Events]] = {
        "CHOICE": (verify_choice, apply_choice),
    }
