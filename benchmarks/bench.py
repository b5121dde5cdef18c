#!/usr/bin/env python3
"""The speed and memory benchmark of ``audit check`` (issues 5 and 21).

One run generates three rule-abiding nights with the project's simulator
(``python -m audit.simulate``; ``nights.py``) and measures the same figures on
each:

- the old night: at least ``--lines`` event lines of bataille tables (issue 5's
  targets were set on it);
- the realistic night (issue 21): at least ``--lines`` event lines of French,
  Monaco and Ostende chemin de fer tables in turn, with varied stakes, standing
  players, seat changes, reliefs, limit changes, passed hands and auctions;
- the night of many small files: one file a table, a few hundred lines each,
  where start-up dominates; it is compared with the figures recorded in
  ``small-files-baseline.json`` (``--save-baseline`` records them again).

On each night:

(a) the naive baseline: every non-blank line parsed by a plain
    ``Lark(grammar, parser="lalr")`` built from ``grammars/del.lark``, the
    tree built, no transformer (in this process, reading included, the
    grammar's compilation reported apart);
(b) the full pipeline: ``audit check --format json --output FILE LOG`` in a
    child process (parse, replay, report), wall clock from spawn to exit,
    interpreter start-up included; its peak resident memory is read from
    ``wait4()`` on that child alone, so nothing else this script runs (the
    simulator, the naive parse) can leak into the figure;
(c) the floor: the file read line by line and each line split on blanks.

It prints seconds and event lines per second for each, the ratios
time(a)/time(b) and time(b)/time(c), the share of distinct line texts, the
peak memory of (b), the memory of an audit of a log ten times longer (same
tables and seed, ten times the rounds) against the shorter one, and, when
``audit check`` offers ``--jobs``, the wall time of ``--jobs 2`` against
``--jobs 1`` with a byte-for-byte comparison of their JSON reports. On the
old and the realistic night it also times the audit with the surveillance
statistics switched the other way from the default (issue 17's cost).

It is a benchmark, not a test: targets are judged and printed, never turned
into an exit status. Exit status: 0 measured; 1 the audit itself went wrong
(it failed, found breaches in a rule-abiding log, counted other events than
the log holds, or gave different reports with --jobs 1 and --jobs 2);
2 usage error.

    python3 benchmarks/bench.py                      # the full run: three nights, 1M lines each, plus 10M-line logs
    python3 benchmarks/bench.py --quick              # tiny sizes, seconds: proves the benchmark works
    python3 benchmarks/bench.py --json figures.json  # also write the figures as JSON
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for where in (HERE, ROOT):
    if str(where) not in sys.path:
        sys.path.insert(0, str(where))

from measures import (  # noqa: E402
    audit,
    audit_package,
    check_clean,
    check_help,
    child_env,
    floor,
    has_option,
    load,
    machine,
    mb,
    naive_parse,
    rate,
    revision,
    say,
)
from nights import Log, distinct_shares, generate, generate_at_least  # noqa: E402
from printout import print_table  # noqa: E402
from targets import (  # noqa: E402
    BASELINE,
    NIGHTS,
    QUICK_LINES,
    TARGET_JOBS_SPEEDUP,
    TARGET_MEMORY_BYTES,
    TARGET_MEMORY_RATIO,
    TARGET_SMALL_GAIN,
    TARGET_SPEEDUP,
)

# -- one night ------------------------------------------------------------------------------


def measure(
    log: Log,
    tmp: Path,
    name: str,
    args: argparse.Namespace,
    one_core: str | None,
    jobs: bool,
    problems: list[str],
    target: float | None,
    longer: Callable[[Path, int], Log] | None,
    statistics: bool = False,
) -> dict:
    """Every figure of one night: (a), (b), (c), their ratios, the texts' variety, memory and --jobs.

    ``longer(path, rounds)`` generates the same night with other rounds, for the memory check (None:
    not measured); ``statistics``, whether to time (b) again with the statistics switched the other way.
    """
    f: dict = {"texts": distinct_shares(log.path)}
    say(f"{name}: (c) floor: read and split")
    floor_runs = [floor(log.path) for _ in range(max(3, args.repeat))]
    floor_s, floor_cpu = min(r[0] for r in floor_runs), min(r[1] for r in floor_runs)

    say(f"{name}: (a) naive: plain Lark LALR parse of every line")
    naive_runs = [naive_parse(log.path) for _ in range(args.repeat)]
    build_s = min(r[0] for r in naive_runs)
    naive_s = min(r[1] for r in naive_runs)
    naive_cpu = min(r[2] for r in naive_runs)

    # (b) without the statistics (on by default): the target b/a is the audit's own; their cost is
    # measured by the run switched on below
    plain = ["--no-statistics"] if statistics else []
    say(f"{name}: (b) audit check --format json {' '.join(plain)}")
    b_runs = [
        audit(log.path, tmp / f"{name}-report.json", tmp, one_core, *plain)
        for _ in range(args.repeat)
    ]
    for b in b_runs:
        check_clean(b, log, problems)
    best = min(b_runs, key=lambda b: b.run.seconds)
    audit_s = best.run.seconds
    audit_rss = max(b.run.peak_rss_bytes for b in b_runs)

    f["naive"] = {
        "seconds": round(naive_s, 3),
        "event_lines_per_second": round(rate(log.event_lines, naive_s)),
        "cpu_seconds": round(naive_cpu, 3),
        "grammar_build_seconds": round(build_s, 3),
        "lines_parsed": naive_runs[0][3],
    }
    f["audit"] = {
        "seconds": round(audit_s, 3),
        "event_lines_per_second": round(rate(log.event_lines, audit_s)),
        "cpu_seconds": round(min(b.run.cpu_seconds for b in b_runs), 3),
        "peak_rss_bytes": audit_rss,
        "command": shlex.join(best.run.cmd),
        "exit_status": best.run.status,
        "report_events": best.report.get("summary", {}).get("events"),
    }
    f["floor"] = {
        "seconds": round(floor_s, 3),
        "event_lines_per_second": round(rate(log.event_lines, floor_s)),
        "cpu_seconds": round(floor_cpu, 3),
    }
    speedup = naive_s / audit_s
    f["ratios"] = {
        "naive_over_audit": round(speedup, 3),
        "audit_over_floor": round(audit_s / floor_s, 2) if floor_s > 0 else float("inf"),
        "naive_over_audit_cpu": round(naive_cpu / f["audit"]["cpu_seconds"], 3)
        if f["audit"]["cpu_seconds"] > 0
        else None,
        "target_naive_over_audit": target,
        "met": None if args.quick or target is None else speedup >= target,
    }

    if statistics:  # the other way from (b): on if (b)'s report has none, off if it has them
        switch = ["--no-statistics"] if "statistics" in best.report else ["--statistics"]
        pairs = max(args.cost_pairs, args.repeat)
        say(
            f"{name}: (b) again, audit check {' '.join(switch)}, alternately with (b): "
            f"{pairs} pair(s)"
        )
        # paired runs, alternated: a busy moment of this shared machine hits both runs of a pair alike,
        # and the median of the pairs' ratios is what one run's 15 to 20 % spread cannot move
        s_runs, cpu_pairs = [], []
        for i in range(pairs):
            plain_run = b_runs[i] if i < len(b_runs) else None
            if plain_run is None:
                plain_run = audit(log.path, tmp / f"{name}-report.json", tmp, one_core, *plain)
                check_clean(plain_run, log, problems)
            s = audit(log.path, tmp / f"{name}-stats.json", tmp, one_core, *switch)
            check_clean(s, log, problems)
            s_runs.append(s)
            cpu_pairs.append([round(plain_run.run.cpu_seconds, 3), round(s.run.cpu_seconds, 3)])
        s_best = min(s_runs, key=lambda s: s.run.seconds)
        f["statistics"] = {
            "options": switch,
            "seconds": round(s_best.run.seconds, 3),
            "cpu_seconds": round(min(s.run.cpu_seconds for s in s_runs), 3),
            "naive_over_audit": round(naive_s / s_best.run.seconds, 3),
            # CPU seconds of each pair: [(b) as it ran, (b) switched]
            "cpu_pairs": cpu_pairs,
        }

    f["memory"] = memory_check(
        log, tmp, name, args, one_core, problems, audit_rss, longer, tuple(plain)
    )
    f["jobs"] = jobs_check(log, tmp, name, args, jobs, problems, judged=longer is not None)
    return f


def memory_check(
    log: Log,
    tmp: Path,
    name: str,
    args: argparse.Namespace,
    one_core: str | None,
    problems: list[str],
    audit_rss: int,
    longer: Callable[[Path, int], Log] | None,
    options: tuple[str, ...] = (),
) -> dict:
    """Peak memory of an audit of ten times the rounds against the night's (with --quick, of a tenth
    against it), both with (b)'s ``options``: the same audit, one log longer."""
    if longer is None:
        return {"skipped": True, "reason": "a night of many small files"}
    if args.skip_memory:
        return {"skipped": True, "reason": "--skip-memory"}
    memory: dict = {"skipped": False}
    if (
        args.quick
    ):  # no large file: the short log has a tenth of the rounds, the long one is the log above
        short = longer(tmp / f"{name}-short.del", max(1, log.rounds // 10))
        say(f"{name}: memory: auditing a {short.event_lines:,}-line log, a tenth of the rounds")
        short_run = audit(short.path, tmp / f"{name}-short.json", tmp, one_core, *options)
        check_clean(short_run, short, problems)
        short_rss_bytes, long, long_rss_bytes = short_run.run.peak_rss_bytes, log, audit_rss
    else:
        say(
            f"{name}: memory: generating a log of ten times the rounds ({log.rounds * 10:,} per table)"
        )
        long = longer(tmp / f"{name}-long.del", log.rounds * 10)
        say(f"{name}: memory: auditing {long.event_lines:,} event lines")
        long_run = audit(long.path, tmp / f"{name}-long.json", tmp, one_core, *options)
        check_clean(long_run, long, problems)
        short, short_rss_bytes, long_rss_bytes = log, audit_rss, long_run.run.peak_rss_bytes
        memory["long_seconds"] = round(long_run.run.seconds, 3)
        memory["long_event_lines_per_second"] = round(rate(long.event_lines, long_run.run.seconds))
        long.path.unlink()
    ratio = long_rss_bytes / short_rss_bytes
    memory.update(
        {
            "short_event_lines": short.event_lines,
            "short_peak_rss_bytes": short_rss_bytes,
            "long_event_lines": long.event_lines,
            "long_peak_rss_bytes": long_rss_bytes,
            "ratio": round(ratio, 3),
            "target_ratio": TARGET_MEMORY_RATIO,
            "target_bytes": int(TARGET_MEMORY_BYTES),
            "met": None
            if args.quick
            else (ratio <= TARGET_MEMORY_RATIO and long_rss_bytes < TARGET_MEMORY_BYTES),
        }
    )
    return memory


def jobs_check(
    log: Log,
    tmp: Path,
    name: str,
    args: argparse.Namespace,
    jobs: bool,
    problems: list[str],
    judged: bool,
) -> dict:
    """--jobs 2 against --jobs 1 on the night, in pairs run alternately, and their reports compared
    byte for byte (the target judged on the large nights only: start-up dominates the small files'
    night). The speedup is the median of the pairs' wall-clock ratios: one pair moves by 15 to 25 %
    on a shared machine, where the median of three does not follow a single busy moment."""
    parallel: dict = {"available": jobs}
    if not jobs:
        return parallel
    pairs = max(args.jobs_pairs, args.repeat)
    say(f"{name}: --jobs 1 and --jobs 2 on the same night, alternately: {pairs} pair(s)")
    ones, twos, ratios = [], [], []
    same = True
    for _ in range(pairs):  # alternately, so that a busy moment hits both alike
        ones.append(audit(log.path, tmp / f"{name}-jobs1.json", tmp, "1"))
        twos.append(audit(log.path, tmp / f"{name}-jobs2.json", tmp, "2"))
        ratios.append(ones[-1].run.seconds / twos[-1].run.seconds)
        same = same and (
            (tmp / f"{name}-jobs1.json").read_bytes() == (tmp / f"{name}-jobs2.json").read_bytes()
        )
    one = min(ones, key=lambda a: a.run.seconds)
    two = min(twos, key=lambda a: a.run.seconds)
    if not same:
        problems.append(f"{name}: --jobs 2 and --jobs 1 wrote different JSON reports")
    jobs_speedup = median(ratios)
    parallel.update(
        {
            "jobs1_seconds": round(one.run.seconds, 3),
            "jobs2_seconds": round(two.run.seconds, 3),
            "jobs1_cpu_seconds": round(one.run.cpu_seconds, 3),
            "jobs2_cpu_seconds": round(two.run.cpu_seconds, 3),
            # wall seconds of each pair: [--jobs 1, --jobs 2]
            "pairs": [
                [round(a.run.seconds, 3), round(b.run.seconds, 3)] for a, b in zip(ones, twos)
            ],
            "speedup": round(jobs_speedup, 3),
            "speedup_of_the_best": round(one.run.seconds / two.run.seconds, 3),
            "reports_identical": same,
            "jobs2_largest_process_peak_rss_bytes": two.run.peak_rss_bytes,
            "target_speedup": TARGET_JOBS_SPEEDUP if judged else None,
            "met": None
            if args.quick or not judged
            else (jobs_speedup >= TARGET_JOBS_SPEEDUP and same),
        }
    )
    return parallel


def log_figures(log: Log, keep: bool) -> dict:
    return {
        "path": str(log.path) if keep else None,
        "tables": log.tables,
        "files": log.files,
        "style": log.style,
        "rounds_per_table": log.rounds,
        "seed": log.seed,
        "lines": log.lines,
        "event_lines": log.event_lines,
        "bytes": log.bytes,
        "generate_seconds": round(log.seconds, 3),
    }


def against_baseline(small: dict, quick: bool) -> dict:
    """The small-files night now against the recorded baseline: the gain in b/a in CPU time (the naive
    parse of the same run stands for the machine's speed; on a shared machine wall times move with
    the neighbours' load, CPU times much less), in wall time, and in plain seconds."""
    if not BASELINE.exists():
        return {"recorded": False}
    base = json.loads(BASELINE.read_text(encoding="utf-8"))
    wall_gain = small["ratios"]["naive_over_audit"] / base["ratios"]["naive_over_audit"]
    gain = small["ratios"]["naive_over_audit_cpu"] / base["ratios"]["naive_over_audit_cpu"]
    return {
        "recorded": True,
        "date": base["date"],
        "revision": base["revision"],
        "baseline_naive_over_audit": base["ratios"]["naive_over_audit"],
        "baseline_naive_over_audit_cpu": base["ratios"]["naive_over_audit_cpu"],
        "baseline_audit_seconds": base["audit"]["seconds"],
        "baseline_naive_seconds": base["naive"]["seconds"],
        "gain": round(gain, 3),
        "wall_gain": round(wall_gain, 3),
        "seconds_ratio": round(base["audit"]["seconds"] / small["audit"]["seconds"], 3),
        "target_gain": TARGET_SMALL_GAIN,
        "comparable": base["log"]["event_lines"] == small["log"]["event_lines"]
        and base["quick"] == quick,
        "met": None if quick else gain >= TARGET_SMALL_GAIN,
    }


# -- the run ------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python3 benchmarks/bench.py",
        description="Speed and memory of audit check against a naive Lark parse and a floor "
        "(issues 5 and 21).",
    )
    ap.add_argument(
        "--lines",
        type=int,
        help="event lines of the old and the realistic night, at least "
        "(default 1,000,000; 20,000 with --quick)",
    )
    ap.add_argument("--tables", type=int, default=12, help="tables of the old night (default 12)")
    ap.add_argument(
        "--real-tables",
        type=int,
        default=24,
        help="tables of the realistic night, French, Monaco and chemin de fer in turn (default 24)",
    )
    ap.add_argument(
        "--small-files",
        type=int,
        help="files (tables) of the small-files night (default 120; 12 with --quick)",
    )
    ap.add_argument(
        "--small-rounds",
        type=int,
        default=15,
        help="rounds per file of the small-files night (default 15)",
    )
    ap.add_argument(
        "--nights",
        default=",".join(NIGHTS),
        help=f"which nights to measure, comma-separated (default {','.join(NIGHTS)})",
    )
    ap.add_argument("--seed", type=int, default=1, help="simulator seed (default 1)")
    ap.add_argument(
        "--keep", type=Path, metavar="FILE", help="write the old night's log to FILE and keep it"
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="tiny sizes so CI proves the benchmark works in seconds; targets are not judged",
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="time (a) and (b) this many times and keep the best; at least as many pairs for the "
        "statistics' cost and --jobs (default 1)",
    )
    ap.add_argument(
        "--cost-pairs",
        type=int,
        default=None,
        help="pairs of runs, with and without the statistics alternately, their cost is the median "
        "of the pairs' CPU ratios (default 3; 1 with --quick)",
    )
    ap.add_argument(
        "--jobs-pairs",
        type=int,
        default=None,
        help="pairs of runs, --jobs 1 and --jobs 2 alternately: the speedup is the median of the "
        "pairs' wall-clock ratios (default 3; 1 with --quick)",
    )
    ap.add_argument(
        "--skip-memory", action="store_true", help="skip the audits of the 10x longer logs"
    )
    ap.add_argument(
        "--save-baseline",
        action="store_true",
        help=f"record the small-files night's figures as the baseline ({BASELINE.name})",
    )
    ap.add_argument(
        "--json", type=Path, metavar="FILE", help="also write the figures to FILE as JSON"
    )
    args = ap.parse_args(argv)
    args.lines = (
        args.lines if args.lines is not None else (QUICK_LINES if args.quick else 1_000_000)
    )
    args.small_files = (
        args.small_files if args.small_files is not None else (12 if args.quick else 120)
    )
    args.cost_pairs = args.cost_pairs if args.cost_pairs is not None else (1 if args.quick else 3)
    args.jobs_pairs = args.jobs_pairs if args.jobs_pairs is not None else (1 if args.quick else 3)
    args.nights = [n.strip() for n in args.nights.split(",") if n.strip()]
    if (
        args.lines < 1
        or args.tables < 1
        or args.repeat < 1
        or args.cost_pairs < 1
        or args.jobs_pairs < 1
        or args.real_tables < 1
        or args.small_files < 1
        or args.small_rounds < 1
    ):
        ap.error(
            "--lines, --tables, --real-tables, --small-files, --small-rounds, --repeat, "
            "--cost-pairs and --jobs-pairs must be positive"
        )
    unknown = [n for n in args.nights if n not in NIGHTS]
    if unknown or not args.nights:
        ap.error(f"--nights: one or more of {', '.join(NIGHTS)}")
    if args.save_baseline and "small" not in args.nights:
        ap.error("--save-baseline needs the small night")
    if not hasattr(os, "wait4"):
        ap.error("this benchmark needs a POSIX system (os.wait4)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command = shlex.join(getattr(sys, "orig_argv", [sys.executable, *sys.argv]))
    started = datetime.now().astimezone()
    problems: list[str] = []
    figures: dict = {
        "date": started.isoformat(timespec="seconds"),
        "command": command,
        "quick": args.quick,
        "machine": machine(),
        "revision": revision(),
        "load_average_before": load(),
    }
    multiple = 10 if args.quick else 1

    with tempfile.TemporaryDirectory(prefix="audit-bench-") as tmp_name:
        tmp = Path(tmp_name)
        figures["audit_package"] = audit_package(tmp)
        # byte-compile the checkout, as pip does for an installed package: otherwise, with
        # PYTHONDONTWRITEBYTECODE set, every child would compile the modules again at start-up
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(ROOT / "audit")],
            env=child_env(),
            check=False,
            capture_output=True,
        )
        help_text = check_help(tmp)
        jobs = has_option(help_text, "--jobs")
        one_core = "1" if jobs else None  # (b) runs on one core even if --jobs defaults to more
        tiny = tmp / "start-up.del"
        tiny.write_text("#DEL 1\n", encoding="utf-8")
        startup = audit(tiny, tmp / "start-up.json", tmp, one_core).run
        figures["startup"] = {
            "seconds": round(startup.seconds, 3),
            "peak_rss_bytes": startup.peak_rss_bytes,
        }

        if "old" in args.nights:
            main_path = args.keep.resolve() if args.keep else tmp / "night.del"
            main_path.parent.mkdir(parents=True, exist_ok=True)
            say(
                f"generating a log of at least {args.lines:,} event lines ({args.tables} tables, seed {args.seed})"
            )
            log = generate_at_least(main_path, args.lines, args.tables, args.seed, tmp, multiple)
            say(
                f"{log.event_lines:,} event lines, {mb(log.bytes)}, generated in {log.seconds:.1f} s"
            )
            old = measure(
                log,
                tmp,
                "old",
                args,
                one_core,
                jobs,
                problems,
                TARGET_SPEEDUP,
                lambda path, rounds: generate(path, args.tables, rounds, args.seed, tmp),
                has_option(help_text, "--statistics"),
            )
            figures["log"] = log_figures(log, bool(args.keep))
            old["audit"].update(
                {
                    "startup_seconds": figures["startup"]["seconds"],
                    "startup_peak_rss_bytes": startup.peak_rss_bytes,
                }
            )
            figures.update(old)  # the old night's figures stay where issue 5's benchmark wrote them

        if "realistic" in args.nights:
            say(
                f"generating a realistic night of at least {args.lines:,} event lines ({args.real_tables} tables)"
            )
            real_log = generate_at_least(
                tmp / "realistic.del",
                args.lines,
                args.real_tables,
                args.seed,
                tmp,
                multiple,
                "realistic",
            )
            say(
                f"{real_log.event_lines:,} event lines, {mb(real_log.bytes)}, generated in {real_log.seconds:.1f} s"
            )
            real = measure(
                real_log,
                tmp,
                "realistic",
                args,
                one_core,
                jobs,
                problems,
                None,
                lambda path, rounds: generate(
                    path, args.real_tables, rounds, args.seed, tmp, "realistic"
                ),
                has_option(help_text, "--statistics"),
            )
            real["log"] = log_figures(real_log, False)
            figures["realistic"] = real

        if "small" in args.nights:
            say(
                f"generating a night of {args.small_files} small files ({args.small_rounds} rounds each)"
            )
            small_log = generate(
                tmp / "small",
                args.small_files,
                args.small_rounds,
                args.seed,
                tmp,
                "realistic",
                per_table=True,
            )
            small = measure(small_log, tmp, "small", args, one_core, jobs, problems, None, None)
            small["log"] = log_figures(small_log, False)
            small["startup_share"] = round(startup.seconds / small["audit"]["seconds"], 3)
            small["baseline"] = against_baseline(small, args.quick)
            figures["small_files"] = small
            if args.save_baseline:
                record = {
                    k: figures[k]
                    for k in (
                        "date",
                        "command",
                        "quick",
                        "machine",
                        "revision",
                        "load_average_before",
                        "startup",
                    )
                }
                BASELINE.write_text(
                    json.dumps(
                        {**record, **small, "baseline": None, "load_average_after": load()},
                        indent=2,
                    )
                    + "\n",
                    encoding="utf-8",
                )
                say(f"the small-files night's figures recorded as the baseline in {BASELINE}")

        figures["load_average_after"] = load()
        figures["problems"] = problems

    print_table(figures)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    for p in problems:
        sys.stderr.write(f"bench: PROBLEM: {p}\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
