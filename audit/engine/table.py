"""The state of one table between OPEN and CLOSE: limits, staff, seats, shoe, round.

Table events (the format's common and shoe events, ROUND) are verified here,
whatever the game; every other event goes to the game's round or table
extension (``Game``), through a handler per verb built once per table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from .. import events as ev
from ..values import fmt_amount
from .checks import EVERY_GAME, Check, NoParams, Params, declare
from .flagger import Flagger
from .format_checks import OUT_OF_CONTEXT, ROUND_NUMBER, ROUND_OPEN, SHOE_UNFINISHED, TABLE_UNCLOSED
from .limits import Limits, verify_limits
from .shoe import ShoeState
from .stats import TableStats

if TYPE_CHECKING:  # pragma: no cover
    from .game import Game, Round, TableExtension
    from .surveillance import Surveillance


class SeatLimit(Params):
    max_seats: int = Field(gt=0)


class EndAnnounced(Params):
    last_rounds: int = Field(gt=0)


class BurnCount(Params):
    count: int = Field(ge=0)


SEAT_LIMIT = declare("seat-limit", SeatLimit, EVERY_GAME)
SEAT_RANGE = declare("seat-range", NoParams, EVERY_GAME)
DEALER_RELIEF = declare("dealer-relief", NoParams, EVERY_GAME)
END_ANNOUNCED = declare("end-announced", EndAnnounced, EVERY_GAME)
LIMITS_MIN_CHANGE = declare("limits-min-change", NoParams, EVERY_GAME)
PLAY_PAST_STOPCARD = declare("play-past-stopcard", NoParams, EVERY_GAME)
BURN_START = declare("burn-start", BurnCount, EVERY_GAME)
BURN_START_EXTRA = declare("burn-start-extra", BurnCount, EVERY_GAME)
BURN_RESUME = declare("burn-resume", BurnCount, EVERY_GAME)
BURN_RESUME_EXTRA = declare("burn-resume-extra", BurnCount, EVERY_GAME)
#: a card burned where the rules require none (between rounds here; the games judge burns in a round)
BURN_UNEXPECTED = declare("burn-unexpected", NoParams, EVERY_GAME)


class Table:
    def __init__(
        self,
        event: ev.Open,
        flagger: Flagger,
        stats: TableStats,
        game: Game,
        survey: Callable[[str, bool], Surveillance] | None = None,
    ):
        self.flagger = flagger
        self.stats = stats
        stats.house_banked = game.house_banked
        #: what makes the table's statistics' sums (None: no statistics asked for)
        self.survey = survey
        #: the sums, made at the table's first shoe or round (``_surveyed``); a table opened again
        #: goes on with its own
        self.surveillance = stats.surveillance
        self.game = game
        self.opened_line = event.line
        self.id = event.table
        self.seats = event.seats
        self.limits = Limits(event.min, event.max, event.side_min, event.side_max)
        self.pending_limits: Limits | None = None
        self.dealer: str | None = None
        self.supervisor = False
        self.seated: dict[int, str | None] = {}
        self.shoe: ShoeState | None = None
        self.round: Round | None = None
        self.last_round_n = 0
        self.rounds = 0
        self.announced: str | None = None
        self.announced_n: int | None = None
        self.closed = False  # after CLOSE: the replay forgets the table
        self.rounds_after_announce = 0
        self.ext = game.extension(self)
        #: verb -> handler(table, event), shared by the tables of a game: an open table costs no closures
        self.handlers = _dispatch(type(self), game.round, type(self.ext))
        self._verify_open(event)

    def _flag(self, check: Check, message: str, **kw) -> None:
        """A table-level finding: inside a round it names the round."""
        kw.setdefault("round", self._n())
        self.flagger.flag(check, message, **kw)

    # -- opening and limits -----------------------------------------------------------

    def on_open(self, e: ev.Open) -> None:
        """OPEN of a table already open: the replay's business (it never hands it here)."""

    def on_note(self, e: ev.Note) -> None:
        """NOTE is free text from the dealer terminal, never interpreted."""

    def _verify_open(self, e: ev.Open) -> None:
        cap = self.flagger.settings(SEAT_LIMIT)
        if cap is not None and e.seats > cap.max_seats:
            self._flag(
                SEAT_LIMIT,
                f"table opened with {e.seats} seats; the rules allow at most {cap.max_seats}",
                expected=f"seats={cap.max_seats} (at most)",
            )
        verify_limits(self.limits, self.flagger, self._flag)

    def on_limits(self, e: ev.Limits) -> None:
        new = Limits(e.min, e.max, e.side_min, e.side_max)
        if new.min != self.current_limits().min:
            self._flag(
                LIMITS_MIN_CHANGE,
                f"minimum changed from {fmt_amount(self.current_limits().min)} to "
                f"{fmt_amount(new.min)} without closing the table",
                expected="CLOSE, then OPEN with the new minimum",
            )
        verify_limits(new, self.flagger, self._flag)
        self.pending_limits = new

    def current_limits(self) -> Limits:
        return self.pending_limits or self.limits

    # -- staff and seats -----------------------------------------------------------------

    def on_dealer(self, e: ev.Dealer) -> None:
        self.flagger.dealer = e.id
        if self.round is not None and self.dealer is not None and e.id != self.dealer:
            self._flag(
                DEALER_RELIEF,
                f"dealer {self.dealer} relieved by {e.id} during round {self.round.n}",
                round=self.round.n,
                expected=f"ROUND {self.round.n} end, then DEALER id={e.id}",
            )
        self.dealer = e.id

    def on_supervisor(self, e: ev.Supervisor) -> None:
        self.supervisor = e.present

    def on_seat(self, e: ev.Seat) -> None:
        if e.action == "in" and e.seat > self.seats:
            self._flag(
                SEAT_RANGE,
                f"seat {e.seat} taken at a table of {self.seats} places",
                expected=f"SEAT n in with n from 1 to {self.seats}",
            )
        if e.action == "in":
            if e.seat in self.seated:
                self._flag(OUT_OF_CONTEXT, f"seat {e.seat} taken while already occupied")
            self.seated[e.seat] = player = e.player
        else:
            if e.seat not in self.seated:
                self._flag(OUT_OF_CONTEXT, f"seat {e.seat} left while vacant")
            player = self.seated.pop(e.seat, None)
        self.ext.seat_changed(e, player)

    def on_announce(self, e: ev.Announce) -> None:
        rule = self.flagger.settings(END_ANNOUNCED)
        if rule is not None and e.what == "last-rounds" and e.n != rule.last_rounds:
            self._flag(
                END_ANNOUNCED,
                f"{e.n} last rounds announced; the rules announce {rule.last_rounds}",
                expected=f"ANNOUNCE last-rounds n={rule.last_rounds}",
            )
        if self.announced is None:  # a second announcement does not extend play
            self.announced = e.what
            self.rounds_after_announce = 0
            self.announced_n = e.n

    def on_close(self, e: ev.Close) -> None:
        self.closed = (
            True  # mid-shoe is the end of the session, the house's call: not a shoe cut short
        )
        if self.surveillance is not None:
            self.surveillance.end_shoe(self.shoe)
        if self.round is not None:
            self._flag(
                ROUND_OPEN,
                f"round {self.round.n} still open when the table closed",
                round=self.round.n,
                expected=f"ROUND {self.round.n} end before CLOSE",
            )
            self.round = None
        if self.rounds and self.announced is None and self.flagger.enabled(END_ANNOUNCED):
            self._flag(
                END_ANNOUNCED,
                "the table closed with no announcement of the end of play",
                expected="ANNOUNCE last-shoe or ANNOUNCE last-rounds n=3 before CLOSE",
            )
        elif self.announced is not None and self.seated and self.flagger.enabled(END_ANNOUNCED):
            self._close_before_announced_end()

    def _close_before_announced_end(self) -> None:
        """Players still seated are owed the end of play announced: its rounds, or its shoe."""
        rule = self.flagger.settings(END_ANNOUNCED)
        assert rule is not None  # called only when END_ANNOUNCED is enabled
        if self.announced == "last-rounds":
            due = self.announced_n or rule.last_rounds
            if self.rounds_after_announce < due:
                self._flag(
                    END_ANNOUNCED,
                    f"the table closed after {self.rounds_after_announce} of the {due} last rounds "
                    f"announced, with {len(self.seated)} player(s) still seated",
                    expected="the rounds announced, or no player left seated, before CLOSE",
                )
        elif (
            self.shoe is not None
            and not self.shoe.machine
            and self.shoe.stop_at is not None
            and not self.shoe.stop_out
        ):
            self._flag(
                END_ANNOUNCED,
                f"the table closed before the stop card of the last shoe announced, with "
                f"{len(self.seated)} player(s) still seated",
                expected="the last shoe played to its stop card, or no player left seated, before CLOSE",
            )

    # -- the shoe ------------------------------------------------------------------------------

    def on_shoe(self, e: ev.Shoe) -> None:
        flagger = self.flagger
        flagger.shoe = (flagger.shoe or 0) + 1
        sink = flagger.sink
        flagger.shoe_kept = {
            e.line: (sink.stamp, sink.text)
        }  # a shoe finding may name its SHOE or CUT lines
        if self.round is not None:
            self._flag(OUT_OF_CONTEXT, "a new shoe during a round", round=self.round.n)
        if self.announced == "last-shoe" and self.shoe is not None:
            self._flag(END_ANNOUNCED, "a new shoe after the last shoe was announced")
        surveillance = self._surveyed()
        if surveillance is not None:
            surveillance.new_shoe(self.shoe)
        self.shoe = ShoeState(e, self.flagger)
        self.ext.new_shoe(self.shoe)

    def _surveyed(self) -> Surveillance | None:
        """The table's statistics' sums, made when it first has something to sum (a shoe or a
        round): a table that deals nothing, as thousands left open may, holds none."""
        if self.surveillance is None and self.survey is not None:
            self.surveillance = self.stats.surveillance = self.survey(
                self.id, self.game.house_banked
            )
        return self.surveillance

    def _need_shoe(self, what: str) -> ShoeState | None:
        if self.shoe is None:
            self._flag(OUT_OF_CONTEXT, f"{what} with no shoe prepared (SHOE new)", round=self._n())
        return self.shoe

    def on_shuffle(self, e: ev.Shuffle) -> None:
        shoe = self._need_shoe("SHUFFLE")
        if shoe is not None:
            shoe.shuffled = True

    def on_cut(self, e: ev.Cut) -> None:
        shoe = self._need_shoe("CUT")
        sink = self.flagger.sink
        self.flagger.shoe_kept[e.line] = (sink.stamp, sink.text)
        if shoe is not None:
            if shoe.seated_at_cut is None:
                shoe.seated_at_cut = tuple(self.seated)
            shoe.verify_cut(e)
            shoe.apply_cut(e)

    def on_stopcard(self, e: ev.StopCard) -> None:
        shoe = self._need_shoe("STOPCARD")
        if shoe is not None:
            shoe.verify_stopcard(e, self._n())
            shoe.apply_stopcard(e, self.round is not None, self._n())

    def on_pause(self, e: ev.Pause) -> None:
        shoe = self._need_shoe("PAUSE")
        if shoe is None:
            return
        if not shoe.machine:
            self._flag(OUT_OF_CONTEXT, "PAUSE is for a shuffling-dealing machine")
        if self.round is not None:
            self._flag(OUT_OF_CONTEXT, "PAUSE during a round", round=self.round.n)
        shoe.paused = True

    def on_resume(self, e: ev.Resume) -> None:
        shoe = self._need_shoe("RESUME")
        if shoe is None:
            return
        if not shoe.paused:
            self._flag(OUT_OF_CONTEXT, "RESUME without a PAUSE")
        shoe.paused = False
        # « les cinq premières cartes extraites »: every resume burns its own, before the shoe's
        # first card too (the start burns already made are remembered, not counted again)
        if not shoe.dealt_any:
            shoe.start_burns = max(shoe.start_burns, shoe.burns_since_deal)
        shoe.awaiting_resume_burns = True
        shoe.burns_since_deal = 0

    def on_burn(self, e: ev.Burn) -> None:
        shoe = self._need_shoe("BURN")
        if shoe is None:
            return
        if not shoe.dealt_any or shoe.awaiting_resume_burns:
            check = BURN_RESUME_EXTRA if shoe.awaiting_resume_burns else BURN_START_EXTRA
            rule = self.flagger.settings(check)
            if rule is not None and shoe.burns_since_deal + 1 > rule.count:
                when = (
                    "after RESUME"
                    if shoe.awaiting_resume_burns
                    else "before the first card of the shoe"
                )
                self._flag(
                    check,
                    f"{shoe.burns_since_deal + 1} cards burned {when}; the rules burn {rule.count}",
                    round=self._n(),
                    expected=f"BURN (×{rule.count}) {when}",
                )
        elif self.round is not None:
            self.round.verify_burn(e)
            self.round.apply_burn(e)
        else:
            self._flag(
                BURN_UNEXPECTED,
                "a card burned between rounds, where the rules require none",
                expected="no BURN between ROUND end and ROUND begin",
            )
        shoe.burns_since_deal += 1
        shoe.draw(e.card, self.round is not None, self._n())

    def _verify_deal_burns(self, shoe: ShoeState) -> None:
        if not shoe.dealt_any:
            burned = max(shoe.start_burns, shoe.burns_since_deal)
            rule = self.flagger.settings(BURN_START)
            if rule is not None and burned < rule.count:
                self._flag(
                    BURN_START,
                    f"first card of the shoe dealt after {burned} burned card(s); "
                    f"the rules burn {rule.count}",
                    round=self._n(),
                    expected=f"BURN (×{rule.count}) before the first DEAL",
                )
        if shoe.awaiting_resume_burns:
            rule = self.flagger.settings(BURN_RESUME)
            if rule is not None and shoe.burns_since_deal < rule.count:
                self._flag(
                    BURN_RESUME,
                    f"first card after RESUME dealt after {shoe.burns_since_deal} burned card(s); "
                    f"the rules burn {rule.count}",
                    round=self._n(),
                    expected=f"BURN (×{rule.count}) after RESUME",
                )

    def on_deal(self, e: ev.Deal) -> None:
        shoe, rnd = self.shoe, self.round
        if shoe is None:
            self._need_shoe("DEAL")
        if rnd is None:
            self._flag(OUT_OF_CONTEXT, "DEAL outside any round")
        if shoe is not None and (not shoe.dealt_any or shoe.awaiting_resume_burns):
            self._verify_deal_burns(shoe)
            if not shoe.dealt_any:
                self.ext.preparation_due(shoe)
        if rnd is not None:
            rnd.verify_deal(e)
            rnd.apply_deal(e)
        if shoe is not None:
            shoe.draw(e.card, rnd is not None, None if rnd is None else rnd.n)
            shoe.dealt_any = True
            shoe.awaiting_resume_burns = False
            shoe.burns_since_deal = 0

    # -- rounds -------------------------------------------------------------------------------

    def _n(self) -> int | None:
        return self.round.n if self.round is not None else None

    def on_round(self, e: ev.Round) -> None:
        if e.action == "begin":
            self._begin(e)
        elif self.round is None or self.round.n != e.n:
            self._flag(
                OUT_OF_CONTEXT,
                f"ROUND {e.n} end, but "
                + (f"round {self.round.n} is the one open" if self.round else "no round is open"),
                round=self._n(),
            )
        else:
            if self.surveillance is not None:
                self.surveillance.end = (e.line, self.flagger.sink.stamp)
            self.round.finish(e.line)
            self.round = None

    def _begin(self, e: ev.Round) -> None:
        self.flagger.kept.clear()  # a round's findings name its own lines only
        if self.round is not None:
            self._flag(
                ROUND_OPEN,
                f"round {self.round.n} never ended (round {e.n} begins)",
                round=self.round.n,
                expected=f"ROUND {self.round.n} end before ROUND {e.n} begin",
            )
            self.round = None
        if e.n <= self.last_round_n:
            self._flag(
                ROUND_NUMBER,
                f"round {e.n} after round {self.last_round_n}: round numbers increase",
                round=e.n,
                expected=f"ROUND {self.last_round_n + 1} begin (or higher)",
            )
        else:
            self.last_round_n = e.n
        shoe = self.shoe
        if shoe is not None and not shoe.drawn and not shoe.due_line:
            # the shoe's first round begins before its first card: its preparation was due before this
            # line, where what is missing is reported once a card shows the shoe in play
            shoe.due_line, shoe.due_what = e.line, f"round {e.n}"
            sink = self.flagger.sink
            self.flagger.shoe_kept[e.line] = (sink.stamp, sink.text)
        if shoe is None:
            self._flag(OUT_OF_CONTEXT, "a round begins with no shoe prepared", round=e.n)
        elif shoe.stop_out and not shoe.round_may_begin(
            e.n
        ):  # (before the stop card, any round may)
            self._flag(
                PLAY_PAST_STOPCARD,
                f"round {e.n} begins after the stop card came out "
                f"(line {shoe.stop_out_line}) without a new shoe",
                round=e.n,
                expected="SHOE new ...",
            )
        if self.announced == "last-rounds":
            self.rounds_after_announce += 1
            rule = self.flagger.settings(END_ANNOUNCED)
            if rule is not None and self.rounds_after_announce > (
                self.announced_n or rule.last_rounds
            ):
                self._flag(
                    END_ANNOUNCED,
                    f"round {e.n} is played after the last rounds were announced",
                    round=e.n,
                )
        if self.pending_limits is not None:
            self.limits, self.pending_limits = self.pending_limits, None
        self.rounds += 1
        stats = self.stats
        stats.rounds += 1
        dealer = self.flagger.dealer
        stats.dealer_rounds[dealer] = stats.dealer_rounds.get(dealer, 0) + 1
        self.round = self.game.round(e.n, e.line, self)
        surveillance = self._surveyed()
        if surveillance is not None:  # where the round began, for the statistics' anomalies
            surveillance.begin = (e.line, self.flagger.sink.stamp)

    # -- dispatch ---------------------------------------------------------------------------------

    def _foreign(self, e) -> None:
        other = self.game.foreign.get(e.verb, "another game's")
        self._flag(OUT_OF_CONTEXT, f"{e.verb} is a {other} event, at a {self.game.name} table")

    def end_of_input(self, line: int) -> None:
        if self.round is not None:
            self._flag(
                ROUND_OPEN,
                f"round {self.round.n} still open at the end of the log",
                line=line,
                round=self.round.n,
                actual=None,
                expected=f"ROUND {self.round.n} end",
            )
            self.round = None
        shoe = self.shoe
        if self.surveillance is not None:
            self.surveillance.end_shoe(shoe)
        if shoe is not None and shoe.stop_at is not None and shoe.drawn and not shoe.stop_out:
            self._flag(
                SHOE_UNFINISHED,
                f"the log ends in the middle of the shoe of line {shoe.line}: "
                f"{shoe.drawn} cards drawn, the stop card due after {shoe.stop_at}",
                line=line,
                actual=None,
                expected="STOPCARD out (in this log or the next)",
            )
        self._flag(
            TABLE_UNCLOSED,
            f"table {self.id} (opened line {self.opened_line}) is still open at the end of the log",
            line=line,
            actual=None,
            expected="CLOSE",
        )

    #: verb -> handler: the events a table plays itself, whatever the game
    EVENTS: ClassVar[dict[str, Callable[[Table, Any], None]]] = {
        "OPEN": on_open,
        "NOTE": on_note,
        "LIMITS": on_limits,
        "DEALER": on_dealer,
        "SUPERVISOR": on_supervisor,
        "SEAT": on_seat,
        "ANNOUNCE": on_announce,
        "CLOSE": on_close,
        "SHOE": on_shoe,
        "SHUFFLE": on_shuffle,
        "CUT": on_cut,
        "STOPCARD": on_stopcard,
        "PAUSE": on_pause,
        "RESUME": on_resume,
        "BURN": on_burn,
        "DEAL": on_deal,
        "ROUND": on_round,
    }


