#!/usr/bin/env python3
"""The speed and memory benchmark of ``audit check`` (issue 5).

One run generates ONE rule-abiding log of at least ``--lines`` event lines
with the project's simulator (``python -m audit.simulate``) and measures, on
that same file:

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
time(a)/time(b) and time(b)/time(c), the peak memory of (b), the memory of an
audit of a log ten times longer (same tables and seed, ten times the rounds)
against the shorter one, and, when ``audit check`` offers ``--jobs``, the
wall time of ``--jobs 2`` against ``--jobs 1`` on the same multi-table night
with a byte-for-byte comparison of their JSON reports.

It is a benchmark, not a test: targets are judged and printed, never turned
into an exit status. Exit status: 0 measured; 1 the audit itself went wrong
(it failed, found breaches in a rule-abiding log, counted other events than
the log holds, or gave different reports with --jobs 1 and --jobs 2);
2 usage error.

    python3 benchmarks/bench.py                      # the full run: 1M lines, plus a 10M-line log
    python3 benchmarks/bench.py --quick              # tiny sizes, seconds: proves the benchmark works
    python3 benchmarks/bench.py --json figures.json  # also write the figures as JSON
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: issue 5's targets
TARGET_SPEEDUP = 6.0          # time(a) / time(b), one core
TARGET_MEMORY_RATIO = 1.2     # peak RSS, 10x longer log / shorter log
TARGET_MEMORY_BYTES = 200e6   # peak RSS of the longer log's audit (200 MB, decimal)
TARGET_JOBS_SPEEDUP = 1.7     # time(--jobs 1) / time(--jobs 2)

#: a 1-minute load average above this is worth a note beside the figures
BUSY_LOAD = 0.5

#: a first guess of event lines per table and round (the simulator writes about 23)
LINES_PER_TABLE_ROUND = 22
QUICK_LINES = 20_000


# -- running children ---------------------------------------------------------------

def child_env() -> dict[str, str]:
    """The environment of every child: this checkout's ``audit`` first, no colours."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "200"
    return env


@dataclass
class Run:
    cmd: list[str]
    seconds: float
    cpu_seconds: float  # user + system time of the child
    peak_rss_bytes: int
    status: int
    stderr: str


def run_measured(cmd: list[str], cwd: Path) -> Run:
    """Run ``cmd``; its wall time and the peak RSS of that child alone (and of any process it waited for).

    ``os.wait4`` returns the resource usage of the one process waited for, unlike
    ``getrusage(RUSAGE_CHILDREN)``, which keeps the maximum over every child this
    script ever had (the simulator included).
    """
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=child_env(), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    # ru_maxrss is in kilobytes on Linux, in bytes on macOS
    rss = usage.ru_maxrss if sys.platform == "darwin" else usage.ru_maxrss * 1024
    return Run(cmd, seconds, usage.ru_utime + usage.ru_stime, rss, proc.returncode, stderr)


def audit_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "audit", *args]


def audit_package(cwd: Path) -> str | None:
    """Where the children import ``audit`` from: the package measured."""
    done = subprocess.run([sys.executable, "-c", "import audit, os; print(os.path.dirname(audit.__file__))"],
                          cwd=cwd, env=child_env(), capture_output=True, text=True, timeout=120)
    return done.stdout.strip() or None


def has_jobs_option(cwd: Path) -> bool:
    done = subprocess.run(audit_cmd("check", "--help"), cwd=cwd, env=child_env(),
                          capture_output=True, text=True, timeout=120)
    return re.search(r"--jobs\b", done.stdout + done.stderr) is not None


# -- the log ---------------------------------------------------------------------------

@dataclass
class Log:
    path: Path
    tables: int
    rounds: int
    seed: int
    lines: int
    event_lines: int
    bytes: int
    seconds: float  # to generate


def count_lines(path: Path) -> tuple[int, int]:
    """(lines, event lines): an event line is neither blank nor a ``#`` header or comment."""
    lines = events = 0
    with path.open("rb") as f:
        for raw in f:
            lines += 1
            body = raw.strip()
            if body and not body.startswith(b"#"):
                events += 1
    return lines, events


def generate(path: Path, tables: int, rounds: int, seed: int, cwd: Path) -> Log:
    cmd = [sys.executable, "-m", "audit.simulate", "--tables", str(tables), "--rounds", str(rounds),
           "--seed", str(seed), "-o", str(path)]
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=child_env(), capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        fail(f"the simulator failed ({shlex.join(cmd)}):\n{done.stderr[-2000:]}")
    lines, events = count_lines(path)
    return Log(path, tables, rounds, seed, lines, events, path.stat().st_size, seconds)


