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
from typing import Annotated, Callable, NoReturn, Optional

import typer
from rich.console import Console
from rich.markup import escape

from . import baseline as baseline_file
from . import config as config_file
from .findings import SEVERITY_RANK
from .report import InputError, Report, run_audit
from .rulesets import Library, RulesetError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Audit Dealer Event Logs against the regulation that governs each table.")
baseline_app = typer.Typer(no_args_is_help=True, help="Accept the findings of a night, to fail only on new ones.")
app.add_typer(baseline_app, name="baseline")


class Format(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"
    junit = "junit"


class RulesFormat(str, Enum):
    text = "text"
    markdown = "markdown"


class FailOn(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"


def _die(message: str) -> NoReturn:
    sys.stderr.write(f"audit: {message}\n")
    raise typer.Exit(2)


def _config(path: Optional[Path]) -> config_file.Config:
    try:
        return config_file.load(path) if path else config_file.discover()
    except config_file.ConfigError as err:
        _die(str(err))


def _library(cfg: config_file.Config, house: Optional[list[Path]], rulesets: Optional[Path]) -> Library:
    """Command-line options win: --house replaces the configuration's overlays."""
    directory = rulesets or cfg.resolve(cfg.settings.rulesets)
    try:
        if house:
            return Library.load(directory, overlays=house)
        return Library.load(directory, table_overlays=cfg.house_for())
    except RulesetError as err:
        _die(str(err))


def _audit(paths: list[str], library: Library) -> Report:
    try:
        return run_audit(library, paths)
    except InputError as err:
        _die(str(err))


def _renderer(fmt: Format) -> Callable[[Report], str]:
    if fmt is Format.json:
        from .reporters import json_report
        return json_report.render
    if fmt is Format.sarif:
        from .reporters import sarif
        return sarif.render
    if fmt is Format.junit:
        from .reporters import junit
        return junit.render
    return _text_file


def _text_file(report: Report) -> str:
    from .reporters import text
    console = Console(record=True, width=120, file=io.StringIO(), highlight=False, soft_wrap=True)
    text.render(report, console)
    return console.export_text()


def _write(path: Path, content: str) -> None:
    try:
        path.write_text(content, encoding="utf-8")
    except OSError as err:
        _die(f"{path}: cannot write: {err.strerror or err}")


def _reports(formats: list[Format], outputs: list[Path], cfg: config_file.Config) -> list[tuple[Format, Path | None]]:
    """Pair each --format with the --output of the same rank; the rest go to standard output."""
    if not formats and not outputs and cfg.settings.reports:
        return [(Format(r.format), cfg.resolve(r.output)) for r in cfg.settings.reports]
    formats = formats or [Format.text]
    if len(outputs) > len(formats):
        _die("more --output than --format: give a --format for each --output")
    pairs = [(fmt, outputs[i] if i < len(outputs) else None) for i, fmt in enumerate(formats)]
    if sum(1 for _, out in pairs if out is None) > 1:
        _die("only one report can go to standard output: give an --output for the others")
    return pairs


def _exit_code(report: Report, fail_on: str) -> int:
    floor = SEVERITY_RANK[fail_on]
    return 1 if any(SEVERITY_RANK[f.severity] >= floor for f in report.findings) else 0


PathsArg = Annotated[list[str], typer.Argument(help="Log files, folders of logs, or - for standard input.")]
HouseOpt = Annotated[Optional[list[Path]], typer.Option("--house", help="House-rule overlay (YAML); repeat for several rulesets.")]
ConfigOpt = Annotated[Optional[Path], typer.Option("--config", help="Configuration file (default: the nearest audit.toml or pyproject.toml [tool.audit]).")]
RulesetsOpt = Annotated[Optional[Path], typer.Option("--rulesets", help="Folder of rulesets to use instead of the shipped ones.")]


@app.command()
def check(
    paths: PathsArg,
    format: Annotated[Optional[list[Format]], typer.Option("--format", "-f", help="text, json, sarif or junit; repeat with --output for several reports.")] = None,
    output: Annotated[Optional[list[Path]], typer.Option("--output", "-o", help="File for the report of the --format of the same rank.")] = None,
    fail_on: Annotated[Optional[FailOn], typer.Option("--fail-on", help="Lowest severity that makes the exit status 1 (default error).")] = None,
    house: HouseOpt = None,
    baseline: Annotated[Optional[Path], typer.Option("--baseline", help="Baseline file: its findings are reported as suppressed.")] = None,
    config: ConfigOpt = None,
    rulesets: RulesetsOpt = None,
) -> None:
    """Audit logs and report every breach."""
    cfg = _config(config)
    pairs = _reports(format or [], output or [], cfg)
    library = _library(cfg, house, rulesets)
    report = _audit(paths, library)
    base_path = baseline or cfg.resolve(cfg.settings.baseline)
    if base_path is not None:
        try:
            baseline_file.apply(report, baseline_file.load(base_path), base_path.as_posix())
        except baseline_file.BaselineError as err:
            _die(str(err))
    for fmt, out in pairs:
        if out is not None:
            _write(out, _renderer(fmt)(report))
        elif fmt is Format.text:
            from .reporters import text
            text.render(report, Console(highlight=False, soft_wrap=True))
        else:
            sys.stdout.write(_renderer(fmt)(report))
    raise typer.Exit(_exit_code(report, (fail_on.value if fail_on else None) or cfg.settings.fail_on or "error"))


@baseline_app.command("create")
def baseline_create(
    paths: PathsArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="The baseline file to write.")],
    justification: Annotated[str, typer.Option("--justification", help="Why these findings are accepted.")] = baseline_file.DEFAULT_JUSTIFICATION,
    house: HouseOpt = None,
    config: ConfigOpt = None,
    rulesets: RulesetsOpt = None,
) -> None:
    """Write the current findings to a baseline file."""
    cfg = _config(config)
    report = _audit(paths, _library(cfg, house, rulesets))
    if not justification.strip():
        _die("--justification must say why the findings are accepted")
    _write(output, baseline_file.render(baseline_file.from_report(report, justification)))
    sys.stdout.write(f"audit: {len(report.findings)} finding(s) written to {output}\n")


