"""Reports and simulated logs pinned byte for byte: the proof that a change of design kept every behaviour.

Each case audits committed logs (simulated faulty nights of every ruleset, a
mixed one, the shipped fixture nights) into every report format and compares
the bytes with the reports committed under ``tests/golden/reports/``; the
simulator's own output for a few commands is pinned by its SHA-256 (its logs
are large). ``python3 tests/golden/golden.py --update`` rewrites them: do that
only for a change of behaviour you mean, and say so in the commit.

    python3 tests/golden/golden.py            # compare, exit 1 on a difference
    python3 tests/golden/golden.py --update   # record the current behaviour
    python3 tests/golden/golden.py --bench    # also the benchmark's night (1M lines, about a minute)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
LOGS = HERE / "logs"
REPORTS = HERE / "reports"
SIMULATED = HERE / "simulated.json"
BENCH = HERE / "bench-night.json"

#: the benchmark's night (benchmarks/bench.py's default: 12 tables, seed 1, about a million event lines)
BENCH_NIGHT = ["--tables", "12", "--rounds", "3788", "--seed", "1"]

#: format -> file suffix of its report
FORMATS = {"json": "json", "sarif": "sarif", "junit": "xml", "text": "txt"}


@dataclass(frozen=True)
class Case:
    name: str
    paths: tuple[str, ...]  # relative to ROOT, as given on the command line
    options: tuple[str, ...] = ()
    same_as: str | None = (
        None  # compared with the reports recorded for that case (e.g. --jobs against one process)
    )


#: the statistics left out and asked for, whatever the default (on: docs/statistics.md)
PLAIN = ("--no-statistics",)
STATISTICS = ("--statistics",)

CASES = (
    Case("fr-bataille-2007-faulty", ("tests/golden/logs/fr-bataille-2007-faulty.del",)),
    Case("mc-sun-war-2006-faulty", ("tests/golden/logs/mc-sun-war-2006-faulty.del",)),
    Case("be-ostende-cdf-faulty", ("tests/golden/logs/be-ostende-cdf-faulty.del",)),
    Case("mixed-faulty", ("tests/golden/logs/mixed-faulty.del",)),
    Case(
        "mixed-faulty-jobs2",
        ("tests/golden/logs/mixed-faulty.del",),
        ("--jobs", "2"),
        same_as="mixed-faulty",
    ),
    Case("mixed-faulty-plain", ("tests/golden/logs/mixed-faulty.del",), PLAIN),
    Case(
        "fr-house",
        ("tests/golden/logs/fr-bataille-2007-faulty.del",),
        ("--house", "rulesets/house/casino-exemple-fr.yaml"),
    ),
    Case("nights", ("fixtures/nights",)),
    Case("rule-fixtures", ("fixtures/rules",)),
    # the surveillance statistics (money groups and card tests) of the shipped nights, in every format
    Case("nights-statistics", ("fixtures/nights",), STATISTICS),
    Case(
        "nights-statistics-jobs2",
        ("fixtures/nights",),
        (*STATISTICS, "--jobs", "2"),
        same_as="nights-statistics",
    ),
    Case("mixed-faulty-statistics", ("tests/golden/logs/mixed-faulty.del",), STATISTICS),
)

#: simulator commands whose output is pinned by digest (arguments after ``audit simulate``)
SIMULATIONS = {
    "fr-60-seed3-inject": [
        "-r",
        "fr-bataille-2007",
        "--rounds",
        "60",
        "--seed",
        "3",
        "--inject",
        "all",
    ],
    "mc-60-seed3-inject": [
        "-r",
        "mc-sun-war-2006",
        "--rounds",
        "60",
        "--seed",
        "3",
        "--inject",
        "all",
    ],
    "cdf-60-seed3-inject": [
        "-r",
        "be-ostende-cdf",
        "--rounds",
        "60",
        "--seed",
        "3",
        "--inject",
        "all",
    ],
    "mixed-80-seed11-inject": [
        "-r",
        "fr-bataille-2007",
        "-r",
        "mc-sun-war-2006",
        "-r",
        "be-ostende-cdf",
        "--rounds",
        "80",
        "--seed",
        "11",
        "--inject",
        "all",
    ],
    "mixed-200-seed5": [
        "-r",
        "fr-bataille-2007",
        "-r",
        "mc-sun-war-2006",
        "-r",
        "be-ostende-cdf",
        "--tables",
        "5",
        "--rounds",
        "200",
        "--seed",
        "5",
    ],
    "night-example": ["--night", "example"],
    "night-cdf": ["--night", "cdf"],
    "night-mixed": ["--night", "mixed"],
}


def _audit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "audit", *args], cwd=ROOT, capture_output=True, timeout=600
    )


def run_case(case: Case, out: Path) -> dict[str, bytes]:
    """Every format's report of one case, and the exit status as a pseudo-report."""
    args: list[str] = ["check", *case.options]
    files = {}
    for fmt, suffix in FORMATS.items():
        files[fmt] = out / f"{case.name}.{suffix}"
        args += ["--format", fmt, "--output", str(files[fmt])]
    done = _audit(*args, *case.paths)
    if done.returncode not in (0, 1):
        raise RuntimeError(
            f"{case.name}: exit {done.returncode}: {done.stderr.decode(errors='replace')}"
        )
    got = {fmt: path.read_bytes() for fmt, path in files.items()}
    got["exit"] = f"{done.returncode}\n".encode()
    return got