def generate_at_least(path: Path, want: int, tables: int, seed: int, cwd: Path, multiple: int) -> Log:
    """The fewest rounds (a multiple of ``multiple``) from a first guess, raised until the log is long enough."""
    rounds = max(1, math.ceil(want / (tables * LINES_PER_TABLE_ROUND)))
    while True:
        rounds = math.ceil(rounds / multiple) * multiple
        log = generate(path, tables, rounds, seed, cwd)
        if log.event_lines >= want:
            return log
        rounds = math.ceil(rounds * want / max(log.event_lines, 1) * 1.01) + 1


# -- the three measures -------------------------------------------------------------------

def naive_parse(path: Path) -> tuple[float, float, float, int]:
    """(a): (grammar build seconds, parse seconds, parse CPU seconds, lines parsed) with a plain LALR Lark."""
    from lark import Lark

    from audit.resources import grammar_path

    text = grammar_path().read_text(encoding="utf-8")
    start = time.perf_counter()
    parser = Lark(text, parser="lalr")
    build = time.perf_counter() - start
    parsed = 0
    start, cpu = time.perf_counter(), time.process_time()
    with path.open(encoding="utf-8") as f:
        for line in f:
            body = line.rstrip()
            if body:
                parser.parse(body)
                parsed += 1
    return build, time.perf_counter() - start, time.process_time() - cpu, parsed


def floor(path: Path) -> tuple[float, float]:
    """(c): read every line and split it on white space; (seconds, CPU seconds)."""
    start, cpu = time.perf_counter(), time.process_time()
    with path.open(encoding="utf-8") as f:
        for line in f:
            line.split()
    return time.perf_counter() - start, time.process_time() - cpu


@dataclass
class Audit:
    run: Run
    report: dict


def audit(log: Path, report: Path, cwd: Path, jobs: str | None) -> Audit:
    args = ["check", "--format", "json", "--output", str(report)]
    if jobs is not None:
        args += ["--jobs", jobs]
    run = run_measured(audit_cmd(*args, str(log)), cwd)
    if run.status not in (0, 1) or not report.exists():
        fail(f"the audit failed (exit {run.status}): {shlex.join(run.cmd)}\n{run.stderr[-2000:]}")
    return Audit(run, json.loads(report.read_text(encoding="utf-8")))


def check_clean(result: Audit, log: Log, problems: list[str]) -> None:
    """A simulated log is rule-abiding: no finding, and every event line counted."""
    summary = result.report.get("summary", {})
    findings = sum(summary.get("findings", {}).values())
    if findings:
        problems.append(f"the audit of {log.path.name} found {findings} breach(es) in a rule-abiding log")
    if summary.get("events") != log.event_lines:
        problems.append(f"the audit of {log.path.name} counted {summary.get('events')} events; "
                        f"the log holds {log.event_lines} event lines")


# -- the machine ------------------------------------------------------------------------------

def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    import lark
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "memory_bytes": memory,
        "os": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "lark": lark.__version__,
    }


def revision() -> str | None:
    if shutil.which("git") is None:
        return None
    done = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() or None if done.returncode == 0 else None


def load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


# -- printing ------------------------------------------------------------------------------

def fail(message: str) -> None:
    sys.stderr.write(f"bench: {message}\n")
    sys.exit(1)


def say(message: str) -> None:
    sys.stderr.write(f"bench: {message}\n")
    sys.stderr.flush()


def mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def rate(events: int, seconds: float) -> float:
    return events / seconds if seconds > 0 else float("inf")


def verdict(met: bool, judged: bool) -> str:
    if not judged:
        return "(not judged: --quick)"
    return "target met" if met else "TARGET NOT MET"


