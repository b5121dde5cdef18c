"""``python -m audit.simulate``: write a fixture night, or a generated night of many tables."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import __doc__ as package_doc
from .night import EXAMPLE_SEED, EXAMPLE_START, NIGHTS, print_lines, simulate, write_lines, write_night, write_tables
from .specs import generated_tables, realistic_tables
from .style import STYLES


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m audit.simulate", description=(package_doc or "").split("\n")[0])
    ap.add_argument("-o", "--out", help="output file (default: the night's file under fixtures/nights)")
    ap.add_argument("--night", choices=sorted(NIGHTS), default="example",
                    help="which fixture night to write (default: example)")
    ap.add_argument("--tables", type=int, help="generate this many bataille tables instead of a fixture night "
                    "(with --style realistic: tables of the French, Monaco and Ostende rulesets in turn)")
    ap.add_argument("--cdf", type=int, default=0, help="with --tables: add this many chemin de fer tables")
    ap.add_argument("--rounds", type=int, default=500, help="rounds per generated table")
    ap.add_argument("--seed", type=int, default=EXAMPLE_SEED)
    ap.add_argument("--style", choices=sorted(STYLES), default="plain",
                    help="with --tables: how the people behave (default: plain; realistic: heavy-tailed stakes "
                    "over the whole range, more seat changes, many standing players, limits changing often)")
    ap.add_argument("--per-table", metavar="DIR", type=Path,
                    help="with --tables: write each table's night to its own file DIR/TABLE.del instead")
    args = ap.parse_args(argv)
    if args.tables is None and (args.style != "plain" or args.per_table is not None):
        ap.error("--style and --per-table go with --tables")
    if args.style != "plain" and args.cdf:
        ap.error("--style realistic deals its own chemin de fer tables: no --cdf")
    if args.per_table is not None and args.out:
        ap.error("--per-table and --out: one or the other")
    if args.tables is None:
        count = write_night(args.night, args.out)
    else:
        if args.style == "plain":
            tables = generated_tables(args.tables, args.rounds, args.cdf)
        else:
            tables = realistic_tables(args.tables, args.rounds)
        if args.per_table is not None:
            count = write_tables(tables=tables, seed=args.seed, start=EXAMPLE_START, directory=args.per_table)
        else:
            lines = simulate(tables=tables, seed=args.seed, start=EXAMPLE_START)
            count = write_lines(lines, Path(args.out)) if args.out else print_lines(lines)
    print(f"{count} lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
