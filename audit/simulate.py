"""Generate rule-abiding Dealer Event Logs (DEL v1): bataille and chemin de fer.

Why this exists: vendors of table-management systems test their tables with
logs that follow every rule, and so do we. A clean log must give the auditor
no finding at all, which makes it the natural regression fixture; and with
many tables and thousands of rounds it is the large input we measure the
auditor's speed and memory on.

What it writes: for each table, its whole night (OPEN, dealers, players
coming and going, shoes, rounds, CLOSE) under the French arrêté
(``fr-bataille-2007``), the Monaco Sun War Game (``mc-sun-war-2006``) or the
Ostende chemin de fer rule (``be-ostende-cdf``); tables of every ruleset may
share one night. The cards are real: each shoe is six 52-card decks shuffled
by the seeded generator and drawn in order, and every BURN and DEAL logs the
card it took, so stop cards, batailles, égalités, naturals and the banker's
drawing-table cells come out as the cards fall.

Everything is deterministic for a seed: one ``random.Random`` per table,
seeded from ``seed``; never the global generator, never the clock. Money is
``Decimal`` throughout. The tables' lines are merged by timestamp (ties
broken by table id); each table's own lines are strictly increasing in time.

Choices where the rules leave room (bataille): the war stake of a hand is one BET by
the hand's player for the hand's whole main total (standing shares
included); a bet on a vacant place, its war stake included, carries
``by=seat:M approved``; égalité bets are the seated player's own; only FR
shoes ever see a ``CUT refused``; only MC shuffling-dealing machines PAUSE;
an MC night of fewer than three rounds announces ``last-shoe`` instead.
Chemin de fer: see ``_CdfTable``.

    python -m audit.simulate                     # writes fixtures/nights/example-night.del
    python -m audit.simulate --night cdf         # writes fixtures/nights/cdf-night.del
    python -m audit.simulate --night mixed       # writes fixtures/nights/mixed-night.del
    python -m audit.simulate --tables 20 --rounds 2000 --seed 7 -o big.del
    python -m audit.simulate --tables 4 --cdf 2 --rounds 500 -o mixed-big.del

The command line's ``audit simulate`` (tables named by ruleset, dealt to the
rulesets round-robin: ``cli_tables``) writes the same kind of night, and with
``--inject`` breaks it in known places (``audit.inject``).
"""

from __future__ import annotations

import argparse
import heapq
import random
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from decimal import ROUND_CEILING, ROUND_DOWN, Decimal
from pathlib import Path
from typing import Iterator

from .values import RANKS, SUITS, Card, fmt_amount

FR = "fr-bataille-2007"
MC = "mc-sun-war-2006"
CDF = "be-ostende-cdf"
RULESETS = (FR, MC, CDF)
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

NIGHTS_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "nights"
EXAMPLE_PATH = NIGHTS_DIR / "example-night.del"
CDF_PATH = NIGHTS_DIR / "cdf-night.del"
MIXED_PATH = NIGHTS_DIR / "mixed-night.del"
#: Picked so that the card-driven rarities all occur: a stop card due exactly
#: at a round's end, a lone Ace at an MC bataille, several players at one
#: bataille on both rulesets, an égalité re-bet won, a refused cut.
EXAMPLE_SEED = 2031
EXAMPLE_START = datetime(2026, 11, 20, 21, 0, tzinfo=TZ)
#: Picked so that, across the chemin de fer night, every cell of the banker's
#: drawing table occurs (rows 0-7 by the ponte's third card 0-9 and NON, both
#: choices at the two O cells), besides passed hands taken, retaken au taux and
#: auctioned, bancos of every kind, associates and raised banks.
CDF_SEED = 7
CDF_START = datetime(2026, 11, 20, 21, 0, tzinfo=TZ)
MIXED_SEED = 7
MIXED_START = datetime(2026, 11, 21, 21, 0, tzinfo=TZ)

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
    egalite_min: Decimal | None = None  # bataille only
    egalite_max: Decimal | None = None  # bataille only
    procedure: str = "sabot"

    def __post_init__(self) -> None:
        if self.ruleset not in RULESETS:
            raise ValueError(f"unknown ruleset {self.ruleset!r}")
        if self.procedure not in PROCEDURES:
            raise ValueError(f"unknown procedure {self.procedure!r}")
        if not (1 <= self.seats <= 99 and self.rounds >= 0):
            raise ValueError("seats must be 1..99 and rounds >= 0")
        if not 0 < self.min <= self.max:
            raise ValueError("limits must be positive with min <= max")
        if self.ruleset == CDF:
            _check_cdf(self)
            return
        if self.egalite_min is None or self.egalite_max is None or not 0 < self.egalite_min <= self.egalite_max:
            raise ValueError("a bataille table needs positive égalité limits with egalite_min <= egalite_max")
        if self.ruleset == FR:
            _check_fr(self)

    @property
    def game(self) -> str:
        return "chemin-de-fer" if self.ruleset == CDF else "bataille"


