"""The ``audit`` command line.

Exit status, as the findings contract fixes it: 0 no finding at or above the
failing severity, 1 at least one, 2 the audit could not be done. No Python
traceback ever reaches the user: every expected failure is a one-line message.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Annotated, Iterator, Literal, NoReturn, Optional

import typer

from . import baseline as baseline_file
from . import config as config_file
from .cluster import Cluster, ClusterError
from .findings import DEFAULT_FAIL_ON, SEVERITIES, any_at_or_above
from .outputs import OutputError, choose_outputs, progress_bar_fits, write_file, write_reports
from .report import Report
from .reporters import REPORTERS, names
from .rule_listing import LISTING_FORMATS, rules_listing
from .run import run_audit
from .rulesets import Library, RulesetError
from .stream.inputs import InputError, expand, input_size

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Audit Dealer Event Logs against the regulation that governs each table.")
baseline_app = typer.Typer(no_args_is_help=True, help="Accept the findings of a night, to fail only on new ones.")
app.add_typer(baseline_app, name="baseline")


def _in_words(items: tuple[str, ...]) -> str:
    """``a, b or c``, as the help says a list of choices."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def _choices(name: str, values: tuple[str, ...]) -> type[Enum]:
    """The values an option takes, as the Enum typer turns into its choices."""
    return Enum(name, [(v, v) for v in values], type=str)  # type: ignore[return-value]


#: the registered report formats (audit/reporters), the failing severities, the rule listing's formats
Format = _choices("Format", names())
FailOn = _choices("FailOn", SEVERITIES)
RulesFormat = _choices("RulesFormat", LISTING_FORMATS)
_NAME_WIDTH = max(map(len, REPORTERS))
FORMATS_HELP = "\b\nReport formats (--format):\n" + "\n".join(
    f"  {r.name:<{_NAME_WIDTH}}  {r.description} (.{r.extension})" for r in REPORTERS.values())


def _die(message: str) -> NoReturn:
    sys.stderr.write(f"audit: {message}\n")
    raise typer.Exit(2)


@contextmanager
def _exit_2_on(*errors: type[Exception]) -> Iterator[None]:
    """An expected failure of the work inside: its one-line message, exit status 2."""
    try:
        yield
    except errors as err:
        _die(str(err))


def _config(path: Optional[Path]) -> config_file.Config:
    with _exit_2_on(config_file.ConfigError):
        return config_file.load(path) if path else config_file.discover()


def _library(cfg: config_file.Config, house: Optional[list[Path]], rulesets: Optional[Path]) -> Library:
    """Command-line options win: --house replaces the configuration's overlays."""
    directory = rulesets or cfg.resolve(cfg.settings.rulesets)
    with _exit_2_on(RulesetError):
        if house:
            return Library.load(directory, overlays=house)
        return Library.load(directory, table_overlays=cfg.table_overlays())


