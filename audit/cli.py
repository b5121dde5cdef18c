"""The ``audit`` command line.

Exit status, as the findings contract fixes it: 0 no finding at or above the
failing severity, 1 at least one, 2 the audit could not be done. No Python
traceback ever reaches the user: every expected failure is a one-line message.
"""

import os
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NoReturn, TypeAlias

import typer

from . import __version__, findings_store, interrupt, registry, terminal
from . import baseline as baseline_file
from . import config as config_file
from . import history_cli as history
from .check_options import ReportOptions, RuleOptions, RunOptions, StatisticsOptions
from .cli_options import ConfigOpt, HouseOpt, IgnoreOpt, RulesetsOpt, alpha_option, select_option
from .cluster import Cluster, ClusterError
from .configuration import (
    BaselineUsed,
    Configuration,
    FileRead,
    OverlayUsed,
    PluginUsed,
    SelectionUsed,
    StoreUsed,
    ruleset_used,
    shown_path,
)
from .escape import for_terminal, lines_for_terminal
from .findings import DEFAULT_FAIL_ON, SEVERITIES, any_at_or_above
from .follow import cli as follow_cli
from .history.store import store_files
from .outputs import (
    Output,
    OutputError,
    check_files,
    check_outputs,
    check_simulation,
    choose_outputs,
    progress_bar_fits,
    run_sources,
    write_file,
    write_reports,
    write_standard_output,
)
from .report import Report
from .reporters import REPORTERS, names
from .rule_listing import LISTING_FORMATS, rules_listing
from .rulesets import Library, RulesetError
from .run import run_audit
from .selection import Selection, SelectionError, choose
from .simulate.anomalies import KINDS as ANOMALIES
from .simulate.anomalies import Anomaly
from .simulate.style import STYLES
from .statistics import DEFAULT_ALPHA
from .stream.inputs import InputError, expand, input_size
from .verbose import Narrator

if TYPE_CHECKING:
    from .history.recording import Recorder

#: -h is --help everywhere; the help is click's plain text, wrapped to the terminal (none cut short)
HELP_SETTINGS = {"help_option_names": ["-h", "--help"]}
app = typer.Typer(
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=HELP_SETTINGS,
    help="Audit Dealer Event Logs against the regulation that governs each table.",
)
baseline_app = typer.Typer(
    no_args_is_help=True, help="Accept the findings of a night, to fail only on new ones."
)
app.add_typer(baseline_app, name="baseline")
app.add_typer(history.history_app, name="history")
follow_cli.register(app)  # audit follow, audit simulate-live (docs/follow.md)


def _in_words(items: tuple[str, ...]) -> str:
    """``a, b or c``, as the help says a list of choices."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def _choices(name: str, values: tuple[str, ...]) -> type[Enum]:
    """The values an option takes, as the Enum typer turns into its choices."""
    return Enum(name, [(v, v) for v in values], type=str)  # type: ignore[return-value]


#: the registered report formats (audit/reporters), the failing severities, the rule listing's formats
if TYPE_CHECKING:  # made at run time from the registries: to a type checker, Enums
    Format: TypeAlias = Enum
    FailOn: TypeAlias = Enum
    AnomalyKind: TypeAlias = Enum
    StyleName: TypeAlias = Enum
    RulesFormat: TypeAlias = Enum
    Color: TypeAlias = Enum
else:
    Format = _choices("Format", names())
    FailOn = _choices("FailOn", SEVERITIES)
    AnomalyKind = _choices("AnomalyKind", ANOMALIES)
    StyleName = _choices("StyleName", tuple(STYLES))
    RulesFormat = _choices("RulesFormat", LISTING_FORMATS)
_NAME_WIDTH = max(map(len, REPORTERS))
FORMATS_HELP = (
    "\b\nReport formats (--format):\n"
    + "\n".join(  # whole at 80 columns (click indents by 2)
        textwrap.fill(
            f"{r.description} (.{r.extension})",
            76,
            initial_indent=f"  {r.name:<{_NAME_WIDTH}}  ",
            subsequent_indent=" " * (_NAME_WIDTH + 4),
        )
        for r in REPORTERS.values()
    )
)


def _die(message: str) -> NoReturn:
    """The one way an error reaches the user: file names, keys and values quoted from outside are
    in ``message``, so it is escaped for the terminal as a whole (audit/escape.py)."""
    sys.stderr.write(f"audit: {for_terminal(message)}\n")
    raise typer.Exit(2)


@contextmanager
def _exit_2_on(*errors: type[Exception]) -> Iterator[None]:
    """An expected failure of the work inside: its one-line message, exit status 2."""
    try:
        yield
    except errors as err:
        _die(str(err))


def _config(path: Path | None) -> config_file.Config:
    with _exit_2_on(config_file.ConfigError):
        return config_file.load(path) if path else config_file.discover()


def _library(cfg: config_file.Config, house: list[Path] | None, rulesets: Path | None) -> Library:
    """The configuration's rulesets (``Config.library``), a broken one stopping with exit 2."""
    with _exit_2_on(RulesetError):
        return cfg.library(house, rulesets)


