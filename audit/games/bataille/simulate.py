"""A rule-abiding bataille table for the simulated night (French arrêté, Monaco Sun War Game).

Everything the regulation fixes comes from the table's loaded ruleset
(``BatailleParams``): decks, burns (at a new shoe, a machine's restart, a
bataille), the talon, the limits, the cut, who may bet standing, the
announced end, the lone Ace, odds and surrender. What is left here is how
the players behave (the ``P_*`` probabilities) and the choices where the
rules leave room: the war stake of a hand is one BET by the hand's player for
the hand's whole main total (standing shares included); a bet on a vacant
place, its war stake included, carries ``by=seat:M approved``; égalité bets
are the seated player's own; only shoes whose cut a player may decline ever
see a ``CUT refused``; only shuffling-dealing machines of rulesets with a
restart burn PAUSE; a night shorter than its announced last rounds announces
``last-shoe`` instead, and as it ends before that shoe's stop card, its players
leave before the table closes (the rules owe the players still seated the
whole shoe announced).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from ...rulesets import LoadedRuleset
from ...simulate.anomalies import STACKED, favour, stack
from ...simulate.money import pick, share
from ...simulate.shoe import StopCardShoe
from ...simulate.specs import TableSpec
from ...simulate.style import heavy
from ...simulate.table import Plan, TableNight
from ...values import Card, fmt_amount
from .cards import BATAILLE_VALUE
from .params import BatailleParams, Outcome, bataille_params

#: How often things happen (per round, or per hand where it says so).
P_PLAYS = 0.85  # a seated player stakes his own hand
P_EGALITE = 0.3  # ... and adds an égalité bet
P_WITHDRAW = 0.05  # ... after first putting (then taking back) more
P_VACANT = 0.1  # a seated player stakes a vacant place (approved)
P_STANDING = 0.2  # a standing player joins a seated hand
P_WAR = 0.7  # a tied hand goes to bataille rather than surrender
P_EGALITE_WAR = 0.4  # a player at bataille re-bets égalité, where the ruleset offers it
P_LEAVE = 0.08  # a seated player leaves between rounds
P_SIT = 0.1  # a new player sits down between rounds
P_CUT_REFUSED = 0.25  # the first player asked declines to cut, where the ruleset lets him
#: Where the ruleset leaves the limits free, a change keeps the maximum at least this many minimums.
LIMITS_SPREAD = 10


def _compare(player: Card | None, dealer: Card | None) -> int:
    assert player is not None and dealer is not None  # both dealt before they are compared
    mine, theirs = BATAILLE_VALUE[player.rank], BATAILLE_VALUE[dealer.rank]
    return (mine > theirs) - (mine < theirs)


class BatailleNight(TableNight):
    """One bataille table's night: shoes, seats, limits and rounds as its ruleset has them."""

    @staticmethod
    def read_params(ruleset: LoadedRuleset) -> BatailleParams:
        return bataille_params(ruleset)

    @staticmethod
    def check(spec: TableSpec, params: BatailleParams) -> None:
        """Refuse (``ValueError``) a table its ruleset does not allow."""
        if spec.side_min is None or spec.side_max is None or not 0 < spec.side_min <= spec.side_max:
            raise ValueError(
                "a bataille table needs positive égalité limits with egalite_min <= egalite_max"
            )
        if params.max_seats is not None and spec.seats > params.max_seats:
            raise ValueError(f"a {params.ruleset} table has at most {params.max_seats} seats")
        multiples = params.limit_multiples
        if multiples is not None and spec.max not in [spec.min * k for k in multiples]:
            raise ValueError(
                f"a {params.ruleset} maximum must be {', '.join(map(str, multiples))} "
                f"times the minimum"
            )
        if spec.procedure not in params.procedures:
            raise ValueError(
                f"a {params.ruleset} table's shoe is one of {', '.join(params.procedures)}"
            )
        for what, value, bound, below in (
            ("minimum", spec.min, params.house_min_at_least, True),
            ("maximum", spec.max, params.house_max_at_most, False),
            ("égalité maximum", spec.side_max, params.house_egalite_max_at_most, False),
        ):
            if bound is not None and (value < bound if below else value > bound):
                raise ValueError(
                    f"the house's {what} is {'at least' if below else 'at most'} {fmt_amount(bound)}"
                )

    def __init__(
        self,
        spec: TableSpec,
        params: BatailleParams,
        rng: random.Random,
        start: datetime,
        number: int,
    ):
        super().__init__(spec, rng, start, number)
        self.p = params
        assert spec.side_min is not None and spec.side_max is not None  # a bataille table's
        self.eg_min, self.eg_max = spec.side_min, spec.side_max
        self.standing = [self.new_player_id() for _ in range(3)]
        self.paused_done = False
        self.shoe: StopCardShoe | None = None
        self.plan = self._make_plan()
        self.plan_extra_limits()
        self.shoes = 0
        #: the end of play announced (``ANNOUNCE``'s word), None before it
        self.announced: str | None = None
        #: the stakes players put down: round sums, or the heavy-tailed law of a realistic style
        self.pick = heavy if spec.style.heavy_stakes else pick

    # .. cards
    def draw(self) -> Card:
        assert self.shoe is not None
        if self.shoe.stop_due():
            self.emit("STOPCARD out", 0.5, 1.5)
            self.shoe.stop_out = True
        return self.shoe.take()

    def burn(self, count: int = 1) -> None:
        for _ in range(count):
            card = self.draw()
            self.emit(f"BURN {card}", 0.5, 1.5)

    # .. the night
    def play(self, n: int) -> None:
        _Round(self, n).play()

    def _make_plan(self) -> Plan:
        r, rng = self.spec.rounds, self.rng
        third = max(2, r // 3)
        reliefs = set(range(rng.randint(20, 40), r + 1, rng.randint(25, 45)))
        last = self.p.last_rounds
        return Plan(
            limits=rng.randint(third, max(third, 2 * r // 3)),
            pause=rng.randint(third, max(third, 2 * r // 3)) if self._pauses() else None,
            supervisor_in=rng.randint(2, max(2, third)),
            supervisor_out=rng.randint(2 * third, max(2 * third, r - 3)),
            reliefs=reliefs,
            announce=max(1, r - (last - 1)) if last is not None else None,
        )

    def _pauses(self) -> bool:
        """A shuffling-dealing machine stops and restarts only where the ruleset has the restart's burns."""
        return self.p.resume_burns is not None and self.spec.procedure == "shuffler-dealer"

    def open(self) -> None:
        s = self.spec
        assert s.side_min is not None and s.side_max is not None  # a bataille table's
        self.emit(
            f"OPEN game=bataille ruleset={s.ruleset} seats={s.seats} min={fmt_amount(s.min)} "
            f"max={fmt_amount(s.max)} egalite-min={fmt_amount(s.side_min)} "
            f"egalite-max={fmt_amount(s.side_max)}",
            0.0,
            0.5,
        )
        self.relief()
        for _ in range(self.rng.randint(min(2, s.seats), min(5, s.seats))):
            self.sit()

    # .. between rounds
    def between(self, n: int) -> None:
        if n > 1:
            self._seat_changes()
            self.new_standing()
            self.one_offs(n)
        if self.shoe is None or self.shoe.spent():
            self._new_shoe()
        elif self._pause_due(n):
            self._pause()
        if n == self.plan.announce:
            self._announce()

    def _announce(self) -> None:
        """The last rounds; a night shorter than them is its last shoe."""
        last = self.p.last_rounds
        assert last is not None  # planned only when the rules announce last rounds
        self.announced = "last-rounds" if self.spec.rounds >= last else "last-shoe"
        if self.announced == "last-rounds":
            self.emit(f"ANNOUNCE last-rounds n={last}")
        else:
            self.emit("ANNOUNCE last-shoe")  # the shoe just prepared outlasts the night

    def close(self) -> None:
        """A last shoe announced and not played to its stop card is owed to the players seated:
        the night ends when they have left."""
        shoe = self.shoe
        if self.announced == "last-shoe" and shoe is not None and not shoe.spent():
            for seat in sorted(self.players):
                self.leave(seat)
        super().close()

    def _seat_changes(self) -> None:
        churn = self.spec.style.churn
        if len(self.players) > 1 and self.rng.random() < P_LEAVE * churn:
            seat = self.rng.choice(sorted(self.players))
            if (
                self.anomaly is None or self.players[seat] != self.anomaly.id
            ):  # the favoured player stays
                self.leave(seat)
        want = P_SIT * churn * (3 if len(self.players) < 2 else 1)
        if len(self.players) < self.spec.seats and self.rng.random() < want:
            self.sit()

    def change_limits(self) -> None:
        multiples, cap = self.p.limit_multiples, self.p.house_max_at_most
        if multiples is None:
            options = [
                (self.min * 2, self.max * 2),
                (self.min, self.max * 2),
                (self.min * 2, self.max),
            ]
            options = [
                o for o in options if o[1] >= o[0] * LIMITS_SPREAD and (cap is None or o[1] <= cap)
            ]
        else:  # the minimum changes only by closing the table: a new maximum among the multiples
            options = [
                (self.min, self.min * k)
                for k in multiples
                if self.min * k != self.max and (cap is None or self.min * k <= cap)
            ]
        if not options:
            return  # the house's bounds leave no other limits
        if multiples is None:
            self.min, self.max = self.rng.choice(options)
        else:
            self.max = self.rng.choice(options)[1]
        self.post_limits()

    def post_limits(self) -> None:
        self.emit(
            f"LIMITS min={fmt_amount(self.min)} max={fmt_amount(self.max)} "
            f"egalite-min={fmt_amount(self.eg_min)} egalite-max={fmt_amount(self.eg_max)}",
            2,
            8,
        )

    # .. shuffling-dealing machine stops for lack of players
    def _pause_due(self, n: int) -> bool:
        return self.plan.pause is not None and not self.paused_done and n >= self.plan.pause

    def _pause(self) -> None:
        self.paused_done = True
        for seat in sorted(self.players):
            self.leave(seat)
        self.emit("PAUSE", 5, 20)
        self.t += timedelta(minutes=self.rng.randint(4, 15))
        for _ in range(self.rng.randint(1, min(4, self.spec.seats))):
            self.sit()
        self.emit("RESUME", 5, 20)
        assert self.p.resume_burns is not None
        self.burn(self.p.resume_burns)

    # .. a new shoe
    def _new_shoe(self) -> None:
        self.shoe = StopCardShoe(self.rng, self.p.decks, self.spec.procedure, self.p.min_talon)
        self.shoes += 1
        if (
            self.anomaly is not None
            and self.anomaly.kind == "stacked-shoe"
            and self.shoes == STACKED
        ):
            stack(self.shoe.cards, BATAILLE_VALUE)
            self.anomaly.id = f"{self.spec.table}#{self.shoes}"
        self.emit(f"SHOE new decks={self.p.decks} procedure={self.spec.procedure}", 5, 15)
        self.emit("SHUFFLE", 20, 90)
        if not self.shoe.machine:
            self._cuts()
            self.emit(f"STOPCARD talon={self.shoe.talon}", 2, 6)
        self.burn(self.p.start_burns)

    def _cuts(self) -> None:
        self.emit("CUT by=dealer", 5, 15)
        seats = sorted(self.players)
        if self.p.cut_may_be_refused and len(seats) > 1 and self.rng.random() < P_CUT_REFUSED:
            first, second = self.rng.sample(seats, 2)
            self.emit(f"CUT refused by=seat:{first}", 2, 6)
            self.emit(f"CUT by=seat:{second}", 2, 6)
        else:
            self.emit(f"CUT by=seat:{self.rng.choice(seats)}", 2, 6)


# -- one round --------------------------------------------------------------------------


@dataclass
class _Hand:
    seat: int
    owner: int  # the seat of the player who plays the hand (his own, or a vacant one)
    main: dict[str, Decimal] = field(default_factory=dict)
    egalite: Decimal = Decimal(0)
    war: Decimal = Decimal(0)
    egalite_war: Decimal = Decimal(0)
    card: Card | None = None
    war_card: Card | None = None
    choice: str | None = None

    @property
    def vacant(self) -> bool:
        return self.owner != self.seat

    @property
    def total(self) -> Decimal:
        return sum(self.main.values(), Decimal(0))

    def by(self) -> str:
        """The ``by=`` words for a bet by the hand's player (none on his own seat)."""
        return f" by=seat:{self.owner} approved" if self.vacant else ""


class _Round:
    def __init__(self, table: BatailleNight, n: int):
        self.table, self.n, self.rng, self.p = table, n, table.rng, table.p
        self.hands: dict[int, _Hand] = {}
        self.dealer: Card | None = None
        self.dealer_war: Card | None = None

    def emit(self, text: str, lo: float = 1.0, hi: float = 3.0) -> None:
        self.table.emit(text, lo, hi)

    def play(self) -> None:
        self.emit(f"ROUND {self.n} begin", 3, 10)
        self._bets()
        self.emit("NOMOREBETS")
        self._deal_first()
        self._choices()
        self._settle_first()
        if self.warring():
            self._deal_bataille()
            self._settle_bataille()
        self.emit(f"ROUND {self.n} end")

    def warring(self) -> list[_Hand]:
        return [h for _, h in sorted(self.hands.items()) if h.choice == "war"]

    def _bet(self, hand: _Hand, spot: str, amount: Decimal, by: str = "") -> None:
        self.emit(f"BET seat={hand.seat} spot={spot} amount={fmt_amount(amount)}{by}")

    # .. bets
    def _bets(self) -> None:
        t = self.table
        seats = sorted(t.players)
        for seat in seats:
            if self.rng.random() < P_PLAYS:
                self._seated_bet(seat)
        if not self.hands:
            self._seated_bet(self.rng.choice(seats))
        lone = (
            self.p.lone_player_two_boxes and len(t.players) == 1
        )  # the house has him play two boxes
        if lone or self.rng.random() < P_VACANT:
            self._vacant_bet()
        may_stand = self.p.standing_allowed and (
            t.supervisor or not self.p.standing_needs_supervisor
        )
        if may_stand and self.rng.random() < P_STANDING:
            self._standing_bet()

    def _seated_bet(self, seat: int) -> None:
        t = self.table
        hand = self.hands[seat] = _Hand(seat, seat)
        amount = t.pick(self.rng, t.min, t.max)
        hand.main[f"seat:{seat}"] = amount
        if amount + t.min <= t.max and self.rng.random() < P_WITHDRAW:
            extra = t.pick(self.rng, t.min, t.max - amount)
            self._bet(hand, "main", amount + extra)
            self.emit(f"WITHDRAW seat={seat} spot=main amount={fmt_amount(extra)}")
        else:
            self._bet(hand, "main", amount)
        if self.p.egalite_offered and self.rng.random() < P_EGALITE:
            hand.egalite = t.pick(self.rng, t.eg_min, t.eg_max)
            self._bet(hand, "egalite", hand.egalite)

    def _vacant_bet(self) -> None:
        t = self.table
        vacant = [s for s in range(1, t.spec.seats + 1) if s not in t.players]
        if not vacant:
            return
        hand = _Hand(self.rng.choice(vacant), self.rng.choice(sorted(t.players)))
        most = t.max
        if self.p.player_max:  # his stakes on every hand together within the maximum
            most -= sum(
                (h.main.get(f"seat:{hand.owner}", Decimal(0)) for h in self.hands.values()),
                Decimal(0),
            )
            if most < t.min:
                return
        self.hands[hand.seat] = hand
        amount = t.pick(self.rng, t.min, most)
        hand.main[f"seat:{hand.owner}"] = amount
        self._bet(hand, "main", amount, hand.by())

    def _standing_bet(self) -> None:
        t = self.table
        room = [h for h in self.hands.values() if not h.vacant and h.total + t.min <= t.max]
        if not room:
            return
        hand = self.rng.choice(sorted(room, key=lambda h: h.seat))
        player = self.rng.choice(t.standing)
        amount = t.pick(self.rng, t.min, t.max - hand.total)
        hand.main[f"standing:{player}"] = amount
        self._bet(hand, "main", amount, f" by=standing:{player}")

    # .. first cards, choices, first settlement
    def _deal_first(self) -> None:
        t = self.table
        favoured = t.favoured_now()
        for seat, hand in sorted(self.hands.items()):
            if favoured is not None and t.players.get(hand.owner) == favoured:
                assert t.shoe is not None and t.anomaly is not None  # in play; the collusion's
                favour(t.shoe.cards, t.shoe.drawn, t.rng, t.anomaly.strength, BATAILLE_VALUE)
            hand.card = self.table.draw()
            self.emit(f"DEAL seat={seat} {hand.card}")
        self.dealer = self.table.draw()
        self.emit(f"DEAL dealer {self.dealer}")

    def _tied(self, hand: _Hand) -> bool:
        return _compare(hand.card, self.dealer) == 0

    def _choices(self) -> None:
        for seat, hand in sorted(self.hands.items()):
            if not self._tied(hand):
                continue
            hand.choice = "war" if self.rng.random() < P_WAR else "surrender"
            self.emit(f"CHOICE seat={seat} {hand.choice}", 2, 6)
            if hand.choice == "war":
                self._war_bets(hand)

    def _war_bets(self, hand: _Hand) -> None:
        hand.war = hand.total
        self._bet(hand, "war", hand.war, hand.by())
        if (
            self.p.egalite_war_odds is not None
            and self.p.egalite_offered
            and not hand.vacant
            and self.rng.random() < P_EGALITE_WAR
        ):
            hand.egalite_war = self.table.pick(self.rng, self.table.eg_min, self.table.eg_max)
            self._bet(hand, "egalite-war", hand.egalite_war)

    def _settle(self, verb: str, hand: _Hand, spot: str, amount: Decimal | None = None) -> None:
        tail = "" if amount is None else f" amount={fmt_amount(amount)}"
        self.emit(f"{verb} seat={hand.seat} spot={spot}{tail}")

    def _settle_first(self) -> None:
        for _, hand in sorted(self.hands.items(), reverse=True):
            if hand.choice is None:
                if _compare(hand.card, self.dealer) > 0:
                    self._settle("PAY", hand, "main", hand.total * self.p.main_odds)
                else:
                    self._settle("COLLECT", hand, "main", hand.total)
            elif hand.choice == "surrender":
                kept = share(hand.total, self.p.surrender_fraction, self.p.surrender_rounding)
                self._settle("COLLECT", hand, "main", kept)
            if hand.egalite:
                self._settle_egalite(
                    hand, "egalite", hand.egalite, self._tied(hand), self.p.egalite_odds
                )

    def _settle_egalite(
        self, hand: _Hand, spot: str, stake: Decimal, won: bool, odds: Decimal
    ) -> None:
        if won:
            self._settle("PAY", hand, spot, stake * odds)
        else:
            self._settle("COLLECT", hand, spot, stake)

    # .. the bataille
    def _deal_bataille(self) -> None:
        t, p = self.table, self.p
        hands = self.warring()
        t.burn(p.war_burns_before_players)
        for hand in hands:
            t.burn(p.war_burns_before_each_player)
            hand.war_card = t.draw()
            self.emit(f"DEAL seat={hand.seat} {hand.war_card}")
        if (
            p.lone_ace_wins
            and len(hands) == 1
            and (card := hands[0].war_card) is not None
            and card.rank == "A"
        ):
            self.dealer_war = None  # a lone player's Ace wins at once: no dealer card
            return
        t.burn(p.war_burns_before_dealer)
        self.dealer_war = t.draw()
        self.emit(f"DEAL dealer {self.dealer_war}")

    def _settle_bataille(self) -> None:
        for hand in reversed(self.warring()):
            outcome = 1 if self.dealer_war is None else _compare(hand.war_card, self.dealer_war)
            result = (
                self.p.higher if outcome > 0 else self.p.equal if outcome == 0 else self.p.lower
            )
            self._settle_stakes(hand, result)
            if hand.egalite_war:
                equal = self.dealer_war is not None and outcome == 0
                assert self.p.egalite_war_odds is not None
                self._settle_egalite(
                    hand, "egalite-war", hand.egalite_war, equal, self.p.egalite_war_odds
                )

    def _settle_stakes(self, hand: _Hand, result: Outcome) -> None:
        for spot, outcome, stake in (
            ("main", result.main, hand.total),
            ("war", result.war, hand.war),
        ):
            if outcome == "pay":
                self._settle("PAY", hand, spot, stake * self.p.bataille_odds)
            elif outcome == "push":
                self._settle("PUSH", hand, spot)
            else:
                self._settle("COLLECT", hand, spot, stake)