def _audit(paths: list[str], library: Library, jobs: int = 1, show_progress: bool = False,
           cluster: Optional[str] = None) -> Report:
    """The report of the inputs, with a progress bar on standard error if asked and a terminal;
    on a Dask cluster if ``cluster`` names one (docs/cluster.md)."""
    with _exit_2_on(InputError, ClusterError):
        files = expand(paths)
        runner = Cluster(cluster, say=None) if cluster else None
        if not show_progress or not sys.stderr.isatty():
            return run_audit(library, paths, jobs=jobs, files=files, cluster=runner)
        from rich.console import Console  # rich is imported only where it draws (start-up time)
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn
        with Progress(TextColumn("auditing"), BarColumn(), TaskProgressColumn(), TimeRemainingColumn(),
                      console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task("audit", total=input_size(files) or None)
            return run_audit(library, paths, jobs=jobs, files=files, cluster=runner,
                             progress=lambda n: bar.advance(task, n))


def _write(path: Path, content: str) -> None:
    with _exit_2_on(OutputError):
        write_file(path, content)


PathsArg = Annotated[list[str], typer.Argument(help="Log files, folders of logs, or - for standard input.")]
HouseOpt = Annotated[Optional[list[Path]], typer.Option("--house", help="House-rule overlay (YAML); repeat for several rulesets.")]
ConfigOpt = Annotated[Optional[Path], typer.Option("--config", help="Configuration file (default: the nearest audit.toml, or pyproject.toml with a tool.audit table).")]
RulesetsOpt = Annotated[Optional[Path], typer.Option("--rulesets", help="Folder of rulesets to use instead of the shipped ones.")]


@app.command(epilog=FORMATS_HELP)
def check(
    paths: PathsArg,
    format: Annotated[Optional[list[Format]], typer.Option("--format", "-f", help=f"{_in_words(names())}; repeat with --output for several reports.")] = None,
    output: Annotated[Optional[list[Path]], typer.Option("--output", "-o", help="File for the report of the --format of the same rank.")] = None,
    fail_on: Annotated[Optional[FailOn], typer.Option("--fail-on", help=f"Lowest severity that makes the exit status 1 (default {DEFAULT_FAIL_ON}).")] = None,
    house: HouseOpt = None,
    baseline: Annotated[Optional[Path], typer.Option("--baseline", help="Baseline file: its findings are reported as suppressed.")] = None,
    config: ConfigOpt = None,
    rulesets: RulesetsOpt = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Processes to use (across files, and across the tables of a file).")] = 1,
    cluster: Annotated[Optional[str], typer.Option("--cluster", help="Run on a Dask cluster: a scheduler's address (tcp://host:8786), or local[:N] for N worker processes here; --jobs then does not apply (needs the cluster extra).")] = None,
) -> None:
    """Audit logs and report every breach."""
    cfg = _config(config)
    with _exit_2_on(OutputError):
        outputs = choose_outputs([f.value for f in format or []], output or [], cfg)
    library = _library(cfg, house, rulesets)
    report = _audit(paths, library, jobs, show_progress=progress_bar_fits(outputs),
                    cluster=cluster or cfg.settings.cluster)
    base_path = baseline or cfg.baseline()
    if base_path is not None:
        with _exit_2_on(baseline_file.BaselineError):
            baseline_file.apply(report, baseline_file.load(base_path), base_path.as_posix())
    with _exit_2_on(OutputError):
        write_reports(outputs, report)
    floor = (fail_on.value if fail_on else None) or cfg.settings.fail_on or DEFAULT_FAIL_ON
    raise typer.Exit(1 if any_at_or_above(report.findings, floor) else 0)


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
    format: Annotated[RulesFormat, typer.Option("--format", "-f", help="text, or markdown for the rule reference.")] = RulesFormat(LISTING_FORMATS[0]),
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to this file.")] = None,
    house: HouseOpt = None,
    config: ConfigOpt = None,
    rulesets: RulesetsOpt = None,
) -> None:
    """List every rule with its category, severity and the sentence it enforces."""
    library = _library(_config(config), house, rulesets)
    if ruleset is not None and ruleset not in library.rulesets:
        _die(f"no ruleset {ruleset!r}; known: {', '.join(sorted(library.rulesets))}")
    content = rules_listing(library, ruleset, format.value)
    if output:
        _write(output, content)
    else:
        sys.stdout.write(content)


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
def odds(
    ruleset: Annotated[str, typer.Argument(help="A ruleset id, e.g. fr-bataille-2007.")],
    format: Annotated[Literal["text", "json"], typer.Option("--format", "-f", help="text (a table) or json.")] = "text",
    house: HouseOpt = None,
    config: ConfigOpt = None,
    rulesets: RulesetsOpt = None,
) -> None:
    """The exact edge of every bet the ruleset offers, from its parameters (docs/statistics.md)."""
    from .odds import OddsError, compute
    from .odds.render import render_json, render_text
    library = _library(_config(config), house, rulesets)
    loaded = library.get(ruleset)
    if loaded is None:
        _die(f"no ruleset {ruleset!r}; known: {', '.join(sorted(library.rulesets))}")
    with _exit_2_on(OddsError):
        result = compute(loaded)
    sys.stdout.write(render_json(result) if format == "json" else render_text(result))


@app.command()
def trace(
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the matrix to this file (atomically).")] = None,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 if the --output file differs.")] = False,
) -> None:
    """Write the traceability matrix: each regulation's sentences, the rules that check them, their fixtures."""
    from .trace import run as run_trace
    raise typer.Exit(run_trace(output, check))


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

    from . import simulate as sim
    from .simulate import faults

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
        elif not faults.applies_to(name) & set(rulesets):
            _die(f"--inject {name}: no rule of that category at tables of {', '.join(rulesets)} "
                 f"(it applies to {', '.join(sorted(faults.applies_to(name)))})")
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