def _expand(paths: list[str]) -> list[str]:
    with _exit_2_on(InputError):
        return expand(paths)


def _audit(
    files: list[str],
    library: Library,
    jobs: int = 1,
    show_progress: bool = False,
    narrator: Narrator = Narrator(False),
    cluster: str | None = None,
) -> Report:
    """The report of the (expanded) inputs, with a progress bar on standard error if asked and a
    terminal; on a Dask cluster if ``cluster`` names one (docs/cluster.md)."""
    with _exit_2_on(InputError, ClusterError):
        narrator.inputs(files, jobs)
        runner = (
            Cluster(cluster, say=narrator.say if narrator.enabled else None) if cluster else None
        )
        if not show_progress or not sys.stderr.isatty():
            return run_audit(library, files, jobs=jobs, files=files, cluster=runner)
        from rich.progress import (
            BarColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeRemainingColumn,
        )

        with Progress(
            TextColumn("auditing"),
            BarColumn(),
            TaskProgressColumn(),
            TimeRemainingColumn(),
            console=terminal.console(stderr=True),
            transient=True,
        ) as bar:
            task = bar.add_task("audit", total=input_size(files) or None)
            return run_audit(
                library,
                files,
                jobs=jobs,
                files=files,
                cluster=runner,
                progress=lambda n: bar.advance(task, n),
            )


def _selection(
    library: Library, cfg: config_file.Config, select: list[str] | None, ignore: list[str] | None
) -> Selection:
    """The rules reported: --select and --ignore, each replacing the configuration's key of that name."""
    with _exit_2_on(SelectionError):
        return choose(
            library,
            select,
            ignore,
            cfg.settings.select,
            cfg.settings.ignore,
            str(cfg.path) if cfg.path else "configuration",
        )


def _configuration(
    cfg: config_file.Config,
    library: Library,
    report: Report,
    selection: Selection,
    hidden: int,
    select: list[str] | None,
    ignore: list[str] | None,
    baseline: tuple[Path | None, str | None],
    fail_on: str,
    fail_on_anomaly: bool = False,
) -> Configuration:
    """What shaped ``report``, as the report's ``configuration`` says it (docs/trust.md)."""
    here = shown_path(cfg.path) if cfg.path is not None else None
    sources = [
        ("command line" if given else here)
        for given, names in ((select, selection.select), (ignore, selection.ignore))
        if names
    ]
    base_path, base_sha = baseline
    return Configuration(
        files=[FileRead(path=here, sha256=cfg.sha256)] if here is not None and cfg.sha256 else [],
        rulesets=[ruleset_used(r) for r in report.rulesets],
        overlays=[
            OverlayUsed(
                path=shown_path(o.path),
                sha256=o.sha256,
                ruleset=o.model.ruleset,
                tables=tables,
                tightened=sorted(set(o.changes.tightened)),
                added=sorted(set(o.changes.added)),
                parameters=sorted(set(o.changes.parameters)),
                readings=sorted(set(o.changes.readings)),
            )
            for tables, o in library.overlays()
        ],
        plugins=[PluginUsed(**asdict(p)) for p in registry.PLUGINS],
        selection=SelectionUsed(
            select=list(selection.select),
            ignore=list(selection.ignore),
            source=" and ".join(dict.fromkeys(s for s in sources if s)) or None,
            hidden=hidden,
        ),
        baseline=None
        if base_path is None or base_sha is None
        else BaselineUsed(
            path=shown_path(base_path), sha256=base_sha, suppressed=len(report.suppressed)
        ),
        fail_on=fail_on,
        statistics=report.statistics is not None,
        fail_on_anomaly=fail_on_anomaly,
    )


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"audit (del-audit) {__version__}\n")
        raise typer.Exit(0) from None


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """The options of ``audit`` itself, before its command (the help is the Typer's)."""


def _write_reports(outputs: list[Output], report: Report, quiet: bool, narrator: Narrator) -> None:
    """Every report asked; with --quiet, the text report for a person becomes its summary line
    (on standard error when a report for a program holds standard output)."""
    if quiet:
        outputs = [o for o in outputs if o.path is not None or o.reporter.show is None]
    for o in outputs:
        narrator.say(f"report: {o.reporter.name} to {o.path or 'standard output'}")
    with narrator.timed("reports written"), _exit_2_on(OutputError):
        write_reports(outputs, report)
    if quiet:
        from .reporters.text import summary_line

        data_on_stdout = any(o.path is None for o in outputs)
        (sys.stderr if data_on_stdout else sys.stdout).write(summary_line(report))


def _write(path: Path, content: str) -> None:
    with _exit_2_on(OutputError):
        write_file(path, content)


def _show(text: str) -> None:
    with _exit_2_on(OutputError):
        write_standard_output(text)


PathsArg = Annotated[
    list[str], typer.Argument(help="Log files, folders of logs, or - for standard input.")
]
SelectOpt = Annotated[list[str] | None, select_option("categories (wrong-payout)")]
if not TYPE_CHECKING:
    Color = _choices("Color", terminal.COLOR_CHOICES)


