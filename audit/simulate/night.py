"""The night: each table's stream from its game's simulator, interleaved by time into one log.

Every table is played under its loaded ruleset (``Library.for_table``: the
ruleset with the house overlays that apply to it), whose parameters its
game's simulator reads (``params``). Everything is deterministic for a seed:
one ``random.Random`` per table, seeded from ``seed``; never the global
generator, never the clock. The tables' lines are merged by timestamp (ties
broken by table id); each table's own lines are strictly increasing in time.
"""

from __future__ import annotations

import heapq
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import chain
from pathlib import Path
from typing import Any

from ..rulesets import Library, LoadedRuleset
from .anomalies import Anomaly
from .clock import TZ, to_ms
from .params import default_library, playable, simulator, simulators
from .specs import TableSpec
from .table import TableNight

#: where the shipped nights are written
NIGHTS_DIR = Path(__file__).resolve().parent.parent.parent / "fixtures" / "nights"
#: the example night's seed and start (its tables are a game's: ``GameSimulator.nights``); the
#: start is also ``audit simulate``'s, a day a seed after it
EXAMPLE_SEED = 2031
EXAMPLE_START = datetime(2026, 11, 20, 21, 0, tzinfo=TZ)


@dataclass(frozen=True)
class PlayedTable:
    """A table of the night with the ruleset it is played under and that ruleset's parameters for its game."""

    spec: TableSpec
    ruleset: LoadedRuleset
    params: Any


def played_tables(tables: list[TableSpec], library: Library | None = None) -> list[PlayedTable]:
    """``tables`` with their loaded rulesets (``library``, default the shipped rulesets); a
    ``ValueError`` for a ruleset the simulator cannot play or a table its ruleset does not allow."""
    library = library or default_library()
    out = []
    for spec in tables:
        if playable(library, spec.ruleset) is None:
            raise ValueError(f"unknown ruleset {spec.ruleset!r}")
        loaded = library.for_table(spec.ruleset, spec.table)
        assert loaded is not None
        game = simulator(loaded.game).night
        params = game.read_params(loaded)
        game.check(spec, params)  # params of the same game, read above
        out.append(PlayedTable(spec, loaded, params))
    return out


def header_lines(casino: str = "Casino-Simulation") -> list[str]:
    """The header lines every simulated log starts with."""
    return ["#DEL 1", f"#casino {casino}", "#source audit-simulate"]


def table_streams(
    *, tables: list[PlayedTable], seed: int, start: datetime, anomaly: Anomaly | None = None
) -> list[Iterator[tuple[datetime, str, str]]]:
    """One lazy stream of ``(time, table, line)`` per table, each in time order.

    ``heapq.merge`` of them is the night (ties broken by table id); a table's
    stream holds at most one round in memory, however long the night.
    """
    master = random.Random(seed)
    t0 = to_ms(start)
    streams = []
    for i, played in enumerate(tables):
        rng = random.Random(master.getrandbits(64))
        begin = t0 + timedelta(seconds=7 * i, milliseconds=rng.randint(0, 999))
        kind = simulator(played.ruleset.game)
        night: TableNight = kind.night(played.spec, played.params, rng, begin, i + 1)
        if anomaly is not None and anomaly.table is None and kind.anomalies:
            anomaly.table = played.spec.table
            night.anomaly = anomaly
        streams.append(night.lines())
    return streams


def simulate(
    *,
    tables: list[TableSpec],
    seed: int,
    start: datetime,
    casino: str = "Casino-Simulation",
    library: Library | None = None,
    anomaly: Anomaly | None = None,
) -> Iterator[str]:
    """Yield the lines (no line ends) of one rule-abiding night at ``tables``, each played under
    its ruleset in ``library`` (default: the shipped rulesets, no overlay); ``anomaly``, if any,
    played at the first table of a game that plays anomalies (it says where once the night is
    played)."""
    played = played_tables(tables, library)
    return _night(played, seed, start, casino, anomaly)


def _night(
    played: list[PlayedTable],
    seed: int,
    start: datetime,
    casino: str,
    anomaly: Anomaly | None = None,
) -> Iterator[str]:
    yield from header_lines(casino)
    for _, _, line in heapq.merge(
        *table_streams(tables=played, seed=seed, start=start, anomaly=anomaly)
    ):
        yield line


def nights() -> dict[str, Any]:
    """The shipped fixture nights of the registered games, by name (``GameSimulator.nights``)."""
    return {name: night for one in simulators() for name, night in one.nights.items()}


def night_lines(name: str) -> Iterator[str]:
    """The lines of one of the fixture nights (``nights``)."""
    night = nights()[name]
    return simulate(tables=night.tables(), seed=night.seed, start=night.start, casino=night.casino)


def write_night(name: str, path: Path | str | None = None) -> int:
    """Write the fixture night ``name`` (default: its file under fixtures/nights); return its number of lines."""
    return write_lines(night_lines(name), Path(path or nights()[name].path))


def write_tables(
    *,
    tables: list[TableSpec],
    seed: int,
    start: datetime,
    directory: Path,
    casino: str = "Casino-Simulation",
) -> int:
    """Write the night of ``tables`` as one log per table, ``directory/TABLE.del``, each with the
    header lines; the tables play as in ``simulate`` (same seed, same lines); return the lines written."""
    played = played_tables(tables)
    count = 0
    for table, stream in zip(played, table_streams(tables=played, seed=seed, start=start)):
        lines = chain(header_lines(casino), (line for _, _, line in stream))
        count += write_lines(lines, directory / f"{table.spec.table}.del")
    return count


def write_lines(lines: Iterator[str], path: Path) -> int:
    """Write ``lines`` to ``path``, one a line; return how many."""
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8", newline="\n") as out:
        for line in lines:
            out.write(line + "\n")
            count += 1
    return count


def print_lines(lines: Iterator[str]) -> int:
    """Write ``lines`` to standard output; return how many."""
    count = 0
    for line in lines:
        sys.stdout.write(line + "\n")
        count += 1
    return count
