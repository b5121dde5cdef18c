#!/usr/bin/env python3
"""False alarm rate and detection power of the surveillance statistics (issue 17).

- false alarms: ``--clean`` simulated nights (rulesets and seeds varied, four tables each,
  bataille and chemin de fer), audited; a night with any anomaly is a false alarm.
- power: nights with a collusion of each ``--strength`` (the share of the favoured player's
  hands dealt the best of the next three cards) at the first of two bataille tables of
  ``--rounds`` rounds; caught when an anomaly names the favoured player.
- stacked shoes: nights with a stacked shoe; caught when an anomaly names the shoe or its table.

    python3 benchmarks/statistics_rates.py               # 50 clean nights, 20 per strength
    python3 benchmarks/statistics_rates.py --clean 5 --nights 3   # a quick look
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

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


def audit(
    library: Library,
    rulesets: list[str],
    tables: int,
    rounds: int,
    seed: int,
    anomaly: Anomaly | None = None,
) -> list:
    specs = cli_tables(rulesets, tables, rounds)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "night.del"
        path.write_text(
            "".join(
                line + "\n"
                for line in simulate(tables=specs, seed=seed, start=EXAMPLE_START, anomaly=anomaly)
            )
        )
        report = run_audit(library, [str(path)])
    return report.statistics.anomalies()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clean", type=int, default=50, help="clean nights (default 50)")
    ap.add_argument(
        "--nights", type=int, default=20, help="nights per strength of collusion (default 20)"
    )
    ap.add_argument("--rounds", type=int, default=300, help="rounds per table (default 300)")
    ap.add_argument(
        "--strength",
        type=float,
        action="append",
        help="strengths of collusion (default 0.25, 0.5, 1)",
    )
    args = ap.parse_args()
    library = Library.load()
    library.statistics = True
    alarms = []
    for i in range(args.clean):
        mix = MIXES[i % len(MIXES)]
        found = audit(library, mix, 4, args.rounds, 1000 + i)
        if found:
            alarms.append(
                {"seed": 1000 + i, "rulesets": mix, "anomalies": [a.group.message for a in found]}
            )
    power = {}
    for strength in args.strength or [0.25, 0.5, 1.0]:
        caught = 0
        for i in range(args.nights):
            played = Anomaly("collusion", strength)
            found = audit(library, [MIXES[i % 2][0]], 2, args.rounds, 2000 + i, played)
            caught += any(a.group.id == played.expected()["id"] for a in found)
        power[str(strength)] = caught / args.nights
    stacked = 0
    for i in range(args.nights):
        played = Anomaly("stacked-shoe")
        found = audit(library, [MIXES[i % 2][0]], 2, args.rounds, 3000 + i, played)
        stacked += any(a.group.id in (played.id, played.table) for a in found)
    json.dump(
        {
            "clean_nights": args.clean,
            "false_alarms": alarms,
            "rounds_per_table": args.rounds,
            "collusion_power": power,
            "stacked_shoe_power": stacked / args.nights,
        },
        sys.stdout,
        indent=1,
    )
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