@app.command(epilog=FORMATS_HELP)
def check(
    paths: PathsArg,
    format: Annotated[
        list[Format] | None,
        typer.Option(
            "--format",
            "-f",
            help=f"{_in_words(names())}; repeat with --output for several reports.",
        ),
    ] = None,
    output: Annotated[
        list[Path] | None,
        typer.Option(
            "--output", "-o", help="File for the report of the --format of the same rank."
        ),
    ] = None,
    fail_on: Annotated[
        FailOn | None,
        typer.Option(
            "--fail-on",
            help=f"Lowest severity that makes the exit status 1 (default {DEFAULT_FAIL_ON}).",
        ),
    ] = None,
    house: HouseOpt = None,
    baseline: Annotated[
        Path | None,
        typer.Option("--baseline", help="Baseline file: its findings are reported as suppressed."),
    ] = None,
    config: ConfigOpt = None,
    rulesets: RulesetsOpt = None,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Processes to use (across files, and across the tables of a file); at most one per usable core and per task.",
        ),
    ] = 1,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="Show only a one-line summary instead of the text report on standard output, and errors.",
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Tell on standard error the configuration, rulesets, overlays, selection and inputs used, and the time each step took.",
        ),
    ] = False,
    color: Annotated[
        Color,
        typer.Option(
            "--color",
            help="Colour the text report and progress bar: auto (a terminal, unless NO_COLOR is set), always or never.",
        ),
    ] = Color("auto"),
    no_progress: Annotated[
        bool, typer.Option("--no-progress", help="Draw no progress bar.")
    ] = False,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster",
            help="Run on a Dask cluster: a scheduler's address (tcp://host:8786), or local[:N] for N worker processes here; --jobs then does not apply (needs the cluster extra).",
        ),
    ] = None,
    statistics: Annotated[
        bool | None,
        typer.Option(
            "--statistics/--no-statistics",
            help="Add the surveillance statistics (docs/statistics.md): each table's, dealer's, player's and shoe's result against its exact expectation, and the card tests. On unless the configuration's statistics setting is false.",
        ),
    ] = None,
    alpha: Annotated[
        float,
        alpha_option(
            "Error rate of the statistics' anomalies, corrected for the number of groups tested (Holm)."
        ),
    ] = DEFAULT_ALPHA,
    fail_on_anomaly: Annotated[
        bool,
        typer.Option(
            "--fail-on-anomaly",
            help="Exit with status 1 when the statistics find an anomaly (they never do otherwise).",
        ),
    ] = False,
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            help="Record the run in this history store: a SQLite file, sqlite:///FILE or postgresql://USER@HOST/DB (docs/history.md).",
        ),
    ] = None,
) -> None:
    """Audit logs and report every breach."""
    _check(
        paths,
        RuleOptions(house, config, rulesets, select, ignore, baseline),
        RunOptions(jobs, cluster, store),
        StatisticsOptions(statistics, alpha, fail_on_anomaly),
        ReportOptions(
            [f.value for f in format or []],
            output or [],
            fail_on.value if fail_on else None,
            quiet,
            verbose,
            color.value,
            no_progress,
        ),
    )


@dataclass
class _Checking:
    """What ``audit check`` settled before reading a log: the configuration, the rules, the
    selection, the reports, the inputs, the baseline and the history store."""

    cfg: config_file.Config
    library: Library
    selection: Selection
    outputs: list[Output]
    narrator: Narrator
    files: list[str]
    base_path: Path | None
    recorder: "Recorder | None"
    statistics_shown: bool
    #: the store that could not be opened, and why: the night is audited, not recorded
    unopened: tuple[str, str] | None = None


def _check(
    paths: list[str],
    rules: RuleOptions,
    run: RunOptions,
    stats: StatisticsOptions,
    reports: ReportOptions,
) -> NoReturn:
    """Audit the logs and write the reports; exit 1 when a finding reaches ``--fail-on`` (or an
    anomaly with ``--fail-on-anomaly``), 0 otherwise."""
    checking = _prepare_check(paths, rules, run, stats, reports)
    show_progress = progress_bar_fits(checking.outputs) and not (
        reports.no_progress or reports.quiet
    )
    with (
        findings_store.spilling(),
        _exit_2_on(findings_store.SpillError),
    ):  # removed at the end, on an error or an interruption too
        with checking.narrator.timed("logs audited"):
            report = _audit(
                checking.files,
                checking.library,
                run.jobs,
                show_progress=show_progress,
                narrator=checking.narrator,
                cluster=run.cluster or checking.cfg.settings.cluster,
            )
        raise typer.Exit(_conclude_check(report, checking, rules, stats, reports))


