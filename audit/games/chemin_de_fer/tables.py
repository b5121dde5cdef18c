"""The chemin de fer tables ``audit simulate`` makes: of a ruleset (``-r``), and the shipped nights."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from ...rulesets import LoadedRuleset
from ...simulate.clock import TZ
from ...simulate.game import GameSimulator, Night
from ...simulate.night import NIGHTS_DIR
from ...simulate.specs import TableSpec
from ..bataille.tables import FR, MC
from .inject import CdfFaults
from .simulate import CdfNight

CDF = "be-ostende-cdf"


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


def cli_table(name: str, loaded: LoadedRuleset, k: int, rounds: int) -> TableSpec:
    """The ``k``-th chemin de fer table of its ruleset in ``cli_tables``: several minimums and 8
    to 10 seats."""
    d = Decimal
    return TableSpec(name, loaded.id, rounds, 10 - k % 3, (d(60), d(100), d(200))[k % 3], d(100000))


SIMULATOR = GameSimulator(
    night=CdfNight,
    faults=CdfFaults,
    table=cli_table,
    rulesets={CDF: "CDF"},
    nights={
        # seed picked so that, across the chemin de fer night, every cell of the banker's
        # drawing table occurs (rows 0-7 by the ponte's third card 0-9 and NON, both choices at
        # the two O cells), besides passed hands taken, retaken au taux and auctioned, bancos of
        # every kind, associates and raised banks
        "cdf": Night(
            cdf_tables,
            7,
            datetime(2026, 11, 20, 21, 0, tzinfo=TZ),
            "Kursaal-Ostende",
            NIGHTS_DIR / "cdf-night.del",
        ),
        "mixed": Night(
            mixed_tables,
            7,
            datetime(2026, 11, 21, 21, 0, tzinfo=TZ),
            "Casino-Simulation",
            NIGHTS_DIR / "mixed-night.del",
        ),
    },
)
