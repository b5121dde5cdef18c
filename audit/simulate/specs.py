"""The tables of a simulated night: what each is (``TableSpec``) and the shipped sets of them.

A table names its ruleset; what the ruleset says (seats, limits, decks...) is
read when the night is simulated, from the loaded ruleset (``params``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal

from ..rulesets import Library
from .params import default_library, playable, simulator, simulators
from .style import PLAIN, REALISTIC, Style

PROCEDURES = ("sabot", "shuffler", "shuffler-dealer")


@dataclass(frozen=True)
class TableSpec:
    """One table of the simulated night."""

    table: str
    ruleset: str
    rounds: int
    seats: int
    min: Decimal
    max: Decimal
    #: the format's second pair of limits, for the games that post it
    side_min: Decimal | None = None
    side_max: Decimal | None = None
    procedure: str = "sabot"
    style: Style = PLAIN

    def __post_init__(self) -> None:
        if self.procedure not in PROCEDURES:
            raise ValueError(f"unknown procedure {self.procedure!r}")
        if not (1 <= self.seats <= 99 and self.rounds >= 0):
            raise ValueError("seats must be 1..99 and rounds >= 0")
        if not 0 < self.min <= self.max:
            raise ValueError("limits must be positive with min <= max")


def shipped_rulesets() -> tuple[str, ...]:
    """The shipped rulesets of the games the simulator plays, in the order their games give them."""
    return tuple(ruleset for one in simulators() for ruleset in one.rulesets)


def generated_tables(count: int, rounds: int) -> list[TableSpec]:
    """The tables of ``audit simulate`` without a ruleset, for large inputs (the benchmark's night):
    those of each game that makes some."""
    return [spec for one in simulators() if one.generated for spec in one.generated(count, rounds)]


def known_rulesets(library: Library) -> list[str]:
    """The rulesets of ``library`` whose games the simulator plays, the shipped ones first."""
    shipped = shipped_rulesets()
    ids = [r for r in library.rulesets if playable(library, r) is not None]
    return sorted(ids, key=lambda r: (shipped.index(r) if r in shipped else len(shipped), r))


def cli_tables(
    rulesets: list[str], count: int, rounds: int, library: Library | None = None
) -> list[TableSpec]:
    """``count`` tables dealt to ``rulesets`` round-robin (the first table to the
    first ruleset, the second to the second...), so that every ruleset has
    several tables when ``count`` is a multiple; what ``audit simulate`` writes.

    Tables are named by ruleset (the prefix its game gives, else the ruleset id's first word,
    then ``-01``, ``-02``...); each is the game's ``k``-th table of that ruleset
    (``GameSimulator.table``: its seats, limits and shoe procedure, within what ``library``'s
    ruleset allows; default: the shipped rulesets).
    """
    library = library or default_library()
    unknown = [r for r in rulesets if playable(library, r) is None]
    if unknown or not rulesets:
        raise ValueError(
            f"unknown ruleset(s) {', '.join(unknown)}; known: {', '.join(known_rulesets(library))}"
        )
    if count < len(rulesets):
        raise ValueError(
            f"{count} table(s) for {len(rulesets)} ruleset(s): every ruleset needs a table"
        )
    prefixes = {ruleset: prefix for one in simulators() for ruleset, prefix in one.rulesets.items()}
    seen: dict[str, int] = {}
    specs = []
    for i in range(count):
        ruleset = rulesets[i % len(rulesets)]
        k = seen.get(ruleset, 0)
        seen[ruleset] = k + 1
        name = f"{prefixes.get(ruleset, ruleset.split('-')[0].upper())}-{k + 1:02d}"
        loaded = playable(library, ruleset)
        assert loaded is not None
        specs.append(simulator(loaded.game).table(name, loaded, k, rounds))
    return specs


def realistic_tables(count: int, rounds: int, library: Library | None = None) -> list[TableSpec]:
    """``count`` tables dealt to the shipped rulesets in turn, with ``cli_tables``' limits and
    procedures, played in the realistic style."""
    return [
        replace(spec, style=REALISTIC)
        for spec in cli_tables(list(shipped_rulesets()), count, rounds, library)
    ]