def _prepare_check(
    paths: list[str],
    rules: RuleOptions,
    run: RunOptions,
    stats: StatisticsOptions,
    reports: ReportOptions,
) -> _Checking:
    """Everything that can refuse the run (exit 2) before a log is read: the options together,
    the configuration, the rulesets and overlays, the selection, the inputs, the outputs and
    the history store."""
    if reports.quiet and reports.verbose:
        _die("--quiet and --verbose cannot be given together")
    terminal.choose_color(reports.color)
    narrator = Narrator(reports.verbose)
    cfg = _config(rules.config)
    narrator.configuration(cfg)
    with _exit_2_on(OutputError):
        outputs = choose_outputs(reports.formats, reports.outputs, cfg)
    with narrator.timed("rulesets loaded"):
        library = _library(cfg, rules.house, rules.rulesets)
    narrator.library(library)
    selection = _selection(library, cfg, rules.select, rules.ignore)
    narrator.selection(selection)
    files = _expand(paths)
    base_path = rules.baseline or cfg.baseline()
    with _exit_2_on(OutputError):  # before a log is read, and before a new store is made
        check_outputs(
            outputs,
            run_sources(files, library, cfg.path, base_path, *store_files(run.store, cfg)),
        )
    # before a log is read: exit 2 if the options name no usable store
    recorder, unopened = history.open_recorder(run.store, cfg, files)
    shown = stats.statistics if stats.statistics is not None else cfg.settings.statistics
    library.statistics = shown or recorder is not None  # the store keeps them
    if recorder is not None:  # the store records each input's gaming day, counted as it is read
        library.gaming_day_start = recorder.start
    return _Checking(
        cfg, library, selection, outputs, narrator, files, base_path, recorder, shown, unopened
    )


def _conclude_check(
    report: Report,
    checking: _Checking,
    rules: RuleOptions,
    stats: StatisticsOptions,
    reports: ReportOptions,
) -> int:
    """The audited report with its baseline, selection and configuration, written and recorded;
    the exit status."""
    if report.statistics is not None:
        report.statistics.alpha = stats.alpha
    damaged = None  # what a store holds that no recording writes, met reading the month to date
    if checking.recorder is not None:
        checking.recorder.keep_statistics(report, shown=checking.statistics_shown)
        if report.statistics is not None:  # the morning page shows the month to date too
            report.month_to_date, damaged = history.month_to_date(checking.recorder, report)
    base_sha = None
    base_path = checking.base_path
    if base_path is not None:
        with _exit_2_on(baseline_file.BaselineError):
            accepted, base_sha = baseline_file.load_hashed(base_path)
            baseline_file.apply(report, accepted, base_path.as_posix(), checking.library.aliases)
    hidden = checking.selection.apply(report)
    floor = reports.fail_on or checking.cfg.settings.fail_on or DEFAULT_FAIL_ON
    report.configuration = _configuration(
        checking.cfg,
        checking.library,
        report,
        checking.selection,
        hidden,
        rules.select,
        rules.ignore,
        (base_path, base_sha),
        floor,
        stats.fail_on_anomaly,
    )
    if checking.recorder is not None:
        sealed, head = checking.recorder.before
        report.configuration.store = StoreUsed(
            store=checking.recorder.store.shown, sealed=sealed, head=head, damaged=damaged
        )
    elif checking.unopened is not None:
        report.configuration.store = StoreUsed(
            store=checking.unopened[0], unopened=checking.unopened[1]
        )
    _write_reports(checking.outputs, report, reports.quiet, checking.narrator)
    if checking.unopened is not None:  # the evidence kept first: the report written
        history.unopened(*checking.unopened)
    if checking.recorder is not None:
        history.record(checking.recorder, report, reports.quiet)
        if damaged is not None:  # the evidence kept first: the report written, the night recorded
            history.damaged(checking.recorder, damaged)
    anomalous = (
        stats.fail_on_anomaly
        and report.statistics is not None
        and bool(report.statistics.anomalies())
    )
    return 1 if any_at_or_above(report.findings, floor) or anomalous else 0


@baseline_app.command("create")
def baseline_create(
    paths: PathsArg,
    output: Annotated[Path, typer.Option("--output", "-o", help="The baseline file to write.")],
    justification: Annotated[
        str, typer.Option("--justification", help="Why these findings are accepted.")
    ] = baseline_file.DEFAULT_JUSTIFICATION,
    house: HouseOpt = None,
    config: ConfigOpt = None,
    rulesets: RulesetsOpt = None,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
) -> None:
    """Write the current findings to a baseline file."""
    cfg = _config(config)
    library = _library(cfg, house, rulesets)
    selection = _selection(library, cfg, select, ignore)
    if not justification.strip():
        _die("--justification must say why the findings are accepted")
    files = _expand(paths)
    with _exit_2_on(OutputError):  # before a log is read
        check_files([output], run_sources(files, library, cfg.path, *store_files(None, cfg)))
    with findings_store.spilling(), _exit_2_on(findings_store.SpillError):
        report = _audit(files, library)
        hidden = selection.apply(report)
        _write(output, baseline_file.render(baseline_file.from_report(report, justification)))
        said = f"audit: {len(report.findings)} finding(s) written to {output}"
        if selection.active:  # what the baseline does not hold, and why
            said += (
                "; "
                + _configuration(
                    cfg,
                    library,
                    report,
                    selection,
                    hidden,
                    select,
                    ignore,
                    (None, None),
                    DEFAULT_FAIL_ON,
                ).selection_said()
                + ", not in the baseline"
            )
        sys.stdout.write(for_terminal(said) + "\n")


