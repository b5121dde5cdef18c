"""A simulated night written at a live pace: ``audit simulate-live``.

The lines are those of ``audit simulate`` (the same tables, seed and faults give the same lines);
only the pace is live: ``rate`` lines a second at each table, so one log of ten tables at 2
lines a second grows by 20 lines a second. Each line is written whole and at once, as a
dealer terminal appends it. With ``per_table`` each table's lines go to ``DIR/TABLE.del``
(header lines first), the files created as their tables open, as a casino's terminals do.
"""

from __future__ import annotations

import heapq
import os
import time
from collections.abc import Iterator
from datetime import datetime
from itertools import chain
from pathlib import Path
from typing import Protocol


class LiveError(Exception):
    """The night cannot be written as asked: exit 2."""


class Stopping(Protocol):
    requested: bool


def _pace(stop: Stopping | None, due: float) -> bool:
    """Wait until ``due`` (monotonic); False if asked to stop meanwhile."""
    while True:
        if stop is not None and stop.requested:
            return False
        left = due - time.monotonic()
        if left <= 0:
            return True
        time.sleep(min(left, 0.2))


def _append(path: Path) -> int:
    try:
        return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    except OSError as err:
        raise LiveError(f"{path}: cannot write: {err.strerror or err}") from None


def write_live(
    output: Path,
    *,
    rate: float,
    rulesets: list[str],
    tables: int | None,
    rounds: int,
    seed: int,
    per_table: bool = False,
    inject: list[str] | None = None,
    start: datetime | None = None,
    stop: Stopping | None = None,
) -> int:
    """Write the night; the number of lines written (fewer if stopped)."""
    from .. import simulate as sim
    from ..simulate import faults

    if not rulesets:
        raise LiveError(f"give at least one --ruleset ({', '.join(sim.shipped_rulesets())})")
    rulesets = list(dict.fromkeys(rulesets))
    try:
        specs = sim.cli_tables(
            rulesets, tables if tables is not None else 2 * len(rulesets), rounds
        )
    except ValueError as err:
        raise LiveError(str(err)) from None
    begin = start or datetime.now().astimezone().replace(microsecond=0)
    wanted = [
        c for name in inject or [] for c in (faults.applicable(specs) if name == "all" else [name])
    ]
    for name in wanted:
        if name not in faults.CATEGORIES:
            raise LiveError(
                f"--inject {name!r}: not a category; one of: all, {', '.join(faults.CATEGORIES)}"
            )
    if per_table:
        if wanted:
            raise LiveError("--inject writes one log: not with --per-table")
        played = sim.played_tables(specs)
        streams: list[Iterator[str]] = [
            chain(sim.header_lines(), (line for _, _, line in stream))
            for stream in sim.table_streams(tables=played, seed=seed, start=begin)
        ]
        try:
            output.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise LiveError(f"{output}: cannot create the folder: {err.strerror or err}") from None
        return _per_table(output, [p.spec.table for p in played], streams, rate, stop)
    if wanted:
        lines, _, _ = faults.faulty_night(
            tables=specs,
            seed=seed,
            start=begin,
            casino="Casino-Simulation",
            categories=list(dict.fromkeys(wanted)),
        )
    else:
        lines = sim.simulate(tables=specs, seed=seed, start=begin)
    return _one_log(output, lines, rate * len(specs), stop)


def _one_log(path: Path, lines: Iterator[str], pace: float, stop: Stopping | None) -> int:
    fd = _append(path)
    count = 0
    t0 = time.monotonic()
    try:
        for line in lines:
            if not _pace(stop, t0 + count / pace):
                break
            os.write(fd, (line + "\n").encode("utf-8"))
            count += 1
    finally:
        os.close(fd)
    return count


def _per_table(
    folder: Path, names: list[str], streams: list[Iterator[str]], rate: float, stop: Stopping | None
) -> int:
    """Each table at ``rate`` lines a second, the tables' lines staggered across each period."""
    fds: dict[int, int] = {}
    t0 = time.monotonic()
    due = [(t0 + i / (rate * len(names)), i, 0) for i in range(len(names))]
    heapq.heapify(due)
    count = 0
    try:
        while due:
            when, i, k = heapq.heappop(due)
            if not _pace(stop, when):
                break
            line = next(streams[i], None)
            if line is None:
                continue
            if i not in fds:
                fds[i] = _append(folder / f"{names[i]}.del")
            os.write(fds[i], (line + "\n").encode("utf-8"))
            count += 1
            heapq.heappush(due, (t0 + i / (rate * len(names)) + (k + 1) / rate, i, k + 1))
    finally:
        for fd in fds.values():
            os.close(fd)
    return count
