"""Fault injection for ``audit simulate --inject``: one known breach per category.

A simulated night is rule-abiding (``audit.simulate``). This module takes each
table's stream of lines and changes it, in one place per requested category,
into a single, local, realistic breach whose findings are known in advance:
the line (or lines) that must give them carry the expected rule ids. The
writer puts a ``# expect: RULE-ID`` comment before each such line (the
fixture convention of ``tests/fixtures.py``) and lists them, with their final
line numbers, for ``--expected``.

Where and when: for each category, a table whose ruleset has rules of that
category and a first round are drawn from the seed; the fault goes in the
first round at or after it that offers the situation the fault needs (a
winning main stake, a bataille's burns...). One fault per round at most (the
shoe's preparation before it aside), so that faults never meet; a table
therefore needs about as many rounds as it takes faults, and more. Faults at
the start of a shoe go in the first shoe at or after one drawn from the seed
(among the shoes a table of that length must have).

What each category injects (bataille = FR and MC rulesets, cdf = chemin de fer):

- ``syntax``: a NOTE typed with unescaped double quotes (DEL-SYNTAX).
- ``log-integrity``: one DEAL stamped 2 s before the table's previous line, a
  shoe reader's clock behind the terminal's (DEL-TIME-ORDER).
- ``late-bet``: bataille, a seated player adds the table minimum to his own
  main stake after "rien ne va plus", and the dealer settles the whole stake
  (…-LATE-BET); cdf, a ponte adds to his stake after "rien ne va plus" in a
  coup the bank does not win (CDF-LATE-STAKE; the settlement includes it).
- ``bet-limit``: bataille, a lone initial stake of half the table minimum,
  settled as staked (…-BET-LIMITS); cdf, the ponte holding the cards stakes
  more than the bank covers, in a coup the bank does not win
  (CDF-STAKES-BANK, at the coup's first card).
- ``missed-burn``: one of the five burns of a new shoe (or of a machine's
  restart), or of a bataille's burns, left out (…-BURN-START, MC-BURN-RESUME
  or …-BURN-BATAILLE, at the next card).
- ``extra-burn``: a sixth burn at a new shoe or a restart
  (…-BURN-START-EXTRA, MC-BURN-RESUME-EXTRA) or a card burned between two
  rounds (…-BURN-OTHER).
- ``deal-order``: bataille, two hands' first cards served out of order
  (…-DEAL-FIRST); cdf, both ponte cards before the banker's
  (CDF-DEAL-ORDER twice: the second and third cards).
- ``wrong-payout``: bataille, a winning main stake underpaid by the table
  minimum (…-PAY-MAIN); cdf, a ponte's PAY or COLLECT off by 10 (CDF-SETTLE).
- ``pay-order``: FR, two hands settled left to right (FR-PAY-ORDER); cdf, two
  pontes settled out of their places (CDF-PAY-ORDER).
- ``shoe``: bataille, the player's cut of a new shoe left out (…-SHOE-CUT at
  the stop card), or a shuffling-dealing machine "cut" (…-SHOE-MACHINE); cdf,
  the cut made by a player it was not offered to, or (every other player
  having declined) first offered to the wrong player (CDF-CUT-ORDER).
- ``table``: bataille, a bet on a vacant place without the dealer's approval
  (…-VACANT-SEAT), or, where no such bet comes, a player seated for one round
  at a place the table does not have (…-SEAT-RANGE); cdf, the latter.
- ``drawing``: cdf, a point announced one off (CDF-POINT).
- ``procedure``: "rien ne va plus" not called (…-NO-MORE-BETS at the first card).

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
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Iterator

from .simulate import CDF, CDF_STAKES, FR, MC, RULESETS, TableSpec, _stamp
from .values import RANKS, SUITS, fmt_amount

#: The fixed categories of the findings contract, in its order.
CATEGORIES = ("syntax", "log-integrity", "late-bet", "bet-limit", "missed-burn", "extra-burn", "deal-order",
              "wrong-payout", "pay-order", "shoe", "table", "drawing", "procedure")
#: The rulesets whose tables can take a fault of each category.
APPLIES = {
    "syntax": set(RULESETS), "log-integrity": set(RULESETS), "late-bet": set(RULESETS),
    "bet-limit": set(RULESETS), "missed-burn": {FR, MC}, "extra-burn": {FR, MC},
    "deal-order": set(RULESETS), "wrong-payout": set(RULESETS), "pay-order": {FR, CDF},
    "shoe": set(RULESETS), "table": set(RULESETS), "drawing": {CDF}, "procedure": set(RULESETS),
}
PREFIX = {FR: "FR", MC: "MC", CDF: "CDF"}
#: Tried first in a round, the rarer situations before the common ones.
PRIORITY = ("shoe", "missed-burn", "extra-burn", "pay-order", "bet-limit", "late-bet", "table", "drawing",
            "wrong-payout", "deal-order", "procedure", "log-integrity", "syntax")
#: A table's night of R rounds has at least 1 + R // this many shoes (at most 2 cards a round
#: at bataille, 4 a coup at chemin de fer, from 312 cards less a talon of at most 80).
ROUNDS_PER_SHOE_AT_MOST = {FR: 128, MC: 128, CDF: 78}
#: Rounds a bataille table waits for a bet on a vacant place before the seat-range fault instead.
TABLE_WAIT = 5
CLOCK_LAG = timedelta(seconds=2)
NOTES = ('NOTE "player at seat {s} says "no more" twice"', 'NOTE "client asked for "la bataille" rules"',
         'NOTE "chips "color" changed at seat {s}"')

_AMOUNT = re.compile(r"amount=(\S+)")
_SEAT = re.compile(r"\bseat=(\d+)")
_SPOT = re.compile(r"spot=(\S+)")
_BY = re.compile(r"by=(\S+)")
_ROUND = re.compile(r"ROUND (\d+) (begin|end)$")
_CARD = re.compile(r"^(?:BURN|DEAL \S+) (\S+)$")
_POINT = re.compile(r"POINT ponte=(\d) banker=(\d)")


class Line:
    """One event line of a table: its time and what follows the table id; the rules it must break."""

    __slots__ = ("t", "body", "expects")

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


@dataclass
class Plan:
    faults: list[Fault] = field(default_factory=list)
    #: requested categories that no table of the night can take
    inapplicable: list[str] = field(default_factory=list)


def plan(tables: list[TableSpec], categories: list[str], seed: int) -> Plan:
    """Draw, from the seed, the table and the first round of each requested category."""
    rng = random.Random(f"audit-simulate-inject:{seed}")
    out = Plan()
    for category in CATEGORIES:
        if category not in categories:
            continue
        candidates = [i for i, spec in enumerate(tables) if spec.ruleset in APPLIES[category]]
        if not candidates:
            out.inapplicable.append(category)
            continue
        i = rng.choice(candidates)
        spec = tables[i]
        target = rng.randint(1, max(1, spec.rounds // 3))
        shoe = rng.randrange(1 + spec.rounds // ROUNDS_PER_SHOE_AT_MOST[spec.ruleset])
        variant = "play"
        if category in ("missed-burn", "extra-burn") and rng.random() < 0.5:
            variant = "start"
        if category == "shoe" or variant == "start":
            target = 1  # its place is the shoe drawn, whatever the round
        out.faults.append(Fault(category, i, target, shoe, random.Random(rng.getrandbits(64)), variant))
    return out


def applicable(tables: list[TableSpec]) -> list[str]:
    """The categories some table of ``tables`` can take a fault of."""
    rulesets = {t.ruleset for t in tables}
    return [c for c in CATEGORIES if APPLIES[c] & rulesets]


def inject(stream: Iterator[tuple[datetime, str, str]], spec: TableSpec, number: int,
           faults: list[Fault]) -> Iterator[tuple[datetime, str, Line]]:
    """One table's stream with its faults in: ``(time, table, Line)``, lazily."""
    if not faults:
        for t, table, text in stream:
            yield t, table, Line(t, text.split(" ", 2)[2])
        return
    yield from _TableFaults(spec, number, faults).run(stream)


