"""Generate rule-abiding bataille Dealer Event Logs (DEL v1).

Why this exists: vendors of table-management systems test their tables with
logs that follow every rule, and so do we. A clean log must give the auditor
no finding at all, which makes it the natural regression fixture; and with
many tables and thousands of rounds it is the large input we measure the
auditor's speed and memory on.

What it writes: for each table, its whole night (OPEN, dealers, players
coming and going, shoes, rounds, CLOSE) under the French arrêté
(``fr-bataille-2007``) or the Monaco Sun War Game (``mc-sun-war-2006``). The
cards are real: each shoe is six 52-card decks shuffled by the seeded
generator and drawn in order, and every BURN and DEAL logs the card it took,
so stop cards, batailles and égalités come out as the cards fall.

Everything is deterministic for a seed: one ``random.Random`` per table,
seeded from ``seed``; never the global generator, never the clock. Money is
``Decimal`` throughout. The tables' lines are merged by timestamp (ties
broken by table id); each table's own lines are strictly increasing in time.

Choices where the rules leave room: the war stake of a hand is one BET by
the hand's player for the hand's whole main total (standing shares
included); a bet on a vacant place, its war stake included, carries
``by=seat:M approved``; égalité bets are the seated player's own; only FR
shoes ever see a ``CUT refused``; only MC shuffling-dealing machines PAUSE;
an MC night of fewer than three rounds announces ``last-shoe`` instead.

    python -m audit.simulate                     # writes fixtures/nights/example-night.del
    python -m audit.simulate --tables 20 --rounds 2000 --seed 7 -o big.del
"""

from __future__ import annotations

import argparse
import heapq
import random
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from decimal import ROUND_DOWN, Decimal
from pathlib import Path
from typing import Iterator

from .values import RANKS, SUITS, Card, fmt_amount

FR = "fr-bataille-2007"
MC = "mc-sun-war-2006"
PROCEDURES = ("sabot", "shuffler", "shuffler-dealer")
DECKS = 6
SHOE_SIZE = 52 * DECKS
START_BURNS = 5
TALON_RANGE = (52, 80)
FR_MULTIPLES = (10, 20, 30, 50)
EGALITE_ODDS = 10
TZ = timezone(timedelta(hours=1))
CENT = Decimal("0.01")
NICE = tuple(Decimal(v) for v in (
    5, 10, 20, 25, 50, 75, 100, 150, 200, 250, 300, 500, 750,
    1000, 1500, 2000, 2500, 5000, 10000))

EXAMPLE_PATH = Path(__file__).resolve().parent.parent / "fixtures" / "nights" / "example-night.del"
#: Picked so that the card-driven rarities all occur: a stop card due exactly
#: at a round's end, a lone Ace at an MC bataille, several players at one
#: bataille on both rulesets, an égalité re-bet won, a refused cut.
EXAMPLE_SEED = 2031
EXAMPLE_START = datetime(2026, 11, 20, 21, 0, tzinfo=TZ)

#: How often things happen (per round, or per hand where it says so).
P_PLAYS = 0.85          # a seated player stakes his own hand
P_EGALITE = 0.3         # ... and adds an égalité bet
P_WITHDRAW = 0.05       # ... after first putting (then taking back) more
P_VACANT = 0.1          # a seated player stakes a vacant place (approved)
P_STANDING = 0.2        # a standing player joins a seated hand
P_WAR = 0.7             # a tied hand goes to bataille rather than surrender
P_EGALITE_WAR = 0.4     # MC: a player at bataille re-bets égalité
P_LEAVE = 0.08          # a seated player leaves between rounds
P_SIT = 0.1             # a new player sits down between rounds
P_CUT_REFUSED = 0.25    # FR: the first player asked declines to cut