@app.command()
def rules(
    ruleset: Annotated[Optional[str], typer.Argument(help="A ruleset id (e.g. fr-bataille-2007); all if omitted.")] = None,
    format: Annotated[RulesFormat, typer.Option("--format", "-f", help="text, or markdown for the rule reference.")] = RulesFormat.text,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to this file.")] = None,
    house: HouseOpt = None,
    config: ConfigOpt = None,
    rulesets: RulesetsOpt = None,
) -> None:
    """List every rule with its category, severity and the sentence it enforces."""
    library = _library(_config(config), house, rulesets)
    if ruleset is not None and ruleset not in library.rulesets:
        _die(f"no ruleset {ruleset!r}; known: {', '.join(sorted(library.rulesets))}")
    if format is RulesFormat.markdown:
        from .explain import rules_markdown
        if ruleset is not None:
            library = Library({ruleset: library.rulesets[ruleset]})
        content = rules_markdown(library)
    else:
        content = _rules_text(library, sorted(library.rulesets) if ruleset is None else [ruleset])
    if output:
        _write(output, content)
    else:
        sys.stdout.write(content)


def _rules_text(library: Library, ids: list[str]) -> str:
    console = Console(record=True, file=io.StringIO(), highlight=False, soft_wrap=True, width=120)
    for rid in ids:
        loaded = library.rulesets[rid]
        m = loaded.model
        console.print(f"{m.id} — {escape(m.title)} ({len(m.rules)} rules)")
        if loaded.overlay is not None:
            console.print(f"  house rules: {escape(loaded.overlay.model.overlay)}")
        for r in m.rules:
            state = "" if r.enabled else " (off)"
            console.print(f"  {r.id}  {r.category}  {r.severity}{state}")
            console.print(f"      {escape(r.message)}")
            console.print(f"      {escape(r.citation_text)}")
        console.print()
    return console.export_text()


@app.command()
def explain(
    rule: Annotated[str, typer.Argument(help="A rule id, e.g. FR-PAY-MAIN.")],
    house: HouseOpt = None,
    config: ConfigOpt = None,
    rulesets: RulesetsOpt = None,
) -> None:
    """Show a rule: what it requires, its parameters, the text it cites, a log that breaks it and one that keeps it."""
    from .explain import explain_text, find_rule, unknown_rule_message
    library = _library(_config(config), house, rulesets)
    if find_rule(library, rule) is None:
        _die(unknown_rule_message(library, rule))
    sys.stdout.write(explain_text(library, rule, None))


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
