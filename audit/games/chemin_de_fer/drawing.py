"""The cards of a coup of chemin de fer: the deal, naturals, the calls for a third card, the points.

Part of ``CdfRound`` (a mixin over its state, ``round_state.RoundState``), with
a verify/apply pair per event; the drawing rules (the ponte's, the banker's
tableau) are the ruleset's, and the checks these steps raise are declared here.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import field_validator

from ... import events as ev
from ...engine.checks import NoParams, Params, declare
from ...engine.format_checks import OUT_OF_CONTEXT
from ...engine.game import Events
from ...values import Card
from . import events as own
from .cards import BACCARA_POINTS

if TYPE_CHECKING:  # pragma: no cover
    from .round_state import RoundState

SCOPE = "chemin-de-fer"  # the checks declared below are this game's
DrawCell = Literal["T", "R", "O"]


class BankerTable(Params):
    """The banker's drawing table: rows by banker's point, 11 cells: ponte's third card 0-9, then NON."""

    rows: dict[int, list[DrawCell]]
    always_draw: list[int]
    always_stand: list[int]

    @field_validator("rows")
    @classmethod
    def _eleven(cls, rows: dict[int, list[str]]) -> dict[int, list[str]]:
        for point, cells in rows.items():
            if not 0 <= point <= 9 or len(cells) != 11:
                raise ValueError(
                    f"row {point}: a row is a point 0-9 with 11 cells (third card 0-9, then NON)"
                )
        return rows


class PonteDrawing(Params):
    draw_on: list[int]
    stand_on: list[int]
    #: the points on which the ponte is free: documents the regulation, nothing to check
    choice_on: list[int]


class AdviceOn(Params):
    #: the ponte's point on which the employee's advice is always "non"
    points: list[int]


CDF_DEAL_ORDER = declare("cdf-deal-order", NoParams, SCOPE)
CDF_NATURAL = declare("cdf-natural", NoParams, SCOPE)
CDF_NATURAL_KEPT = declare("cdf-natural-kept", NoParams, SCOPE)
CDF_PONTE_FIRST = declare("cdf-ponte-first", NoParams, SCOPE)
CDF_DRAW_PONTE = declare("cdf-draw-ponte", PonteDrawing, SCOPE)
CDF_DRAW_PONTE_TABLE = declare("cdf-draw-ponte-table", PonteDrawing, SCOPE)
CDF_DRAW_BANKER = declare("cdf-draw-banker", BankerTable, SCOPE)
CDF_TABLEAU = declare("cdf-tableau", BankerTable, SCOPE)
CDF_ADVICE = declare("cdf-advice", AdviceOn, SCOPE)
CDF_POINT = declare("cdf-point", NoParams, SCOPE)
CDF_POINT_TABLED = declare("cdf-point-tabled", NoParams, SCOPE)
CDF_CALL_ERROR = declare("cdf-call-error", NoParams, SCOPE)


def points(cards: list[Card]) -> int:
    """A hand's point: its cards' baccara points, summed, modulo 10 (a loop over the table of
    points: a sum over a generator of ``BACCARA_POINTS`` per card took twice as long)."""
    total = 0
    for card in cards:
        total += BACCARA_POINTS[card.rank]
    return total % 10


def natural(cards: list[Card]) -> bool:
    return len(cards) == 2 and points(cards) >= 8