# -- the run ------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 benchmarks/bench.py",
                                 description="Speed and memory of audit check against a naive Lark parse and a floor (issue 5).")
    ap.add_argument("--lines", type=int, help="event lines of the generated log, at least (default 1,000,000; 20,000 with --quick)")
    ap.add_argument("--tables", type=int, default=12, help="tables of the generated night (default 12)")
    ap.add_argument("--seed", type=int, default=1, help="simulator seed (default 1)")
    ap.add_argument("--keep", type=Path, metavar="FILE", help="write the generated log to FILE and keep it")
    ap.add_argument("--quick", action="store_true",
                    help="tiny sizes so CI proves the benchmark works in seconds; targets are not judged")
    ap.add_argument("--repeat", type=int, default=1, help="time (a), (b) and the --jobs runs this many times and keep the best (default 1)")
    ap.add_argument("--skip-memory", action="store_true", help="skip the audit of the 10x longer log")
    ap.add_argument("--json", type=Path, metavar="FILE", help="also write the figures to FILE as JSON")
    args = ap.parse_args(argv)
    want = args.lines if args.lines is not None else (QUICK_LINES if args.quick else 1_000_000)
    if want < 1 or args.tables < 1 or args.repeat < 1:
        ap.error("--lines, --tables and --repeat must be positive")
    if not hasattr(os, "wait4"):
        ap.error("this benchmark needs a POSIX system (os.wait4)")

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

    with tempfile.TemporaryDirectory(prefix="audit-bench-") as tmp_name:
        tmp = Path(tmp_name)
        main_path = args.keep.resolve() if args.keep else tmp / "night.del"
        main_path.parent.mkdir(parents=True, exist_ok=True)

        say(f"generating a log of at least {want:,} event lines ({args.tables} tables, seed {args.seed})")
        log = generate_at_least(main_path, want, args.tables, args.seed, tmp, multiple=10 if args.quick else 1)
        say(f"{log.event_lines:,} event lines, {mb(log.bytes)}, generated in {log.seconds:.1f} s")
        figures["log"] = {"path": str(main_path) if args.keep else None, "tables": log.tables,
                          "rounds_per_table": log.rounds, "seed": log.seed, "lines": log.lines,
                          "event_lines": log.event_lines, "bytes": log.bytes,
                          "generate_seconds": round(log.seconds, 3)}

        figures["audit_package"] = audit_package(tmp)
        # byte-compile the checkout, as pip does for an installed package: otherwise, with
        # PYTHONDONTWRITEBYTECODE set, every child would compile the modules again at start-up
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "audit")],
                       env=child_env(), check=False, capture_output=True)
        jobs = has_jobs_option(tmp)
        one_core = "1" if jobs else None  # (b) runs on one core even if --jobs defaults to more

        say("(c) floor: read and split")
        floor_runs = [floor(main_path) for _ in range(max(3, args.repeat))]
        floor_s, floor_cpu = min(r[0] for r in floor_runs), min(r[1] for r in floor_runs)

        say("(a) naive: plain Lark LALR parse of every line")
        naive_runs = [naive_parse(main_path) for _ in range(args.repeat)]
        build_s = min(r[0] for r in naive_runs)
        naive_s = min(r[1] for r in naive_runs)
        naive_cpu = min(r[2] for r in naive_runs)

        say("(b) audit check --format json")
        tiny = tmp / "start-up.del"
        tiny.write_text("#DEL 1\n", encoding="utf-8")
        startup = audit(tiny, tmp / "start-up.json", tmp, one_core).run
        b_runs = [audit(main_path, tmp / "report.json", tmp, one_core) for _ in range(args.repeat)]
        for b in b_runs:
            check_clean(b, log, problems)
        best = min(b_runs, key=lambda b: b.run.seconds)
        audit_s = best.run.seconds
        audit_rss = max(b.run.peak_rss_bytes for b in b_runs)
        audit_command = shlex.join(best.run.cmd)

        figures["naive"] = {"seconds": round(naive_s, 3), "event_lines_per_second": round(rate(log.event_lines, naive_s)),
                            "cpu_seconds": round(naive_cpu, 3),
                            "grammar_build_seconds": round(build_s, 3), "lines_parsed": naive_runs[0][3]}
        figures["audit"] = {"seconds": round(audit_s, 3), "event_lines_per_second": round(rate(log.event_lines, audit_s)),
                            "cpu_seconds": round(min(b.run.cpu_seconds for b in b_runs), 3),
                            "peak_rss_bytes": audit_rss, "command": audit_command,
                            "exit_status": best.run.status, "report_events": best.report.get("summary", {}).get("events"),
                            "startup_seconds": round(startup.seconds, 3), "startup_peak_rss_bytes": startup.peak_rss_bytes}
        figures["floor"] = {"seconds": round(floor_s, 3), "event_lines_per_second": round(rate(log.event_lines, floor_s)),
                            "cpu_seconds": round(floor_cpu, 3)}
        speedup = naive_s / audit_s
        over_floor = audit_s / floor_s if floor_s > 0 else float("inf")
        figures["ratios"] = {"naive_over_audit": round(speedup, 3), "audit_over_floor": round(over_floor, 2),
                             "naive_over_audit_cpu": round(naive_cpu / figures["audit"]["cpu_seconds"], 3)
                             if figures["audit"]["cpu_seconds"] > 0 else None,
                             "target_naive_over_audit": TARGET_SPEEDUP,
                             "met": None if args.quick else speedup >= TARGET_SPEEDUP}

        # -- memory: a log ten times longer against a shorter one ---------------------
        memory: dict = {"skipped": args.skip_memory}
        if not args.skip_memory:
            if args.quick:  # no large file: the short log has a tenth of the rounds, the long one is the log above
                short = generate(tmp / "short.del", args.tables, max(1, log.rounds // 10), args.seed, tmp)
                say(f"memory: auditing a {short.event_lines:,}-line log, a tenth of the rounds")
                short_rss = audit(short.path, tmp / "short.json", tmp, one_core)
                check_clean(short_rss, short, problems)
                short_rss_bytes, long, long_rss_bytes = short_rss.run.peak_rss_bytes, log, audit_rss
            else:
                say(f"memory: generating a log of ten times the rounds ({log.rounds * 10:,} per table)")
                long = generate(tmp / "long.del", args.tables, log.rounds * 10, args.seed, tmp)
                say(f"memory: auditing {long.event_lines:,} event lines")
                long_run = audit(long.path, tmp / "long.json", tmp, one_core)
                check_clean(long_run, long, problems)
                short, short_rss_bytes, long_rss_bytes = log, audit_rss, long_run.run.peak_rss_bytes
                memory["long_seconds"] = round(long_run.run.seconds, 3)
                memory["long_event_lines_per_second"] = round(rate(long.event_lines, long_run.run.seconds))
                long.path.unlink()
            ratio = long_rss_bytes / short_rss_bytes
            memory.update({
                "short_event_lines": short.event_lines, "short_peak_rss_bytes": short_rss_bytes,
                "long_event_lines": long.event_lines, "long_peak_rss_bytes": long_rss_bytes,
                "ratio": round(ratio, 3), "target_ratio": TARGET_MEMORY_RATIO, "target_bytes": int(TARGET_MEMORY_BYTES),
                "met": None if args.quick else (ratio <= TARGET_MEMORY_RATIO and long_rss_bytes < TARGET_MEMORY_BYTES),
            })
        figures["memory"] = memory

        # -- --jobs 2 against --jobs 1 ------------------------------------------------------
        parallel: dict = {"available": jobs}
        if jobs:
            say("--jobs 1 and --jobs 2 on the same night" + (f", alternately, best of {args.repeat}" if args.repeat > 1 else ""))
            ones, twos = [], []
            for _ in range(args.repeat):  # alternately, so that a busy moment hits both alike
                ones.append(audit(main_path, tmp / "jobs1.json", tmp, "1"))
                twos.append(audit(main_path, tmp / "jobs2.json", tmp, "2"))
            one = min(ones, key=lambda a: a.run.seconds)
            two = min(twos, key=lambda a: a.run.seconds)
            same = (tmp / "jobs1.json").read_bytes() == (tmp / "jobs2.json").read_bytes()
            if not same:
                problems.append("--jobs 2 and --jobs 1 wrote different JSON reports")
            jobs_speedup = one.run.seconds / two.run.seconds
            parallel.update({
                "jobs1_seconds": round(one.run.seconds, 3), "jobs2_seconds": round(two.run.seconds, 3),
                "jobs1_cpu_seconds": round(one.run.cpu_seconds, 3), "jobs2_cpu_seconds": round(two.run.cpu_seconds, 3),
                "speedup": round(jobs_speedup, 3), "reports_identical": same,
                "jobs2_largest_process_peak_rss_bytes": two.run.peak_rss_bytes,
                "target_speedup": TARGET_JOBS_SPEEDUP,
                "met": None if args.quick else (jobs_speedup >= TARGET_JOBS_SPEEDUP and same),
            })
        figures["jobs"] = parallel
        figures["load_average_after"] = load()
        figures["problems"] = problems

    print_table(figures, log)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    for p in problems:
        sys.stderr.write(f"bench: PROBLEM: {p}\n")
    return 1 if problems else 0


def print_table(f: dict, log: Log) -> None:
    m = f["machine"]
    judged = not f["quick"]
    cores = f"{m['cores']} cores" + (f" ({m['usable_cores']} usable)" if m["usable_cores"] != m["cores"] else "")
    ram = f", {m['memory_bytes'] / 2**30:.1f} GiB RAM" if m["memory_bytes"] else ""
    out = [
        f"audit benchmark{' (--quick: sizes too small for the targets to mean anything)' if f['quick'] else ''}",
        f"date:     {f['date']}",
        f"machine:  {m['cpu']}, {cores}{ram}; {m['os']}",
        f"python:   {m['python']}, lark {m['lark']}",
        f"audit:    {f['audit_package']} at {f['revision'] or 'unknown revision'}",
        f"load:     {f['load_average_before']} before, {f['load_average_after']} after (1-minute average)",
        f"command:  {f['command']}",
        f"log:      {log.event_lines:,} event lines ({log.lines:,} lines), {log.tables} tables x {log.rounds:,} rounds, "
        f"seed {log.seed}, {mb(log.bytes)}",
        "",
        f"{'':46}{'seconds':>10}{'event lines/s':>16}{'cpu s':>10}",
    ]
    rows = [
        ("(a) naive: plain Lark(parser='lalr'), tree", f["naive"]),
        ("(b) audit check --format json (full)", f["audit"]),
        ("(c) floor: read + split on whitespace", f["floor"]),
    ]
    for label, r in rows:
        out.append(f"{label:46}{r['seconds']:>10.2f}{r['event_lines_per_second']:>16,}{r['cpu_seconds']:>10.2f}")
    r = f["ratios"]
    out += [
        "",
        f"    (a) grammar compilation, not in (a): {f['naive']['grammar_build_seconds']:.2f} s; "
        f"(b) includes start-up: {f['audit']['startup_seconds']:.2f} s to audit an empty log",
        f"    (b) ran: {f['audit']['command']}",
        "",
        f"b/a: audit is {r['naive_over_audit']:.2f}x faster than the naive parse   "
        f"[time(a)/time(b); target >= {TARGET_SPEEDUP:g}x: {verdict(bool(r['met']), judged)}]",
        f"    ({r['naive_over_audit_cpu']:.2f}x in CPU time)",
        f"b/c: audit takes {r['audit_over_floor']:.1f}x the floor's time   [time(b)/time(c)]",
        f"peak memory of (b): {mb(f['audit']['peak_rss_bytes'])}",
    ]
    mem = f["memory"]
    if mem["skipped"]:
        out.append("memory check: skipped (--skip-memory)")
    else:
        out += [
            f"memory check: 10x longer log {mb(mem['long_peak_rss_bytes'])} ({mem['long_event_lines']:,} event lines) "
            f"vs {mb(mem['short_peak_rss_bytes'])} ({mem['short_event_lines']:,} event lines): ratio {mem['ratio']:.2f}",
            f"    [target <= {TARGET_MEMORY_RATIO:g} and < {mb(TARGET_MEMORY_BYTES)}: {verdict(bool(mem['met']), judged)}]",
        ]
        if "long_seconds" in mem:
            out.append(f"    (the 10x audit took {mem['long_seconds']:.1f} s, "
                       f"{mem['long_event_lines_per_second']:,} event lines/s)")
    j = f["jobs"]
    if not j["available"]:
        out.append("--jobs: skipped: `audit check --help` lists no --jobs option yet")
    else:
        out += [
            f"--jobs 2 vs --jobs 1: {j['jobs2_seconds']:.2f} s vs {j['jobs1_seconds']:.2f} s: "
            f"{j['speedup']:.2f}x faster; JSON reports {'byte-identical' if j['reports_identical'] else 'DIFFERENT'}",
            f"    (CPU time of all processes: {j['jobs2_cpu_seconds']:.2f} s vs {j['jobs1_cpu_seconds']:.2f} s)",
            f"    [target >= {TARGET_JOBS_SPEEDUP:g}x and identical: {verdict(bool(j['met']), judged)}]",
        ]
    busy = max(x for x in (f["load_average_before"], f["load_average_after"], 0) if x is not None)
    if busy > BUSY_LOAD:
        out.append(f"note: the machine was busy (load average up to {busy}): times may be inflated, wall clock "
                   "most, CPU time too (cores share caches); re-run on a quiet machine or with --repeat")
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
