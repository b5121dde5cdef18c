"""The benchmark's nights, made by the project's simulator, and how varied their lines are.

- the old night: bataille tables only, French and Monaco in turn, the plain style
  (``python -m audit.simulate --tables T``): the night issue 5's targets were set on;
- the realistic night (issue 21): French, Monaco and Ostende chemin de fer tables
  in turn, in the realistic style (``--style realistic``: heavy-tailed stakes over
  the whole posted range, standing players, seat changes, limits changing...);
- the night of many small files: the realistic style again, one file per table
  (``--per-table``), a few hundred lines each, where start-up dominates.
"""

from __future__ import annotations

import math
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from measures import child_env, fail, log_files

#: a first guess of event lines per table and round (the simulator writes about 22 in both styles)
LINES_PER_TABLE_ROUND = 22


@dataclass
class Log:
    path: Path  # a file, or the folder of a night of many files
    tables: int
    rounds: int
    seed: int
    lines: int
    event_lines: int
    bytes: int
    seconds: float  # to generate
    style: str = "plain"
    files: int = 1


def count_lines(path: Path) -> tuple[int, int]:
    """(lines, event lines) of a log's files: an event line is neither blank nor a ``#`` header or comment."""
    lines = events = 0
    for one in log_files(path):
        with one.open("rb") as f:
            for raw in f:
                lines += 1
                body = raw.strip()
                if body and not body.startswith(b"#"):
                    events += 1
    return lines, events


def generate(
    path: Path,
    tables: int,
    rounds: int,
    seed: int,
    cwd: Path,
    style: str = "plain",
    per_table: bool = False,
) -> Log:
    """A night of ``tables`` tables of ``rounds`` rounds: a file, or (``per_table``) a folder of one file a table."""
    cmd = [
        sys.executable,
        "-m",
        "audit.simulate",
        "--tables",
        str(tables),
        "--rounds",
        str(rounds),
        "--seed",
        str(seed),
    ]
    if style != "plain":
        cmd += ["--style", style]
    cmd += ["--per-table", str(path)] if per_table else ["-o", str(path)]
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=child_env(), capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        fail(f"the simulator failed ({shlex.join(cmd)}):\n{done.stderr[-2000:]}")
    lines, events = count_lines(path)
    files = log_files(path)
    return Log(
        path,
        tables,
        rounds,
        seed,
        lines,
        events,
        sum(f.stat().st_size for f in files),
        seconds,
        style,
        len(files),
    )


def generate_at_least(
    path: Path, want: int, tables: int, seed: int, cwd: Path, multiple: int, style: str = "plain"
) -> Log:
    """The fewest rounds (a multiple of ``multiple``) from a first guess, raised until the log is long enough."""
    rounds = max(1, math.ceil(want / (tables * LINES_PER_TABLE_ROUND)))
    while True:
        rounds = math.ceil(rounds / multiple) * multiple
        log = generate(path, tables, rounds, seed, cwd, style)
        if log.event_lines >= want:
            return log
        rounds = math.ceil(rounds * want / max(log.event_lines, 1) * 1.01) + 1


def distinct_shares(path: Path) -> dict:
    """How varied a log's event lines are: the share of distinct texts after the time stamp (table,
    verb and arguments) and from the verb on (any table), among its event lines."""
    events = 0
    texts: set[bytes] = set()
    verbs: set[bytes] = set()
    for one in log_files(path):
        with one.open("rb") as f:
            for raw in f:
                body = raw.strip()
                if not body or body.startswith(b"#"):
                    continue
                events += 1
                words = body.split(b" ", 2)
                texts.add(b" ".join(words[1:]))
                verbs.add(words[2] if len(words) > 2 else b"")
    return {
        "event_lines": events,
        "distinct_after_stamp": len(texts),
        "distinct_from_verb": len(verbs),
        "share_after_stamp": round(len(texts) / events, 4) if events else None,
        "share_from_verb": round(len(verbs) / events, 4) if events else None,
    }
