"""``python -m audit.simulate``: write a fixture night, or a generated night of many tables."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import __doc__ as package_doc
from .night import EXAMPLE_SEED, EXAMPLE_START, NIGHTS, print_lines, simulate, write_lines, write_night
from .specs import generated_tables


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m audit.simulate", description=(package_doc or "").split("\n")[0])
    ap.add_argument("-o", "--out", help="output file (default: the night's file under fixtures/nights)")
    ap.add_argument("--night", choices=sorted(NIGHTS), default="example",
                    help="which fixture night to write (default: example)")
    ap.add_argument("--tables", type=int, help="generate this many bataille tables instead of a fixture night")
    ap.add_argument("--cdf", type=int, default=0, help="with --tables: add this many chemin de fer tables")
    ap.add_argument("--rounds", type=int, default=500, help="rounds per generated table")
    ap.add_argument("--seed", type=int, default=EXAMPLE_SEED)
    args = ap.parse_args(argv)
    if args.tables is None:
        count = write_night(args.night, args.out)
    else:
        lines = simulate(tables=generated_tables(args.tables, args.rounds, args.cdf), seed=args.seed,
                         start=EXAMPLE_START)
        count = write_lines(lines, Path(args.out)) if args.out else print_lines(lines)
    print(f"{count} lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
