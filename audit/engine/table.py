"""The state of one table between OPEN and CLOSE: limits, staff, seats, shoe, round.

Table-level events are verified here; round events are handed to the round
object of the table's game. The game-specific part is the round class only,
so the shoe, table and findings machinery is shared by every game.
"""

from __future__ import annotations

from decimal import Decimal

from .. import events as ev
from ..values import Owner, fmt_amount
from .bataille import BatailleRound, BatailleRules, Limits
from .chemin_de_fer import CdfRound, CdfTable
from .context import Flagger
from .shoe import ShoeState
from .stats import TableStats

BATAILLE_VERBS = {"BET", "WITHDRAW", "CHOICE"}
_ON = {verb: "on_" + verb.lower() for verb in ev.MODELS}


def _ignore(e) -> None:
    """NOTE is free text from the dealer terminal, never interpreted."""
CDF_ROUND_VERBS = {"BANK", "ASSOCIATE", "BANCO", "STAKE", "PONTE", "ABAT", "CALL", "TABLEAU", "ADVICE", "POINT"}
CDF_HAND_VERBS = {"HAND", "PASS", "BID", "AWARD"}
SETTLE_VERBS = {"PAY", "COLLECT", "PUSH"}


class Table:
    def __init__(self, event: ev.Open, flagger: Flagger, stats: TableStats):
        self.f = flagger
        self.stats = stats
        self.opened_line = event.line
        self.id = event.table
        self.game = event.game
        self.seats = event.seats
        self.limits = Limits(event.min, event.max, event.egalite_min, event.egalite_max)
        self.pending_limits: Limits | None = None
        self.dealer: str | None = None
        self.supervisor = False
        self.seated: dict[int, str | None] = {}
        self.shoe: ShoeState | None = None
        self.round: BatailleRound | CdfRound | None = None
        self.cdf = CdfTable(self) if self.game == "chemin-de-fer" else None
        self.bataille_rules = BatailleRules(flagger)
        self.handlers = self._dispatch_table()  # verb -> handler
        self.last_round_n = 0
        self.rounds = 0
        self.announced: str | None = None
        self.announced_n: int | None = None
        self.closed = False  # after CLOSE: the replay forgets the table
        self.rounds_after_announce = 0
        self._verify_open(event)

    def _flag(self, check: str, message: str, **kw) -> None:
        """A table-level finding: inside a round it names the round."""
        kw.setdefault("round", self._n())
        self.f.flag(check, message, **kw)

    # -- opening and limits -----------------------------------------------------------

    def _verify_open(self, e: ev.Open) -> None:
        cap = self.f.settings("seat-limit")
        if cap is not None and e.seats > cap.max_seats:
            self._flag("seat-limit", f"table opened with {e.seats} seats; the rules allow at most {cap.max_seats}",
                        expected=f"seats={cap.max_seats} (at most)")
        self._verify_limits(self.limits)

    def _verify_limits(self, lim: Limits) -> None:
        if lim.min > lim.max or lim.eg_min > lim.eg_max:
            self._flag("out-of-context", "posted minimum above the maximum")
            return
        mult = self.f.settings("limits-multiple")
        if mult is not None and lim.min > 0:
            ratio = lim.max / lim.min
            if ratio not in [Decimal(m) for m in mult.multiples]:
                allowed = ", ".join(str(m) for m in mult.multiples)
                self._flag("limits-multiple", f"maximum {fmt_amount(lim.max)} is {fmt_amount(ratio.normalize())} times "
                            f"the minimum {fmt_amount(lim.min)}; the rules allow {allowed} times",
                            expected="max = " + " | ".join(fmt_amount(lim.min * m) for m in mult.multiples))
        house = self.f.settings("house-limits")
        if house is not None:
            if house.min_at_least is not None and lim.min < house.min_at_least:
                self._flag("house-limits", f"minimum {fmt_amount(lim.min)} below the house's {fmt_amount(house.min_at_least)}")
            if house.max_at_most is not None and lim.max > house.max_at_most:
                self._flag("house-limits", f"maximum {fmt_amount(lim.max)} above the house's {fmt_amount(house.max_at_most)}")
            if house.egalite_max_at_most is not None and lim.eg_max > house.egalite_max_at_most:
                self._flag("house-limits", f"égalité maximum {fmt_amount(lim.eg_max)} above the house's "
                            f"{fmt_amount(house.egalite_max_at_most)}")

    def on_limits(self, e: ev.Limits) -> None:
        new = Limits(e.min, e.max, e.egalite_min, e.egalite_max)
        if new.min != self.current_limits().min:
            self._flag("limits-min-change", f"minimum changed from {fmt_amount(self.current_limits().min)} to "
                        f"{fmt_amount(new.min)} without closing the table", expected="CLOSE, then OPEN with the new minimum")
        self._verify_limits(new)
        self.pending_limits = new

    def current_limits(self) -> Limits:
        return self.pending_limits or self.limits

    # -- staff and seats -----------------------------------------------------------------

    def on_dealer(self, e: ev.Dealer) -> None:
        if self.round is not None and self.dealer is not None and e.id != self.dealer:
            self._flag("dealer-relief", f"dealer {self.dealer} relieved by {e.id} during round {self.round.n}",
                        round=self.round.n)
        self.dealer = e.id

    def on_supervisor(self, e: ev.Supervisor) -> None:
        self.supervisor = e.present
        if self.round is not None:
            self.round.supervisor = e.present

    def on_seat(self, e: ev.Seat) -> None:
        if e.action == "in" and e.seat > self.seats:
            self._flag("seat-range", f"seat {e.seat} taken at a table of {self.seats} places")
        if e.action == "in":
            if e.seat in self.seated:
                self._flag("out-of-context", f"seat {e.seat} taken while already occupied")
            self.seated[e.seat] = e.player
        else:
            if e.seat not in self.seated:
                self._flag("out-of-context", f"seat {e.seat} left while vacant")
            self.seated.pop(e.seat, None)

    def on_announce(self, e: ev.Announce) -> None:
        rule = self.f.settings("end-announced")
        if rule is not None and e.what == "last-rounds" and e.n != rule.last_rounds:
            self._flag("end-announced", f"{e.n} last rounds announced; the rules announce {rule.last_rounds}",
                        expected=f"ANNOUNCE last-rounds n={rule.last_rounds}")
        if self.announced is None:  # a second announcement does not extend play
            self.announced = e.what
            self.rounds_after_announce = 0
            self.announced_n = e.n

    def on_close(self, e: ev.Close) -> None:
        self.closed = True  # mid-shoe is the end of the session, the house's call: not a shoe cut short
        if self.round is not None:
            self._flag("round-open", f"round {self.round.n} still open when the table closed", round=self.round.n)
            self.round = None
        if self.rounds and self.announced is None and self.f.enabled("end-announced"):
            self._flag("end-announced", "the table closed with no announcement of the end of play",
                        expected="ANNOUNCE last-shoe or ANNOUNCE last-rounds n=3 before CLOSE")

    # -- the shoe ------------------------------------------------------------------------------

    def on_shoe(self, e: ev.Shoe) -> None:
        if self.round is not None:
            self._flag("out-of-context", "a new shoe during a round", round=self.round.n)
        if self.announced == "last-shoe" and self.shoe is not None:
            self._flag("end-announced", "a new shoe after the last shoe was announced")
        self.shoe = ShoeState(e, self.f)
        if self.cdf is not None:
            self.cdf.new_shoe()

    def _need_shoe(self, what: str) -> ShoeState | None:
        if self.shoe is None:
            self._flag("out-of-context", f"{what} with no shoe prepared (SHOE new)", round=self._n())
        return self.shoe

    def on_shuffle(self, e: ev.Shuffle) -> None:
        self._need_shoe("SHUFFLE")

    def on_cut(self, e: ev.Cut) -> None:
        shoe = self._need_shoe("CUT")
        if shoe is not None:
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
            self._flag("out-of-context", "PAUSE is for a shuffling-dealing machine")
        if self.round is not None:
            self._flag("out-of-context", "PAUSE during a round", round=self.round.n)
        shoe.paused = True

    def on_resume(self, e: ev.Resume) -> None:
        shoe = self._need_shoe("RESUME")
        if shoe is None:
            return
        if not shoe.paused:
            self._flag("out-of-context", "RESUME without a PAUSE")
        shoe.paused = False
        if shoe.dealt_any:
            shoe.awaiting_resume_burns = True
            shoe.burns_since_deal = 0

    def on_burn(self, e: ev.Burn) -> None:
        shoe = self._need_shoe("BURN")
        if shoe is None:
            return
        if not shoe.dealt_any or shoe.awaiting_resume_burns:
            check = "burn-start-extra" if not shoe.dealt_any else "burn-resume-extra"
            rule = self.f.settings(check)
            if rule is not None and shoe.burns_since_deal + 1 > rule.count:
                when = "before the first card of the shoe" if not shoe.dealt_any else "after RESUME"
                self._flag(check, f"{shoe.burns_since_deal + 1} cards burned {when}; the rules burn {rule.count}",
                            round=self._n())
        elif self.round is not None:
            self.round.verify_burn(e)
            self.round.apply_burn(e)
        else:
            self._flag("burn-unexpected", "a card burned between rounds, where the rules require none")
        shoe.burns_since_deal += 1
        shoe.draw(e.card, self.round is not None, self._n())

    def _verify_deal_burns(self, shoe: ShoeState) -> None:
        if not shoe.dealt_any:
            rule = self.f.settings("burn-start")
            if rule is not None and shoe.burns_since_deal < rule.count:
                self._flag("burn-start", f"first card of the shoe dealt after {shoe.burns_since_deal} burned card(s); "
                            f"the rules burn {rule.count}", round=self._n(),
                            expected=f"BURN (×{rule.count}) before the first DEAL")
        elif shoe.awaiting_resume_burns:
            rule = self.f.settings("burn-resume")
            if rule is not None and shoe.burns_since_deal < rule.count:
                self._flag("burn-resume", f"first card after RESUME dealt after {shoe.burns_since_deal} burned card(s); "
                            f"the rules burn {rule.count}", round=self._n(),
                            expected=f"BURN (×{rule.count}) after RESUME")

    # -- rounds -------------------------------------------------------------------------------

    def _n(self) -> int | None:
        return self.round.n if self.round is not None else None

    def on_round(self, e: ev.Round) -> None:
        if e.action == "begin":
            self._begin(e)
        elif self.round is None or self.round.n != e.n:
            self._flag("out-of-context", f"ROUND {e.n} end, but " + (
                f"round {self.round.n} is the one open" if self.round else "no round is open"), round=self._n())
        else:
            self.round.finish(e.line)
            self.round = None

    def _begin(self, e: ev.Round) -> None:
        if self.round is not None:
            self._flag("round-open", f"round {self.round.n} never ended (round {e.n} begins)", round=self.round.n)
            self.round = None
        if e.n <= self.last_round_n:
            self._flag("round-number", f"round {e.n} after round {self.last_round_n}: round numbers increase",
                        round=e.n, expected=f"ROUND {self.last_round_n + 1} begin (or higher)")
        self.last_round_n = max(self.last_round_n, e.n)
        if self.shoe is None:
            self._flag("out-of-context", "a round begins with no shoe prepared", round=e.n)
        elif not self.shoe.round_may_begin(e.n):
            self._flag("play-past-stopcard", f"round {e.n} begins after the stop card came out "
                        f"(line {self.shoe.stop_out_line}) without a new shoe", round=e.n, expected="SHOE new ...")
        if self.announced == "last-rounds":
            self.rounds_after_announce += 1
            rule = self.f.settings("end-announced")
            if rule is not None and self.rounds_after_announce > (self.announced_n or rule.last_rounds):
                self._flag("end-announced", f"round {e.n} is played after the last rounds were announced", round=e.n)
        if self.pending_limits is not None:
            self.limits, self.pending_limits = self.pending_limits, None
        self.rounds += 1
        self.stats.rounds += 1
        if self.cdf is not None:
            rule = self.f.settings("cdf-min-players")
            if rule is not None and len(self.seated) < rule.min_players:
                self._flag("cdf-min-players", f"coup {e.n} starts with {len(self.seated)} seated player(s); "
                            f"the rules require {rule.min_players}", round=e.n)
            self.round = CdfRound(e.n, e.line, self, self.cdf)
        else:
            self.round = BatailleRound(e.n, e.line, self.limits, self.f, self.seated, self.seats, self.supervisor,
                                       self.bataille_rules)

    def on_round_event(self, e) -> None:
        """A chemin de fer round event (the bataille's have one handler each, below)."""
        rnd = self.round
        if rnd is None:
            self._flag("out-of-context", f"{e.verb} outside any round")
            return
        self._count_money(e)
        rnd.on_settle(e) if e.verb in SETTLE_VERBS else getattr(rnd, _ON[e.verb])(e)

    def _count_money(self, e) -> None:
        """The money the log shows moving, right or wrong (the findings judge it)."""
        verb = e.verb
        if verb == "PAY":
            self.stats.paid += e.amount
        elif verb == "COLLECT":
            self.stats.collected += e.amount

    # the bataille's round events: the money counted, then the round's verify/apply pair

    def _outside(self, e) -> None:
        self._flag("out-of-context", f"{e.verb} outside any round")

    def on_bet(self, e: ev.Bet) -> None:
        rnd = self.round
        if rnd is None:
            return self._outside(e)
        self.stats.drop += e.amount
        rnd.verify_bet(e)
        rnd.apply_bet(e)

    def on_withdraw(self, e: ev.Withdraw) -> None:
        rnd = self.round
        if rnd is None:
            return self._outside(e)
        self.stats.drop -= e.amount
        rnd.verify_withdraw(e)
        rnd.apply_withdraw(e)

    def on_nomorebets(self, e: ev.NoMoreBets) -> None:
        rnd = self.round
        if rnd is None:
            return self._outside(e)
        rnd.verify_nomorebets(e)
        rnd.apply_nomorebets(e)

    def on_choice(self, e: ev.Choice) -> None:
        rnd = self.round
        if rnd is None:
            return self._outside(e)
        rnd.verify_choice(e)
        rnd.apply_choice(e)

    def on_pay(self, e: ev.Pay) -> None:
        rnd = self.round
        if rnd is None:
            return self._outside(e)
        self.stats.paid += e.amount
        rnd.verify_settle(e)
        rnd.apply_settle(e)

    def on_collect(self, e: ev.Collect) -> None:
        rnd = self.round
        if rnd is None:
            return self._outside(e)
        self.stats.collected += e.amount
        rnd.verify_settle(e)
        rnd.apply_settle(e)

    def _settle(self, e) -> None:
        """PUSH: no money moves."""
        rnd = self.round
        if rnd is None:
            return self._outside(e)
        rnd.verify_settle(e)
        rnd.apply_settle(e)

    def on_deal(self, e: ev.Deal) -> None:
        shoe, rnd = self.shoe, self.round
        if shoe is None:
            self._need_shoe("DEAL")
        if rnd is None:
            self._flag("out-of-context", "DEAL outside any round")
        if shoe is not None and (not shoe.dealt_any or shoe.awaiting_resume_burns):
            self._verify_deal_burns(shoe)
            if self.cdf is not None and not shoe.dealt_any:
                self._check_cdf_cuts(shoe)
        if rnd is not None:
            rnd.verify_deal(e)
            rnd.apply_deal(e)
        if shoe is not None:
            shoe.draw(e.card, rnd is not None, None if rnd is None else rnd.n)
            shoe.dealt_any = True
            shoe.awaiting_resume_burns = False
            shoe.burns_since_deal = 0

    # -- dispatch ---------------------------------------------------------------------------------

    def _dispatch_table(self) -> dict[str, object]:
        """verb -> handler, built once per table: the replay's per-event cost is one lookup."""
        table: dict[str, object] = {}
        for verb in ev.MODELS:
            if verb in CDF_HAND_VERBS or verb in CDF_ROUND_VERBS:
                if self.cdf is None:
                    table[verb] = self._foreign
                else:
                    table[verb] = self._on_hand_event if verb in CDF_HAND_VERBS else self.on_round_event
            elif verb in BATAILLE_VERBS:
                table[verb] = self._foreign if self.cdf is not None else getattr(self, "on_" + verb.lower())
            elif verb in SETTLE_VERBS or verb == "NOMOREBETS":
                if self.cdf is not None:
                    table[verb] = self.on_round_event
                else:
                    table[verb] = {"PUSH": self._settle}.get(verb) or getattr(self, "on_" + verb.lower())
            elif verb in ("NOTE", "OPEN"):  # OPEN of an open table is the replay's business
                table[verb] = _ignore
            else:
                table[verb] = getattr(self, "on_" + verb.lower())
        return table

    def _foreign(self, e) -> None:
        other = "chemin de fer" if self.cdf is None else "bataille"
        self._flag("out-of-context", f"{e.verb} is a {other} event, at a {self.game} table")

    def _on_hand_event(self, e) -> None:
        cdf, coup = self.cdf, self._n()
        assert cdf is not None
        if e.verb == "HAND":
            previous = cdf.bank.holder
            taker = e.by or Owner.seated(e.seat)
            rightful_taux = e.how == "taux" and cdf.bank.passed_by == taker
            cdf.verify_hand(e, coup)
            cdf.apply_hand(e)
            if isinstance(self.round, CdfRound):
                self.round.saw_hand = True
                self.round.suite = e.how == "suite" or (e.how is None and previous == cdf.bank.holder)
                self.round.taux = rightful_taux
        elif e.verb == "PASS":
            cdf.on_pass(e, coup)
        elif e.verb == "BID":
            cdf.on_bid(e, coup)
        else:
            cdf.on_award(e, coup)

    def _check_cdf_cuts(self, shoe: ShoeState) -> None:
        if not self.f.enabled("cdf-cut-order") or shoe.cut_checked:
            return
        shoe.cut_checked = True
        order = sorted(self.seated, reverse=True)
        cuts = shoe.all_cuts
        problem = None
        if not cuts or cuts[-1].refused:
            problem = "no player cut the shoe"
        else:
            for i, cut in enumerate(cuts):
                seat = cut.by.seat if cut.by != "dealer" else None
                want = order[i] if i < len(order) else None
                if seat is None or seat != want:
                    problem = (f"cut {i + 1} by {cut.by}; the cut is offered from the employee's left (seat "
                               f"{order[0] if order else '?'}) to each previous player in turn")
                    break
        if problem:
            self._flag("cdf-cut-order", problem, line=cuts[-1].line if cuts else shoe.line,
                        expected=f"CUT by=seat:{order[0]}" if order else None, actual=None)

    def end_of_input(self, line: int) -> None:
        if self.round is not None:
            self._flag("round-open", f"round {self.round.n} still open at the end of the log",
                       line=line, round=self.round.n, actual=None)
            self.round = None
        shoe = self.shoe
        if shoe is not None and shoe.stop_at is not None and shoe.drawn and not shoe.stop_out:
            self._flag("shoe-unfinished", f"the log ends in the middle of the shoe of line {shoe.line}: "
                       f"{shoe.drawn} cards drawn, the stop card due after {shoe.stop_at}", line=line, actual=None,
                       expected="STOPCARD out (in this log or the next)")
        self._flag("table-unclosed", f"table {self.id} (opened line {self.opened_line}) is still open at the end "
                   "of the log", line=line, actual=None, expected="CLOSE")