@dataclass(frozen=True)
class TableSpec:
    """One table of the simulated night."""

    table: str
    ruleset: str
    rounds: int
    seats: int
    min: Decimal
    max: Decimal
    egalite_min: Decimal
    egalite_max: Decimal
    procedure: str = "sabot"

    def __post_init__(self) -> None:
        if self.ruleset not in (FR, MC):
            raise ValueError(f"unknown ruleset {self.ruleset!r}")
        if self.procedure not in PROCEDURES:
            raise ValueError(f"unknown procedure {self.procedure!r}")
        if not (1 <= self.seats <= 99 and self.rounds >= 0):
            raise ValueError("seats must be 1..99 and rounds >= 0")
        if not (0 < self.min <= self.max and 0 < self.egalite_min <= self.egalite_max):
            raise ValueError("limits must be positive with min <= max")
        if self.ruleset == FR:
            _check_fr(self)


def _check_fr(spec: TableSpec) -> None:
    if spec.seats > 7:
        raise ValueError("a French bataille table has at most 7 seats")
    if spec.max not in [spec.min * k for k in FR_MULTIPLES]:
        raise ValueError("French maximum must be 10, 20, 30 or 50 times the minimum")


# -- public API -----------------------------------------------------------------

def simulate(*, tables: list[TableSpec], seed: int, start: datetime,
             casino: str = "Casino-Simulation") -> Iterator[str]:
    """Yield the lines (no line ends) of one rule-abiding night at ``tables``."""
    yield "#DEL 1"
    yield f"#casino {casino}"
    yield "#source audit-simulate"
    master = random.Random(seed)
    t0 = _to_ms(start)
    streams = []
    for i, spec in enumerate(tables):
        rng = random.Random(master.getrandbits(64))
        begin = t0 + timedelta(seconds=7 * i, milliseconds=rng.randint(0, 999))
        streams.append(_Table(spec, rng, begin, i + 1).lines())
    for _, _, line in heapq.merge(*streams):
        yield line


def example_tables() -> list[TableSpec]:
    """The three tables of the example night: both rulesets, all procedures."""
    d = Decimal
    return [
        TableSpec("BAT-01", FR, 120, 7, d(10), d(500), d(5), d(50), "sabot"),
        TableSpec("BAT-02", MC, 100, 7, d(20), d(1000), d(5), d(100), "shuffler"),
        TableSpec("BAT-03", MC, 110, 6, d("12.50"), d(1250), d("2.50"), d(125), "shuffler-dealer"),
    ]


def write_example_night(path: Path | str = EXAMPLE_PATH) -> int:
    """Write the example night to ``path``; return its number of lines."""
    lines = simulate(tables=example_tables(), seed=EXAMPLE_SEED, start=EXAMPLE_START,
                     casino="Casino-Exemple")
    return _write(lines, Path(path))


def generated_tables(count: int, rounds: int) -> list[TableSpec]:
    """``count`` tables alternating rulesets and procedures, for large inputs."""
    d = Decimal
    specs = []
    for i in range(count):
        ruleset = FR if i % 2 == 0 else MC
        procedure = PROCEDURES[i % 3]
        low = (d(10), d(20), d(25), d(50))[i % 4]
        specs.append(TableSpec(f"BAT-{i + 1:02d}", ruleset, rounds, 7, low, low * 50,
                               d(5), low * 5, procedure))
    return specs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m audit.simulate", description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--out", help="output file (default: the example night)")
    ap.add_argument("--tables", type=int, help="generate this many tables instead of the example")
    ap.add_argument("--rounds", type=int, default=500, help="rounds per generated table")
    ap.add_argument("--seed", type=int, default=EXAMPLE_SEED)
    args = ap.parse_args(argv)
    if args.tables is None:
        count = write_example_night(args.out or EXAMPLE_PATH)
    else:
        lines = simulate(tables=generated_tables(args.tables, args.rounds), seed=args.seed,
                         start=EXAMPLE_START)
        count = _write(lines, Path(args.out)) if args.out else _print(lines)
    print(f"{count} lines", file=sys.stderr)
    return 0


