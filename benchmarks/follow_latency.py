"""How soon ``audit follow`` reports a finding after its line is written, and what it costs.

A folder of TABLES logs, one a table, each written at RATE lines a second (the simulator's
rule-abiding lines, as ``audit simulate-live --per-table`` writes them), with a garbled line
every EVERY lines of each table: a syntax finding, reported by the look that reads its line.
``audit follow -f jsonl`` follows the folder in its own process; each finding's delay is the time
from the write of its line to the time its JSON line reaches this script. At the end: the
median, 99th percentile and worst delay, and the follow's CPU time (user + system) over the run.

``--night HOURS`` measures memory instead: the tables' lines of that many hours at RATE lines a
second each are written as fast as the follow reads them (it is never more than ``--lead``
simulated seconds behind), and the follow's resident memory (RSS) is sampled every simulated
half hour: start (after the first half hour), end and most are printed, with the lines read a
second.

    python3 benchmarks/follow_latency.py                      # 20 tables, 2 lines/s, 60 s
    python3 benchmarks/follow_latency.py --tables 200 --seconds 60
    python3 benchmarks/follow_latency.py --tables 200 --night 12   # memory over a night
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from itertools import chain
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from audit import simulate as sim  # noqa: E402
from audit.simulate.night import EXAMPLE_START  # noqa: E402

GARBLED = b"a line the terminal garbled\n"


def _cpu(pid: int) -> float:
    """A process's CPU time so far (user + system), in seconds (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--rate", type=float, default=2.0, help="lines a second at each table")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument(
        "--every", type=int, default=10, help="a garbled line every this many lines of a table"
    )
    ap.add_argument("--interval", type=float, default=0.2, help="audit follow --interval")
    ap.add_argument("--poll", action="store_true", help="audit follow --poll (no file events)")
    ap.add_argument("--no-statistics", action="store_true", help="audit follow --no-statistics")
    ap.add_argument("--night", type=float, help="hours of a night written fast: memory")
    ap.add_argument("--lead", type=float, default=300, help="--night: seconds written ahead")
    args = ap.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="follow-latency-"))
    specs = sim.cli_tables(["fr-bataille-2007", "be-ostende-cdf"], args.tables, 100000)
    played = sim.played_tables(specs)
    streams = [
        chain(sim.header_lines(), (line for _, _, line in s))
        for s in sim.table_streams(tables=played, seed=1, start=EXAMPLE_START)
    ]
    paths = [(folder / f"{p.spec.table}.del").as_posix() for p in played]
    fds = [os.open(p, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644) for p in paths]

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "audit",
            "follow",
            "-f",
            "jsonl",
            "--interval",
            str(args.interval),
            "--heartbeat",
            "0.5",
            *(["--poll"] if args.poll else []),
            *(["--no-statistics"] if args.no_statistics else []),
            folder.as_posix(),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
    )
    received: dict[tuple[str, int], float] = {}
    ready = threading.Event()
    read_lines = [0]

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            now = time.monotonic()
            obj = json.loads(line)
            ready.set()
            if obj["type"] == "finding" and args.night is None:
                received.setdefault((obj["path"], obj["line"]), now)
            elif obj["type"] == "status":
                read_lines[0] = obj["lines"]

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if not ready.wait(60):
        sys.exit("audit follow did not start")

    cpu_at_start = _cpu(
        proc.pid
    )  # the start-up (imports, rulesets) is not the follow's running cost
    if args.night is not None:
        night(args, proc, fds, streams, read_lines, cpu_at_start)
        for fd in fds:
            os.close(fd)
        for p in paths:
            os.unlink(p)
        folder.rmdir()
        return
    written: dict[tuple[str, int], float] = {}
    counts = [0] * len(paths)
    period = 1 / args.rate
    t0 = time.monotonic()
    step = 0
    lines = 0
    while time.monotonic() - t0 < args.seconds:
        for i, fd in enumerate(fds):  # the tables' lines spread over each period
            due = t0 + step * period + i * period / len(fds)
            if (left := due - time.monotonic()) > 0:
                time.sleep(left)
            counts[i] += 1
            if counts[i] % args.every == 0:
                os.write(fd, GARBLED)
                written[(paths[i], counts[i])] = time.monotonic()
            else:
                os.write(fd, (next(streams[i]) + "\n").encode())
            lines += 1
        step += 1
    time.sleep(3 * args.interval + 1)
    running = _cpu(proc.pid) - cpu_at_start
    proc.send_signal(signal.SIGTERM)
    _, _, usage = os.wait4(proc.pid, 0)
    reader.join(5)
    elapsed = time.monotonic() - t0
    delays = sorted(received[k] - t for k, t in written.items() if k in received)
    missing = len(written) - len(delays)
    cpu = usage.ru_utime + usage.ru_stime
    q = statistics.quantiles(delays, n=100) if len(delays) > 1 else delays * 99
    print(
        f"tables {args.tables}, {args.rate:g} lines/s each, {args.seconds:g} s, follow --interval {args.interval:g}"
    )
    print(
        f"lines written {lines}, findings expected {len(written)}, reported {len(delays)}, missing {missing}"
    )
    print(
        f"delay line written -> finding reported: median {statistics.median(delays) * 1000:.0f} ms, "
        f"p99 {q[98] * 1000:.0f} ms, max {delays[-1] * 1000:.0f} ms"
    )
    print(
        f"follow CPU while following: {running:.1f} s over {elapsed:.0f} s, {100 * running / elapsed:.1f}% of one core "
        f"(with its start-up: {cpu:.1f} s)"
    )
    for fd in fds:
        os.close(fd)
    for p in paths:
        os.unlink(p)
    folder.rmdir()