# -- one table ------------------------------------------------------------------------------

def _batches(stream: Iterator[tuple[datetime, str, str]]) -> Iterator[list[Line]]:
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


def _amount(line: Line) -> Decimal:
    m = _AMOUNT.search(line.body)
    assert m, line.body
    return Decimal(m.group(1))


def _with_amount(line: Line, value: Decimal) -> None:
    line.body = _AMOUNT.sub(f"amount={fmt_amount(value)}", line.body, count=1)


def _seat(line: Line) -> int | None:
    m = _SEAT.search(line.body)
    return int(m.group(1)) if m else None


def _by(line: Line) -> str | None:
    m = _BY.search(line.body)
    return m.group(1) if m else None


def _is_draw(line: Line) -> bool:
    return line.body.startswith(("BURN", "DEAL "))


def _begin(batch: list[Line]) -> int | None:
    for i, line in enumerate(batch):
        if line.body.startswith("ROUND ") and line.body.endswith(" begin"):
            return i
    return None


class _TableFaults:
    def __init__(self, spec: TableSpec, number: int, faults: list[Fault]):
        self.spec = spec
        self.number = number
        self.prefix = PREFIX[spec.ruleset]
        self.cdf = spec.ruleset == CDF
        self.faults = sorted(faults, key=lambda f: PRIORITY.index(f.category))
        self.min, self.max = spec.min, spec.max
        self.seated: set[int] = set()
        self.shoes = 0              # shoes begun so far
        self.machine = False        # the current shoe is a shuffling-dealing machine's
        self.shoe_delta = 0         # cards the faults added to (+) or took from (-) the current shoe
        self.counts: Counter[str] = Counter()  # cards logged from the current shoe, up to the last batch
        self.ahead: deque[list[Line]] = deque()
        self.source: Iterator[list[Line]] = iter(())

    # .. the stream
    def run(self, stream: Iterator[tuple[datetime, str, str]]) -> Iterator[tuple[datetime, str, Line]]:
        table = self.spec.table
        self.source = _batches(stream)
        while True:
            batch = self.ahead.popleft() if self.ahead else next(self.source, None)
            if batch is None:
                return
            self._process(batch)
            for line in batch:
                yield line.t, table, line

    def _peek_shoe(self) -> list[list[Line]]:
        """The batches after the current one that belong to the current shoe (read ahead, kept)."""
        out = []
        i = 0
        while True:
            if i == len(self.ahead):
                batch = next(self.source, None)
                if batch is None:
                    return out
                self.ahead.append(batch)
            batch = self.ahead[i]
            cut = next((j for j, line in enumerate(batch) if line.body.startswith("SHOE new")), None)
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
            n = int(_ROUND.match(batch[begin].body).group(1))  # type: ignore[union-attr]
            for fault in self.faults:
                if fault.placed or fault.target > n:
                    continue
                begin = _begin(batch)  # type: ignore[assignment]
                if self._try(fault, batch, begin, n):  # type: ignore[arg-type]
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
                m = _CARD.match(line.body)
                if m:
                    self.counts[m.group(1)] += 1

    # .. the stop card follows the cards the faults added or took
    def _move_stop_card(self, batch: list[Line]) -> bool:
        s = next((i for i, line in enumerate(batch) if line.body == "STOPCARD out"), None)
        if s is None:
            return False
        if self.shoe_delta < 0:
            # one card fewer logged before it: the stop card comes out one draw later
            assert _is_draw(batch[s + 1]), batch[s + 1].body
            stop = batch.pop(s)
            stop.t = batch[s].t
            batch.insert(s + 1, stop)
        elif self.shoe_delta > 0:
            p = max(i for i in range(s) if _is_draw(batch[i]))  # checked when the fault went in
            stop = batch.pop(s)
            stop.t = batch[p].t
            batch.insert(p, stop)
        return True  # no other fault in the round the stop card comes out in

    def _stop_move_safe(self, delta: int) -> bool:
        """Can the current shoe take ``delta`` more cards before its stop card? (see the module doc)"""
        net = self.shoe_delta + delta
        if net <= 0:
            return True
        for batch in self._peek_shoe():
            for i, line in enumerate(batch):
                if line.body == "STOPCARD out":
                    return any(_is_draw(batch[j]) for j in range(i))
        return True  # the night ends before the stop card comes out

    # .. one fault
    def _expect(self, line: Line, check: str, category: str, prefix: str | None = None) -> None:
        line.expects.append((f"{prefix or self.prefix}-{check}", category))

    def _try(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        name = fault.category.replace("-", "_")
        game = "cdf" if self.cdf else "bataille"
        method = getattr(self, f"_{name}_{game}", None) or getattr(self, f"_{name}")
        return bool(method(fault, batch, b, n))

    def _round(self, batch: list[Line], b: int) -> range:
        return range(b, len(batch))

    def _first(self, batch: list[Line], b: int, prefix: str, start: int | None = None) -> int | None:
        return next((i for i in range(start if start is not None else b, len(batch))
                     if batch[i].body.startswith(prefix)), None)

    # every game
    def _syntax(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        i = fault.rng.randrange(b, len(batch) - 1)
        seat = fault.rng.choice(sorted(self.seated) or [1])
        note = Line(batch[i].t, fault.rng.choice(NOTES).format(s=seat))
        batch.insert(i + 1, note)
        self._expect(note, "SYNTAX", "syntax", "DEL")
        return True

    def _log_integrity(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        deals = [i for i in self._round(batch, b) if batch[i].body.startswith("DEAL ")]
        i = fault.rng.choice(deals)
        batch[i].t = batch[i - 1].t - CLOCK_LAG
        self._expect(batch[i], "TIME-ORDER", "log-integrity", "DEL")
        return True

    def _procedure(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        k = self._first(batch, b, "NOMOREBETS")
        assert k is not None
        del batch[k]
        first = self._first(batch, b, "DEAL ", k)
        assert first is not None
        self._expect(batch[first], "NO-MORE-BETS", "procedure")
        return True

    # bataille
    def _settlements(self, batch: list[Line], b: int) -> dict[tuple[int, str], int]:
        """(seat, spot) -> index of its first settlement line in the round."""
        out: dict[tuple[int, str], int] = {}
        for i in self._round(batch, b):
            if batch[i].startswith("PAY seat=", "COLLECT seat=", "PUSH seat="):
                key = (_seat(batch[i]) or 0, _SPOT.search(batch[i].body).group(1))  # type: ignore[union-attr]
                out.setdefault(key, i)
        return out

    def _untied(self, batch: list[Line], b: int) -> set[int]:
        """Seats with a first card and no CHOICE: their main stake is settled at once."""
        dealt = {_seat(batch[i]) for i in self._round(batch, b) if batch[i].startswith("DEAL seat=")}
        chose = {_seat(batch[i]) for i in self._round(batch, b) if batch[i].startswith("CHOICE ")}
        return {s for s in dealt - chose if s is not None}

    def _own_main_bets(self, batch: list[Line], b: int) -> dict[int, list[int]]:
        """Seat -> its main BET lines, for hands whose player stakes on his own seat."""
        bets: dict[int, list[int]] = {}
        for i in self._round(batch, b):
            line = batch[i]
            if line.startswith("BET ") and "spot=main" in line.body:
                bets.setdefault(_seat(line) or 0, []).append(i)
        return {s: idx for s, idx in bets.items() if _by(batch[idx[0]]) is None}

    def _late_bet_bataille(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        settle = self._settlements(batch, b)
        untied = self._untied(batch, b)
        options = []
        for seat in sorted(self._own_main_bets(batch, b)):
            i = settle.get((seat, "main"))
            if seat in untied and i is not None and batch[i].verb in ("PAY", "COLLECT") \
                    and _amount(batch[i]) + self.min <= self.max:
                options.append((seat, i))
        if not options:
            return False
        seat, i = fault.rng.choice(options)
        _with_amount(batch[i], _amount(batch[i]) + self.min)
        k = self._first(batch, b, "NOMOREBETS")
        assert k is not None
        late = Line(batch[k].t, f"BET seat={seat} spot=main amount={fmt_amount(self.min)}")
        batch.insert(k + 1, late)
        self._expect(late, "LATE-BET", "late-bet")
        return True

    def _bet_limit_bataille(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        settle = self._settlements(batch, b)
        untied = self._untied(batch, b)
        withdrawn = {_seat(batch[i]) for i in self._round(batch, b) if batch[i].startswith("WITHDRAW ")}
        low = (self.min / 2).quantize(Decimal("0.01"))
        options = []
        for seat, bets in sorted(self._own_main_bets(batch, b).items()):
            i = settle.get((seat, "main"))
            if len(bets) == 1 and seat in untied and seat not in withdrawn and i is not None \
                    and batch[i].verb in ("PAY", "COLLECT"):
                options.append((bets[0], i))
        if not options or not 0 < low < self.min:
            return False
        bet, i = fault.rng.choice(options)
        _with_amount(batch[i], _amount(batch[i]) - _amount(batch[bet]) + low)
        _with_amount(batch[bet], low)
        self._expect(batch[bet], "BET-LIMITS", "bet-limit")
        return True

    def _burn_site(self, fault: Fault, batch: list[Line], b: int) -> tuple[str, int] | None:
        """Where a burn fault goes in this round: ("start", index of the new shoe's SHOE line),
        ("resume", index of RESUME) or ("play", -1); None: not here (the stop card comes out in
        this round, or the fault waits for the shoe drawn for it)."""
        if any(line.body == "STOPCARD out" for line in batch):
            return None
        new_shoe = self._first(batch, 0, "SHOE new")
        if new_shoe is not None and new_shoe < b:
            if fault.variant == "play" or self.shoes - 1 >= fault.shoe:
                return "start", new_shoe
            return None
        if fault.variant == "start" and self.shoes - 1 < fault.shoe:
            return None
        resume = self._first(batch, 0, "RESUME")
        if resume is not None and resume < b:
            return "resume", resume
        return "play", -1

    def _missed_burn_bataille(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        site = self._burn_site(fault, batch, b)
        if site is None:
            return False
        where, at = site
        if where == "play":
            dealer = self._first(batch, b, "DEAL dealer")
            burns = [i for i in self._round(batch, b) if dealer is not None and i > dealer
                     and batch[i].body.startswith("BURN")]
            check = "BURN-BATAILLE"
        else:
            burns = [i for i in range(at, b) if batch[i].body.startswith("BURN")]
            check = "BURN-START" if where == "start" else "BURN-RESUME"
        if not burns:
            return False
        k = fault.rng.choice(burns)
        del batch[k]
        deal = self._first(batch, b, "DEAL ", k)
        assert deal is not None
        self._expect(batch[deal], check, "missed-burn")
        self.shoe_delta -= 1
        return True

    def _extra_burn_bataille(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        site = self._burn_site(fault, batch, b)
        if site is None:
            return False
        where, at = site
        if where == "play":
            if any(line.startswith("PAUSE") for line in batch[:b]):
                return False
            at, check = b, "BURN-OTHER"
        else:
            at = max(i for i in range(at, b) if batch[i].body.startswith("BURN")) + 1
            check = "BURN-START-EXTRA" if where == "start" else "BURN-RESUME-EXTRA"
        if not self._stop_move_safe(+1):
            return False
        # a card still in the shoe: its count in the whole shoe is below the decks'
        counts = Counter(self.counts)
        for line in batch:  # counts were reset if this round's gap begins a shoe
            m = _CARD.match(line.body)
            if m:
                counts[m.group(1)] += 1
        for later in self._peek_shoe():
            for line in later:
                m = _CARD.match(line.body)
                if m:
                    counts[m.group(1)] += 1
        left = [f"{r}{s}" for r in RANKS for s in SUITS if counts[f"{r}{s}"] < 6]
        burn = Line(batch[at - 1].t if check != "BURN-OTHER" else batch[b].t,
                    f"BURN {fault.rng.choice(left)}" if left else "BURN")
        batch.insert(at, burn)
        self._expect(burn, check, "extra-burn")
        self.shoe_delta += 1
        return True

    def _deal_order_bataille(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        dealer = self._first(batch, b, "DEAL dealer")
        if dealer is None:
            return False
        pairs = [i for i in range(b, dealer - 1)
                 if batch[i].startswith("DEAL seat=") and batch[i + 1].startswith("DEAL seat=")]
        if not pairs:
            return False
        i = fault.rng.choice(pairs)
        batch[i].body, batch[i + 1].body = batch[i + 1].body, batch[i].body
        self._expect(batch[i], "DEAL-FIRST", "deal-order")
        return True

    def _wrong_payout_bataille(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        untied = self._untied(batch, b)
        pays = [i for (seat, spot), i in sorted(self._settlements(batch, b).items())
                if spot == "main" and seat in untied and batch[i].verb == "PAY"]
        if not pays:
            return False
        i = fault.rng.choice(pays)
        paid = _amount(batch[i])
        _with_amount(batch[i], paid - self.min if paid > self.min else paid + self.min)
        self._expect(batch[i], "PAY-MAIN", "wrong-payout")
        return True

    def _pay_order_bataille(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        dealer = self._first(batch, b, "DEAL dealer")
        if dealer is None:
            return False
        start = self._first(batch, b, ("PAY seat=", "COLLECT seat=", "PUSH seat="), dealer)  # type: ignore[arg-type]
        if start is None:
            return False
        end = start
        while end < len(batch) and batch[end].startswith("PAY seat=", "COLLECT seat=", "PUSH seat="):
            end += 1
        blocks: list[list[int]] = []
        for i in range(start, end):
            if blocks and _seat(batch[blocks[-1][0]]) == _seat(batch[i]):
                blocks[-1].append(i)
            else:
                blocks.append([i])
        if len(blocks) < 2:
            return False
        k = fault.rng.randrange(len(blocks) - 1)
        first, second = blocks[k], blocks[k + 1]
        bodies = [batch[i].body for i in second] + [batch[i].body for i in first]
        for i, body in zip(first + second, bodies):
            batch[i].body = body
        self._expect(batch[first[0] + len(second)], "PAY-ORDER", "pay-order")
        return True

    def _shoe_bataille(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        new_shoe = self._first(batch, 0, "SHOE new")
        if new_shoe is None or new_shoe > b or self.shoes - 1 < fault.shoe:
            return False
        if self.machine:
            shuffle = self._first(batch, new_shoe, "SHUFFLE")
            assert shuffle is not None
            cut = Line(batch[shuffle].t, "CUT by=dealer")
            batch.insert(shuffle + 1, cut)
            self._expect(cut, "SHOE-MACHINE", "shoe")
            return True
        cuts = [i for i in range(new_shoe, b) if batch[i].startswith("CUT by=seat:")]
        stop = self._first(batch, new_shoe, "STOPCARD talon=")
        if not cuts or stop is None:
            return False
        del batch[cuts[-1]]
        self._expect(batch[stop - 1], "SHOE-CUT", "shoe")
        return True

    def _table_bataille(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        vacant = [i for i in self._round(batch, b)
                  if batch[i].startswith("BET ") and "spot=main" in batch[i].body and " approved" in batch[i].body]
        if vacant:
            i = fault.rng.choice(vacant)
            batch[i].body = batch[i].body.replace(" approved", "")
            self._expect(batch[i], "VACANT-SEAT", "table")
            return True
        if n < fault.target + TABLE_WAIT:
            return False
        return self._seat_range(fault, batch, b, n)

    def _seat_range(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        seat = self.spec.seats + 1
        player = f"P{self.number:02d}-X{fault.rng.randint(10, 99)}"
        sit = Line(batch[b].t, f"SEAT {seat} in player={player}")
        batch.insert(b, sit)
        batch.append(Line(batch[-1].t, f"SEAT {seat} out"))
        self._expect(sit, "SEAT-RANGE", "table")
        return True

    # chemin de fer
    def _coup(self, batch: list[Line], b: int) -> dict:
        """What the generator wrote of a coup: stakes, bancos, bank, outcome, settlement lines."""
        info: dict = {"stakes": {}, "stake_lines": {}, "banco": False, "bank": None, "ponte": None,
                      "settle": [], "point": None}
        for i in self._round(batch, b):
            line = batch[i]
            if line.startswith("STAKE "):
                who = _by(line)
                info["stakes"][who] = info["stakes"].get(who, Decimal(0)) + _amount(line)
                info["stake_lines"].setdefault(who, []).append(i)
            elif line.startswith("BANCO "):
                info["banco"] = True
            elif line.startswith("BANK "):
                info["bank"] = _amount(line)
            elif line.startswith("PONTE "):
                info["ponte"] = (i, _by(line))
            elif line.startswith("PAY by=", "COLLECT by=", "PUSH by="):
                info["settle"].append(i)
            elif line.startswith("POINT "):
                m = _POINT.match(line.body)
                info["point"] = (i, int(m.group(1)), int(m.group(2)))  # type: ignore[union-attr]
        return info

    def _bank_does_not_win(self, info: dict) -> bool:
        """Stakes only, and the ponte wins or ties: no bank carried to the next coup depends on them."""
        point = info["point"]
        return (not info["banco"] and info["bank"] is not None and info["ponte"] is not None
                and point is not None and point[1] >= point[2] and info["stakes"])

    def _settle_line(self, batch: list[Line], info: dict, who: str) -> int | None:
        return next((i for i in info["settle"] if _by(batch[i]) == who), None)

    def _late_bet_cdf(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        info = self._coup(batch, b)
        if not self._bank_does_not_win(info):
            return False
        room = info["bank"] - sum(info["stakes"].values(), Decimal(0))
        fits = sorted({v for v in CDF_STAKES if v <= room})
        if not fits:
            return False
        who = fault.rng.choice(sorted(info["stakes"]))
        extra = fault.rng.choice(fits[:3])
        settle = self._settle_line(batch, info, who)
        assert settle is not None
        if batch[settle].verb == "PAY":
            _with_amount(batch[settle], _amount(batch[settle]) + extra)
        k = info["ponte"][0]
        late = Line(batch[k].t, f"STAKE by={who} amount={fmt_amount(extra)}")
        batch.insert(k + 1, late)
        self._expect(late, "LATE-STAKE", "late-bet")
        return True

    def _bet_limit_cdf(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        info = self._coup(batch, b)
        if not self._bank_does_not_win(info):
            return False
        who = info["ponte"][1]
        if who not in info["stakes"]:
            return False
        over = fault.rng.choice((Decimal(10), Decimal(20), Decimal(50)))
        extra = info["bank"] - sum(info["stakes"].values(), Decimal(0)) + over
        stake = batch[info["stake_lines"][who][-1]]
        _with_amount(stake, _amount(stake) + extra)
        settle = self._settle_line(batch, info, who)
        assert settle is not None
        if batch[settle].verb == "PAY":
            _with_amount(batch[settle], _amount(batch[settle]) + extra)
        first = self._first(batch, b, "DEAL ")
        assert first is not None
        self._expect(batch[first], "STAKES-BANK", "bet-limit")
        return True

    def _deal_order_cdf(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        deals = [i for i in self._round(batch, b) if batch[i].startswith("DEAL ")][:4]
        if len(deals) < 4 or deals[2] != deals[1] + 1:
            return False
        i = deals[1]
        batch[i].body, batch[i + 1].body = batch[i + 1].body, batch[i].body
        self._expect(batch[i], "DEAL-ORDER", "deal-order")
        self._expect(batch[i + 1], "DEAL-ORDER", "deal-order")
        return True

    def _wrong_payout_cdf(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        info = self._coup(batch, b)
        paid = [i for i in info["settle"] if batch[i].verb in ("PAY", "COLLECT")]
        if not paid:
            return False
        i = fault.rng.choice(paid)
        amount = _amount(batch[i])
        _with_amount(batch[i], amount - 10 if amount > 10 else amount + 10)
        self._expect(batch[i], "SETTLE", "wrong-payout")
        return True

    def _pay_order_cdf(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        settle = self._coup(batch, b)["settle"]
        pairs = [i for i in settle if i + 1 in settle]
        if not pairs:
            return False
        i = fault.rng.choice(pairs)
        batch[i].body, batch[i + 1].body = batch[i + 1].body, batch[i].body
        self._expect(batch[i + 1], "PAY-ORDER", "pay-order")
        return True

    def _shoe_cdf(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        new_shoe = self._first(batch, 0, "SHOE new")
        if new_shoe is None or new_shoe > b or self.shoes - 1 < fault.shoe:
            return False
        cuts = [i for i in range(new_shoe, b) if batch[i].startswith("CUT ")]
        refused = {_by(batch[i]) for i in cuts[:-1]}
        cut = batch[cuts[-1]]
        others = [s for s in sorted(self.seated) if f"seat:{s}" not in refused and f"seat:{s}" != _by(cut)]
        if others:  # the cut taken by a player it was not offered to
            cut.body = f"CUT by=seat:{fault.rng.choice(others)}"
        else:  # every other player declined: the first two were offered it in the wrong order
            first, second = batch[cuts[0]], batch[cuts[1]]
            first.body, second.body = (first.body.replace(_by(first), _by(second)),  # type: ignore[arg-type]
                                       second.body.replace(_by(second), _by(first)))  # type: ignore[arg-type]
        self._expect(cut, "CUT-ORDER", "shoe")
        return True

    def _table_cdf(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        if any(line.startswith("SHOE new") for line in batch[:b]):
            return False  # the cut is offered by seat: keep the extra seat away from a new shoe
        return self._seat_range(fault, batch, b, n)

    def _drawing_cdf(self, fault: Fault, batch: list[Line], b: int, n: int) -> bool:
        point = self._coup(batch, b)["point"]
        if point is None:
            return False
        i, p, q = point
        if fault.rng.random() < 0.5:
            p = (p + fault.rng.choice((1, 9))) % 10
        else:
            q = (q + fault.rng.choice((1, 9))) % 10
        batch[i].body = f"POINT ponte={p} banker={q}"
        self._expect(batch[i], "POINT", "drawing")
        return True


# -- the night ------------------------------------------------------------------------------------

@dataclass
class Expected:
    rule: str
    category: str
    line: int
    table: str | None  # None for a syntax finding: a line that does not parse names no table

    def as_json(self) -> dict:
        return {"rule": self.rule, "category": self.category, "line": self.line, "table": self.table}


def render(header: list[str], merged: Iterator[tuple[datetime, str, Line]],
           expected: list[Expected]) -> Iterator[str]:
    """The log's lines (no line ends), ``# expect:`` comments before the faulty ones.

    ``expected`` is filled as the lines go, with their final line numbers."""
    n = 0
    for text in header:
        n += 1
        yield text
    for _, table, line in merged:
        for rule, _ in line.expects:
            n += 1
            yield f"# expect: {rule}"
        n += 1
        yield f"{_stamp(line.t)} {table} {line.body}"
        for rule, category in line.expects:
            expected.append(Expected(rule, category, n, None if category == "syntax" else table))


def faulty_night(*, tables: list[TableSpec], seed: int, start: datetime, casino: str,
                 categories: list[str]) -> tuple[Iterator[str], list[Expected], Plan]:
    """The night of ``simulate`` with one fault of each requested category.

    Returns the lines (lazily), the list of expected findings (complete once
    the lines are consumed) and the plan (which faults were placed, once the
    lines are consumed; which categories no table could take)."""
    import heapq

    from .simulate import header_lines, table_streams

    chosen = plan(tables, categories, seed)
    streams = table_streams(tables=tables, seed=seed, start=start)
    wrapped = [inject(stream, spec, i + 1, [f for f in chosen.faults if f.table == i])
               for i, (stream, spec) in enumerate(zip(streams, tables))]
    merged = heapq.merge(*wrapped, key=lambda item: (item[0], item[1]))
    expected: list[Expected] = []
    return render(header_lines(casino), merged, expected), expected, chosen
