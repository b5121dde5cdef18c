#!/usr/bin/env python3
"""Where the surveillance statistics' CPU time goes: their parts left out one after the other.

``audit check --format json --jobs 1 LOG`` runs in a child process, as the command line runs it,
in six ways, each later one leaving out one part more:

- ``whole``: the statistics as they are;
- ``build``: the report's groups neither made nor written (the sums are still kept);
- ``players``: the players' sums not kept either (each round's bets by player still gathered);
- ``rounds``: no round's sums kept at all (the house's per shoe, dealer and table neither);
- ``gather``: a round's settled bets not even gathered (bataille and chemin de fer);
- ``off``: ``--no-statistics``.

Each part's cost is the difference between the medians of two neighbouring ways, in CPU time; what
``gather`` still costs over ``off`` is the rest (the shoes' card tests, where rounds begin and end,
the odds). The ways run in turn, ``--pairs`` times, so that a busy moment of a shared machine hits
them alike. A part is left out by replacing one function of this checkout's ``audit`` in the child
(this script's ``--way``); those runs' reports are not the audit's and are thrown away.

    python3 benchmarks/statistics_parts.py LOG                 # five rounds of the six ways
    python3 benchmarks/statistics_parts.py LOG --pairs 3 --json parts.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for where in (HERE, ROOT):
    if str(where) not in sys.path:
        sys.path.insert(0, str(where))

from measures import run_measured  # noqa: E402

WAYS = ["whole", "build", "players", "rounds", "gather", "off"]
#: what each way leaves out that the one before it kept
PARTS = {
    "build": "the groups' build and their JSON",
    "players": "the players' sums",
    "rounds": "the house's sums and the rounds' bookkeeping",
    "gather": "gathering each round's settled bets",
    "off": "the rest: card tests, rounds' marks, odds",
}


def leave_out(way: str) -> None:
    """In this process, the parts ``way`` leaves out replaced by nothing (``WAYS``, in order)."""
    if way in ("whole", "off"):
        return
    import audit.run
    from audit.engine.surveillance import Surveillance
    from audit.games.bataille.settle import Settlement
    from audit.games.chemin_de_fer.round import CdfRound

    audit.run.build_statistics = lambda *args, **kwargs: None  # type: ignore[assignment]
    at = WAYS.index(way)
    if at >= WAYS.index("players"):
        add_round = Surveillance.add_round
        Surveillance.add_round = lambda self, dealer, players, whole: add_round(  # type: ignore[method-assign]
            self, dealer, {}, whole
        )
    if at >= WAYS.index("rounds"):
        Surveillance.add_round = lambda self, dealer, players, whole: None  # type: ignore[method-assign]
    if at >= WAYS.index("gather"):
        Settlement.surveyed_round = lambda self: ({}, None)  # type: ignore[method-assign]
        CdfRound._surveyed_players = lambda self, stakes: {}  # type: ignore[method-assign]


def child(way: str, args: list[str]) -> None:
    leave_out(way)
    from audit.__main__ import main

    main(args)


def measure(log: Path, pairs: int) -> dict:
    """The median CPU seconds of each way, and each part's cost."""
    cpu: dict[str, list[float]] = {way: [] for way in WAYS}
    with tempfile.TemporaryDirectory(prefix="audit-parts-") as tmp:
        report = Path(tmp) / "report.json"
        for n in range(pairs):
            for way in WAYS:
                sys.stderr.write(f"statistics_parts: round {n + 1} of {pairs}: {way}\n")
                run = run_measured(
                    [
                        sys.executable,
                        str(Path(__file__).resolve()),
                        "--way",
                        way,
                        "--",
                        "check",
                        "--format",
                        "json",
                        "--jobs",
                        "1",
                        "--output",
                        str(report),
                        *(["--no-statistics"] if way == "off" else ["--statistics"]),
                        str(log),
                    ],
                    ROOT,
                )
                if run.status not in (0, 1):
                    sys.exit(f"statistics_parts: the audit failed ({way}):\n{run.stderr[-2000:]}")
                cpu[way].append(run.cpu_seconds)
    medians = {way: median(times) for way, times in cpu.items()}
    parts = {part: medians[WAYS[WAYS.index(part) - 1]] - medians[part] for part in PARTS}
    return {
        "log": str(log),
        "pairs": pairs,
        "cpu_seconds": {way: round(s, 3) for way, s in medians.items()},
        "runs": {way: [round(s, 3) for s in times] for way, times in cpu.items()},
        "parts_seconds": {part: round(s, 3) for part, s in parts.items()},
        "cost": round(medians["whole"] / medians["off"], 3),
    }


def printout(figures: dict) -> str:
    extra = figures["cpu_seconds"]["whole"] - figures["cpu_seconds"]["off"]
    out = [
        f"the statistics on {figures['log']}: {figures['cpu_seconds']['whole']:.2f} s of CPU "
        f"with them, {figures['cpu_seconds']['off']:.2f} s without ({figures['cost']:.2f}x; "
        f"median of {figures['pairs']} round(s) of the six ways)",
    ]
    for part, label in PARTS.items():
        seconds = figures["parts_seconds"][part]
        share = f"{seconds / extra * 100:5.1f} %" if extra > 0 else "    -"
        out.append(f"  {label:48s} {seconds:6.2f} s  {share}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--way"]:  # a child: the audit with a way's parts left out
        way, args = argv[1], argv[3:] if argv[2:3] == ["--"] else argv[2:]
        child(way, args)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("log", type=Path, help="the log to audit (a file or a folder of .del files)")
    ap.add_argument("--pairs", type=int, default=5, help="rounds of the six ways (default 5)")
    ap.add_argument("--json", type=Path, metavar="FILE", help="also write the figures to FILE")
    args = ap.parse_args(argv)
    if args.pairs < 1:
        ap.error("--pairs must be positive")
    if not args.log.exists():
        ap.error(f"{args.log}: no such log")
    figures = measure(args.log, args.pairs)
    print(printout(figures))
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