Handler = Callable[["Table", ev.Event], None]
_DISPATCH: dict[tuple[type, type, type], dict[str, Handler]] = {}


def _dispatch(
    table: type[Table], rnd: type[Round], ext: type[TableExtension]
) -> dict[str, Handler]:
    """verb -> handler(table, event), built once per game (not per table): the replay's per-event
    cost is one lookup, and a table open costs no handler of its own (a log of hundreds of
    thousands of tables open at once holds one dict per game). Built from the declarations: the
    table's own ``EVENTS`` first, then the round's pairs, then the extension's; a verb of
    another game is out of context."""
    key = (table, rnd, ext)
    found = _DISPATCH.get(key)
    if found is not None:
        return found
    handlers: dict[str, Handler] = {}
    own, in_round, in_ext = table.EVENTS, rnd.EVENTS, ext.EVENTS
    for verb in ev.MODELS:
        if verb in own:
            handlers[verb] = own[verb]
        elif verb in in_round:
            handlers[verb] = _in_round(*in_round[verb])
        elif verb in in_ext:
            handlers[verb] = _pair(*in_ext[verb])
        else:
            handlers[verb] = table._foreign
    _DISPATCH[key] = handlers
    return handlers


def _in_round(verify: Callable, apply: Callable) -> Handler:
    """A round event: the open round's verify, then its apply (the round class's functions)."""

    def handle(table: Table, e) -> None:
        rnd = table.round
        if rnd is None:
            table._flag(OUT_OF_CONTEXT, f"{e.verb} outside any round")
            return
        if rnd.owed:  # events the round owes were due before this one
            rnd.report_owed(e)
        verify(rnd, e)
        apply(rnd, e)

    return handle


def _pair(verify: Callable, apply: Callable) -> Handler:
    """An extension event: its verify, then its apply (the extension class's functions)."""

    def handle(table: Table, e) -> None:
        ext = table.ext
        verify(ext, e)
        apply(ext, e)

    return handle


#: the verbs a table handles itself, whatever the game (``Table.EVENTS``)
TABLE_VERBS = frozenset(Table.EVENTS)
