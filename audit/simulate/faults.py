"""Fault injection for ``audit simulate --inject``: one known breach per category, planned from the seed.

A simulated night is rule-abiding (``night``). This module takes each table's
stream of lines and changes it, in one place per requested category, into a
single, local, realistic breach whose findings are known in advance: the
line (or lines) that must give them carry the expected rule ids, taken from
the table's loaded ruleset. The writer puts a ``# expect: RULE-ID`` comment
before each such line (the fixture convention of ``tests/fixtures.py``) and
lists them, with their final line numbers, for ``--expected``.

Where and when: for each category, a table whose ruleset has the rules of
that category's fault and a first round are drawn from the seed; the fault
goes in the first round at or after it that offers the situation the fault
needs (a winning main stake, a round's burns...). One fault per round at
most (the shoe's preparation before it aside), so that faults never meet; a
table therefore needs about as many rounds as it takes faults, and more.
Faults at the start of a shoe go in the first shoe at or after one drawn
from the seed (among the shoes a table of that length must have).

What each category injects at every game: ``syntax``, a NOTE typed with
unescaped double quotes; ``log-integrity``, one DEAL stamped 2 s before the
table's previous line, a shoe reader's clock behind the terminal's;
``procedure``, "rien ne va plus" not called (at the first card). The rest is
each game's (``GameSimulator.faults``, in the game's package).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from ..findings import CATEGORIES
from ..rulesets import Library
from .clock import stamp
from .night import PlayedTable, header_lines, played_tables, table_streams
from .params import default_library, fault_rules, playable, simulator
from .specs import TableSpec, known_rulesets
from .table_faults import Fault, Line, TableFaults


def _faults(game: str) -> type[TableFaults]:
    """The faults of a game (``GameSimulator.faults``), by the ``game`` of its rulesets."""
    return simulator(game).faults


@dataclass
class Plan:
    faults: list[Fault] = field(default_factory=list)
    #: requested categories that no table of the night can take
    inapplicable: list[str] = field(default_factory=list)


def _categories(library: Library, played: PlayedTable) -> set[str]:
    return _faults(played.ruleset.game).categories(fault_rules(library, played.ruleset))


def plan(
    tables: list[PlayedTable], categories: list[str], seed: int, library: Library | None = None
) -> Plan:
    """Draw, from the seed, the table and the first round of each requested category."""
    library = library or default_library()
    rng = random.Random(f"audit-simulate-inject:{seed}")
    takes = [_categories(library, played) for played in tables]
    out = Plan()
    for category in CATEGORIES:
        if category not in categories:
            continue
        candidates = [i for i, can in enumerate(takes) if category in can]
        if not candidates:
            out.inapplicable.append(category)
            continue
        i = rng.choice(candidates)
        played = tables[i]
        spec = played.spec
        target = rng.randint(1, max(1, spec.rounds // 3))
        at_most = _faults(played.ruleset.game).rounds_per_shoe_at_most(played.params)
        shoe = rng.randrange(1 + spec.rounds // at_most)
        variant = "play"
        if category in ("missed-burn", "extra-burn") and rng.random() < 0.5:
            variant = "start"
        if category == "shoe" or variant == "start":
            target = 1  # its place is the shoe drawn, whatever the round
        out.faults.append(
            Fault(category, i, target, shoe, random.Random(rng.getrandbits(64)), variant)
        )
    return out


def applicable(tables: list[TableSpec], library: Library | None = None) -> list[str]:
    """The categories some table of ``tables`` can take a fault of."""
    library = library or default_library()
    can = set().union(*(_categories(library, played) for played in played_tables(tables, library)))
    return [c for c in CATEGORIES if c in can]


def applies_to(category: str, library: Library | None = None) -> set[str]:
    """The rulesets of ``library`` (default: the shipped ones) whose tables can take a fault of ``category``."""
    library = library or default_library()
    out = set()
    for ruleset_id in known_rulesets(library):
        loaded = playable(library, ruleset_id)
        assert loaded is not None
        if category in _faults(loaded.game).categories(fault_rules(library, loaded)):
            out.add(ruleset_id)
    return out


def inject(
    stream: Iterator[tuple[datetime, str, str]],
    played: PlayedTable,
    number: int,
    faults: list[Fault],
    library: Library,
) -> Iterator[tuple[datetime, str, Line]]:
    """One table's stream with its faults in: ``(time, table, Line)``, lazily."""
    if not faults:
        for t, table, text in stream:
            yield t, table, Line(t, text.split(" ", 2)[2])
        return
    kind = _faults(played.ruleset.game)
    rules = fault_rules(library, played.ruleset)
    yield from kind(played.spec, number, faults, rules, played.params).run(stream)


# -- the night ------------------------------------------------------------------------------------


@dataclass
class Expected:
    rule: str
    category: str
    line: int
    table: str | None  # None for a syntax finding: a line that does not parse names no table

    def as_json(self) -> dict:
        return {
            "rule": self.rule,
            "category": self.category,
            "line": self.line,
            "table": self.table,
        }


def render(
    header: list[str], merged: Iterator[tuple[datetime, str, Line]], expected: list[Expected]
) -> Iterator[str]:
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
        yield f"{stamp(line.t)} {table} {line.body}"
        for rule, category in line.expects:
            expected.append(Expected(rule, category, n, None if category == "syntax" else table))


def faulty_night(
    *,
    tables: list[TableSpec],
    seed: int,
    start: datetime,
    casino: str,
    categories: list[str],
    library: Library | None = None,
) -> tuple[Iterator[str], list[Expected], Plan]:
    """The night of ``simulate`` with one fault of each requested category.

    Returns the lines (lazily), the list of expected findings (complete once
    the lines are consumed) and the plan (which faults were placed, once the
    lines are consumed; which categories no table could take)."""
    library = library or default_library()
    played = played_tables(tables, library)
    chosen = plan(played, categories, seed, library)
    streams = table_streams(tables=played, seed=seed, start=start)
    wrapped = [
        inject(stream, table, i + 1, [f for f in chosen.faults if f.table == i], library)
        for i, (stream, table) in enumerate(zip(streams, played))
    ]
    merged = heapq.merge(*wrapped, key=lambda item: (item[0], item[1]))
    expected: list[Expected] = []
    return render(header_lines(casino), merged, expected), expected, chosen