def _write(lines: Iterator[str], path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8", newline="\n") as out:
        for line in lines:
            out.write(line + "\n")
            count += 1
    return count


def _print(lines: Iterator[str]) -> int:
    count = 0
    for line in lines:
        sys.stdout.write(line + "\n")
        count += 1
    return count


# -- small helpers ----------------------------------------------------------------

def _to_ms(start: datetime) -> datetime:
    t = start.replace(tzinfo=TZ) if start.tzinfo is None else start.astimezone(TZ)
    return t.replace(microsecond=t.microsecond // 1000 * 1000)


def _stamp(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds")


def _amounts(low: Decimal, high: Decimal) -> list[Decimal]:
    """Amounts a player would put down between ``low`` and ``high``."""
    steps = {low * k for k in (1, 2, 3, 4, 5, 10, 20, 50)}
    return sorted(v for v in steps | set(NICE) if low <= v <= high)


def _pick(rng: random.Random, low: Decimal, high: Decimal) -> Decimal:
    values = _amounts(low, high)
    weights = [1 / (i + 1) for i in range(len(values))]
    return rng.choices(values, weights)[0]


def _half_down(amount: Decimal) -> Decimal:
    return (amount / 2).quantize(CENT, rounding=ROUND_DOWN)


def _compare(player: Card, dealer: Card) -> int:
    return (player.bataille_value > dealer.bataille_value) - (player.bataille_value < dealer.bataille_value)


# -- the shoe ---------------------------------------------------------------------

class _Shoe:
    """312 real cards in shuffled order; knows its stop card (or reload point)."""

    def __init__(self, rng: random.Random, procedure: str):
        self.cards = [Card(rank=r, suit=s) for _ in range(DECKS) for r in RANKS for s in SUITS]
        rng.shuffle(self.cards)
        self.drawn = 0
        self.machine = procedure == "shuffler-dealer"
        self.talon = None if self.machine else rng.randint(*TALON_RANGE)
        #: a shuffling-dealing machine is refilled (unlogged threshold) before it runs dry
        self.reload = rng.randint(*TALON_RANGE) if self.machine else 0
        self.stop_out = False

    def stop_due(self) -> bool:
        return (self.talon is not None and not self.stop_out
                and self.drawn == SHOE_SIZE - self.talon)

    def take(self) -> Card:
        card = self.cards[self.drawn]
        self.drawn += 1
        return card

    def spent(self) -> bool:
        if self.machine:
            return SHOE_SIZE - self.drawn < self.reload
        return self.stop_out


# -- one table's night --------------------------------------------------------------

@dataclass
class _Plan:
    """Round numbers before which the table's one-off events happen."""

    limits: int
    pause: int | None
    supervisor_in: int
    supervisor_out: int
    reliefs: set[int]
    announce: int | None


class _Table:
    def __init__(self, spec: TableSpec, rng: random.Random, start: datetime, number: int):
        self.spec, self.rng, self.t, self.number = spec, rng, start, number
        self.mc = spec.ruleset == MC
        self.min, self.max = spec.min, spec.max
        self.eg_min, self.eg_max = spec.egalite_min, spec.egalite_max
        self.players: dict[int, str] = {}
        self.counter = 0
        self.standing = [self._new_player_id() for _ in range(3)]
        self.supervisor = False
        self.paused_done = False
        self.shoe: _Shoe | None = None
        self.out: list[tuple[datetime, str, str]] = []
        self.plan = self._make_plan()

    # .. output
    def emit(self, text: str, lo: float = 1.0, hi: float = 3.0) -> None:
        """Log ``text`` ``lo``..``hi`` seconds (whole milliseconds) after the table's last line."""
        self.t += timedelta(milliseconds=self.rng.randint(int(lo * 1000), int(hi * 1000)))
        table = self.spec.table
        self.out.append((self.t, table, f"{_stamp(self.t)} {table} {text}"))

    def _flush(self) -> Iterator[tuple[datetime, str, str]]:
        out, self.out = self.out, []
        yield from out

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
    def lines(self) -> Iterator[tuple[datetime, str, str]]:
        self._open()
        yield from self._flush()
        for n in range(1, self.spec.rounds + 1):
            self._between(n)
            _Round(self, n).play()
            yield from self._flush()
        self._close()
        yield from self._flush()

    def _make_plan(self) -> _Plan:
        r, rng = self.spec.rounds, self.rng
        third = max(2, r // 3)
        reliefs = set(range(rng.randint(20, 40), r + 1, rng.randint(25, 45)))
        return _Plan(
            limits=rng.randint(third, max(third, 2 * r // 3)),
            pause=rng.randint(third, max(third, 2 * r // 3)) if self._pauses() else None,
            supervisor_in=rng.randint(2, max(2, third)),
            supervisor_out=rng.randint(2 * third, max(2 * third, r - 3)),
            reliefs=reliefs,
            announce=max(1, r - 2) if self.mc else None,
        )

    def _pauses(self) -> bool:
        """Only the Monaco text has a machine stop and restart (with its 5 burns)."""
        return self.mc and self.spec.procedure == "shuffler-dealer"

    def _new_player_id(self) -> str:
        self.counter += 1
        return f"P{self.number:02d}-{self.counter:03d}"  # unique in the casino

    def _open(self) -> None:
        s = self.spec
        self.emit(f"OPEN game=bataille ruleset={s.ruleset} seats={s.seats} min={fmt_amount(s.min)} "
                  f"max={fmt_amount(s.max)} egalite-min={fmt_amount(s.egalite_min)} "
                  f"egalite-max={fmt_amount(s.egalite_max)}", 0.0, 0.5)
        self._relief()
        for _ in range(self.rng.randint(min(2, s.seats), min(5, s.seats))):
            self._sit()

    def _close(self) -> None:
        if self.supervisor:
            self._supervisor(False)
        self.emit("CLOSE", 10, 60)

    # .. between rounds
    def _between(self, n: int) -> None:
        if n > 1:
            self._seat_changes()
            self._one_offs(n)
        if self.shoe is None or self.shoe.spent():
            self._new_shoe()
        elif self._pause_due(n):
            self._pause()
        if n == self.plan.announce:
            self._announce()

    def _announce(self) -> None:
        """MC: the three last rounds; a night of one or two rounds is its last shoe."""
        if self.spec.rounds >= 3:
            self.emit("ANNOUNCE last-rounds n=3")
        else:
            self.emit("ANNOUNCE last-shoe")  # the shoe just prepared outlasts the night

    def _one_offs(self, n: int) -> None:
        if n in self.plan.reliefs:
            self._relief()
        if n == self.plan.supervisor_in:
            self._supervisor(True)
        if n == self.plan.supervisor_out and self.supervisor:
            self._supervisor(False)
        if n == self.plan.limits:
            self._change_limits()

    def _relief(self) -> None:
        self.emit(f"DEALER id=D{self.rng.randint(100, 999):04d}", 2, 8)

    def _supervisor(self, present: bool) -> None:
        self.supervisor = present
        self.emit(f"SUPERVISOR {'present' if present else 'absent'}", 2, 8)

    def _seat_changes(self) -> None:
        if len(self.players) > 1 and self.rng.random() < P_LEAVE:
            self._leave(self.rng.choice(sorted(self.players)))
        want = P_SIT * (3 if len(self.players) < 2 else 1)
        if len(self.players) < self.spec.seats and self.rng.random() < want:
            self._sit()

    def _sit(self) -> None:
        free = [s for s in range(1, self.spec.seats + 1) if s not in self.players]
        seat = self.rng.choice(free)
        self.players[seat] = self._new_player_id()
        self.emit(f"SEAT {seat} in player={self.players[seat]}", 1, 5)

    def _leave(self, seat: int) -> None:
        del self.players[seat]
        self.emit(f"SEAT {seat} out", 1, 5)

    def _change_limits(self) -> None:
        if self.mc:
            options = [(self.min * 2, self.max * 2), (self.min, self.max * 2), (self.min * 2, self.max)]
            self.min, self.max = self.rng.choice([o for o in options if o[1] >= o[0] * 10])
        else:
            multiples = [k for k in FR_MULTIPLES if self.min * k != self.max]
            self.max = self.min * self.rng.choice(multiples)
        self.emit(f"LIMITS min={fmt_amount(self.min)} max={fmt_amount(self.max)} "
                  f"egalite-min={fmt_amount(self.eg_min)} egalite-max={fmt_amount(self.eg_max)}", 2, 8)

    # .. shuffling-dealing machine stops for lack of players
    def _pause_due(self, n: int) -> bool:
        return self.plan.pause is not None and not self.paused_done and n >= self.plan.pause

    def _pause(self) -> None:
        self.paused_done = True
        for seat in sorted(self.players):
            self._leave(seat)
        self.emit("PAUSE", 5, 20)
        self.t += timedelta(minutes=self.rng.randint(4, 15))
        for _ in range(self.rng.randint(1, min(4, self.spec.seats))):
            self._sit()
        self.emit("RESUME", 5, 20)
        self.burn(START_BURNS)

    # .. a new shoe
    def _new_shoe(self) -> None:
        self.shoe = _Shoe(self.rng, self.spec.procedure)
        self.emit(f"SHOE new decks={DECKS} procedure={self.spec.procedure}", 5, 15)
        self.emit("SHUFFLE", 20, 90)
        if not self.shoe.machine:
            self._cuts()
            self.emit(f"STOPCARD talon={self.shoe.talon}", 2, 6)
        self.burn(START_BURNS)

    def _cuts(self) -> None:
        self.emit("CUT by=dealer", 5, 15)
        seats = sorted(self.players)
        if not self.mc and len(seats) > 1 and self.rng.random() < P_CUT_REFUSED:
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
    def __init__(self, table: _Table, n: int):
        self.table, self.n, self.rng = table, n, table.rng
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
        seats = sorted(self.table.players)
        for seat in seats:
            if self.rng.random() < P_PLAYS:
                self._seated_bet(seat)
        if not self.hands:
            self._seated_bet(self.rng.choice(seats))
        if self.rng.random() < P_VACANT:
            self._vacant_bet()
        if (self.table.mc or self.table.supervisor) and self.rng.random() < P_STANDING:
            self._standing_bet()

    def _seated_bet(self, seat: int) -> None:
        t = self.table
        hand = self.hands[seat] = _Hand(seat, seat)
        amount = _pick(self.rng, t.min, t.max)
        hand.main[f"seat:{seat}"] = amount
        if amount + t.min <= t.max and self.rng.random() < P_WITHDRAW:
            extra = _pick(self.rng, t.min, t.max - amount)
            self._bet(hand, "main", amount + extra)
            self.emit(f"WITHDRAW seat={seat} spot=main amount={fmt_amount(extra)}")
        else:
            self._bet(hand, "main", amount)
        if self.rng.random() < P_EGALITE:
            hand.egalite = _pick(self.rng, t.eg_min, t.eg_max)
            self._bet(hand, "egalite", hand.egalite)

    def _vacant_bet(self) -> None:
        t = self.table
        vacant = [s for s in range(1, t.spec.seats + 1) if s not in t.players]
        if not vacant:
            return
        hand = _Hand(self.rng.choice(vacant), self.rng.choice(sorted(t.players)))
        self.hands[hand.seat] = hand
        amount = _pick(self.rng, t.min, t.max)
        hand.main[f"seat:{hand.owner}"] = amount
        self._bet(hand, "main", amount, hand.by())

    def _standing_bet(self) -> None:
        t = self.table
        room = [h for h in self.hands.values() if not h.vacant and h.total + t.min <= t.max]
        if not room:
            return
        hand = self.rng.choice(sorted(room, key=lambda h: h.seat))
        player = self.rng.choice(t.standing)
        amount = _pick(self.rng, t.min, t.max - hand.total)
        hand.main[f"standing:{player}"] = amount
        self._bet(hand, "main", amount, f" by=standing:{player}")

    # .. first cards, choices, first settlement
    def _deal_first(self) -> None:
        for seat, hand in sorted(self.hands.items()):
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
        if self.table.mc and not hand.vacant and self.rng.random() < P_EGALITE_WAR:
            hand.egalite_war = _pick(self.rng, self.table.eg_min, self.table.eg_max)
            self._bet(hand, "egalite-war", hand.egalite_war)

    def _settle(self, verb: str, hand: _Hand, spot: str, amount: Decimal | None = None) -> None:
        tail = "" if amount is None else f" amount={fmt_amount(amount)}"
        self.emit(f"{verb} seat={hand.seat} spot={spot}{tail}")

    def _settle_first(self) -> None:
        for _, hand in sorted(self.hands.items(), reverse=True):
            if hand.choice is None:
                won = _compare(hand.card, self.dealer) > 0
                self._settle("PAY" if won else "COLLECT", hand, "main", hand.total)
            elif hand.choice == "surrender":
                self._settle("COLLECT", hand, "main", _half_down(hand.total))
            if hand.egalite:
                self._settle_egalite(hand, "egalite", hand.egalite, self._tied(hand))

    def _settle_egalite(self, hand: _Hand, spot: str, stake: Decimal, won: bool) -> None:
        if won:
            self._settle("PAY", hand, spot, stake * EGALITE_ODDS)
        else:
            self._settle("COLLECT", hand, spot, stake)

    # .. the bataille
    def _deal_bataille(self) -> None:
        if self.table.mc:
            self._deal_bataille_mc()
        else:
            self._deal_bataille_fr()

    def _deal_war_card(self, hand: _Hand) -> None:
        hand.war_card = self.table.draw()
        self.emit(f"DEAL seat={hand.seat} {hand.war_card}")

    def _deal_dealer_war(self) -> None:
        self.table.burn()
        self.dealer_war = self.table.draw()
        self.emit(f"DEAL dealer {self.dealer_war}")

    def _deal_bataille_fr(self) -> None:
        self.table.burn(3)
        for hand in self.warring():
            self._deal_war_card(hand)
        self._deal_dealer_war()

    def _deal_bataille_mc(self) -> None:
        hands = self.warring()
        for hand in hands:
            self.table.burn()
            self._deal_war_card(hand)
        if len(hands) == 1 and hands[0].war_card.rank == "A":
            self.dealer_war = None  # a lone player's Ace wins at once: no dealer card
            return
        self._deal_dealer_war()

    def _settle_bataille(self) -> None:
        for hand in reversed(self.warring()):
            if self.dealer_war is None:
                outcome = 1
            else:
                outcome = _compare(hand.war_card, self.dealer_war)
            if self.table.mc:
                self._settle_bataille_mc(hand, outcome)
            else:
                self._settle_bataille_fr(hand, outcome)

    def _settle_bataille_fr(self, hand: _Hand, outcome: int) -> None:
        if outcome > 0:
            self._settle("PAY", hand, "main", hand.total)
            self._settle("PUSH", hand, "war")
        elif outcome == 0:
            self._settle("PUSH", hand, "main")
            self._settle("PUSH", hand, "war")
        else:
            self._settle("COLLECT", hand, "main", hand.total)
            self._settle("COLLECT", hand, "war", hand.war)

    def _settle_bataille_mc(self, hand: _Hand, outcome: int) -> None:
        if outcome >= 0:
            self._settle("PUSH", hand, "main")
            self._settle("PAY", hand, "war", hand.war)
        else:
            self._settle("COLLECT", hand, "main", hand.total)
            self._settle("COLLECT", hand, "war", hand.war)
        if hand.egalite_war:
            equal = self.dealer_war is not None and outcome == 0
            self._settle_egalite(hand, "egalite-war", hand.egalite_war, equal)


if __name__ == "__main__":
    sys.exit(main())
