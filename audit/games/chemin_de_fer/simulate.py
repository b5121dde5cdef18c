"""A rule-abiding chemin de fer table for the simulated night (Ostende rule).

Per coup: ``ROUND n begin``, [PASS, [BID..., AWARD]], [HAND], BANK,
[ASSOCIATE], BANCO/STAKE..., NOMOREBETS, PONTE, four DEALs, then ABAT (a
natural, the ponte's first) or the calls and third cards ([ADVICE], CALL
ponte, [DEAL ponte], [TABLEAU banker], CALL banker, [DEAL banker]), POINT,
the settlements from the banker's right (standing players last), ``ROUND n end``.

What the regulation fixes comes from the table's loaded ruleset
(``CdfParams``): decks, the minimum of players, the cards a coup needs, the
drawing tables of ponte and banker, the employee's advice, the auction's
steps, the share of a banco avec la table, associates.

Choices where the rule leaves room: no stop card and no burn (the rule
has neither); a new shoe as soon as fewer cards remain than a coup needs;
PASS, BID and AWARD come after the ``ROUND n begin`` of the coup the new
banker deals; a passed hand is offered to the seated players from the
banker's right and the first who accepts takes it (refusals are not
logged); after the bank loses, the next seated player from the banker's
right takes the hand; a hand taken back au taux starts with the bank it
held, one won at auction with the amount of the award; bids start at the
table minimum and only seated players bid; a suite is logged with or
without ``HAND how=suite``; the banker's associate never pontes against
the hand he shares and never takes it when it is passed; banco suivi is
called by the ponte who held the last coup's banco, or alone staked on it,
in the same hand; the banker always follows the drawing table, whether
or not he asked for it.
"""

from __future__ import annotations

import random
from datetime import datetime
from decimal import Decimal

from ...rulesets import LoadedRuleset
from ...simulate.money import CENT, round_down, round_up, split
from ...simulate.shoe import Shoe
from ...simulate.specs import TableSpec
from ...simulate.style import heavy
from ...simulate.table import Plan, TableNight
from ...values import Card, fmt_amount
from .cards import BACCARA_POINTS
from .params import CdfParams, cdf_params

#: The simulated tables have at most this many places.
SEATS_AT_MOST = 10
#: Banks and stakes players like to put up (not limits: a table's own are checked as they are chosen).
BANKS = tuple(
    Decimal(v) for v in (60, 100, 100, 120, 200, 200, 250, 300, 400, 500, 600, 1000, 1500, 2000)
)
STAKES = tuple(Decimal(v) for v in (20, 30, 40, 50, 60, 100, 100, 150, 200, 250, 300, 500, 1000))
#: The new minimums a table may move to during play.
MINIMUMS = (Decimal(100), Decimal(120), Decimal(200))
#: A banker passes the hand once a quarter of the maximum is less than the bank he holds.
PASS_AT_BANK_TIMES = 4

#: How often things happen at a chemin de fer table (per coup unless it says otherwise).
P_PASS = 0.06  # a banker who won passes the hand ...
P_PASS_PER_WIN = 0.08  # ... more likely the longer his suite
P_TAKE = 0.2  # each seated player offered a passed hand takes it
P_TAUX = 0.5  # nobody took it: the banker takes it back au taux (else auction)
P_SUITE_LOGGED = 0.3  # a suite is logged with HAND how=suite (else no HAND line)
P_RAISE = 0.15  # a banker going on raises the bank
P_ASSOCIATE = 0.15  # a new banker takes an associate
P_SUIVI = 0.5  # the ponte with the right to it calls banco suivi
P_BANCO = 0.35  # a solo banco
P_BANCO_TABLE = 0.15  # a banco avec la table
P_SECOND_BANCO = 0.25  # a second player calls banco too (and yields to priority)
P_STANDING = 0.12  # a standing player plays (a stake, or the only banco)
P_DOUBLE_STAKE = 0.05  # a ponte adds to his stake
P_EQUAL_STAKE = 0.2  # a ponte stakes as much as the largest stake so far
P_TABLEAU = 0.2  # the banker asks for the tableau
P_ADVICE = 0.3  # a ponte on a point where he may choose asks the employee
P_ADVICE_OTHER = 0.03  # a ponte on another point asks the employee
P_DRAW_CHOICE = 0.5  # a ponte on a point where he may choose draws
P_BANKER_CHOICE = 0.5  # a banker at a cell where he may choose draws
P_CUT_REFUSED = 0.35  # each player offered the cut declines it (the last one offered cuts)
P_LEAVE = 0.04
P_SIT = 0.05