@app.command()
def rules(
    ruleset: Annotated[
        str | None, typer.Argument(help="A ruleset id (`audit rules` lists them); all if omitted.")
    ] = None,
    format: Annotated[
        RulesFormat,
        typer.Option("--format", "-f", help="text, or markdown for the rule reference."),
    ] = RulesFormat(LISTING_FORMATS[0]),
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file.")
    ] = None,
    house: HouseOpt = None,
    config: ConfigOpt = None,
    rulesets: RulesetsOpt = None,
) -> None:
    """List every rule with its category, severity and the sentence it enforces."""
    cfg = _config(config)
    library = _library(cfg, house, rulesets)
    if not library.rulesets:
        _die(f"{rulesets or cfg.resolve(cfg.settings.rulesets)}: holds no ruleset (*.yaml)")
    if ruleset is not None and ruleset not in library.rulesets:
        _die(f"no ruleset {ruleset!r}; known: {', '.join(sorted(library.rulesets))}")
    if output:
        with _exit_2_on(OutputError):
            check_files(
                [output],
                run_sources([], library, cfg.path, cfg.baseline(), *store_files(None, cfg)),
            )
    content = rules_listing(library, ruleset, format.value)
    if output:
        _write(output, content)
    else:
        _show(content)


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
    text = lines_for_terminal(
        explain_text(library, rule, None)
    )  # titles, readings: text from outside
    _show(text if text.endswith("\n") else text + "\n")


@app.command()
def odds(
    ruleset: Annotated[str, typer.Argument(help="A ruleset id (`audit rules` lists them).")],
    format: Annotated[
        Literal["text", "json"], typer.Option("--format", "-f", help="text (a table) or json.")
    ] = "text",
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
    _show(render_json(result) if format == "json" else render_text(result))


@app.command()
def trace(
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the matrix to this file (atomically)."),
    ] = None,
    check: Annotated[
        bool, typer.Option("--check", help="Write nothing; exit 1 if the --output file differs.")
    ] = False,
) -> None:
    """Write the traceability matrix: each regulation's sentences, the rules that check them, their fixtures."""
    from .trace import run as run_trace

    raise typer.Exit(run_trace(output, check))


#: the default start moves a day a seed, over ten years (then starts again)
SEED_DAYS = 3653


def _write_lines(lines, output: Path | None, what: str = "") -> int:
    """The simulated lines to ``output`` or standard output; their count (a reader that goes
    away, as ``| head`` does, ends the run quietly)."""
    count = 0
    try:
        if output is not None:  # written whole or not at all, as a report

            def pieces() -> Iterator[str]:
                nonlocal count
                batch: list[str] = []
                for line in lines:
                    batch.append(line)
                    if len(batch) == 4096:
                        count += len(batch)
                        yield "\n".join(batch) + "\n"
                        batch = []
                count += len(batch)
                if batch:
                    yield "\n".join(batch) + "\n"

            _write(output, pieces())  # type: ignore[arg-type]
        else:
            out = sys.stdout
            for line in lines:
                out.write(line + "\n")
                count += 1
            out.flush()
    except BrokenPipeError:
        raise typer.Exit(0) from None
    except OSError as err:
        _die(
            f"{output if output is not None else 'standard output'}: cannot write: {err.strerror or err}"
        )
    if what:
        where = for_terminal(str(output)) if output is not None else "standard output"
        sys.stderr.write(f"audit: {count} lines, {what}, written to {where}\n")
    return count


#: the defaults of ``audit simulate`` (and of ``python -m audit.simulate``, the same command)
SIMULATE_ROUNDS, SIMULATE_SEED = 100, 1


