"""What a game's simulator may use (``Game.simulator``): see ``audit.plugin``."""

from __future__ import annotations

from ..simulate.game import GameSimulator, Night
from ..simulate.params import FaultRules, SimulationError, enabled, needed
from ..simulate.shoe import Shoe
from ..simulate.specs import TableSpec
from ..simulate.table import Plan, TableNight
from ..simulate.table_faults import Fault, FaultMethod, Line, TableFaults

__all__ = [
    "Fault",
    "FaultMethod",
    "FaultRules",
    "GameSimulator",
    "Line",
    "Night",
    "Plan",
    "Shoe",
    "SimulationError",
    "TableFaults",
    "TableNight",
    "TableSpec",
    "enabled",
    "needed",
]
