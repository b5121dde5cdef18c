"""How the benchmark runs and times things: children measured alone, the naive parse, the floor, the machine.

Shared by ``bench.py``'s nights. A log is a file or a folder of ``*.del`` files
(the night of many small files); the naive parse and the floor read every file
of it in order.
"""

from __future__ import annotations

import json
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
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nights import Log

ROOT = Path(__file__).resolve().parent.parent


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
    """Run ``cmd``; its wall time, its CPU time and the peak RSS of that child alone.

    The CPU time is ``os.wait4``'s, the resource usage of the one process waited for (unlike
    ``getrusage(RUSAGE_CHILDREN)``, which keeps the maximum over every child this script ever had).
    The peak RSS is the one the child reports of itself when it runs through ``peak.py`` (``audit_cmd``
    does): ``wait4``'s ``ru_maxrss`` starts at this script's own high-water mark on Linux, hundreds
    of megabytes once a naive parse has run here; it is kept only where the child wrote none.
    """
    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile() as peak:
        env = child_env()
        env["BENCH_PEAK_FILE"] = peak.name
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
        told = Path(peak.name).read_text(encoding="ascii").strip()
    # ru_maxrss is in kilobytes on Linux, in bytes on macOS
    rss = usage.ru_maxrss if sys.platform == "darwin" else usage.ru_maxrss * 1024
    if told.isdigit():
        rss = int(told)
    return Run(cmd, seconds, usage.ru_utime + usage.ru_stime, rss, proc.returncode, stderr)


def audit_cmd(*args: str) -> list[str]:
    """``python -m audit ARGS`` through ``peak.py``, which reports the audit's own peak memory."""
    return [sys.executable, str(Path(__file__).resolve().parent / "peak.py"), "-m", "audit", *args]


def audit_package(cwd: Path) -> str | None:
    """Where the children import ``audit`` from: the package measured."""
    done = subprocess.run(
        [sys.executable, "-c", "import audit, os; print(os.path.dirname(audit.__file__))"],
        cwd=cwd,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout.strip() or None


def check_help(cwd: Path) -> str:
    """What ``audit check --help`` says: which options the measured audit has."""
    done = subprocess.run(
        audit_cmd("check", "--help"),
        cwd=cwd,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout + done.stderr


def has_option(help_text: str, option: str) -> bool:
    return re.search(rf"{re.escape(option)}(?![\w-])", help_text) is not None


def log_files(path: Path) -> list[Path]:
    """The files of a log: the file itself, or a folder's ``*.del`` files in name order."""
    return sorted(path.glob("*.del")) if path.is_dir() else [path]


# -- the three measures -------------------------------------------------------------------


def naive_parse(path: Path) -> tuple[float, float, float, int]:
    """(a): (grammar build seconds, parse seconds, parse CPU seconds, lines parsed) with a plain LALR Lark."""
    from lark import Lark

    from audit.parse.grammar import grammar_text

    text = grammar_text()
    start = time.perf_counter()
    parser = Lark(text, parser="lalr")
    build = time.perf_counter() - start
    parsed = 0
    start, cpu = time.perf_counter(), time.process_time()
    for one in log_files(path):
        with one.open(encoding="utf-8") as f:
            for line in f:
                body = line.rstrip()
                if body:
                    parser.parse(body)
                    parsed += 1
    return build, time.perf_counter() - start, time.process_time() - cpu, parsed


def floor(path: Path) -> tuple[float, float]:
    """(c): read every line and split it on white space; (seconds, CPU seconds)."""
    start, cpu = time.perf_counter(), time.process_time()
    for one in log_files(path):
        with one.open(encoding="utf-8") as f:
            for line in f:
                line.split()
    return time.perf_counter() - start, time.process_time() - cpu


@dataclass
class Audit:
    run: Run
    report: dict


def audit(log: Path, report: Path, cwd: Path, jobs: str | None, *options: str) -> Audit:
    args = ["check", "--format", "json", "--output", str(report), *options]
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
        problems.append(
            f"the audit of {log.path.name} found {findings} breach(es) in a rule-abiding log"
        )
    if summary.get("events") != log.event_lines:
        problems.append(
            f"the audit of {log.path.name} counted {summary.get('events')} events; "
            f"the log holds {log.event_lines} event lines"
        )


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
    done = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True
    )
    return done.stdout.strip() or None if done.returncode == 0 else None


def load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None
