"""The bataille tables ``audit simulate`` makes: of a ruleset (``-r``), the benchmark's, the example night."""

from __future__ import annotations

from decimal import Decimal

from ...rulesets import LoadedRuleset
from ...simulate.game import GameSimulator, Night
from ...simulate.night import EXAMPLE_SEED, EXAMPLE_START, NIGHTS_DIR
from ...simulate.specs import PROCEDURES, TableSpec
from .inject import BatailleFaults
from .params import bataille_params
from .simulate import BatailleNight

FR = "fr-bataille-2007"
MC = "mc-sun-war-2006"
#: A bataille table of ``audit simulate -r``: seats, and its maximum as a multiple of its minimum
#: when the ruleset leaves it free.
CLI_SEATS, CLI_SPREAD = 7, 50


def example_tables() -> list[TableSpec]:
    """The three tables of the example night: both rulesets, all procedures."""
    d = Decimal
    return [
        TableSpec("BAT-01", FR, 120, 7, d(10), d(500), d(5), d(50), "sabot"),
        TableSpec("BAT-02", MC, 100, 7, d(20), d(1000), d(5), d(100), "shuffler"),
        TableSpec("BAT-03", MC, 110, 6, d("12.50"), d(1250), d("2.50"), d(125), "shuffler-dealer"),
    ]


def generated_tables(count: int, rounds: int) -> list[TableSpec]:
    """``count`` bataille tables alternating rulesets and procedures, for large inputs."""
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
    return specs


def cli_table(name: str, loaded: LoadedRuleset, k: int, rounds: int) -> TableSpec:
    """The ``k``-th bataille table of its ruleset in ``cli_tables``: the three shoe procedures in
    turn (sabot, shuffling-dealing machine, shuffler) and several limits, within the ruleset's
    (and house's) bounds."""
    params = bataille_params(loaded)
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


#: the example night's seed (``EXAMPLE_SEED``) was picked so that the card-driven rarities all
#: occur: a stop card due exactly at a round's end, a lone Ace at an MC bataille, several players
#: at one bataille on both rulesets, an égalité re-bet won, a refused cut
SIMULATOR = GameSimulator(
    night=BatailleNight,
    faults=BatailleFaults,
    table=cli_table,
    rulesets={FR: "FR", MC: "MC"},
    anomalies=True,
    nights={
        "example": Night(
            example_tables,
            EXAMPLE_SEED,
            EXAMPLE_START,
            "Casino-Exemple",
            NIGHTS_DIR / "example-night.del",
        )
    },
    generated=generated_tables,
)