def _check_cdf(spec: TableSpec) -> None:
    if not CDF_MIN_PLAYERS <= spec.seats <= CDF_MAX_SEATS:
        raise ValueError(f"a chemin de fer table has {CDF_MIN_PLAYERS} to {CDF_MAX_SEATS} seats")
    if spec.procedure != "sabot":
        raise ValueError("chemin de fer cards are shuffled by hand and cut into a sabot (procedure=sabot)")
    if spec.egalite_min is not None or spec.egalite_max is not None:
        raise ValueError("chemin de fer has no égalité bet")


def _check_fr(spec: TableSpec) -> None:
    if spec.seats > 7:
        raise ValueError("a French bataille table has at most 7 seats")
    if spec.max not in [spec.min * k for k in FR_MULTIPLES]:
        raise ValueError("French maximum must be 10, 20, 30 or 50 times the minimum")


# -- public API -----------------------------------------------------------------

def simulate(*, tables: list[TableSpec], seed: int, start: datetime,
             casino: str = "Casino-Simulation") -> Iterator[str]:
    """Yield the lines (no line ends) of one rule-abiding night at ``tables``."""
    yield from header_lines(casino)
    for _, _, line in heapq.merge(*table_streams(tables=tables, seed=seed, start=start)):
        yield line


def header_lines(casino: str = "Casino-Simulation") -> list[str]:
    """The header lines every simulated log starts with."""
    return ["#DEL 1", f"#casino {casino}", "#source audit-simulate"]


def table_streams(*, tables: list[TableSpec], seed: int,
                  start: datetime) -> list[Iterator[tuple[datetime, str, str]]]:
    """One lazy stream of ``(time, table, line)`` per table, each in time order.

    ``heapq.merge`` of them is the night (ties broken by table id); a table's
    stream holds at most one round in memory, however long the night.
    """
    master = random.Random(seed)
    t0 = _to_ms(start)
    streams = []
    for i, spec in enumerate(tables):
        rng = random.Random(master.getrandbits(64))
        begin = t0 + timedelta(seconds=7 * i, milliseconds=rng.randint(0, 999))
        kind = _CdfTable if spec.ruleset == CDF else _Table
        streams.append(kind(spec, rng, begin, i + 1).lines())
    return streams


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
    return write_night("example", path)


def cdf_tables() -> list[TableSpec]:
    """The two tables of the chemin de fer night (Ostende rule)."""
    d = Decimal
    return [
        TableSpec("CDF-01", CDF, 350, 10, d(60), d(100000)),
        TableSpec("CDF-02", CDF, 350, 9, d(100), d(100000)),
    ]


def mixed_tables() -> list[TableSpec]:
    """Bataille (FR and MC) and chemin de fer tables in one casino's stream."""
    d = Decimal
    return [
        TableSpec("BAT-01", FR, 90, 7, d(10), d(500), d(5), d(50), "sabot"),
        TableSpec("CDF-01", CDF, 120, 10, d(60), d(100000)),
        TableSpec("BAT-02", MC, 90, 7, d(20), d(1000), d(5), d(100), "shuffler-dealer"),
        TableSpec("CDF-02", CDF, 100, 8, d(100), d(50000)),
    ]


#: name -> (tables, seed, start, casino, default path)
NIGHTS = {
    "example": (example_tables, EXAMPLE_SEED, EXAMPLE_START, "Casino-Exemple", EXAMPLE_PATH),
    "cdf": (cdf_tables, CDF_SEED, CDF_START, "Kursaal-Ostende", CDF_PATH),
    "mixed": (mixed_tables, MIXED_SEED, MIXED_START, "Casino-Simulation", MIXED_PATH),
}