class Drawing:
    """The cards of a ``CdfRound``."""

    # the round's state these steps assign, typed as ``CdfRound`` types it: the type checker
    # takes an assignment through ``self`` as declaring the attribute on this class too
    owed: bool

    def verify_deal(self: RoundState, e: ev.Deal) -> None:
        if e.to not in ("ponte", "banker"):
            self.flag(
                OUT_OF_CONTEXT,
                f"DEAL {e.to} is a bataille event",
                expected="DEAL ponte <card> or DEAL banker <card>",
            )
            return
        if not self.started:
            self._first_card()
        side = e.to
        n = self.dealt
        if self.naturals_due:  # a card after the four, with a natural not shown: it was due before
            self._naturals_due()
        if n < 4:
            want = "ponte" if n % 2 == 0 else "banker"
            if side != want:
                self.flag(
                    CDF_DEAL_ORDER,
                    f"card {n + 1} of the coup to the {side}; the first four alternate "
                    "ponte, banker, ponte, banker",
                    expected=f"DEAL {want} <card>",
                )
            return
        if self.abat["ponte"] or self.abat["banker"]:
            self.flag(
                CDF_DEAL_ORDER,
                f"a card to the {side} after a natural was shown",
                expected="no card after ABAT: the natural decides the coup",
            )
        elif (
            side == "banker" and self.banker_base
        ):  # his draw after dealing himself too many (art. 30)
            if len(self.cards["banker"]) > self.banker_base:
                self.flag(
                    CDF_DEAL_ORDER,
                    "a second card drawn by a banker who dealt himself too many",
                    expected="no further DEAL banker",
                )
            elif self.calls["banker"] is not True:
                self.flag(
                    CDF_DEAL_ORDER,
                    "a card to the banker, who did not call for one",
                    expected="CALL banker card",
                )
        elif len(self.cards[side]) >= 3:
            self.flag(
                CDF_DEAL_ORDER,
                f"a fourth card to the {side}",
                expected=f"no fourth card to the {side}",
            )
        elif side == "ponte" and self.calls["banker"] is not None and self.once("ponte-first"):
            self.flag(
                CDF_PONTE_FIRST,
                "the ponte's third card is dealt after the banker has played",
                expected="DEAL ponte <card> before CALL banker",
            )
        elif self.calls[side] is False and side == "ponte":
            return  # art. 31: the banker may give a card to a ponte who said "non" by mistake
        elif self.calls[side] is False and points(self.cards["banker"]) == 0:
            return  # art. 30: a banker on Baccara keeps his right to a card after announcing his point
        elif self.calls[side] is False:
            self.flag(
                CDF_POINT_TABLED,
                f"the banker draws after standing on {points(self.cards['banker'])}: "
                "once his point is announced he may take no card, except on Baccara",
                expected="no card after CALL banker non, except on Baccara",
            )
        elif self.calls[side] is not True:
            self.flag(
                CDF_DEAL_ORDER,
                f"a third card to the {side}, who did not call for one",
                expected=f"CALL {side} card",
            )

    def apply_deal(self: RoundState, e: ev.Deal) -> None:
        if e.to in ("ponte", "banker"):
            cards = self.cards[e.to]
            cards.append(e.card)
            self.dealt += 1
            if (
                self.dealt == 4
                and not self.abat["ponte"]
                and not self.abat["banker"]
                and (natural(self.cards["ponte"][:2]) or natural(self.cards["banker"][:2]))
            ):
                self.naturals_due = self.owed = True  # shown before the next event
            if self.thirds_due:
                self._third_check()
            if (
                e.to == "banker"
                and len(cards) == 3
                and not self.banker_base
                and self.calls["ponte"] is None
                and self.calls["banker"] is None
                and not self.abat["ponte"]
            ):
                # art. 30: the banker dealt himself more cards than his due at the deal: his point is
                # Baccara, and he keeps his right to draw (from the next card on)
                self.banker_base = 3

    def hand_points(self: RoundState, side: str) -> int:
        """A side's point as art. 30 scores it: Baccara for the cards a banker dealt himself too many at
        the deal, plus his draw; the best three of a ponte dealt four cards."""
        cards = self.cards[side]
        if side == "banker":
            return points(cards[self.banker_base :]) if self.banker_base else points(cards)
        if len(cards) > 3:
            return max(points(list(c)) for c in combinations(cards, 3))
        return points(cards)

    def verify_burn(self: RoundState, e: ev.Burn) -> None:
        """Chemin de fer burns cards only to mend a fault (arts. 11, 14, 15, 26): nothing to check."""

    def apply_burn(self: RoundState, e: ev.Burn) -> None:
        """A card burned after a call: either a lifted card replaced by the next (art. 14), or a
        draw against the rules cancelled (arts. 11, 26). Which one shows in what follows."""
        for side in ("ponte", "banker"):
            if (
                self.calls[side] is True
                and len(self.cards[side]) == 2
                and not self.burned_third[side]
            ):
                self.burned_third[side] = True
                break
        if self.thirds_due:
            self._third_check()

    # -- naturals and calls -------------------------------------------------------------

    def verify_abat(self: RoundState, e: own.Abat) -> None:
        hand = self.cards[e.side]
        if not natural(hand):
            self.flag(
                CDF_NATURAL,
                f"the {e.side} shows {e.point} with {' '.join(map(str, hand)) or 'no card'}: "
                "only a natural (8 or 9 on two cards) is shown",
                expected=f"ABAT {e.side} only with 8 or 9 on two cards",
            )
        elif points(hand) != e.point:
            self.flag(
                CDF_POINT,
                f"the {e.side} shows {e.point}; the cards make {points(hand)}",
                expected=f"ABAT {e.side} {points(hand)}",
            )

    def apply_abat(self: RoundState, e: own.Abat) -> None:
        self.abat[e.side] = True

    def _natural_not_shown(self: RoundState, side: str) -> None:
        """A natural not shown once the four cards are out: a right its holder lost (arts. 30, 31),
        not a breach; the coup is judged as it is then played."""
        if natural(self.cards[side][:2]) and not self.abat[side] and self.once(f"natural-{side}"):
            self.flag(
                CDF_NATURAL_KEPT,
                f"the {side} holds a natural ({points(self.cards[side][:2])}) and does not show it: "
                "he loses his right to show it, and the coup goes on",
                expected=f"ABAT {side} {points(self.cards[side][:2])} (his right, not his duty)",
            )

    def _may_call(self: RoundState) -> bool:
        return self.dealt >= 4 and not self.abat["ponte"] and not self.abat["banker"]

    def verify_call(self: RoundState, e: own.Call) -> None:
        if not self._may_call():
            self.flag(
                OUT_OF_CONTEXT,
                f"CALL {e.side} when no third card can be asked",
                expected="CALL after the four cards, with no natural shown",
            )
            return
        self._natural_not_shown(e.side)
        if e.side == "ponte":
            self._ponte_call(e)
        else:
            self._banker_call(e)

    def apply_call(self: RoundState, e: own.Call) -> None:
        if self._may_call():
            self.calls[e.side] = e.draw
            if e.draw and e.side == "banker":
                self.thirds_due = self.owed = True  # dealt before the points and the settlements

    def third_owed(self: RoundState, side: str) -> bool:
        """The side called for a card that has not come, and no burn cancelled the draw."""
        if self.calls[side] is not True or self.burned_third[side]:
            return False
        return len(self.cards[side]) < (3 + (self.banker_base > 0) if side == "banker" else 3)

    def _third_check(self: RoundState) -> None:
        if self.thirds_due and not self.third_owed("banker"):
            self.third_came()

    def _ponte_call(self: RoundState, e: own.Call) -> None:
        if self.calls["banker"] is not None and self.once("ponte-first"):
            self.flag(
                CDF_PONTE_FIRST,
                "the ponte speaks after the banker",
                expected="CALL ponte before CALL banker",
            )
        p = points(self.cards["ponte"][:2])
        banco = self.ponte_mode in (
            "solo",
            "suivi",
            "follower",
        )  # their draws are free (arts. 12, 23)
        check, rule = (
            (CDF_DRAW_PONTE, self.rules.draw_ponte)
            if banco
            else (CDF_DRAW_PONTE_TABLE, self.rules.draw_ponte_table)
        )
        if rule is None:
            return
        wrong = (e.draw and p in rule.stand_on) or (not e.draw and p in rule.draw_on)
        if wrong and self.ponte_mode == "follower":
            self.follower_faux = (
                True  # art. 12: the others who staked on his hand are settled by the tableau
            )
        if wrong:
            who = (
                ("the follower" if self.ponte_mode == "follower" else "the banco ponte")
                if banco
                else "the ponte holding the cards for the table"
            )
            self.flag(
                check,
                f"faux tirage: {who} {'draws' if e.draw else 'stands'} on {p}",
                expected=f"CALL ponte {'non' if e.draw else 'card'}",
            )

    def _banker_call(self: RoundState, e: own.Call) -> None:
        if self.calls["banker"] is False:  # he stood: his point is announced (art. 30)
            if e.draw and points(self.cards["banker"]) != 0:
                self.flag(
                    CDF_POINT_TABLED,
                    f"the banker asks for a card after standing on "
                    f"{points(self.cards['banker'])}: once his point is announced he may take no card, "
                    "except on Baccara",
                    expected="no CALL banker card after CALL banker non, except on Baccara",
                )
            return
        ponte = self.cards["ponte"]
        if (
            self.calls["ponte"] is None
        ):  # a ponte who said "carte" and got none was refused it (art. 31)
            self.flag(
                CDF_PONTE_FIRST,
                "the banker plays before the ponte has spoken",
                expected="CALL ponte card or CALL ponte non before CALL banker",
            )
        elif (
            len(ponte) == 2 and points(ponte) == 0
        ):  # the exception of art. 31: Baccara gets its card
            self.flag(
                CDF_CALL_ERROR,
                "the ponte on Baccara gets no card: the banker may take a ponte at an "
                "erroneous word, except on Baccara",
                expected="DEAL ponte <card>",
            )
        want = self.banker_should()
        if want is None or want == "O" or (want == "T") == e.draw:
            return
        b = self.hand_points("banker") if self.banker_base else points(self.cards["banker"][:2])
        third = self._ponte_third()
        col = "NON" if third is None else str(third)
        self.flag(
            CDF_TABLEAU if self.tableau else CDF_DRAW_BANKER,
            f"{'' if self.tableau else 'faux tirage: '}banker on {b} against "
            f"{'a ponte who stood' if third is None else f'a third card worth {third}'} "
            f"{'draws' if e.draw else 'stands'}; the tableau says {'draw' if want == 'T' else 'stand'} (row {b}, column {col})"
            + (" — he asked for the tableau" if self.tableau else ""),
            expected=f"CALL banker {'card' if want == 'T' else 'non'}",
        )

    def _ponte_third(self: RoundState) -> int | None:
        return (
            BACCARA_POINTS[self.cards["ponte"][2].rank] if len(self.cards["ponte"]) >= 3 else None
        )

    def banker_should(self: RoundState) -> str | None:
        """The banker's tableau cell now: T (draw), R (stand), O (free); None when no table applies."""
        b = (
            0 if self.banker_base else points(self.cards["banker"][:2])
        )  # Baccara after too many (art. 30)
        return self._cell(b, self._ponte_third())

    def _cell(self: RoundState, b: int, third: int | None) -> str | None:
        rules = self.rules
        rule = (
            (rules.tableau if self.tableau else rules.draw_banker)
            or rules.draw_banker
            or rules.tableau
        )
        if rule is None:
            return None
        if b in rule.always_draw:
            return "T"
        if b in rule.always_stand:
            return "R"
        row = rule.rows.get(b)
        return None if row is None else row[10 if third is None else third]

    def tableau_points(self: RoundState) -> tuple[int, int] | None:
        """Art. 12: the points of the coup as the tableau would have played it after the follower's
        faux tirage (his draw by the ponte's rule, the banker's by the tableau, the cards in the order
        they left the shoe); None where the log cannot tell: a card that never left the shoe, a cell
        « à volonté », a dealing error or a card burned."""
        ponte, banker, rule = self.cards["ponte"], self.cards["banker"], self.rules.draw_ponte
        if (
            rule is None
            or self.banker_base
            or len(ponte) > 3
            or len(banker) > 3
            or self.burned_third["ponte"]
            or self.burned_third["banker"]
        ):
            return None
        drawn = ponte[2:] + banker[2:]  # the ponte speaks and draws first
        p_cards, b_cards = ponte[:2], banker[:2]
        if points(p_cards) in rule.draw_on:
            if not drawn:
                return None
            p_cards = p_cards + [drawn.pop(0)]
        cell = self._cell(
            points(b_cards), BACCARA_POINTS[p_cards[2].rank] if len(p_cards) == 3 else None
        )
        if cell == "T":
            if not drawn:
                return None
            b_cards = b_cards + [drawn.pop(0)]
        elif cell != "R":
            return None
        return points(p_cards), points(b_cards)

    def verify_tableau(self: RoundState, e: own.Tableau) -> None:
        """Asking for the tableau is the banker's right (art. 11): he must then follow it."""

    def apply_tableau(self: RoundState, e: own.Tableau) -> None:
        self.tableau = True

    def verify_advice(self: RoundState, e: own.Advice) -> None:
        rule = self.rules.advice
        p = points(self.cards["ponte"][:2])
        if rule is not None and p in rule.points and e.draw:
            self.flag(
                CDF_ADVICE,
                f'the employee advises a ponte on {p} to draw; the answer is always "non"',
                expected="ADVICE ponte non",
            )

    def apply_advice(self: RoundState, e: own.Advice) -> None:
        """Advice changes nothing in the coup: the ponte's CALL says what he did."""

    def verify_point(self: RoundState, e: own.Point) -> None:
        p, b = self.hand_points("ponte"), self.hand_points("banker")
        if (e.ponte, e.banker) != (p, b):
            self.flag(
                CDF_POINT,
                f"points announced ponte {e.ponte}, banker {e.banker}; the cards make {p} and {b}",
                expected=f"POINT ponte={p} banker={b}",
            )

    def apply_point(self: RoundState, e: own.Point) -> None:
        """The announcement changes nothing: the cards decide the coup."""

    # -- the coup decided -----------------------------------------------------------------

    def decided(self: RoundState) -> bool:
        if self.abat["ponte"] or self.abat["banker"]:
            return True
        if self.dealt < 4:
            return False
        if self.calls["banker"] is None:
            return natural(self.cards["ponte"][:2]) or natural(self.cards["banker"][:2])
        return (
            not self.calls["banker"]
            or len(self.cards["banker"]) >= 3 + (self.banker_base > 0)
            or self.burned_third["banker"]
        )

    def outcome(self: RoundState) -> str:
        p, b = self.hand_points("ponte"), self.hand_points("banker")
        return "ponte" if p > b else "banker" if b > p else "tie"

    #: the events it plays: verb -> (verify, apply)
    EVENTS: ClassVar[dict[str, Events]] = {
        "ABAT": (verify_abat, apply_abat),
        "CALL": (verify_call, apply_call),
        "TABLEAU": (verify_tableau, apply_tableau),
        "ADVICE": (verify_advice, apply_advice),
        "POINT": (verify_point, apply_point),
    }
