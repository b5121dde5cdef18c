"""The reports an ``audit check`` writes and where: chosen from the command line or the configuration, then written.

Each ``--format`` pairs with the ``--output`` of the same rank; without either,
the configuration's ``reports`` are written; at most one report goes to
standard output.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from .config import Config
from .report import Report
from .reporters import REPORTERS, Reporter

DEFAULT_FORMAT = "text"


class OutputError(Exception):
    """Reports that cannot be chosen or written: the audit stops with exit 2."""


@dataclass(frozen=True)
class Output:
    """One report to write: its format, and its file (None: standard output)."""

    reporter: Reporter
    path: Path | None


def choose_outputs(formats: list[str], paths: list[Path], cfg: Config) -> list[Output]:
    """Pair each --format with the --output of the same rank; the rest go to standard output."""
    if not formats and not paths and cfg.settings.reports:
        outputs = [Output(REPORTERS[r.format], cfg.resolve(r.output)) for r in cfg.settings.reports]
        where = f"{cfg.path}: reports"
    else:
        formats = formats or [DEFAULT_FORMAT]
        if len(paths) > len(formats):
            raise OutputError("more --output than --format: give a --format for each --output")
        outputs = [Output(REPORTERS[name], paths[i] if i < len(paths) else None) for i, name in enumerate(formats)]
        where = "--format"
    if sum(1 for o in outputs if o.path is None) > 1:
        raise OutputError(f"{where}: only one report can go to standard output: give an output for the others")
    return outputs


def progress_bar_fits(outputs: list[Output]) -> bool:
    """No progress bar while a report for a program goes to standard output."""
    return not any(o.path is None and o.reporter.show is None for o in outputs)


def write_reports(outputs: list[Output], report: Report) -> None:
    """Every report, in the order given (a report that cannot be written stops the rest)."""
    for o in outputs:
        if o.path is not None:
            write_file(o.path, o.reporter.render(report))
        elif o.reporter.show is not None:
            o.reporter.show(report)
        else:
            sys.stdout.write(o.reporter.render(report))


def write_file(path: Path, content: str) -> None:
    try:
        path.write_text(content, encoding="utf-8")
    except OSError as err:
        raise OutputError(f"{path}: cannot write: {err.strerror or err}") from None
