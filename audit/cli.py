"""The ``audit`` command line.

Exit status, as the findings contract fixes it: 0 no finding at or above the
failing severity, 1 at least one, 2 the audit could not be done. No Python
traceback ever reaches the user: every expected failure is a one-line message.
"""

from __future__ import annotations

import io
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape

from .findings import SEVERITY_RANK
from .report import InputError, Report, run_audit
from .reporters import json_report, text
from .rulesets import Library, RulesetError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Audit Dealer Event Logs against the regulation that governs each table.")


class Format(str, Enum):
    text = "text"
    json = "json"


class FailOn(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"


def _die(message: str) -> None:
    sys.stderr.write(f"audit: {message}\n")
    raise typer.Exit(2)


def _library(house: list[Path] | None) -> Library:
    try:
        return Library.load(overlays=house or [])
    except RulesetError as err:
        _die(str(err))
        raise AssertionError  # unreachable


def _exit_code(report: Report, fail_on: FailOn) -> int:
    floor = SEVERITY_RANK[fail_on.value]
    return 1 if any(SEVERITY_RANK[f.severity] >= floor for f in report.findings) else 0


@app.command()
def check(
    paths: Annotated[list[str], typer.Argument(help="Log files, folders of logs, or - for standard input.")],
    format: Annotated[Format, typer.Option("--format", "-f", help="text for people, json for programs.")] = Format.text,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the report to this file.")] = None,
    fail_on: Annotated[FailOn, typer.Option("--fail-on", help="Lowest severity that makes the exit status 1.")] = FailOn.error,
    house: Annotated[Optional[list[Path]], typer.Option("--house", help="House-rule overlay (YAML); repeat for several rulesets.")] = None,
) -> None:
    """Audit logs and report every breach."""
    library = _library(house)
    try:
        report = run_audit(library, paths)
    except InputError as err:
        _die(str(err))
        return
    if format is Format.json:
        rendered = json_report.render(report)
        if output:
            _write(output, rendered)
        else:
            sys.stdout.write(rendered)
    elif output:
        console = Console(record=True, width=120, file=io.StringIO(), highlight=False, soft_wrap=True)
        text.render(report, console)
        _write(output, console.export_text())
    else:
        text.render(report, Console(highlight=False, soft_wrap=True))
    raise typer.Exit(_exit_code(report, fail_on))


def _write(path: Path, content: str) -> None:
    try:
        path.write_text(content, encoding="utf-8")
    except OSError as err:
        _die(f"{path}: cannot write: {err.strerror or err}")


@app.command()
def rules(
    ruleset: Annotated[Optional[str], typer.Argument(help="A ruleset id (e.g. fr-bataille-2007); all if omitted.")] = None,
    house: Annotated[Optional[list[Path]], typer.Option("--house", help="House-rule overlay to apply.")] = None,
) -> None:
    """List every rule with its category, severity and the sentence it enforces."""
    library = _library(house)
    ids = sorted(library.rulesets) if ruleset is None else [ruleset]
    if ruleset is not None and ruleset not in library.rulesets:
        _die(f"no ruleset {ruleset!r}; known: {', '.join(sorted(library.rulesets))}")
    console = Console(highlight=False, soft_wrap=True)
    for rid in ids:
        loaded = library.rulesets[rid]
        m = loaded.model
        console.print(f"[bold]{m.id}[/bold] — {escape(m.title)} ({len(m.rules)} rules)")
        if loaded.overlay is not None:
            console.print(f"  house rules: {escape(loaded.overlay.model.overlay)}")
        for r in m.rules:
            state = "" if r.enabled else " [dim](off)[/dim]"
            console.print(f"  [bold]{r.id}[/bold]  {r.category}  {r.severity}{state}")
            console.print(f"      {escape(r.message)}")
            console.print(f"      [dim]{escape(r.citation_text)}[/dim]")
        console.print()


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("audit: interrupted\n")
        sys.exit(2)
    except SystemExit:
        raise
    except Exception as err:  # a bug of ours: say so in one line, never a traceback
        sys.stderr.write(f"audit: internal error: {type(err).__name__}: {err}\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
