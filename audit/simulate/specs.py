"""The tables of a simulated night: what each is (``TableSpec``) and the shipped sets of them.

A table names its ruleset; what the ruleset says (seats, limits, decks...) is
read when the night is simulated, from the loaded ruleset (``params``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal

from ..rulesets import Library
from .params import CHEMIN_DE_FER, BatailleParams, bataille_params, default_library, playable
from .style import PLAIN, REALISTIC, Style

FR = "fr-bataille-2007"
MC = "mc-sun-war-2006"
CDF = "be-ostende-cdf"
#: The shipped rulesets of the games the simulator plays, in the order the help names them.
RULESETS = (FR, MC, CDF)
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
    egalite_min: Decimal | None = None  # bataille only
    egalite_max: Decimal | None = None  # bataille only
    procedure: str = "sabot"
    style: Style = PLAIN

    def __post_init__(self) -> None:
        if self.procedure not in PROCEDURES:
            raise ValueError(f"unknown procedure {self.procedure!r}")
        if not (1 <= self.seats <= 99 and self.rounds >= 0):
            raise ValueError("seats must be 1..99 and rounds >= 0")
        if not 0 < self.min <= self.max:
            raise ValueError("limits must be positive with min <= max")


def example_tables() -> list[TableSpec]:
    """The three tables of the example night: both rulesets, all procedures."""
    d = Decimal
    return [
        TableSpec("BAT-01", FR, 120, 7, d(10), d(500), d(5), d(50), "sabot"),
        TableSpec("BAT-02", MC, 100, 7, d(20), d(1000), d(5), d(100), "shuffler"),
        TableSpec("BAT-03", MC, 110, 6, d("12.50"), d(1250), d("2.50"), d(125), "shuffler-dealer"),
    ]


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


def generated_tables(count: int, rounds: int, cdf: int = 0) -> list[TableSpec]:
    """``count`` bataille tables alternating rulesets and procedures, then ``cdf``
    chemin de fer tables, for large inputs."""
    d = Decimal
    specs = []
    for i in range(count):
        ruleset = FR if i % 2 == 0 else MC
        procedure = PROCEDURES[i % 3]
        low = (d(10), d(20), d(25), d(50))[i % 4]
        specs.append(
            TableSpec(
                f"BAT-{i + 1:02d}", ruleset, rounds, 7, low, low * 50, d(5), low * 5, procedure
            )
        )
    for i in range(cdf):
        low = (d(60), d(100), d(200))[i % 3]
        specs.append(TableSpec(f"CDF-{i + 1:02d}", CDF, rounds, 10 - i % 3, low, d(100000)))
    return specs


#: Table id prefix of each shipped ruleset in ``cli_tables`` (another ruleset: its id's first word).
TABLE_PREFIX = {FR: "FR", MC: "MC", CDF: "CDF"}
#: A bataille table of ``cli_tables``: seats, and its maximum as a multiple of its minimum
#: when the ruleset leaves it free.
CLI_SEATS, CLI_SPREAD = 7, 50


def known_rulesets(library: Library) -> list[str]:
    """The rulesets of ``library`` whose games the simulator plays, the shipped ones first."""
    ids = [r for r in library.rulesets if playable(library, r) is not None]
    return sorted(ids, key=lambda r: (RULESETS.index(r) if r in RULESETS else len(RULESETS), r))


def cli_tables(
    rulesets: list[str], count: int, rounds: int, library: Library | None = None
) -> list[TableSpec]:
    """``count`` tables dealt to ``rulesets`` round-robin (the first table to the
    first ruleset, the second to the second...), so that every ruleset has
    several tables when ``count`` is a multiple; what ``audit simulate`` writes.

    Tables are named by ruleset (``FR-01``, ``MC-01``, ``CDF-01``...). The
    bataille tables of one ruleset take the three shoe procedures in turn
    (sabot, shuffling-dealing machine, shuffler) and several limits, within
    what ``library``'s ruleset allows (default: the shipped rulesets); the
    chemin de fer tables several minimums and 8 to 10 seats.
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
    d = Decimal
    seen: dict[str, int] = {}
    specs = []
    for i in range(count):
        ruleset = rulesets[i % len(rulesets)]
        k = seen.get(ruleset, 0)
        seen[ruleset] = k + 1
        name = f"{TABLE_PREFIX.get(ruleset, ruleset.split('-')[0].upper())}-{k + 1:02d}"
        loaded = playable(library, ruleset)
        assert loaded is not None
        if loaded.game == CHEMIN_DE_FER:
            specs.append(
                TableSpec(
                    name, ruleset, rounds, 10 - k % 3, (d(60), d(100), d(200))[k % 3], d(100000)
                )
            )
        else:
            specs.append(_bataille_table(name, bataille_params(loaded), k, rounds))
    return specs


def _bataille_table(name: str, params: BatailleParams, k: int, rounds: int) -> TableSpec:
    """The ``k``-th bataille table of its ruleset in ``cli_tables``, within the ruleset's (and house's) bounds."""
    d = Decimal
    seats = min(CLI_SEATS, params.max_seats or CLI_SEATS)
    low = max((d(10), d(20), d(25), d(50))[k % 4], params.house_min_at_least or d(0))
    cap = params.house_max_at_most
    if params.limit_multiples is None:
        high = low * CLI_SPREAD if cap is None else min(low * CLI_SPREAD, cap)
    else:
        fits = [low * m for m in params.limit_multiples if cap is None or low * m <= cap]
        high = (
            max(fits) if fits else low * min(params.limit_multiples)
        )  # refused when the night is played
    egalite_cap = params.house_egalite_max_at_most
    egalite_high = low * 5 if egalite_cap is None else min(low * 5, egalite_cap)
    procedures = [p for p in ("sabot", "shuffler-dealer", "shuffler") if p in params.procedures]
    return TableSpec(
        name,
        params.ruleset,
        rounds,
        seats,
        low,
        high,
        d(5),
        egalite_high,
        procedures[k % len(procedures)],
    )


def realistic_tables(count: int, rounds: int, library: Library | None = None) -> list[TableSpec]:
    """``count`` tables dealt to the French, Monaco and Ostende rulesets in turn (a third of
    them chemin de fer), with ``cli_tables``' limits and procedures, played in the realistic style."""
    return [
        replace(spec, style=REALISTIC)
        for spec in cli_tables(list(RULESETS), count, rounds, library)
    ]
