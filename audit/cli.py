"""The ``audit`` command line.

Exit status, as the findings contract fixes it: 0 no finding at or above the
failing severity, 1 at least one, 2 the audit could not be done. No Python
traceback ever reaches the user: every expected failure is a one-line message.
"""

from __future__ import annotations

import io
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Callable, NoReturn, Optional

import typer

from . import baseline as baseline_file
from . import config as config_file
from .findings import SEVERITY_RANK
from .report import Report
from .run import run_audit
from .rulesets import Library, RulesetError
from .stream.inputs import InputError, expand, input_size

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


def _audit(paths: list[str], library: Library, jobs: int = 1, show_progress: bool = False) -> Report:
    try:
        files = expand(paths)
        if not show_progress or not sys.stderr.isatty():
            return run_audit(library, paths, jobs=jobs, files=files)
        from rich.console import Console  # rich is imported only where it draws (start-up time)
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn
        with Progress(TextColumn("auditing"), BarColumn(), TaskProgressColumn(), TimeRemainingColumn(),
                      console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task("audit", total=input_size(files) or None)
            return run_audit(library, paths, jobs=jobs, files=files,
                             progress=lambda n: bar.advance(task, n))
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
    from rich.console import Console

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
        pairs = [(Format(r.format), cfg.resolve(r.output)) for r in cfg.settings.reports]
        where = f"{cfg.path}: reports"
    else:
        formats = formats or [Format.text]
        if len(outputs) > len(formats):
            _die("more --output than --format: give a --format for each --output")
        pairs = [(fmt, outputs[i] if i < len(outputs) else None) for i, fmt in enumerate(formats)]
        where = "--format"
    if sum(1 for _, out in pairs if out is None) > 1:
        _die(f"{where}: only one report can go to standard output: give an output for the others")
    return pairs


def _relative(path: Path | None) -> Path | None:
    """A configured path as seen from here, so reports do not depend on where a checkout lives."""
    if path is None:
        return None
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def _exit_code(report: Report, fail_on: str) -> int:
    floor = SEVERITY_RANK[fail_on]
    return 1 if any(SEVERITY_RANK[f.severity] >= floor for f in report.findings) else 0


PathsArg = Annotated[list[str], typer.Argument(help="Log files, folders of logs, or - for standard input.")]
HouseOpt = Annotated[Optional[list[Path]], typer.Option("--house", help="House-rule overlay (YAML); repeat for several rulesets.")]
ConfigOpt = Annotated[Optional[Path], typer.Option("--config", help="Configuration file (default: the nearest audit.toml, or pyproject.toml with a tool.audit table).")]
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
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Processes to use (across files, and across the tables of a file).")] = 1,
) -> None:
    """Audit logs and report every breach."""
    cfg = _config(config)
    pairs = _reports(format or [], output or [], cfg)
    library = _library(cfg, house, rulesets)
    machine_to_stdout = any(out is None and fmt is not Format.text for fmt, out in pairs)
    report = _audit(paths, library, jobs, show_progress=not machine_to_stdout)
    base_path = baseline or _relative(cfg.resolve(cfg.settings.baseline))
    if base_path is not None:
        try:
            baseline_file.apply(report, baseline_file.load(base_path), base_path.as_posix())
        except baseline_file.BaselineError as err:
            _die(str(err))
    for fmt, out in pairs:
        if out is not None:
            _write(out, _renderer(fmt)(report))
        elif fmt is Format.text:
            from rich.console import Console
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
    from rich.console import Console
    from rich.markup import escape
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
    text = explain_text(library, rule, None)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


