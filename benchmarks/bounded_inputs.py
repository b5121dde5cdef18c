"""Peak memory and time of the audit on inputs made to be large in number, not in length:
a folder of tiny logs, a log of many tables left open, a log of many tables opened and closed,
and /dev/zero named as each file read whole (docs/performance.md, "Bounded inputs").

    python3 benchmarks/bounded_inputs.py [--files 20000] [--tables 200000] [--keep DIR]

Each audit runs in a child process (``audit check ... --quiet``); its peak resident set size is
read with ``os.wait4`` for that child alone."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OPENING = "OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500 egalite-min=5 egalite-max=50"


def folder_of_logs(folder: Path, count: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        table = f"BAT-{i % 99:02d}"
        (folder / f"n{i:05d}.del").write_text(
            f"#DEL 1\n2026-11-20T21:00:00.000+01:00 {table} {OPENING}\n"
            f"2026-11-20T21:00:01.000+01:00 {table} CLOSE\n"
        )


def log_of_tables(path: Path, count: int, closed: bool) -> None:
    with open(path, "w") as f:
        f.write("#DEL 1\n")
        for i in range(count):
            ts = (
                f"2026-11-20T21:{(i // 60000) % 60:02d}:{(i // 1000) % 60:02d}.{i % 1000:03d}+01:00"
            )
            f.write(f"{ts} T{i:06d} {OPENING}\n{ts} T{i:06d} DEALER id=D{i % 9999:04d}\n")
            if closed:
                f.write(f"{ts} T{i:06d} CLOSE\n")


def measure(label: str, *args: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.monotonic()
    child = subprocess.Popen(
        [sys.executable, "-m", "audit", "check", *args, "--quiet", "--no-progress"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out = child.stdout.read()  # --quiet: one line; an error: one line
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    took = time.monotonic() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    peak = usage.ru_maxrss / 1024
    print(
        f"{label:<34} exit {child.returncode}  {took:7.1f} s  peak {peak:6.1f} MiB  "
        f"{(out or err).decode().strip()[:90]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--tables", type=int, default=200_000)
    parser.add_argument(
        "--keep", type=Path, help="make the inputs in this folder (kept), not a temporary one"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where = args.keep or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        folder_of_logs(where / "folder", args.files)
        log_of_tables(where / "open.del", args.tables, closed=False)
        log_of_tables(where / "closed.del", args.tables, closed=True)
        night = str(ROOT / "fixtures" / "nights" / "example-night.del")
        measure(f"{args.files} logs in a folder", str(where / "folder"))
        measure(f"{args.tables} tables left open", str(where / "open.del"))
        measure(f"{args.tables} tables closed", str(where / "closed.del"))
        for option in ("--config", "--house", "--baseline"):
            measure(f"{option} /dev/zero", night, option, "/dev/zero")


if __name__ == "__main__":
    main()