@app.command()
def simulate(
    ruleset: Annotated[
        list[str] | None,
        typer.Option(
            "--ruleset",
            "-r",
            help="Ruleset of the tables (`audit rules` lists them); repeat for a mixed night. Without it: the benchmark's night (the tables its games make for large inputs); with --style realistic, tables of every shipped ruleset the simulator plays.",
        ),
    ] = None,
    tables: Annotated[
        int | None,
        typer.Option(
            "--tables",
            min=1,
            help="Number of tables, dealt to the rulesets round-robin (default: 2 per ruleset).",
        ),
    ] = None,
    rounds: Annotated[
        int | None,
        typer.Option(
            "--rounds", min=0, help=f"Rounds (coups) per table (default {SIMULATE_ROUNDS})."
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            help=f"The same seed gives the same log, byte for byte (default {SIMULATE_SEED}).",
        ),
    ] = None,
    start: Annotated[
        str | None,
        typer.Option(
            "--start",
            help="When the first table opens, ISO 8601 (+01:00 if no offset). Default: seed - 1 days after 2026-11-20T21:00:00+01:00 (seed 1 opens then, seed 2 the next evening...), so that nights of different seeds fall on different gaming days.",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Write the log to this file (default: standard output)."
        ),
    ] = None,
    inject: Annotated[
        list[str] | None,
        typer.Option(
            "--inject",
            help="Inject one fault of this finding category (repeat), or 'all' for every category the tables' rulesets have.",
        ),
    ] = None,
    expected: Annotated[
        Path | None,
        typer.Option(
            "--expected",
            help="Write the expected findings, a JSON list of {rule, category, line, table} sorted by line (table null for a syntax finding); with --anomaly, the anomaly expected, a JSON object {anomaly, strength, table, scope, id}.",
        ),
    ] = None,
    anomaly: Annotated[
        AnomalyKind | None,
        typer.Option(
            "--anomaly",
            help="Play a statistical anomaly at the first table of a game that plays them, every round still legal: collusion (the dealer gives the first seated player better cards) or stacked-shoe (the second shoe comes in clumps).",
        ),
    ] = None,
    strength: Annotated[
        float,
        typer.Option(
            "--strength",
            min=0.0,
            max=1.0,
            help="With --anomaly collusion: the share of the player's hands the dealer favours.",
        ),
    ] = 1.0,
    style: Annotated[
        StyleName,
        typer.Option(
            "--style",
            help="How the people behave where the rules leave room: plain (the fixture nights) or realistic (heavy-tailed stakes over the whole range, more seat changes, many standing players, limits changing often; the benchmark's realistic night).",
        ),
    ] = StyleName("plain"),
    per_table: Annotated[
        Path | None,
        typer.Option(
            "--per-table",
            help="Write each table's night to its own file DIR/TABLE.del, header lines included, instead of one log (not with --output, --inject, --anomaly or --expected).",
        ),
    ] = None,
    night: Annotated[
        str | None,
        typer.Option(
            "--night",
            help="Write one of the shipped nights of fixtures/nights (their own tables, seed and start; their names are the files' first word) instead; only --output goes with it.",
        ),
    ] = None,
    live: Annotated[
        float | None,
        typer.Option(
            "--live",
            metavar="RATE",
            min=0.001,
            help="Write at a live pace, RATE lines a second at each table, into --output or --per-table's folder (docs/follow.md); with --ruleset, --tables, --rounds, --seed, --start and --inject.",
        ),
    ] = None,
) -> None:
    """Write a rule-abiding night of interleaved tables, optionally with known faults.

    With --inject, a `# expect: RULE-ID` comment precedes each line that must
    give a finding, so the log is a fixture. A table takes at most one fault a
    round: exit status 1 if a requested fault found no place in the night (too
    few rounds; the log and the expected findings still agree).
    """
    from . import simulate as sim

    if live is not None:
        others = {"--anomaly": anomaly, "--expected": expected, "--night": night}
        if any(value is not None for value in others.values()):
            named = ", ".join(name for name, value in others.items() if value is not None)
            _die(f"--live writes a rule-abiding or faulty night: not with {named}")
        _simulate_live(live, ruleset, tables, rounds, seed, start, inject, output, per_table)
        return
    if night is not None:
        shaping = {
            "--ruleset": ruleset,
            "--tables": tables,
            "--rounds": rounds,
            "--seed": seed,
            "--start": start,
            "--inject": inject,
            "--expected": expected,
            "--anomaly": anomaly,
            "--per-table": per_table,
            "--style": None if style.value == "plain" else style,
        }
        given = [name for name, value in shaping.items() if value is not None]
        if given:
            _die(f"--night writes a shipped night as it is: not with {', '.join(given)}")
        shipped = sim.nights()
        if night not in shipped:
            _die(f"--night {night!r}: not a shipped night; one of: {', '.join(sorted(shipped))}")
        _write_lines(sim.night_lines(night), output, f"the {night} night")
        raise typer.Exit(0) from None
    rounds = SIMULATE_ROUNDS if rounds is None else rounds
    seed = SIMULATE_SEED if seed is None else seed
    specs, rulesets = _simulated_tables(ruleset or [], tables, rounds, style)
    begin = _simulated_start(seed, start)
    wanted = _injected_categories(inject or [], specs, rulesets)
    targets = [
        (option, path)
        for option, path in (("--output", output), ("--expected", expected))
        if path is not None
    ]
    if per_table is not None:  # (its folder may not exist yet)
        targets += [
            ("--per-table", p)
            for p in (per_table / f"{s.table}.del" for s in specs)
            if os.path.lexists(p)
        ]
    with _exit_2_on(OutputError):  # before a line is written: no evidence replaced
        check_simulation(targets)
    if per_table is not None:
        if output is not None or wanted or anomaly is not None or expected is not None:
            _die(
                "--per-table writes one file a table: not with --output, --inject, --anomaly or --expected"
            )
        _simulate_per_table(specs, seed, begin, rounds, per_table)
    played = None if anomaly is None else Anomaly(anomaly.value, strength)
    if played is not None and wanted:
        _die("--anomaly and --inject cannot be given together")
    _simulate_night(specs, seed, begin, rounds, wanted, played, output, expected)