def night_lines(name: str) -> Iterator[str]:
    """The lines of one of the fixture nights (``NIGHTS``)."""
    tables, seed, start, casino, _ = NIGHTS[name]
    return simulate(tables=tables(), seed=seed, start=start, casino=casino)


def write_night(name: str, path: Path | str | None = None) -> int:
    """Write the fixture night ``name`` (default: its file under fixtures/nights); return its number of lines."""
    return _write(night_lines(name), Path(path or NIGHTS[name][4]))


def generated_tables(count: int, rounds: int, cdf: int = 0) -> list[TableSpec]:
    """``count`` bataille tables alternating rulesets and procedures, then ``cdf``
    chemin de fer tables, for large inputs."""
    d = Decimal
    specs = []
    for i in range(count):
        ruleset = FR if i % 2 == 0 else MC
        procedure = PROCEDURES[i % 3]
        low = (d(10), d(20), d(25), d(50))[i % 4]
        specs.append(TableSpec(f"BAT-{i + 1:02d}", ruleset, rounds, 7, low, low * 50,
                               d(5), low * 5, procedure))
    for i in range(cdf):
        low = (d(60), d(100), d(200))[i % 3]
        specs.append(TableSpec(f"CDF-{i + 1:02d}", CDF, rounds, 10 - i % 3, low, d(100000)))
    return specs


#: Table id prefix of each ruleset in ``cli_tables``.
TABLE_PREFIX = {FR: "FR", MC: "MC", CDF: "CDF"}


