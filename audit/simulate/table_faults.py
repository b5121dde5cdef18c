"""One table's stream with its faults in: what fault injection does the same at every game.

The stream is read a round at a time (what comes before a round, then the
round: a batch); each planned fault is tried on the rounds from its target on
until one offers the situation it needs. A game's faults
(``GameSimulator.faults``, in the game's package) subclass ``TableFaults`` and give their
methods by category (``methods``); the rule a fault must break, with its id
and category, comes from the table's loaded ruleset (``FaultRules``), never
from a name built here.

Missing or extra burns move the stop card by one card: the physical stop
card comes out after the same number of cards, so its ``STOPCARD out`` line
moves one draw later (missed) or earlier (extra). A fault is placed only
where that move stays inside the round the stop card comes out in; to know
it, the table's stream is read ahead to the end of the shoe (bounded memory).
"""

from __future__ import annotations

import random
import re
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, ClassVar

from ..rulesets import Rule
from ..values import fmt_amount
from .params import FaultRules
from .specs import TableSpec

#: Rounds a table waits for a fault's own situation before a fallback (such as a seat-range fault).
TABLE_WAIT = 5
CLOCK_LAG = timedelta(seconds=2)
#: the syntax fault's notes (a game may give its own: ``TableFaults.NOTES``)
NOTES = (
    'NOTE "player at seat {s} says "no more" twice"',
    'NOTE "client asked for "house" rules"',
    'NOTE "chips "color" changed at seat {s}"',
)

AMOUNT = re.compile(r"amount=(\S+)")
SEAT = re.compile(r"\bseat=(\d+)")
SPOT = re.compile(r"spot=(\S+)")
BY = re.compile(r"by=(\S+)")
ROUND = re.compile(r"ROUND (\d+) (begin|end)$")
CARD = re.compile(r"^(?:BURN|DEAL \S+) (\S+)$")


class Line:
    """One event line of a table: its time and what follows the table id; the rules it must break."""

    __slots__ = ("body", "expects", "t")

    def __init__(self, t: datetime, body: str):
        self.t = t
        self.body = body
        self.expects: list[tuple[str, str]] = []  # (rule id, category)

    @property
    def verb(self) -> str:
        return self.body.split(" ", 1)[0]

    def startswith(self, *prefixes: str) -> bool:
        return self.body.startswith(prefixes)


@dataclass
class Fault:
    """A fault planned for one table: its category, from which round (and shoe) on."""

    category: str
    table: int
    target: int
    shoe: int
    rng: random.Random
    #: burn faults: "start" goes in at the start of the shoe drawn (else where play
    #: allows after it), "play" in the first round that allows it
    variant: str = "play"
    round: int | None = None  # where it went, once placed

    @property
    def placed(self) -> bool:
        return self.round is not None


FaultMethod = Callable[[Fault, list[Line], int, int], bool]


def batches(stream: Iterator[tuple[datetime, str, str]]) -> Iterator[list[Line]]:
    """A table's lines in rounds: what comes before a round (seats, shoe...), then the round."""
    batch: list[Line] = []
    for t, _, text in stream:
        line = Line(t, text.split(" ", 2)[2])
        batch.append(line)
        if line.body.startswith("ROUND ") and line.body.endswith(" end"):
            yield batch
            batch = []
    if batch:
        yield batch


def amount(line: Line) -> Decimal:
    m = AMOUNT.search(line.body)
    assert m, line.body
    return Decimal(m.group(1))


def with_amount(line: Line, value: Decimal) -> None:
    line.body = AMOUNT.sub(f"amount={fmt_amount(value)}", line.body, count=1)


def seat_of(line: Line) -> int | None:
    m = SEAT.search(line.body)
    return int(m.group(1)) if m else None


def by_of(line: Line) -> str | None:
    m = BY.search(line.body)
    return m.group(1) if m else None


def is_draw(line: Line) -> bool:
    return line.body.startswith(("BURN", "DEAL "))


def _begin(batch: list[Line]) -> int | None:
    for i, line in enumerate(batch):
        if line.body.startswith("ROUND ") and line.body.endswith(" begin"):
            return i
    return None


