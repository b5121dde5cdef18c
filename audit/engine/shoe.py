"""The state of one shoe: its preparation, the cards that left it, its stop card.

Memory is fixed whatever the length of play: a count per distinct card and a
few counters. Both games share it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .. import events as ev
from ..values import Card
from .checks import EVERY_GAME, NoParams, Params, declare
from .flagger import Flagger
from .format_checks import OUT_OF_CONTEXT, STOPCARD_DEPTH

CARDS_PER_DECK = 52


class Decks(Params):
    decks: int = Field(gt=0)


class Procedures(Params):
    allowed: list[Literal["sabot", "shuffler", "shuffler-dealer"]] = Field(min_length=1)


class CutPattern(Params):
    #: last-by-player: any cuts, the last by a player; dealer-then-player: exactly those two;
    #: dealer-then-player-last: the dealer cuts at least once, and a player makes the last cut
    pattern: Literal["last-by-player", "dealer-then-player", "dealer-then-player-last"]


class Shuffled(Params):
    #: the procedures whose shoe is shuffled before its first card (SHUFFLE after SHOE new)
    procedures: list[Literal["sabot", "shuffler", "shuffler-dealer"]] = Field(min_length=1)


class Talon(Params):
    min_talon: int = Field(gt=0)


SHOE_DECKS = declare("shoe-decks", Decks, EVERY_GAME)
SHOE_PROCEDURE = declare("shoe-procedure", Procedures, EVERY_GAME)
SHOE_CUT = declare("shoe-cut", CutPattern, EVERY_GAME)
SHOE_SHUFFLE = declare("shoe-shuffle", Shuffled, EVERY_GAME)
MACHINE_NO_CUT = declare("machine-no-cut", NoParams, EVERY_GAME)
STOPCARD_TALON = declare("stopcard-talon", Talon, EVERY_GAME)
#: a talon the text's « approximative » tolerates, short of the full deck (a talon below
#: stopcard-talon's minimum is that check's, not this one's)
STOPCARD_TALON_APPROX = declare("stopcard-talon-approx", Talon, EVERY_GAME)
CARD_COUNT = declare("card-count", NoParams, EVERY_GAME)


class ShoeState:
    def __init__(self, event: ev.Shoe, flagger: Flagger):
        self.flagger = flagger
        self.procedure = event.procedure
        self.decks = event.decks
        self.size = CARDS_PER_DECK * event.decks
        self.machine = event.procedure == "shuffler-dealer"
        #: cards drawn when the stop card is due out (None: no stop card placed)
        self.stop_at: int | None = None
        self.line = event.line
        self.cuts: list[ev.Cut] = []
        self.all_cuts: list[ev.Cut] = []
        self.cut_checked = False
        #: the cut's order judged (by a game's table extension, where its rules order the cuts)
        self.cut_order_checked = False
        #: a SHUFFLE line since SHOE new, or its absence already judged (once per shoe)
        self.shuffled = False
        #: the first ROUND begin before any card (0: none): where the preparation still missing was
        #: due, reported there once the shoe's first card shows the shoe in play (``preparation_due``)
        self.due_line = 0
        self.due_what: str | None = None
        #: the seats occupied when the cut was first offered (a player who sits down later changes nothing)
        self.seated_at_cut: tuple[int, ...] | None = None
        self.talon: int | None = None
        self.stop_out = False
        self.stop_implied = False  # out, as the depth says, though the log has not said so yet
        self.stop_out_line = 0
        #: after the stop card: may one more round begin (the card came out between rounds)?
        self.one_more_round = False
        self.last_round: int | None = None
        self.drawn = 0
        self.counts: dict[tuple[str, str], int] = {}  # (rank, suit) -> times drawn
        #: for the order test of the statistics: cards seen right after one of the same rank
        self.repeats = 0
        self.prev_rank: str | None = None
        self.surveyed = False  # its cards handed to the table's statistics
        self.dealt_any = False
        self.burns_since_deal = 0
        self.paused = False
        self.awaiting_resume_burns = False
        #: cards burned before a PAUSE that came before the shoe's first card (the start burns done)
        self.start_burns = 0
        self._check_decks(event)
        self._check_procedure(event)

    # -- preparation -------------------------------------------------------------

    def _check_decks(self, event: ev.Shoe) -> None:
        want = self.flagger.settings(SHOE_DECKS)
        if want is not None and event.decks != want.decks:
            self.flagger.flag(
                SHOE_DECKS,
                f"shoe of {event.decks} decks; the rules require {want.decks}",
                expected=f"SHOE new decks={want.decks} procedure={event.procedure}",
            )

    def _check_procedure(self, event: ev.Shoe) -> None:
        allowed = self.flagger.settings(SHOE_PROCEDURE)
        if allowed is not None and event.procedure not in allowed.allowed:
            self.flagger.flag(
                SHOE_PROCEDURE,
                f"procedure {event.procedure} is not allowed here; allowed: "
                + ", ".join(allowed.allowed),
            )

    def verify_cut(self, event: ev.Cut) -> None:
        if (
            not self.shuffled
        ):  # the shuffle comes before the cut: a cut of unshuffled cards shows it missing
            self.shuffle_due(None, "its cut")
        if self.machine:
            self.flagger.flag(MACHINE_NO_CUT, "a shuffling-dealing machine is not cut")
        elif self.drawn:
            self.flagger.flag(OUT_OF_CONTEXT, "a cut after cards have left the shoe")

    def apply_cut(self, event: ev.Cut) -> None:
        self.all_cuts.append(event)
        if not event.refused:
            self.cuts.append(event)

    def verify_stopcard(self, event: ev.StopCard, round_n: int | None = None) -> None:
        if event.action == "place":
            if self.machine:
                self.flagger.flag(MACHINE_NO_CUT, "a shuffling-dealing machine takes no stop card")
                return
            if self.talon is not None or self.drawn:
                self.flagger.flag(OUT_OF_CONTEXT, "a stop card placed in a shoe already in play")
                return
            if not self.shuffled:
                self.shuffle_due(round_n, "its stop card")
            if event.talon is not None and event.talon >= self.size:
                self.flagger.flag(
                    OUT_OF_CONTEXT, f"talon of {event.talon} cards in a shoe of {self.size}"
                )
            if event.talon is None:
                return
            rule = self.flagger.settings(STOPCARD_TALON)
            if rule is not None and event.talon < rule.min_talon:
                self.flagger.flag(
                    STOPCARD_TALON,
                    f"stop card leaves a talon of {event.talon} cards; "
                    f"the rules require at least {rule.min_talon}",
                    expected=f"STOPCARD talon={rule.min_talon} (or more)",
                )
                return
            approx = self.flagger.settings(STOPCARD_TALON_APPROX)
            if approx is not None and event.talon < approx.min_talon:
                self.flagger.flag(
                    STOPCARD_TALON_APPROX,
                    f"stop card leaves a talon of {event.talon} cards, short of {approx.min_talon}",
                    expected=f"STOPCARD talon={approx.min_talon} (or more)",
                )
            return
        if self.talon is None:
            self.flagger.flag(
                OUT_OF_CONTEXT, "STOPCARD out, but no stop card was placed in this shoe"
            )
        elif self.stop_implied:
            self.stop_implied = (
                False  # the late STOPCARD out was reported at the card it was due before
            )
        elif self.stop_out:
            self.flagger.flag(OUT_OF_CONTEXT, "the stop card came out twice", round=round_n)
        elif self.drawn != self.size - self.talon:
            self.flagger.flag(
                STOPCARD_DEPTH,
                f"stop card came out after {self.drawn} cards; a talon of {self.talon} "
                f"puts it after {self.size - self.talon}",
                round=round_n,
            )

    def apply_stopcard(self, event: ev.StopCard, round_active: bool, round_n: int | None) -> None:
        if event.action == "place":
            if not self.machine and self.talon is None and not self.drawn:
                self._check_cuts()
                self.talon = event.talon
                self.stop_at = None if event.talon is None else self.size - event.talon
            return
        if self.talon is not None and not self.stop_out:
            self._stop_came_out(round_active, round_n, event.line)

    def _stop_came_out(self, round_active: bool, round_n: int | None, line: int) -> None:
        self.stop_out = True
        self.stop_out_line = line
        if round_active:
            self.last_round = round_n
        else:
            self.one_more_round = True

    def _check_cuts(self, line: int | None = None) -> None:
        if self.cut_checked or self.machine:
            return
        self.cut_checked = True
        rule = self.flagger.settings(SHOE_CUT)
        if rule is None:
            return
        bys = ["dealer" if c.by == "dealer" else "player" for c in self.cuts]
        if rule.pattern == "dealer-then-player-last":
            if "dealer" not in bys[:-1] or bys[-1] != "player":
                got = ", ".join(bys) or "no cut"
                self.flagger.flag(
                    SHOE_CUT,
                    f"cuts logged: {got}; the dealer cuts the shoe, then a player makes "
                    "the last cut",
                    expected="CUT by=dealer, then CUT by=seat:N (the last cut)",
                    line=line,
                )
        elif rule.pattern == "last-by-player":
            if not bys or bys[-1] != "player":
                self.flagger.flag(
                    SHOE_CUT,
                    "the last cut before the stop card was not made by a player"
                    if bys
                    else "the shoe was not cut",
                    expected="CUT by=seat:N (the last cut)",
                    line=line,
                )
        elif bys != ["dealer", "player"]:
            got = ", ".join(bys) or "no cut"
            self.flagger.flag(
                SHOE_CUT,
                f"cuts logged: {got}; the rules require one by the dealer, then one by a player",
                expected="CUT by=dealer, then CUT by=seat:N",
                line=line,
            )

    # -- cards leaving the shoe -----------------------------------------------------

    def draw(self, card: Card | None, round_active: bool, round_n: int | None) -> None:
        """Every BURN and DEAL: stop card depth, card counts, preparation done."""
        drawn = self.drawn
        if not drawn:
            self.preparation_due(round_n)
        if drawn == self.stop_at and not self.stop_out:
            self.flagger.flag(
                STOPCARD_DEPTH,
                f"{drawn} cards have left the shoe: with a talon of "
                f"{self.talon} the stop card should have come out before this card",
                expected="STOPCARD out",
                round=round_n,
            )
            self._stop_came_out(round_active, round_n, self.flagger.sink.line)
            self.stop_implied = True
        self.drawn = drawn = drawn + 1
        if drawn > self.size and drawn == self.size + 1:
            self.flagger.flag(
                CARD_COUNT,
                f"more cards drawn than a shoe of {self.decks} decks holds ({self.size})",
                round=round_n,
            )
        if card is not None:
            counts = self.counts
            rank = card.rank
            if rank == self.prev_rank:
                self.repeats += 1
            self.prev_rank = rank
            key = (rank, card.suit)  # a tuple hashes in C: cheaper than the card
            seen = counts[key] = counts.get(key, 0) + 1
            if seen == self.decks + 1:
                self.flagger.flag(
                    CARD_COUNT,
                    f"{card} seen {seen} times in a shoe of {self.decks} decks",
                    round=round_n,
                )

    def preparation_due(self, round_n: int | None) -> None:
        """At the shoe's first card: the shuffle, the cuts and the stop card still missing, each
        reported once, at the first line it was due: the shoe's first round if one began before
        this card (``due_line``: a round begun before its burns, or a coup
        begun before its cards), else this card. A step already reported where it was first due (the shuffle at
        the cut) is not reported again; a shoe no card is drawn from is not judged."""
        line, what = (self.due_line, self.due_what) if self.due_line else (None, None)
        if line:
            round_n = None  # the shoe's preparation, before the round: a shoe finding
        if not self.shuffled:
            self.shuffle_due(round_n, what, line)
        if not self.machine and not self.cut_checked:
            self._check_cuts(line)
            if self.talon is None and self.flagger.enabled(STOPCARD_TALON):
                self.flagger.flag(
                    STOPCARD_TALON,
                    "cards drawn from a shoe with no stop card"
                    if what is None
                    else f"no stop card in the shoe before {what}",
                    expected="STOPCARD talon=N before the first card",
                    round=round_n,
                    line=line,
                )

    def shuffle_due(self, round_n: int | None, what: str | None, line: int | None = None) -> None:
        """No SHUFFLE since SHOE new, at the first line the shuffle was due before (``what``): the
        first CUT, the stop card, the first round, or the first card (None); reported once per shoe."""
        self.shuffled = (
            True  # judged: a SHUFFLE after this line does not make the shoe shuffled in time
        )
        rule = self.flagger.settings(SHOE_SHUFFLE)
        if rule is not None and self.procedure in rule.procedures:
            self.flagger.flag(
                SHOE_SHUFFLE,
                f"cards drawn from a shoe ({self.procedure}) that was never shuffled"
                if what is None
                else f"the shoe ({self.procedure}) was not shuffled before {what}",
                expected="SHUFFLE after SHOE new"
                if what is None
                else "SHUFFLE after SHOE new, before the cut",
                round=round_n,
                line=line,
            )

    def round_may_begin(self, n: int) -> bool:
        """After the stop card, only the round it came out in (or just before) is played."""
        if not self.stop_out:
            return True
        if self.one_more_round and self.last_round is None:
            self.last_round = n
            self.one_more_round = False
            return True
        return False