def _simulate_live(
    rate: float,
    ruleset: list[str] | None,
    tables: int | None,
    rounds: int | None,
    seed: int | None,
    start: str | None,
    inject: list[str] | None,
    output: Path | None,
    per_table: Path | None,
) -> None:
    """``--live RATE``: the night written at a live pace, as ``audit simulate-live`` writes it."""
    from .follow.cli import simulate_live

    target = output if output is not None else per_table
    if target is None or (output is not None and per_table is not None):
        _die("--live writes into --output FILE or --per-table DIR: give one of them")
    simulate_live(
        target,
        rate=rate,
        ruleset=ruleset,
        tables=tables,
        rounds=100 if rounds is None else rounds,
        seed=1 if seed is None else seed,
        per_table=per_table is not None,
        inject=inject,
        start=start,
    )


def _simulated_tables(
    asked: list[str], tables: int | None, rounds: int, style: Enum
) -> tuple[list, list[str]]:
    """The tables ``audit simulate`` plays (their specs) and the rulesets they follow."""
    from . import simulate as sim

    rulesets = list(dict.fromkeys(asked))
    try:
        if rulesets:
            specs = sim.cli_tables(
                rulesets, tables if tables is not None else 2 * len(rulesets), rounds
            )
        elif style.value == "plain":  # the benchmark's night
            specs = sim.generated_tables(tables if tables is not None else 4, rounds)
            rulesets = sorted({spec.ruleset for spec in specs})
        else:
            rulesets = list(sim.shipped_rulesets())
            specs = sim.cli_tables(
                rulesets, tables if tables is not None else 2 * len(rulesets), rounds
            )
    except ValueError as err:
        _die(str(err))
    if style.value != "plain":
        specs = [replace(spec, style=STYLES[style.value]) for spec in specs]
    return specs, rulesets


def _simulated_start(seed: int, start: str | None):
    """When the simulated night's first table opens: ``--start``, or a day per seed."""
    from datetime import datetime, timedelta

    from . import simulate as sim

    begin = sim.EXAMPLE_START + timedelta(days=(seed - 1) % SEED_DAYS)
    if start is not None:
        try:
            begin = datetime.fromisoformat(start)
        except ValueError:
            _die(f"--start {start!r} is not an ISO 8601 date and time")
        if begin.tzinfo is None:
            begin = begin.replace(tzinfo=sim.EXAMPLE_START.tzinfo)
    return begin


def _injected_categories(inject: list[str], specs: list, rulesets: list[str]) -> list[str]:
    """The fault categories ``--inject`` asks for (``all``: every one the tables' rulesets have),
    each once; a category no ruleset of the night has is a usage error."""
    from .simulate import faults

    wanted: list[str] = []
    for name in inject:
        if name == "all":
            wanted += faults.applicable(specs)
        elif name not in faults.CATEGORIES:
            _die(f"--inject {name!r}: not a category; one of: all, {', '.join(faults.CATEGORIES)}")
        elif not faults.applies_to(name) & set(rulesets):
            _die(
                f"--inject {name}: no rule of that category at tables of {', '.join(rulesets)} "
                f"(it applies to {', '.join(sorted(faults.applies_to(name)))})"
            )
        else:
            wanted.append(name)
    return list(dict.fromkeys(wanted))


def _simulate_per_table(specs: list, seed: int, begin, rounds: int, folder: Path) -> NoReturn:
    """``--per-table``: each table's night in its own file of ``folder``."""
    from . import simulate as sim

    try:
        count = sim.write_tables(tables=specs, seed=seed, start=begin, directory=folder)
    except OSError as err:
        _die(f"{for_terminal(str(folder))}: cannot write: {err.strerror or err}")
    sys.stderr.write(
        f"audit: {count} lines, {len(specs)} table(s) × {rounds} round(s), one file a table "
        f"in {for_terminal(str(folder))}\n"
    )
    raise typer.Exit(0) from None


def _simulate_night(
    specs: list,
    seed: int,
    begin,
    rounds: int,
    wanted: list[str],
    played: Anomaly | None,
    output: Path | None,
    expected: Path | None,
) -> NoReturn:
    """One log of every table, with the faults ``wanted`` or the anomaly ``played``, and what the
    audit must find in it (``--expected``); exit 1 if a fault found no place."""
    import json

    from . import simulate as sim
    from .simulate import faults

    found: list = []
    chosen = None
    if wanted:
        lines, found, chosen = faults.faulty_night(
            tables=specs, seed=seed, start=begin, casino="Casino-Simulation", categories=wanted
        )
    else:
        lines = sim.simulate(tables=specs, seed=seed, start=begin, anomaly=played)
    count = _write_lines(lines, output)
    found.sort(key=lambda e: (e.line, e.rule))
    if played is not None and played.table is None:
        _die("--anomaly is played at a table of a game that plays anomalies: the night has none")
    if expected is not None and played is not None:
        _write(expected, json.dumps(played.expected(), indent=1) + "\n")
    elif expected is not None:
        _write(expected, json.dumps([e.as_json() for e in found], indent=1) + "\n")
    where = for_terminal(str(output)) if output is not None else "standard output"
    sys.stderr.write(
        f"audit: {count} lines, {len(specs)} table(s) × {rounds} round(s), written to {where}\n"
    )
    missing = [f for f in chosen.faults if not f.placed] if chosen else []
    if chosen:
        sys.stderr.write(
            f"audit: {len(chosen.faults) - len(missing)} fault(s) injected, "
            f"{len(found)} finding(s) expected\n"
        )
    for f in missing:
        sys.stderr.write(
            f"audit: no place for a {f.category} fault at {specs[f.table].table} "
            f"from round {f.target} on\n"
        )
    raise typer.Exit(1 if missing else 0)


