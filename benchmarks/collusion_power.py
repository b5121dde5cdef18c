"""How often the month names a patient colluding dealer, and how often a clean month names anyone.

Each month is simulated night by night (one bataille table of ``--rounds`` rounds a night; with a
collusion, dealer DX777, one of the table's three dealers in turn, favours player PX777 on a share
``strength`` of the hands he deals him), audited and recorded in process into a temporary SQLite
store, then ``audit history anomalies --period month`` is read over the first 10, 20 and 30 nights.
Caught: the pair DX777+PX777 is an anomaly of the month. A clean month (no collusion, 20 nights)
is a false alarm when it has any anomaly at all.

    python3 benchmarks/collusion_power.py                  # the table of docs/statistics.md
    python3 benchmarks/collusion_power.py --months 3 --clean 5   # a quick look
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from audit import simulate as sim  # noqa: E402
from audit.history.anomalies import anomalies  # noqa: E402
from audit.history.recording import Recorder  # noqa: E402
from audit.history.store import parse  # noqa: E402
from audit.resources import rulesets_dir  # noqa: E402
from audit.rulesets import Library  # noqa: E402
from audit.run import run_audit  # noqa: E402
from audit.simulate.anomalies import Anomaly  # noqa: E402

PAIR = "DX777+PX777"
FIRST = date(2026, 1, 1)


def month(task: tuple[float | None, int, int, int, list[int]]) -> dict:
    """One month of ``nights`` nights: the ids of its anomalies after each of ``looks`` nights."""
    strength, seed, nights, rounds, looks = task
    library = Library.load(rulesets_dir())
    library.statistics = True
    with tempfile.TemporaryDirectory() as tmp:
        url = str(Path(tmp) / "history.sqlite")
        recorder = Recorder.open(url, None, [], "06:00")
        for k in range(nights):
            day = FIRST + timedelta(days=k)
            start = datetime.fromisoformat(f"{day.isoformat()}T21:00:00+01:00")
            specs = sim.cli_tables(["fr-bataille-2007"], 1, rounds)
            played = None if strength is None else Anomaly("collusion", strength)
            lines = sim.simulate(tables=specs, seed=seed * 100 + k, start=start, anomaly=played)
            night = Path(tmp) / f"{day.isoformat()}.del"
            night.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
            report = run_audit(library, [night.as_posix()])
            recorder.record(report, {night.as_posix(): f"{day.isoformat()}T21:00:00.000+01:00"})
            night.unlink()
        recorder.store.dispose()
        store = parse(url)
        out = {}
        with store.engine.connect() as conn:
            for n in looks:
                view = anomalies(conn, "month", FIRST, FIRST + timedelta(days=n - 1))
                out[n] = [row["id"] for row in view.rows]
        store.dispose()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strength", type=float, nargs="*", default=[0.1, 0.25, 0.5])
    ap.add_argument("--nights", type=int, nargs="*", default=[10, 20, 30])
    ap.add_argument("--rounds", type=int, default=300, help="rounds a night (default 300)")
    ap.add_argument("--months", type=int, default=10, help="months per strength (default 10)")
    ap.add_argument("--clean", type=int, default=50, help="clean months of 20 nights (default 50)")
    ap.add_argument("--jobs", type=int, default=1, help="months simulated at once (default 1)")
    ap.add_argument("--json", type=Path, help="write the figures to this file")
    args = ap.parse_args()
    began = time.time()
    longest = max(args.nights)
    # month by month, the strengths and the clean months in turn: a run cut short has some of each
    tasks = [
        (s, 1000 * (i + 1) + m, longest, args.rounds, args.nights)
        for m in range(args.months)
        for i, s in enumerate(args.strength)
    ]
    clean = [(None, 900_000 + m, 20, args.rounds, [20]) for m in range(args.clean)]
    step = max(1, len(tasks) // max(1, len(clean)))
    mixed = []
    for k in range(max(len(tasks), len(clean) * step)):
        if k < len(tasks):
            mixed.append(tasks[k])
        if k % step == step - 1 and k // step < len(clean):
            mixed.append(clean[k // step])
    mixed += clean[len([t for t in mixed if t[0] is None]) :]
    power = {str(s): {str(n): 0 for n in args.nights} for s in args.strength}
    done = {str(s): 0 for s in args.strength}
    alarms = clean_done = 0
    figures: dict = {}
    with ProcessPoolExecutor(args.jobs) as pool:  # in order, each month as it ends
        for (strength, _, _, _, _), named in zip(mixed, pool.map(month, mixed)):
            if strength is None:
                clean_done += 1
                alarms += bool(named[20])
            else:
                done[str(strength)] += 1
                for n in args.nights:
                    power[str(strength)][str(n)] += PAIR in named[n]
            figures = {
                "rounds_a_night": args.rounds,
                "months_per_strength": done,
                "named_months": power,
                "clean_months": clean_done,
                "clean_months_with_an_anomaly": alarms,
                "seconds": round(time.time() - began, 1),
            }
            if args.json:  # what is done so far, should the run be cut short
                args.json.write_text(json.dumps(figures, indent=1) + "\n")
    print(f"months where {PAIR} is named (nights of {args.rounds} rounds):")
    print("| strength | " + " | ".join(f"{n} nights" for n in args.nights) + " |")
    print("|---|" + "---|" * len(args.nights))
    for strength, cell in power.items():
        print(
            f"| {strength} | "
            + " | ".join(f"{cell[str(n)]}/{done[strength]}" for n in args.nights)
            + " |"
        )
    print(f"false alarms: {alarms} of {clean_done} clean months of 20 nights")
    print(f"{figures['seconds']} s")


if __name__ == "__main__":
    main()