def _rss(pid: int) -> int:
    """A process's resident memory, in KiB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def night(args, proc, fds, streams, read_lines, cpu_at_start: float) -> None:
    """``--night``: the night's lines written as fast as the follow reads them, its memory sampled."""
    per_second = max(1, round(args.rate))
    seconds = int(args.night * 3600)
    half_hour = 1800
    samples: list[tuple[float, int]] = []
    written = 0
    counts = [0] * len(fds)
    t0 = time.monotonic()
    for second in range(seconds):
        for i, fd in enumerate(fds):
            block = []
            for _ in range(per_second):
                counts[i] += 1
                block.append(
                    GARBLED if counts[i] % args.every == 0 else (next(streams[i]) + "\n").encode()
                )
            os.write(fd, b"".join(block))
            written += per_second
        lead = args.lead * len(fds) * per_second
        while written - read_lines[0] > lead and proc.poll() is None:
            time.sleep(
                0.05
            )  # the follow is behind: it is its memory that is measured, not a backlog
        if (second + 1) % half_hour == 0:
            samples.append(((second + 1) / 3600, _rss(proc.pid)))
            print(
                f"  {samples[-1][0]:5.1f} h  RSS {samples[-1][1] / 1024:6.1f} MiB  "
                f"lines {written:,}  {time.monotonic() - t0:.0f} s",
                flush=True,
            )
    while read_lines[0] < written and proc.poll() is None and time.monotonic() - t0 < 1e6:
        time.sleep(0.1)
    elapsed = time.monotonic() - t0
    samples.append((seconds / 3600, _rss(proc.pid)))
    running = _cpu(proc.pid) - cpu_at_start
    proc.send_signal(signal.SIGTERM)
    proc.wait()
    rss = [kib for _, kib in samples]
    print(
        f"night of {args.night:g} h, {len(fds)} tables at {args.rate:g} lines/s: {written:,} lines "
        f"written and read in {elapsed:.0f} s ({written / elapsed:,.0f} lines/s, "
        f"{seconds / elapsed:.0f}x real time), follow CPU {running:.0f} s"
    )
    print(
        f"follow RSS: start {rss[0] / 1024:.1f} MiB (after 0.5 h), end {rss[-1] / 1024:.1f} MiB, "
        f"max {max(rss) / 1024:.1f} MiB"
    )


if __name__ == "__main__":
    main()
