#!/usr/bin/env python3
"""False alarms and power of ``audit follow``'s live statistics, beside ``audit check``'s.

The same simulated nights as ``benchmarks/statistics_rates.py``, each read twice: followed as
``audit follow`` reads a log (a look at each shoe's end, looks corrected as docs/statistics.md
says), and audited whole as ``audit check`` does (Holm, once). For each night the smallest
adjusted p-value of each is kept: the night alarms at alpha when it is below alpha, so one run
gives the false-alarm rate at every alpha.

- false alarms: ``--clean`` clean nights (rulesets and seeds varied, four tables each);
- power: collusion of each ``--strength`` at the first of two bataille tables, caught when an
  anomaly names the favoured player; a stacked shoe, caught when one names the shoe or its
  table; and for the live statistics, how far into the night (share of its lines) it was caught.

    python3 benchmarks/live_false_alarms.py                 # 200 clean nights, 20 per strength
    python3 benchmarks/live_false_alarms.py --clean 10 --nights 3   # a quick look
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from audit.follow.live_stats import LiveStatistics
from audit.follow.tail import Follower
from audit.rulesets import Library
from audit.run import run_audit
from audit.simulate import EXAMPLE_START, cli_tables, simulate
from audit.simulate.anomalies import Anomaly

MIXES = (
    ["fr-bataille-2007"],
    ["mc-sun-war-2006"],
    ["be-ostende-cdf"],
    ["fr-bataille-2007", "mc-sun-war-2006"],
    ["fr-bataille-2007", "be-ostende-cdf"],
    ["mc-sun-war-2006", "be-ostende-cdf"],
)
ALPHAS = (0.001, 0.01, 0.05)


def night(library, rulesets, tables, rounds, seed, alpha, anomaly=None) -> dict:
    """One night, followed and checked: the smallest adjusted p of each, what each named."""
    specs = cli_tables(rulesets, tables, rounds)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "night.del"
        lines = list(simulate(tables=specs, seed=seed, start=EXAMPLE_START, anomaly=anomaly))
        path.write_text("".join(line + "\n" for line in lines))
        told = []
        live = LiveStatistics(library, told.append, alpha)
        follower = Follower(library, [str(path)], lambda p, f: None, {}, None, live)
        follower.poll()
        follower.finish()
        follower.close()
        stats = run_audit(library, [str(path)]).statistics
        checked = stats.anomalies()
        stats.alpha = 1.0
        smallest = min((a.p_adjusted for a in stats.anomalies()), default=1.0)
    return {
        "live": live.smallest,
        "check": smallest,
        "live_named": {(a.group.scope, a.group.id): a.line / len(lines) for a in told},
        "check_named": {(a.group.scope, a.group.id) for a in checked},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clean", type=int, default=200, help="clean nights (default 200)")
    ap.add_argument("--nights", type=int, default=20, help="nights per kind of anomaly (20)")
    ap.add_argument("--rounds", type=int, default=300, help="rounds per table (default 300)")
    ap.add_argument("--alpha", type=float, default=0.001, help="alpha of the power (0.001)")
    ap.add_argument("--strength", type=float, action="append", help="collusion (default 0.5, 1)")
    args = ap.parse_args()
    library = Library.load()
    library.statistics = True
    smallest = {"live": [], "check": []}
    for i in range(args.clean):
        got = night(library, MIXES[i % len(MIXES)], 4, args.rounds, 1000 + i, args.alpha)
        for side in smallest:
            smallest[side].append(got[side])
    false_alarms = {
        side: {str(a): sum(p < a for p in ps) / args.clean for a in ALPHAS}
        for side, ps in smallest.items()
    }
    power: dict = {}
    kinds = [("collusion", s) for s in args.strength or [0.5, 1.0]] + [("stacked-shoe", 1.0)]
    for kind, strength in kinds:
        caught = {"live": 0, "check": 0}
        when = []
        for i in range(args.nights):
            played = Anomaly(kind, strength)
            seed = (2000 if kind == "collusion" else 3000) + i
            got = night(library, [MIXES[i % 2][0]], 2, args.rounds, seed, args.alpha, played)
            names = {played.id} if kind == "collusion" else {played.id, played.table}
            live = [share for (_, ident), share in got["live_named"].items() if ident in names]
            caught["live"] += bool(live)
            caught["check"] += any(ident in names for _, ident in got["check_named"])
            when.extend(min(live) for _ in live[:1])
        power[f"{kind} {strength:g}"] = {side: n / args.nights for side, n in caught.items()} | {
            "caught_at_median": round(statistics.median(when), 2) if when else None
        }
    json.dump(
        {
            "clean_nights": args.clean,
            "rounds_per_table": args.rounds,
            "false_alarm_rate": false_alarms,
            "alpha_of_power": args.alpha,
            "power": power,
        },
        sys.stdout,
        indent=1,
    )
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