def write_simulated(args: list[str], log: Path) -> None:
    """``python -m audit.simulate ARGS -o LOG`` (the shipped nights' writer, which takes --night)."""
    done = subprocess.run(
        [sys.executable, "-m", "audit.simulate", *args, "-o", str(log)],
        cwd=ROOT,
        capture_output=True,
        timeout=1200,
    )
    if done.returncode != 0:
        raise RuntimeError(f"simulate {args}: {done.stderr.decode(errors='replace')}")


def simulate(args: list[str]) -> str:
    """SHA-256 of the log the simulator writes for these arguments."""
    if args[:1] == ["--night"]:
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "night.del"
            write_simulated(args, log)
            return hashlib.sha256(log.read_bytes()).hexdigest()
    done = _audit("simulate", *args)
    if done.returncode != 0:
        raise RuntimeError(
            f"simulate {args}: exit {done.returncode}: {done.stderr.decode(errors='replace')}"
        )
    return hashlib.sha256(done.stdout).hexdigest()


def report_path(case: Case, fmt: str) -> Path:
    return REPORTS / f"{case.same_as or case.name}.{FORMATS.get(fmt, fmt)}"


def differences(case: Case) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        got = run_case(case, Path(tmp))
    wrong = []
    for fmt, data in got.items():
        want = report_path(case, fmt)
        if not want.exists() or want.read_bytes() != data:
            shown = want.relative_to(ROOT) if want.is_relative_to(ROOT) else want
            wrong.append(f"{case.name}: the {fmt} report differs from {shown}")
    return wrong


def update() -> None:
    REPORTS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            if case.same_as:
                continue
            for fmt, data in run_case(case, Path(tmp)).items():
                report_path(case, fmt).write_bytes(data)
    digests = {name: simulate(args) for name, args in SIMULATIONS.items()}
    SIMULATED.write_text(json.dumps(digests, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def bench_digests() -> dict[str, str]:
    """SHA-256 of the benchmark night and of each of its reports."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "bench-night.del"
        write_simulated(BENCH_NIGHT, log)
        digests = {}
        for suffix, options in (("", ()), ("+statistics", STATISTICS)):
            got = run_case(Case("bench-night", (str(log),), options), Path(tmp))
            digests.update(
                {
                    fmt + suffix: hashlib.sha256(data.replace(tmp.encode(), b"TMP")).hexdigest()
                    for fmt, data in got.items()
                    if not suffix or fmt in ("json", "text")
                }
            )
        digests["log"] = hashlib.sha256(log.read_bytes()).hexdigest()
    return digests


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--update", action="store_true", help="record the current reports and digests")
    ap.add_argument(
        "--bench", action="store_true", help="also the benchmark's night (about a minute)"
    )
    args = ap.parse_args(argv)
    if args.update:
        update()
        if args.bench:
            BENCH.write_text(
                json.dumps(bench_digests(), indent=2, sort_keys=True) + "\n", encoding="utf-8"
            )
        return 0
    wrong = [w for case in CASES for w in differences(case)]
    pinned = json.loads(SIMULATED.read_text(encoding="utf-8"))
    wrong += [
        f"simulate {name}: the log differs"
        for name, args in SIMULATIONS.items()
        if simulate(args) != pinned.get(name)
    ]
    if args.bench:
        recorded = json.loads(BENCH.read_text(encoding="utf-8"))
        wrong += [
            f"benchmark night: the {what} differs"
            for what, digest in bench_digests().items()
            if recorded.get(what) != digest
        ]
    print("\n".join(wrong) or "every report and simulated log is as recorded")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