def cli_tables(rulesets: list[str], count: int, rounds: int) -> list[TableSpec]:
    """``count`` tables dealt to ``rulesets`` round-robin (the first table to the
    first ruleset, the second to the second...), so that every ruleset has
    several tables when ``count`` is a multiple; what ``audit simulate`` writes.

    Tables are named by ruleset (``FR-01``, ``MC-01``, ``CDF-01``...). The
    bataille tables of one ruleset take the three shoe procedures in turn
    (sabot, shuffling-dealing machine, shuffler) and several limits; the chemin
    de fer tables several minimums and 8 to 10 seats.
    """
    unknown = [r for r in rulesets if r not in RULESETS]
    if unknown or not rulesets:
        raise ValueError(f"unknown ruleset(s) {', '.join(unknown)}; known: {', '.join(RULESETS)}")
    if count < len(rulesets):
        raise ValueError(f"{count} table(s) for {len(rulesets)} ruleset(s): every ruleset needs a table")
    d = Decimal
    seen: dict[str, int] = {}
    specs = []
    for i in range(count):
        ruleset = rulesets[i % len(rulesets)]
        k = seen.get(ruleset, 0)
        seen[ruleset] = k + 1
        name = f"{TABLE_PREFIX[ruleset]}-{k + 1:02d}"
        if ruleset == CDF:
            specs.append(TableSpec(name, CDF, rounds, 10 - k % 3, (d(60), d(100), d(200))[k % 3], d(100000)))
        else:
            low = (d(10), d(20), d(25), d(50))[k % 4]
            procedure = ("sabot", "shuffler-dealer", "shuffler")[k % 3]
            specs.append(TableSpec(name, ruleset, rounds, 7, low, low * 50, d(5), low * 5, procedure))
    return specs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m audit.simulate", description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--out", help="output file (default: the night's file under fixtures/nights)")
    ap.add_argument("--night", choices=sorted(NIGHTS), default="example",
                    help="which fixture night to write (default: example)")
    ap.add_argument("--tables", type=int, help="generate this many bataille tables instead of a fixture night")
    ap.add_argument("--cdf", type=int, default=0, help="with --tables: add this many chemin de fer tables")
    ap.add_argument("--rounds", type=int, default=500, help="rounds per generated table")
    ap.add_argument("--seed", type=int, default=EXAMPLE_SEED)
    args = ap.parse_args(argv)
    if args.tables is None:
        count = write_night(args.night, args.out)
    else:
        lines = simulate(tables=generated_tables(args.tables, args.rounds, args.cdf), seed=args.seed,
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


# -- chemin de fer (Ostende rule) -----------------------------------------------------------

CDF_MIN_PLAYERS = 4     # art. 1er
CDF_MAX_SEATS = 10
CDF_MIN_CARDS = 6       # art. 32: the last coup needs six cards in the shoe
#: The banker's drawing table ("Tableau de tirage"): a row per banker's point
#: 3..6, a column per value of the ponte's third card 0..9, then NON (the
#: ponte stood). T draw, R stand, O either. 0-2 always draw, 7 always stands.
CDF_DRAWING = {3: "TTTTTTTTROT", 4: "RRTTTTTTRRT", 5: "RRRROTTTRRT", 6: "RRRRRRTTRRR"}
#: art. 9: bids rise by 20 below 200, by 100 below 1,500, by 500 below 5,000, then by 1,000.
CDF_BID_STEPS = ((Decimal(200), Decimal(20)), (Decimal(1500), Decimal(100)),
                 (Decimal(5000), Decimal(500)), (None, Decimal(1000)))
CDF_BANKS = tuple(Decimal(v) for v in (60, 100, 100, 120, 200, 200, 250, 300, 400, 500, 600, 1000, 1500, 2000))
CDF_STAKES = tuple(Decimal(v) for v in (20, 30, 40, 50, 60, 100, 100, 150, 200, 250, 300, 500, 1000))

#: How often things happen at a chemin de fer table (per coup unless it says otherwise).
P_CDF_PASS = 0.06           # a banker who won passes the hand ...
P_CDF_PASS_PER_WIN = 0.08   # ... more likely the longer his suite
P_CDF_TAKE = 0.2            # each seated player offered a passed hand takes it
P_CDF_TAUX = 0.5            # nobody took it: the banker takes it back au taux (else auction)
P_CDF_SUITE_LOGGED = 0.3    # a suite is logged with HAND how=suite (else no HAND line)
P_CDF_RAISE = 0.15          # a banker going on raises the bank
P_CDF_ASSOCIATE = 0.15      # a new banker takes an associate
P_CDF_SUIVI = 0.5           # the ponte with the right to it calls banco suivi
P_CDF_BANCO = 0.35          # a solo banco
P_CDF_BANCO_TABLE = 0.15    # a banco avec la table
P_CDF_SECOND_BANCO = 0.25   # a second player calls banco too (and yields to priority)
P_CDF_STANDING = 0.12       # a standing player plays (a stake, or the only banco)
P_CDF_DOUBLE_STAKE = 0.05   # a ponte adds to his stake
P_CDF_TABLEAU = 0.2         # the banker asks for the tableau
P_CDF_ADVICE = 0.3          # a ponte on five asks the employee
P_CDF_ADVICE_OTHER = 0.03   # a ponte on another point asks the employee
P_CDF_DRAW_FIVE = 0.5       # a ponte on five draws
P_CDF_CUT_REFUSED = 0.35    # each player offered the cut declines it (the last one offered cuts)
P_CDF_LEAVE = 0.04
P_CDF_SIT = 0.05


def cdf_points(cards: list[Card]) -> int:
    return sum(c.baccara_points for c in cards) % 10


def cdf_banker_cell(banker: int, third: int | None) -> str:
    """What the drawing table says for a banker on ``banker`` against the ponte's third card (None: he stood)."""
    if banker <= 2:
        return "T"
    if banker >= 7:
        return "R"
    return CDF_DRAWING[banker][10 if third is None else third]


def _bid_step(top: Decimal) -> Decimal:
    return next(step for below, step in CDF_BID_STEPS if below is None or top < below)


class _CdfShoe:
    """312 real cards, shuffled; no stop card and no burn at chemin de fer."""

    def __init__(self, rng: random.Random):
        self.cards = [Card(rank=r, suit=s) for _ in range(DECKS) for r in RANKS for s in SUITS]
        rng.shuffle(self.cards)
        self.drawn = 0

    @property
    def left(self) -> int:
        return len(self.cards) - self.drawn

    def take(self) -> Card:
        card = self.cards[self.drawn]
        self.drawn += 1
        return card


class _CdfTable(_Table):
    """A chemin de fer table's night: the hand passes between players, the pontes play against it.

    Per coup: ``ROUND n begin``, [PASS, [BID..., AWARD]], [HAND], BANK,
    [ASSOCIATE], BANCO/STAKE..., NOMOREBETS, PONTE, four DEALs, then ABAT (a
    natural, the ponte's first) or the calls and third cards ([ADVICE], CALL
    ponte, [DEAL ponte], [TABLEAU banker], CALL banker, [DEAL banker]), POINT,
    the settlements from the banker's right (standing players last), ``ROUND n end``.

    Choices where the rule leaves room: no stop card and no burn (the rule
    has neither); a new shoe as soon as fewer than six cards remain (art. 32);
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
    or not he asked for it, and the ponte draws on 0-4 and stands on 6-7.
    """

    def __init__(self, spec: TableSpec, rng: random.Random, start: datetime, number: int):
        self.spec, self.rng, self.t, self.number = spec, rng, start, number
        self.min, self.max = spec.min, spec.max
        self.players: dict[int, str] = {}
        self.counter = 0
        self.standing = [f"standing:{self._new_player_id()}" for _ in range(3)]
        self.supervisor = False
        self.cshoe: _CdfShoe | None = None
        self.out: list[tuple[datetime, str, str]] = []
        self.plan = self._make_cdf_plan()
        # the hand (la main)
        self.banker: int | None = None
        self.held = Decimal(0)              # what the bank holds after the last coup
        self.result: str | None = None      # the bank "won", "lost" or "push" the last coup
        self.wins = 0                       # coups the bank won in this hand
        self.associate: str | None = None
        self.suivi: str | None = None       # who may call banco suivi on the next coup
        self.coups_in_shoe = 0
        #: (banker point, ponte's third card or None, banker drew) of every coup decided at the table
        self.cells: list[tuple[int, int | None, bool]] = []

    def _make_cdf_plan(self) -> _Plan:
        r, rng = self.spec.rounds, self.rng
        third = max(2, r // 3)
        return _Plan(
            limits=rng.randint(third, max(third, 2 * r // 3)),
            pause=None,
            supervisor_in=rng.randint(2, max(2, third)),
            supervisor_out=rng.randint(2 * third, max(2 * third, r - 3)),
            reliefs=set(range(rng.randint(15, 30), r + 1, rng.randint(20, 40))),
            announce=None,
        )

    # .. the night
    def lines(self) -> Iterator[tuple[datetime, str, str]]:
        self._open()
        yield from self._flush()
        for n in range(1, self.spec.rounds + 1):
            self._between_coups(n)
            self._coup(n)
            yield from self._flush()
        self._close()
        yield from self._flush()

    def _open(self) -> None:
        s = self.spec
        self.emit(f"OPEN game=chemin-de-fer ruleset={s.ruleset} seats={s.seats} min={fmt_amount(s.min)} "
                  f"max={fmt_amount(s.max)}", 0.0, 0.5)
        self._relief()
        for _ in range(self.rng.randint(min(CDF_MIN_PLAYERS + 1, s.seats), s.seats)):
            self._sit()

    def _between_coups(self, n: int) -> None:
        if n > 1:
            self._cdf_seat_changes()
            self._one_offs(n)
        if self.cshoe is None or self.cshoe.left < CDF_MIN_CARDS:
            self._cdf_shoe()

    def _cdf_seat_changes(self) -> None:
        keep = {self.banker, _seat_of(self.associate)}
        movable = [s for s in sorted(self.players) if s not in keep]
        if len(self.players) > CDF_MIN_PLAYERS and movable and self.rng.random() < P_CDF_LEAVE:
            seat = self.rng.choice(movable)
            self._leave(seat)
            if self.suivi == f"seat:{seat}":
                self.suivi = None
        if len(self.players) < self.spec.seats and self.rng.random() < P_CDF_SIT:
            self._sit()

    def _change_limits(self) -> None:
        """Art. 5: the starting minimum may change during play; the maximum stays."""
        bigger = [v for v in (Decimal(100), Decimal(120), Decimal(200)) if self.min < v <= self.max]
        self.min = self.rng.choice(bigger) if bigger else self.min
        self.emit(f"LIMITS min={fmt_amount(self.min)} max={fmt_amount(self.max)}", 2, 8)

    def _cdf_shoe(self) -> None:
        """Arts. 3-4: a new shoe, hand-shuffled, cut from the employee's left downwards."""
        self.cshoe = _CdfShoe(self.rng)
        self.coups_in_shoe = 0
        self.emit(f"SHOE new decks={DECKS} procedure=sabot", 5, 15)
        self.emit("SHUFFLE", 60, 180)
        offered = sorted(self.players, reverse=True)
        for i, seat in enumerate(offered):
            if i < len(offered) - 1 and self.rng.random() < P_CDF_CUT_REFUSED:
                self.emit(f"CUT refused by=seat:{seat}", 2, 6)
            else:
                self.emit(f"CUT by=seat:{seat}", 2, 6)
                break

    def draw(self) -> Card:
        assert self.cshoe is not None
        return self.cshoe.take()

    # .. places
    def from_right(self, seat: int) -> list[int]:
        """The occupied seats other than ``seat``, from its right: ascending after it, wrapping round."""
        return sorted((s for s in self.players if s != seat), key=lambda s: (s - seat - 1) % self.spec.seats)

    def place(self, owner: str, standing_order: list[str]) -> tuple[int, int]:
        """Art. 33: seated pontes from the banker's right, then standing players in the order they played."""
        seat = _seat_of(owner)
        if seat is not None:
            assert self.banker is not None
            return (0, (seat - self.banker - 1) % self.spec.seats)
        return (1, standing_order.index(owner) if owner in standing_order else len(standing_order))

    # .. one coup
    def _coup(self, n: int) -> None:
        self.emit(f"ROUND {n} begin", 10, 40)
        bank, new_hand = self._hand()
        if new_hand and self.rng.random() < P_CDF_ASSOCIATE:
            self._associate(bank)
        ponte, mode, stakes, order = self._bets(bank)
        self.emit("NOMOREBETS")
        self.emit(f"PONTE by={ponte}")
        pc, bc = [], []
        for hand in (pc, bc, pc, bc):
            hand.append(self.draw())
            self.emit(f"DEAL {'ponte' if hand is pc else 'banker'} {hand[-1]}", 0.5, 1.5)
        p, b = cdf_points(pc), cdf_points(bc)
        if p >= 8 or b >= 8:
            if p >= 8:
                self.emit(f"ABAT ponte {p}")
            if b >= 8:
                self.emit(f"ABAT banker {b}")
        else:
            self._third_cards(pc, bc)
        p, b = cdf_points(pc), cdf_points(bc)
        self.emit(f"POINT ponte={p} banker={b}", 1, 4)
        verb = "PAY" if p > b else "COLLECT" if b > p else "PUSH"
        for owner in sorted(stakes, key=lambda o: self.place(o, order)):
            tail = "" if verb == "PUSH" else f" amount={fmt_amount(stakes[owner])}"
            self.emit(f"{verb} by={owner}{tail}")
        self.emit(f"ROUND {n} end")
        self._after(bank, stakes, verb, ponte, mode)

    def _after(self, bank: Decimal, stakes: dict[str, Decimal], verb: str, ponte: str, mode: str | None) -> None:
        self.coups_in_shoe += 1
        total = sum(stakes.values(), Decimal(0))
        if verb == "PAY":
            self.result = "lost"
            self.suivi = None
            return
        self.result = "won" if verb == "COLLECT" else "push"
        self.held = bank + total if verb == "COLLECT" else bank
        self.wins += verb == "COLLECT"
        # art. 25 and arts. 12, 23: the ponte who made the banco, or who alone staked, may follow it
        self.suivi = ponte if mode is not None else (next(iter(stakes)) if len(stakes) == 1 else None)

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
        if self.rng.random() < P_CDF_SUITE_LOGGED:
            self.emit(f"HAND seat={self.banker} how=suite", 1, 2)
        bank = max(self.held, self.min)
        if self.rng.random() < P_CDF_RAISE:
            bank = _round_up(bank + self.rng.choice((Decimal(50), Decimal(100), bank / 2)), Decimal(100))
        self.emit(f"BANK amount={fmt_amount(bank)}")
        return bank, False

    def _passes(self) -> bool:
        if self.held * 4 > self.max:
            return True
        return self.rng.random() < P_CDF_PASS + P_CDF_PASS_PER_WIN * self.wins

    def _new_banker(self, seat: int) -> None:
        self.banker, self.wins, self.associate, self.suivi = seat, 0, None, None

    def _take(self, seat: int, how: str, bank: Decimal | None = None) -> Decimal:
        self._new_banker(seat)
        self.emit(f"HAND seat={seat} how={how}", 1, 2)
        if bank is None:
            bank = self.rng.choice([v for v in CDF_BANKS if self.min <= v <= self.max] or [self.min])
        self.emit(f"BANK amount={fmt_amount(bank)}")
        return bank

    def _pass(self) -> Decimal:
        """Arts. 7-9: the passed hand is offered from the banker's right, retaken au taux, or auctioned."""
        passer, associate = self.banker, _seat_of(self.associate)
        assert passer is not None
        self.emit("PASS", 1, 3)
        offered = [s for s in self.from_right(passer) if s != associate]
        for seat in offered:
            if self.rng.random() < P_CDF_TAKE:
                return self._take(seat, "taken")
        if passer in self.players and self.rng.random() < P_CDF_TAUX:
            return self._take(passer, "taux", max(self.held, self.min))
        bidders = [s for s in offered if s != passer]
        top: Decimal | None = None
        leader: int | None = None
        for _ in range(self.rng.randint(1, 6)):
            rivals = [s for s in bidders if s != leader]
            if not rivals:
                break
            who = self.rng.choice(rivals)
            amount = self.min if top is None else top + _bid_step(top) * self.rng.choice((1, 1, 1, 2, 3))
            self.emit(f"BID by=seat:{who} amount={fmt_amount(amount)}", 2, 6)
            top, leader = amount, who
        assert top is not None and leader is not None
        self.emit(f"AWARD by=seat:{leader} amount={fmt_amount(top)}", 2, 5)
        return self._take(leader, "auction", top)

    def _associate(self, bank: Decimal) -> None:
        """Art. 6: one associate, on the first coup of a new hand, putting up no more than the banker."""
        share = _round_down(bank / 2, Decimal(10))
        candidates = [f"seat:{s}" for s in self.from_right(self.banker or 0)] + self.standing
        if share <= 0:
            return
        self.associate = self.rng.choice(candidates)
        amount = self.rng.choice([v for v in (share, _round_down(share / 2, Decimal(10))) if v > 0])
        self.emit(f"ASSOCIATE by={self.associate} amount={fmt_amount(amount)}")

    # .. bancos and stakes
    def _bets(self, bank: Decimal) -> tuple[str, str | None, dict[str, Decimal], list[str]]:
        """Log bancos and stakes; return the ponte, the banco mode (None: stakes), the stakes in play, standing order."""
        assert self.banker is not None
        seated = [f"seat:{s}" for s in self.from_right(self.banker) if f"seat:{s}" != self.associate]
        standing = [p for p in self.standing if p != self.associate]
        rng = self.rng
        if self.suivi is not None and self.suivi != self.associate and rng.random() < P_CDF_SUIVI:
            others = [o for o in seated if o != self.suivi]
            calls = [(self.suivi, "suivi")]
            if others and rng.random() < P_CDF_SECOND_BANCO:
                calls.append((rng.choice(others), "solo"))
                rng.shuffle(calls)
            for owner, mode in calls:
                self.emit(f"BANCO by={owner} mode={mode}")
            return self.suivi, "suivi", {self.suivi: bank}, []
        r = rng.random()
        if r < P_CDF_BANCO:
            if rng.random() < P_CDF_STANDING:
                caller = rng.choice(standing)
                self.emit(f"BANCO by={caller} mode=solo")
                return caller, "solo", {caller: bank}, []
            callers = rng.sample(seated, 2 if len(seated) > 1 and rng.random() < P_CDF_SECOND_BANCO else 1)
            for owner in callers:
                self.emit(f"BANCO by={owner} mode=solo")
            caller = min(callers, key=lambda o: self.place(o, []))
            return caller, "solo", {caller: bank}, []
        if r < P_CDF_BANCO + P_CDF_BANCO_TABLE and len(seated) > 1:
            caller = rng.choice(seated)
            self.emit(f"BANCO by={caller} mode=table")
            half = (bank / 2).quantize(CENT)
            rest = bank - half
            others = rng.sample([o for o in seated if o != caller], rng.randint(1, min(3, len(seated) - 1)))
            stakes = {caller: half}
            for owner, amount in zip(others, _split(rng, rest, len(others))):
                self.emit(f"STAKE by={owner} amount={fmt_amount(amount)}")
                stakes[owner] = amount
            return caller, "table", stakes, []
        return self._stakes(bank, seated, standing)

    def _stakes(self, bank: Decimal, seated: list[str], standing: list[str]):
        rng = self.rng
        stakes: dict[str, Decimal] = {}
        order: list[str] = []
        room = bank
        players = rng.sample(seated, rng.randint(1, min(5, len(seated))))
        if rng.random() < P_CDF_STANDING:
            players.append(rng.choice(standing))
        for owner in players:
            fits = [v for v in CDF_STAKES if v <= room]
            if not fits:
                break
            if stakes and rng.random() < 0.2 and max(stakes.values()) <= room:
                amount = max(stakes.values())  # an equal stake: the first from the banker's right holds the cards
            else:
                amount = rng.choices(fits, [1 / (i + 1) for i in range(len(fits))])[0]
            room -= amount
            if rng.random() < P_CDF_DOUBLE_STAKE and amount >= 40:
                first = _round_down(amount / 2, Decimal(10))
                self.emit(f"STAKE by={owner} amount={fmt_amount(first)}")
                self.emit(f"STAKE by={owner} amount={fmt_amount(amount - first)}")
            else:
                self.emit(f"STAKE by={owner} amount={fmt_amount(amount)}")
            stakes[owner] = amount
            if _seat_of(owner) is None:
                order.append(owner)
        top = max(a for o, a in stakes.items() if _seat_of(o) is not None)
        ponte = min((o for o, a in stakes.items() if a == top and _seat_of(o) is not None),
                    key=lambda o: self.place(o, order))
        return ponte, None, stakes, order

    # .. third cards
    def _third_cards(self, pc: list[Card], bc: list[Card]) -> None:
        """Art. 17: the ponte speaks first (0-4 draws, 6-7 stands, 5 either); the banker follows the table."""
        rng = self.rng
        p = cdf_points(pc)
        if rng.random() < (P_CDF_ADVICE if p == 5 else P_CDF_ADVICE_OTHER):
            draws = p <= 4  # art. 11: on five the employee always says "non"
            self.emit(f"ADVICE ponte {'card' if draws else 'non'}")
        else:
            draws = p <= 4 or (p == 5 and rng.random() < P_CDF_DRAW_FIVE)
        self.emit(f"CALL ponte {'card' if draws else 'non'}", 1, 4)
        third = None
        if draws:
            pc.append(self.draw())
            self.emit(f"DEAL ponte {pc[-1]}", 0.5, 1.5)
            third = pc[-1].baccara_points
        if rng.random() < P_CDF_TABLEAU:
            self.emit("TABLEAU banker")
        b = cdf_points(bc)
        cell = cdf_banker_cell(b, third)
        banker_draws = cell == "T" or (cell == "O" and rng.random() < 0.5)
        self.emit(f"CALL banker {'card' if banker_draws else 'non'}", 1, 4)
        if banker_draws:
            bc.append(self.draw())
            self.emit(f"DEAL banker {bc[-1]}", 0.5, 1.5)
        self.cells.append((b, third, banker_draws))


def _seat_of(owner: str | None) -> int | None:
    if owner is None or not owner.startswith("seat:"):
        return None
    return int(owner[5:])


def _round_up(amount: Decimal, unit: Decimal) -> Decimal:
    return (amount / unit).to_integral_value(rounding=ROUND_CEILING) * unit


def _round_down(amount: Decimal, unit: Decimal) -> Decimal:
    return (amount // unit) * unit


def _split(rng: random.Random, total: Decimal, parts: int) -> list[Decimal]:
    """``total`` in ``parts`` positive amounts, multiples of 10 where it can (the last takes the odd part)."""
    unit = Decimal(10) if total >= 10 * parts else CENT
    units = int(total // unit)
    cuts = sorted(rng.sample(range(1, units), parts - 1)) if parts > 1 and units > parts else []
    if len(cuts) != parts - 1:
        return [total]
    edges = [0, *cuts, units]
    out = [unit * (b - a) for a, b in zip(edges, edges[1:])]
    out[-1] += total - unit * units
    return out


if __name__ == "__main__":
    sys.exit(main())
