"""A night of many files audited three ways: ``--jobs 1``, ``--jobs 2`` and ``--cluster local:2``
(docs/performance.md, "A night on a cluster"). Prints each wall time (the best of ``--repeat``
runs, the three commands taken in turn), the ratios to ``--jobs 1``, whether the three JSON
reports are the same bytes, and the cost of one task on the cluster.

    python3 benchmarks/cluster_bench.py                 # 32 files of 12,000 rounds, 9 million lines (about 10 minutes)
    python3 benchmarks/cluster_bench.py --files 8 --rounds 2000 --repeat 1   # a minute

A local cluster costs about 0.4 s to start and stop and a little CPU while it runs (its
scheduler and client share the cores with the workers), which ``--jobs`` does not pay: on a
short night the cluster's ratio is lower than that of ``--jobs 2``.

Needs the cluster extra (``pip install -e '.[cluster]'``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(args: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "audit", *args], cwd=ROOT, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"audit {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()}")
    return elapsed


def _night(folder: Path, files: int, rounds: int) -> None:
    for seed in range(1, files + 1):
        subprocess.run(
            [
                sys.executable,
                "-m",
                "audit.simulate",
                "--tables",
                "1",
                "--rounds",
                str(rounds),
                "--seed",
                str(seed),
                "-o",
                str(folder / f"{seed:03d}.del"),
            ],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=32, help="files in the night (default 32)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=12_000,
        help="rounds of the one table of each file (default 12,000)",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of each command; the best is kept (default 3)"
    )
    parser.add_argument(
        "--tiny", type=int, default=200, help="one-line files for the cost of a task (default 200)"
    )
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cluster-bench-") as tmp:
        night, tiny = Path(tmp) / "night", Path(tmp) / "tiny"
        night.mkdir()
        tiny.mkdir()
        _night(night, opts.files, opts.rounds)
        size = sum(p.stat().st_size for p in night.iterdir())
        lines = sum(
            sum(1 for line in p.open("rb") if not line.startswith(b"#")) for p in night.iterdir()
        )
        print(
            f"night: {opts.files} files, {opts.rounds} rounds each, {lines:,} event lines, {size / 1e6:.0f} MB"
        )
        ways = {
            "jobs 1": ["--jobs", "1"],
            "jobs 2": ["--jobs", "2"],
            "cluster local:2": ["--cluster", "local:2"],
        }
        best = {name: float("inf") for name in ways}
        for _ in range(opts.repeat):
            for name, extra in ways.items():
                out = Path(tmp) / f"{'-'.join(extra).replace(':', '')}.json"
                best[name] = min(
                    best[name], _run(["check", "-f", "json", "-o", str(out), *extra, str(night)])
                )
        reports = {
            (Path(tmp) / f"{'-'.join(extra).replace(':', '')}.json").read_bytes()
            for extra in ways.values()
        }
        for name, seconds in best.items():
            print(f"{name:<16} {seconds:7.2f} s   {best['jobs 1'] / seconds:5.2f}x against jobs 1")
        print("reports byte-identical:", "yes" if len(reports) == 1 else "NO")
        # the cost of a task: the same cluster on one tiny file and on many, one worker
        for n in range(opts.tiny):
            (tiny / f"{n:04d}.del").write_text("#DEL 1\n")
        one = min(
            _run(
                [
                    "check",
                    "-f",
                    "json",
                    "-o",
                    "/dev/null",
                    "--cluster",
                    "local:1",
                    str(tiny / "0000.del"),
                ]
            )
            for _ in range(opts.repeat)
        )
        many = min(
            _run(["check", "-f", "json", "-o", "/dev/null", "--cluster", "local:1", str(tiny)])
            for _ in range(opts.repeat)
        )
        alone = min(
            _run(["check", "-f", "json", "-o", "/dev/null", str(tiny)]) for _ in range(opts.repeat)
        )
        empty = min(
            _run(["check", "-f", "json", "-o", "/dev/null", str(tiny / "0000.del")])
            for _ in range(opts.repeat)
        )
        print(
            f"cluster local:1, 1 task {one:.2f} s, {opts.tiny} tasks {many:.2f} s: "
            f"{(many - one) / (opts.tiny - 1) * 1000:.1f} ms a task "
            f"(one process: {(alone - empty) / (opts.tiny - 1) * 1000:.1f} ms a file); "
            f"the cluster's start and stop: {one - empty:.2f} s"
        )


if __name__ == "__main__":
    main()