#: click's errors, from the click typer runs on (a copy of its own in recent typers): found at run
#: time, so of no type a checker knows
_ClickException: type[Any]
_UsageError: type[Any]
_ClickException, _UsageError = (
    next(c for c in typer.BadParameter.__mro__ if c.__name__ == name)
    for name in ("ClickException", "UsageError")
)


def _readable(command):
    """The help, as a person reads it at 80 columns: every command's first sentence whole in its
    group's list (click would cut it with "..."), and values named by their option
    (``--output OUTPUT``, ``[text|json]``) instead of Python types (``<list[Path]>``)."""
    for param in command.params:
        if param.param_type_name == "argument" and param.metavar is None:
            param.metavar = param.name.upper()
            if hasattr(
                param, "display_type_rich"
            ):  # typer 0.2x: not "PATHS <list[str]>" but "PATHS"
                param.display_type_rich = lambda ctx: None
        elif param.param_type_name == "option" and not param.is_flag and param.metavar is None:
            choices = getattr(getattr(param, "type", None), "choices", None) or getattr(
                getattr(param, "type_descriptor", None), "choices", None
            )
            param.metavar = (
                f"[{'|'.join(str(getattr(c, 'value', c)) for c in choices)}]"
                if choices
                else max(param.opts, key=len).lstrip("-").upper()
            )
    if isinstance(getattr(command, "commands", None), dict):
        for sub in command.commands.values():
            if sub.short_help is None and sub.help:
                first = sub.help.strip().split("\n\n", 1)[0].replace("\n", " ")
                sub.short_help = first.split(". ", 1)[0].rstrip(".") + "."
            _readable(sub)
    return command


def _usage_error(err) -> int:
    """A usage error (unknown option, missing argument, bad value) as every other error: one line."""
    if type(err).__name__ == "NoArgsIsHelpError":  # a group without its command: its help
        sys.stdout.write(err.format_message().rstrip("\n") + "\n")
        return 2
    message = " ".join(err.format_message().replace("Value error, ", "").split())
    where = err.ctx.command_path if err.ctx is not None else "audit"
    sys.stderr.write(f"audit: {for_terminal(message)} (see {where} --help)\n")
    return 2


def run(args: list[str] | None = None) -> int:
    """The command line (``args``, default the process's arguments); returns its exit code."""
    interrupt.install()
    try:
        code = _readable(typer.main.get_command(app)).main(
            args, prog_name="audit", standalone_mode=False
        )
    except interrupt.Interrupted:  # no report was replaced: the writes are atomic (audit/atomic.py)
        sys.stderr.write("audit: interrupted\n")
        return interrupt.EXIT_STATUS
    except _UsageError as err:
        return _usage_error(err)
    except _ClickException as err:  # a file click could not open, say: one line too
        sys.stderr.write(f"audit: {for_terminal(' '.join(err.format_message().split()))}\n")
        return 2
    except typer.Abort:
        sys.stderr.write("audit: aborted\n")
        return 1
    except SystemExit as done:
        if isinstance(done.code, str):  # a message instead of a code: Python would print it, exit 1
            sys.stderr.write(done.code + "\n")
            return 1
        return done.code or 0
    except Exception as err:  # a bug of ours: say so in one line, never a traceback
        sys.stderr.write(f"audit: internal error: {type(err).__name__}: {for_terminal(str(err))}\n")
        return 2
    return code if isinstance(code, int) else 0


def main(args: list[str] | None = None) -> None:
    """The console script and ``python -m audit``: the command line, then a hard exit.

    Once the reports are written and the standard streams flushed, nothing is left to do but
    free memory, which the system does at once when the process ends; the interpreter's own
    teardown (every module and object freed one by one) took 0.15 s or more after a night's
    audit. Files are closed where they are written; nothing of ours runs at exit."""
    code = run(args)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # a reader that went away, a stream already closed
            pass
        except OSError as err:  # the report did not reach its reader whole (a full disk, say)
            if stream is sys.stdout:
                sys.stderr.write(f"audit: standard output: cannot write: {err.strerror or err}\n")
            code = 2
    os._exit(code)


if __name__ == "__main__":
    main()
