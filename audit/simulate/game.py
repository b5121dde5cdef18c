"""What a game gives the simulator (``Game.simulator``): its table, its faults, its tables and nights.

The night, the interleaving, fault planning and ``audit simulate`` are every
game's; what a table of one game does, which tables ``audit simulate -r``
makes of its rulesets and which fixture nights it ships are the game's own,
found through the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..rulesets import LoadedRuleset
from .specs import TableSpec
from .table import TableNight
from .table_faults import TableFaults


@dataclass(frozen=True)
class Night:
    """A shipped night: its tables, seed, start, casino and file (``audit simulate --night``)."""

    tables: Callable[[], list[TableSpec]]
    seed: int
    start: datetime
    casino: str
    path: Path


@dataclass(frozen=True)
class GameSimulator:
    #: one table's night; its ``read_params(ruleset)`` and ``check(spec, params)`` judge a table
    night: type[TableNight]
    #: its faults (``audit simulate --inject``)
    faults: type[TableFaults]
    #: the ``k``-th table (from 0) of a ruleset in ``audit simulate -r``: (table id, loaded
    #: ruleset, k, rounds) -> its spec, within what the ruleset allows
    table: Callable[[str, LoadedRuleset, int, int], TableSpec]
    #: its shipped rulesets, in the order the help names them, with their tables' id prefix
    rulesets: dict[str, str] = field(default_factory=dict)
    #: a statistical anomaly (``--anomaly``) can be played at its tables
    anomalies: bool = False
    #: its shipped fixture nights, by name
    nights: dict[str, Night] = field(default_factory=dict)
    #: the tables of ``audit simulate`` without a ruleset (the benchmark's night): (count, rounds)
    generated: Callable[[int, int], list[TableSpec]] | None = None