@app.command()
def simulate(
    ruleset: Annotated[Optional[list[str]], typer.Option("--ruleset", "-r", help="Ruleset of the tables (fr-bataille-2007, mc-sun-war-2006, be-ostende-cdf); repeat for a mixed night.")] = None,
    tables: Annotated[Optional[int], typer.Option("--tables", min=1, help="Number of tables, dealt to the rulesets round-robin (default: 2 per ruleset).")] = None,
    rounds: Annotated[int, typer.Option("--rounds", min=0, help="Rounds (coups) per table.")] = 100,
    seed: Annotated[int, typer.Option("--seed", help="The same seed gives the same log, byte for byte.")] = 1,
    start: Annotated[Optional[str], typer.Option("--start", help="When the first table opens, ISO 8601 (default 2026-11-20T21:00:00+01:00; +01:00 if no offset).")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the log to this file (default: standard output).")] = None,
    inject: Annotated[Optional[list[str]], typer.Option("--inject", help="Inject one fault of this finding category (repeat), or 'all' for every category the tables' rulesets have.")] = None,
    expected: Annotated[Optional[Path], typer.Option("--expected", help="Write the expected findings, a JSON list of {rule, category, line, table} sorted by line (table null for a syntax finding).")] = None,
) -> None:
    """Write a rule-abiding night of interleaved tables, optionally with known faults.

    With --inject, a `# expect: RULE-ID` comment precedes each line that must
    give a finding, so the log is a fixture. A table takes at most one fault a
    round: exit status 1 if a requested fault found no place in the night (too
    few rounds; the log and the expected findings still agree).
    """
    import json
    from datetime import datetime

    from . import inject as faults
    from . import simulate as sim

    if not ruleset:
        _die(f"give at least one --ruleset ({', '.join(sim.RULESETS)})")
    rulesets = list(dict.fromkeys(ruleset))
    try:
        specs = sim.cli_tables(rulesets, tables if tables is not None else 2 * len(rulesets), rounds)
    except ValueError as err:
        _die(str(err))
    begin = sim.EXAMPLE_START
    if start is not None:
        try:
            begin = datetime.fromisoformat(start)
        except ValueError:
            _die(f"--start {start!r} is not an ISO 8601 date and time")
    wanted: list[str] = []
    for name in inject or []:
        if name == "all":
            wanted += faults.applicable(specs)
        elif name not in faults.CATEGORIES:
            _die(f"--inject {name!r}: not a category; one of: all, {', '.join(faults.CATEGORIES)}")
        elif not faults.APPLIES[name] & set(rulesets):
            _die(f"--inject {name}: no rule of that category at tables of {', '.join(rulesets)} "
                 f"(it applies to {', '.join(sorted(faults.APPLIES[name]))})")
        else:
            wanted.append(name)
    wanted = list(dict.fromkeys(wanted))
    found: list = []
    chosen = None
    if wanted:
        lines, found, chosen = faults.faulty_night(tables=specs, seed=seed, start=begin,
                                                   casino="Casino-Simulation", categories=wanted)
    else:
        lines = sim.simulate(tables=specs, seed=seed, start=begin)
    count = 0
    try:
        if output is not None:
            with output.open("w", encoding="utf-8", newline="\n") as out:
                for line in lines:
                    out.write(line + "\n")
                    count += 1
        else:
            out = sys.stdout
            for line in lines:
                out.write(line + "\n")
                count += 1
            out.flush()
    except BrokenPipeError:
        raise typer.Exit(0)
    except OSError as err:
        _die(f"{output if output is not None else 'standard output'}: cannot write: {err.strerror or err}")
    found.sort(key=lambda e: (e.line, e.rule))
    if expected is not None:
        _write(expected, json.dumps([e.as_json() for e in found], indent=1) + "\n")
    where = str(output) if output is not None else "standard output"
    sys.stderr.write(f"audit: {count} lines, {len(specs)} table(s) × {rounds} round(s), written to {where}\n")
    missing = [f for f in chosen.faults if not f.placed] if chosen else []
    if chosen:
        sys.stderr.write(f"audit: {len(chosen.faults) - len(missing)} fault(s) injected, "
                         f"{len(found)} finding(s) expected\n")
    for f in missing:
        sys.stderr.write(f"audit: no place for a {f.category} fault at {specs[f.table].table} "
                         f"from round {f.target} on\n")
    raise typer.Exit(1 if missing else 0)


def run() -> int:
    """The command line; returns its exit code."""
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("audit: interrupted\n")
        return 2
    except SystemExit as done:
        if isinstance(done.code, str):  # a message instead of a code: Python would print it, exit 1
            sys.stderr.write(done.code + "\n")
            return 1
        return done.code or 0
    except Exception as err:  # a bug of ours: say so in one line, never a traceback
        sys.stderr.write(f"audit: internal error: {type(err).__name__}: {err}\n")
        return 2
    return 0


def main() -> None:
    """The console script and ``python -m audit``: the command line, then a hard exit.

    Once the reports are written and the standard streams flushed, nothing is left to do but
    free memory, which the system does at once when the process ends; the interpreter's own
    teardown (every module and object freed one by one) took 0.15 s or more after a night's
    audit. Files are closed where they are written; nothing of ours runs at exit."""
    code = run()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # a reader that went away, a stream already closed
            pass
        except OSError:  # the report did not reach its reader whole (a full disk, say)
            code = 2
    os._exit(code)


if __name__ == "__main__":
    main()