def points(cards: list[Card]) -> int:
    return sum(BACCARA_POINTS[c.rank] for c in cards) % 10


def banker_cell(params: CdfParams, banker: int, third: int | None) -> str:
    """What the drawing table says (T draw, R stand, O either) for a banker on ``banker``
    against the ponte's third card (None: he stood)."""
    if banker in params.banker_always_draws:
        return "T"
    if banker in params.banker_always_stands:
        return "R"
    return params.banker_rows[banker][10 if third is None else third]


def _seat_of(owner: str | None) -> int | None:
    if owner is None or not owner.startswith("seat:"):
        return None
    return int(owner[5:])


class CdfNight(TableNight):
    """A chemin de fer table's night: the hand passes between players, the pontes play against it."""

    @staticmethod
    def read_params(ruleset: LoadedRuleset) -> CdfParams:
        return cdf_params(ruleset)

    @staticmethod
    def check(spec: TableSpec, params: CdfParams) -> None:
        """Refuse (``ValueError``) a table its ruleset does not allow, or one larger than we simulate."""
        if not params.min_players <= spec.seats <= SEATS_AT_MOST:
            raise ValueError(
                f"a chemin de fer table has {params.min_players} to {SEATS_AT_MOST} seats"
            )
        if spec.procedure != "sabot":
            raise ValueError(
                "chemin de fer cards are shuffled by hand and cut into a sabot (procedure=sabot)"
            )
        if spec.side_min is not None or spec.side_max is not None:
            raise ValueError("chemin de fer has no égalité bet")

    def __init__(
        self, spec: TableSpec, params: CdfParams, rng: random.Random, start: datetime, number: int
    ):
        super().__init__(spec, rng, start, number)
        self.p = params
        self.standing = [self.standing_owner(self.new_player_id()) for _ in range(3)]
        self.shoe: Shoe | None = None
        self.plan = self._make_plan()
        self.plan_extra_limits()
        self.heavy = (
            spec.style.heavy_stakes
        )  # banks and stakes from the heavy-tailed law, not round sums
        # the hand (la main)
        self.banker: int | None = None
        self.held = Decimal(0)  # what the bank holds after the last coup
        self.result: str | None = None  # the bank "won", "lost" or "push" the last coup
        self.wins = 0  # coups the bank won in this hand
        self.associate: str | None = None
        self.suivi: str | None = None  # who may call banco suivi on the next coup
        self.table_banco: str | None = (
            None  # the last coup's banco avec la table: first for a solo banco (art. 21)
        )
        self.coups_in_shoe = 0
        #: (banker point, ponte's third card or None, banker drew) of every coup decided at the table
        self.cells: list[tuple[int, int | None, bool]] = []

    def standing_owner(self, player: str) -> str:
        return f"standing:{player}"

    def _make_plan(self) -> Plan:
        r, rng = self.spec.rounds, self.rng
        third = max(2, r // 3)
        return Plan(
            limits=rng.randint(third, max(third, 2 * r // 3)),
            pause=None,
            supervisor_in=rng.randint(2, max(2, third)),
            supervisor_out=rng.randint(2 * third, max(2 * third, r - 3)),
            reliefs=set(range(rng.randint(15, 30), r + 1, rng.randint(20, 40))),
            announce=None,
        )

    # .. the night
    def open(self) -> None:
        s = self.spec
        self.emit(
            f"OPEN game=chemin-de-fer ruleset={s.ruleset} seats={s.seats} min={fmt_amount(s.min)} "
            f"max={fmt_amount(s.max)}",
            0.0,
            0.5,
        )
        self.relief()
        for _ in range(self.rng.randint(min(self.p.min_players + 1, s.seats), s.seats)):
            self.sit()

    def between(self, n: int) -> None:
        if n > 1:
            self._seat_changes()
            self.new_standing()
            self.one_offs(n)
        if self.shoe is None or self.shoe.left < self.p.min_cards:
            self._new_shoe()

    def _seat_changes(self) -> None:
        keep = {self.banker, _seat_of(self.associate)}
        movable = [s for s in sorted(self.players) if s not in keep]
        churn = self.spec.style.churn
        if (
            len(self.players) > self.p.min_players
            and movable
            and self.rng.random() < P_LEAVE * churn
        ):
            seat = self.rng.choice(movable)
            self.leave(seat)
            if self.suivi == f"seat:{seat}":
                self.suivi = None
        if len(self.players) < self.spec.seats and self.rng.random() < P_SIT * churn:
            self.sit()

    def change_limits(self) -> None:
        """The starting minimum may change during play (Ostende, art. 5); the maximum stays."""
        bigger = [v for v in MINIMUMS if self.min < v <= self.max]
        self.min = self.rng.choice(bigger) if bigger else self.min
        self.post_limits()

    def post_limits(self) -> None:
        self.emit(f"LIMITS min={fmt_amount(self.min)} max={fmt_amount(self.max)}", 2, 8)

    def _new_shoe(self) -> None:
        """A new shoe, hand-shuffled, cut from the employee's left downwards (arts. 3-4)."""
        self.shoe = Shoe(self.rng, self.p.decks)
        self.coups_in_shoe = 0
        self.emit(f"SHOE new decks={self.p.decks} procedure=sabot", 5, 15)
        self.emit("SHUFFLE", 60, 180)
        offered = sorted(self.players, reverse=True)
        for i, seat in enumerate(offered):
            if i < len(offered) - 1 and self.rng.random() < P_CUT_REFUSED:
                self.emit(f"CUT refused by=seat:{seat}", 2, 6)
            else:
                self.emit(f"CUT by=seat:{seat}", 2, 6)
                break

    def draw(self) -> Card:
        assert self.shoe is not None
        return self.shoe.take()

    # .. places
    def from_right(self, seat: int) -> list[int]:
        """The occupied seats other than ``seat``, from its right: ascending after it, wrapping round."""
        return sorted(
            (s for s in self.players if s != seat), key=lambda s: (s - seat - 1) % self.spec.seats
        )

    def place(self, owner: str, standing_order: list[str]) -> tuple[int, int]:
        """Seated pontes from the banker's right, then standing players in the order they played (art. 33)."""
        seat = _seat_of(owner)
        if seat is not None:
            assert self.banker is not None
            return (0, (seat - self.banker - 1) % self.spec.seats)
        return (1, standing_order.index(owner) if owner in standing_order else len(standing_order))

    # .. one coup
    def play(self, n: int) -> None:
        self.emit(f"ROUND {n} begin", 10, 40)
        bank, new_hand = self._hand()
        if new_hand and self.p.max_associates > 0 and self.rng.random() < P_ASSOCIATE:
            self._associate(bank)
        ponte, mode, stakes, order = self._bets(bank)
        self.emit("NOMOREBETS")
        self.emit(f"PONTE by={ponte}")
        pc: list[Card] = []
        bc: list[Card] = []
        for hand in (pc, bc, pc, bc):
            hand.append(self.draw())
            self.emit(f"DEAL {'ponte' if hand is pc else 'banker'} {hand[-1]}", 0.5, 1.5)
        p, b = points(pc), points(bc)
        if p >= 8 or b >= 8:
            if p >= 8:
                self.emit(f"ABAT ponte {p}")
            if b >= 8:
                self.emit(f"ABAT banker {b}")
        else:
            self._third_cards(pc, bc)
        p, b = points(pc), points(bc)
        self.emit(f"POINT ponte={p} banker={b}", 1, 4)
        verb = "PAY" if p > b else "COLLECT" if b > p else "PUSH"
        for owner in sorted(stakes, key=lambda o: self.place(o, order)):
            tail = "" if verb == "PUSH" else f" amount={fmt_amount(stakes[owner])}"
            self.emit(f"{verb} by={owner}{tail}")
        self.emit(f"ROUND {n} end")
        self._after(bank, stakes, verb, ponte, mode)

    def _after(
        self, bank: Decimal, stakes: dict[str, Decimal], verb: str, ponte: str, mode: str | None
    ) -> None:
        self.coups_in_shoe += 1
        self.table_banco = ponte if mode == "table" else None
        total = sum(stakes.values(), Decimal(0))
        if verb == "PAY":
            self.result = "lost"
            self.suivi = None
            return
        self.result = "won" if verb == "COLLECT" else "push"
        self.held = bank + total if verb == "COLLECT" else bank
        self.wins += verb == "COLLECT"
        # arts. 25, 12 and 23: the ponte who made the banco, or who alone staked, may follow it
        self.suivi = (
            ponte if mode is not None else (next(iter(stakes)) if len(stakes) == 1 else None)
        )

    # .. the hand: first, suite, passed (taken, taux, auction), or taken after the bank lost
    def _hand(self) -> tuple[Decimal, bool]:
        """Log the hand's events and BANK; return the bank and whether the hand is new (associate allowed)."""
        if self.coups_in_shoe == 0:
            return self._take(min(self.players), "first"), True
        assert self.banker is not None
        if self.result == "lost":
            return self._take(self.from_right(self.banker)[0], "taken"), True
        if self.banker not in self.players or self._passes():
            return self._pass(), True
        if self.rng.random() < P_SUITE_LOGGED:
            self.emit(f"HAND seat={self.banker} how=suite", 1, 2)
        bank = max(self.held, self.min)
        if self.rng.random() < P_RAISE:
            bank = round_up(
                bank + self.rng.choice((Decimal(50), Decimal(100), bank / 2)), Decimal(100)
            )
        self.emit(f"BANK amount={fmt_amount(bank)}")
        return bank, False

    def _passes(self) -> bool:
        if self.held * PASS_AT_BANK_TIMES > self.max:
            return True
        return self.rng.random() < P_PASS + P_PASS_PER_WIN * self.wins

    def _new_banker(self, seat: int) -> None:
        self.banker, self.wins, self.associate, self.suivi = seat, 0, None, None

    def _take(self, seat: int, how: str, bank: Decimal | None = None) -> Decimal:
        self._new_banker(seat)
        self.emit(f"HAND seat={seat} how={how}", 1, 2)
        if bank is None and self.heavy:
            bank = heavy(self.rng, self.min, self.max)
        elif bank is None:
            bank = self.rng.choice([v for v in BANKS if self.min <= v <= self.max] or [self.min])
        self.emit(f"BANK amount={fmt_amount(bank)}")
        return bank

    def _bid_step(self, top: Decimal) -> Decimal:
        return next(step for below, step in self.p.bid_steps if below is None or top < below)

    def _pass(self) -> Decimal:
        """The passed hand is offered from the banker's right, retaken au taux, or auctioned (arts. 7-9)."""
        passer, associate = self.banker, _seat_of(self.associate)
        assert passer is not None
        self.emit("PASS", 1, 3)
        offered = [s for s in self.from_right(passer) if s != associate]
        for seat in offered:
            if self.rng.random() < P_TAKE:
                return self._take(seat, "taken")
        if passer in self.players and self.rng.random() < P_TAUX:
            return self._take(passer, "taux", max(self.held, self.min))
        bidders = [s for s in offered if s != passer]
        top: Decimal | None = None
        leader: int | None = None
        for _ in range(self.rng.randint(1, 6)):
            rivals = [s for s in bidders if s != leader]
            if not rivals:
                break
            who = self.rng.choice(rivals)
            amount = (
                self.min
                if top is None
                else top + self._bid_step(top) * self.rng.choice((1, 1, 1, 2, 3))
            )
            self.emit(f"BID by=seat:{who} amount={fmt_amount(amount)}", 2, 6)
            top, leader = amount, who
        assert top is not None and leader is not None
        self.emit(f"AWARD by=seat:{leader} amount={fmt_amount(top)}", 2, 5)
        return self._take(leader, "auction", top)

    def _associate(self, bank: Decimal) -> None:
        """An associate on the first coup of a new hand, putting up no more than the banker (art. 6)."""
        share = round_down(bank / 2, Decimal(10))
        candidates = [f"seat:{s}" for s in self.from_right(self.banker or 0)] + self.standing
        if share <= 0:
            return
        self.associate = self.rng.choice(candidates)
        amount = self.rng.choice([v for v in (share, round_down(share / 2, Decimal(10))) if v > 0])
        self.emit(f"ASSOCIATE by={self.associate} amount={fmt_amount(amount)}")

    # .. bancos and stakes
    def _bets(self, bank: Decimal) -> tuple[str, str | None, dict[str, Decimal], list[str]]:
        """Log bancos and stakes; return the ponte, the banco mode (None: stakes), the stakes in play, standing order."""
        assert self.banker is not None
        seated = [
            f"seat:{s}" for s in self.from_right(self.banker) if f"seat:{s}" != self.associate
        ]
        standing = [p for p in self.standing if p != self.associate]
        rng = self.rng
        if self.suivi is not None and self.suivi != self.associate and rng.random() < P_SUIVI:
            others = [o for o in seated if o != self.suivi]
            calls = [(self.suivi, "suivi")]
            if others and rng.random() < P_SECOND_BANCO:
                calls.append((rng.choice(others), "solo"))
                rng.shuffle(calls)
            for owner, mode in calls:
                self.emit(f"BANCO by={owner} mode={mode}")
            return self.suivi, "suivi", {self.suivi: bank}, []
        r = rng.random()
        if r < P_BANCO:
            if rng.random() < P_STANDING:
                caller = rng.choice(standing)
                self.emit(f"BANCO by={caller} mode=solo")
                return caller, "solo", {caller: bank}, []
            callers = rng.sample(
                seated, 2 if len(seated) > 1 and rng.random() < P_SECOND_BANCO else 1
            )
            for owner in callers:
                self.emit(f"BANCO by={owner} mode=solo")
            caller = min(callers, key=lambda o: (o != self.table_banco, self.place(o, [])))
            return caller, "solo", {caller: bank}, []
        if r < P_BANCO + P_BANCO_TABLE and len(seated) > 1:
            caller = rng.choice(seated)
            self.emit(f"BANCO by={caller} mode=table")
            own = (bank * self.p.table_share).quantize(CENT)
            rest = bank - own
            others = rng.sample(
                [o for o in seated if o != caller], rng.randint(1, min(3, len(seated) - 1))
            )
            stakes = {caller: own}
            for owner, amount in zip(others, split(rng, rest, len(others))):
                self.emit(f"STAKE by={owner} amount={fmt_amount(amount)}")
                stakes[owner] = amount
            return caller, "table", stakes, []
        return self._stakes(bank, seated, standing)

    def _stakes(
        self, bank: Decimal, seated: list[str], standing: list[str]
    ) -> tuple[str, str | None, dict[str, Decimal], list[str]]:
        rng = self.rng
        stakes: dict[str, Decimal] = {}
        order: list[str] = []
        room = bank
        players = rng.sample(seated, rng.randint(1, min(5, len(seated))))
        if rng.random() < P_STANDING:
            players.append(rng.choice(standing))
        for owner in players:
            fits = [v for v in STAKES if v <= room]
            if not fits:
                break
            if stakes and rng.random() < P_EQUAL_STAKE and max(stakes.values()) <= room:
                amount = max(
                    stakes.values()
                )  # an equal stake: the first from the banker's right holds the cards
            elif self.heavy:
                amount = heavy(rng, STAKES[0], room)
            else:
                amount = rng.choices(fits, [1 / (i + 1) for i in range(len(fits))])[0]
            room -= amount
            if rng.random() < P_DOUBLE_STAKE and amount >= 40:
                first = round_down(amount / 2, Decimal(10))
                self.emit(f"STAKE by={owner} amount={fmt_amount(first)}")
                self.emit(f"STAKE by={owner} amount={fmt_amount(amount - first)}")
            else:
                self.emit(f"STAKE by={owner} amount={fmt_amount(amount)}")
            stakes[owner] = amount
            if _seat_of(owner) is None:
                order.append(owner)
        top = max(a for o, a in stakes.items() if _seat_of(o) is not None)
        ponte = min(
            (o for o, a in stakes.items() if a == top and _seat_of(o) is not None),
            key=lambda o: self.place(o, order),
        )
        return ponte, None, stakes, order

    # .. third cards
    def _third_cards(self, pc: list[Card], bc: list[Card]) -> None:
        """The ponte speaks first, by his drawing rule; the banker follows the table (art. 17)."""
        rng, d = self.rng, self.p
        p = points(pc)
        if rng.random() < (P_ADVICE if p in d.ponte_chooses_on else P_ADVICE_OTHER):
            draws = (
                p in d.ponte_draws_on and p not in d.advice_non_on
            )  # the employee's advice (art. 11)
            self.emit(f"ADVICE ponte {'card' if draws else 'non'}")
        else:
            draws = p in d.ponte_draws_on or (
                p in d.ponte_chooses_on and rng.random() < P_DRAW_CHOICE
            )
        self.emit(f"CALL ponte {'card' if draws else 'non'}", 1, 4)
        third = None
        if draws:
            pc.append(self.draw())
            self.emit(f"DEAL ponte {pc[-1]}", 0.5, 1.5)
            third = BACCARA_POINTS[pc[-1].rank]
        if rng.random() < P_TABLEAU:
            self.emit("TABLEAU banker")
        b = points(bc)
        cell = banker_cell(d, b, third)
        banker_draws = cell == "T" or (cell == "O" and rng.random() < P_BANKER_CHOICE)
        self.emit(f"CALL banker {'card' if banker_draws else 'non'}", 1, 4)
        if banker_draws:
            bc.append(self.draw())
            self.emit(f"DEAL banker {bc[-1]}", 0.5, 1.5)
        self.cells.append((b, third, banker_draws))