class TableFaults:
    """Puts a table's planned faults into its stream; a game's subclass knows its faults."""

    #: Tried first in a round, the rarer situations before the common ones.
    #: the rules its faults break: a game's subclass of ``FaultRules``
    RULES: ClassVar[type[FaultRules]] = FaultRules
    #: the notes of the syntax fault
    NOTES: ClassVar[tuple[str, ...]] = NOTES
    PRIORITY = (
        "shoe",
        "missed-burn",
        "extra-burn",
        "pay-order",
        "bet-limit",
        "late-bet",
        "table",
        "drawing",
        "wrong-payout",
        "deal-order",
        "procedure",
        "log-integrity",
        "syntax",
    )

    @staticmethod
    def categories(rules: FaultRules) -> set[str]:
        """The categories of fault a table whose ruleset has ``rules`` can take (the game's add theirs)."""
        has = {
            "syntax": rules.syntax,
            "log-integrity": rules.time_order,
            "procedure": rules.no_more_bets,
        }
        return {category for category, rule in has.items() if rule is not None}

    @staticmethod
    def rounds_per_shoe_at_most(params: Any) -> int:
        """A bound on the rounds one shoe lasts, so that a night of R rounds has at least 1 + R // it shoes."""
        raise NotImplementedError

    def methods(self) -> dict[str, FaultMethod]:
        """Category -> the method that tries a fault of it on a round (``fault, batch, begin, n``)."""
        return {
            "syntax": self._syntax,
            "log-integrity": self._log_integrity,
            "procedure": self._procedure,
        }

    def __init__(
        self, spec: TableSpec, number: int, faults: list[Fault], rules: FaultRules, params: Any
    ):
        self.spec = spec
        self.number = number
        self.rules = rules
        self.params = params
        self.faults = sorted(faults, key=lambda f: self.PRIORITY.index(f.category))
        self.by_category = self.methods()
        self.min, self.max = spec.min, spec.max
        self.seated: set[int] = set()
        self.shoes = 0  # shoes begun so far
        self.machine = False  # the current shoe is a shuffling-dealing machine's
        self.shoe_delta = 0  # cards the faults added to (+) or took from (-) the current shoe
        self.counts: Counter[str] = (
            Counter()
        )  # cards logged from the current shoe, up to the last batch
        self.ahead: deque[list[Line]] = deque()
        self.source: Iterator[list[Line]] = iter(())

    # .. the stream
    def run(
        self, stream: Iterator[tuple[datetime, str, str]]
    ) -> Iterator[tuple[datetime, str, Line]]:
        table = self.spec.table
        self.source = batches(stream)
        while True:
            batch = self.ahead.popleft() if self.ahead else next(self.source, None)
            if batch is None:
                return
            self._process(batch)
            for line in batch:
                yield line.t, table, line

    def peek_shoe(self) -> list[list[Line]]:
        """The batches after the current one that belong to the current shoe (read ahead, kept)."""
        out: list[list[Line]] = []
        i = 0
        while True:
            if i == len(self.ahead):
                batch = next(self.source, None)
                if batch is None:
                    return out
                self.ahead.append(batch)
            batch = self.ahead[i]
            cut = next(
                (j for j, line in enumerate(batch) if line.body.startswith("SHOE new")), None
            )
            if cut is not None:
                out.append(batch[:cut])
                return out
            out.append(batch)
            i += 1

    def _process(self, batch: list[Line]) -> None:
        begin = _begin(batch)
        self._gap_state(batch[:begin] if begin is not None else batch)
        used = self._move_stop_card(batch)
        if begin is not None and not used:
            n = int(ROUND.match(batch[begin].body).group(1))  # type: ignore[union-attr]
            for fault in self.faults:
                if fault.placed or fault.target > n:
                    continue
                begin = _begin(batch)
                if self.by_category[fault.category](fault, batch, begin, n):  # type: ignore[arg-type]
                    fault.round = n
                    if fault.category != "shoe":  # the shoe's preparation is apart from the round
                        break
        self._count(batch)

    def _gap_state(self, gap: list[Line]) -> None:
        for line in gap:
            body = line.body
            if body.startswith("SEAT "):
                _, seat, action = body.split(" ")[:3]
                (self.seated.add if action == "in" else self.seated.discard)(int(seat))
            elif body.startswith(("LIMITS ", "OPEN ")):
                words = dict(w.split("=", 1) for w in body.split(" ")[1:] if "=" in w)
                self.min, self.max = Decimal(words["min"]), Decimal(words["max"])
            elif body.startswith("SHOE new"):
                self.shoes += 1
                self.machine = "procedure=shuffler-dealer" in body
                self.shoe_delta = 0
                self.counts = Counter()

    def _count(self, batch: list[Line]) -> None:
        for line in batch:
            if line.body.startswith("SHOE new"):
                self.counts = Counter()
            else:
                m = CARD.match(line.body)
                if m:
                    self.counts[m.group(1)] += 1

    # .. the stop card follows the cards the faults added or took
    def _move_stop_card(self, batch: list[Line]) -> bool:
        s = next((i for i, line in enumerate(batch) if line.body == "STOPCARD out"), None)
        if s is None:
            return False
        if self.shoe_delta < 0:
            # one card fewer logged before it: the stop card comes out one draw later
            assert is_draw(batch[s + 1]), batch[s + 1].body
            stop = batch.pop(s)
            stop.t = batch[s].t
            batch.insert(s + 1, stop)
        elif self.shoe_delta > 0:
            p = max(i for i in range(s) if is_draw(batch[i]))  # checked when the fault went in
            stop = batch.pop(s)
            stop.t = batch[p].t
            batch.insert(p, stop)
        return True  # no other fault in the round the stop card comes out in

    def stop_move_safe(self, delta: int) -> bool:
        """Can the current shoe take ``delta`` more cards before its stop card? (see the module doc)"""
        net = self.shoe_delta + delta
        if net <= 0:
            return True
        for batch in self.peek_shoe():
            for i, line in enumerate(batch):
                if line.body == "STOPCARD out":
                    return any(is_draw(batch[j]) for j in range(i))
        return True  # the night ends before the stop card comes out

    # .. helpers for the faults
    @staticmethod
    def expect(line: Line, rule: Rule | None) -> None:
        assert rule is not None, "a fault is tried only where its rule is on"
        line.expects.append((rule.id, rule.category))

    @staticmethod
    def round_range(batch: list[Line], b: int) -> range:
        return range(b, len(batch))

    @staticmethod
    def first(
        batch: list[Line], b: int, prefix: str | tuple[str, ...], start: int | None = None
    ) -> int | None:
        return next(
            (
                i
                for i in range(start if start is not None else b, len(batch))
                if batch[i].body.startswith(prefix)
            ),
            None,
        )

    # .. the faults of every game
    def _syntax(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        i = fault.rng.randrange(b, len(batch) - 1)
        seat = fault.rng.choice(sorted(self.seated) or [1])
        note = Line(batch[i].t, fault.rng.choice(self.NOTES).format(s=seat))
        batch.insert(i + 1, note)
        self.expect(note, self.rules.syntax)
        return True

    def _log_integrity(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        deals = [i for i in self.round_range(batch, b) if batch[i].body.startswith("DEAL ")]
        i = fault.rng.choice(deals)
        batch[i].t = batch[i - 1].t - CLOCK_LAG
        self.expect(batch[i], self.rules.time_order)
        return True

    def _procedure(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        k = self.first(batch, b, "NOMOREBETS")
        assert k is not None
        del batch[k]
        deal = self.first(batch, b, "DEAL ", k)
        assert deal is not None
        self.expect(batch[deal], self.rules.no_more_bets)
        return True

    def seat_range(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        """A player seated for one round at a place the table does not have."""
        if self.rules.seat_range is None:
            return False
        seat = self.spec.seats + 1
        player = f"P{self.number:02d}-X{fault.rng.randint(10, 99)}"
        sit = Line(batch[b].t, f"SEAT {seat} in player={player}")
        batch.insert(b, sit)
        batch.append(Line(batch[-1].t, f"SEAT {seat} out"))
        self.expect(sit, self.rules.seat_range)
        return True
