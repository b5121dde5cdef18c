"""``audit follow`` and ``audit simulate-live`` on the command line (docs/follow.md).

The main command line registers them with ``register(app)``; what they do is in ``session`` and
``live_writer``."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from .. import config as config_file
from ..cli_options import ConfigOpt, HouseOpt, IgnoreOpt, RulesetsOpt, alpha_option, select_option
from ..escape import for_terminal
from ..findings import DEFAULT_FAIL_ON, SEVERITIES, SEVERITY_RANK
from ..rulesets import RulesetError
from ..selection import SelectionError, choose
from ..statistics import DEFAULT_ALPHA
from .emit import FORMATS

FollowFormat = Enum("FollowFormat", [(f, f) for f in FORMATS], type=str)  # type: ignore[misc]
Severity = Enum("Severity", [(s, s) for s in SEVERITIES], type=str)  # type: ignore[misc]


def _die(message: str) -> NoReturn:
    sys.stderr.write(f"audit: {for_terminal(message)}\n")
    raise typer.Exit(2)


def _library(config: Path | None, house: list[Path] | None, rulesets: Path | None):
    """The rulesets and configuration as ``audit check`` reads them (command-line options win)."""
    try:
        cfg = config_file.load(config) if config else config_file.discover()
        return cfg.library(house, rulesets), cfg
    except (config_file.ConfigError, RulesetError) as err:
        _die(str(err))


def follow(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Log files (followed even before they exist) and folders (each new *.del or *.log in them followed)."
        ),
    ],
    format: Annotated[
        FollowFormat,
        typer.Option(
            "--format",
            "-f",
            help="text (one line a finding) or jsonl (one JSON object a line: findings and status heartbeats).",
        ),
    ] = FollowFormat("text"),
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", help="Append to this file instead of standard output."),
    ] = None,
    interval: Annotated[
        float,
        typer.Option(
            "--interval",
            min=0.01,
            help="Seconds between two looks at the files when polling (with file events, a look at each write, and at least every 2 s or this).",
        ),
    ] = 0.2,
    poll: Annotated[
        bool,
        typer.Option(
            "--poll",
            help="Poll the files every --interval even where file events can be had (a network share written from another machine).",
        ),
    ] = False,
    once: Annotated[
        bool,
        typer.Option(
            "--once",
            help="Read what the files hold now, take them as complete (the end-of-log findings too, as audit check) and stop.",
        ),
    ] = False,
    until_idle: Annotated[
        float | None,
        typer.Option(
            "--until-idle",
            min=0.0,
            help="Stop once no file has grown for this many seconds, taking the files as complete.",
        ),
    ] = None,
    state: Annotated[
        str | None,
        typer.Option(
            "--state",
            help="Record here how far each file was read and what was reported: a restart goes on without loss or repeat.",
        ),
    ] = None,
    alert_command: Annotated[
        str | None,
        typer.Option(
            "--alert-command",
            help="Run this command for each finding (at or above --alert-severity), the finding as JSON on its standard input; never through a shell.",
        ),
    ] = None,
    alert_severity: Annotated[
        Severity,
        typer.Option("--alert-severity", help="The least severity that runs the alert command."),
    ] = Severity(DEFAULT_FAIL_ON),
    heartbeat: Annotated[
        float,
        typer.Option(
            "--heartbeat", min=0.0, help="Seconds between two status lines (jsonl only; 0: none)."
        ),
    ] = 30.0,
    statistics: Annotated[
        bool,
        typer.Option(
            "--statistics/--no-statistics",
            help="Test the night's statistics as each shoe ends and report each anomaly once, when it first crosses (docs/follow.md).",
        ),
    ] = True,
    alpha: Annotated[
        float,
        alpha_option(
            "Error rate of the live statistics over the night, for every group and every look (see docs/statistics.md)."
        ),
    ] = DEFAULT_ALPHA,
    serve: Annotated[
        str | None,
        typer.Option(
            "--serve",
            metavar="HOST:PORT",
            help="Serve a live page of the tables, findings and anomalies at HOST:PORT (read-only; a loopback address unless --serve-public; needs the live extra).",
        ),
    ] = None,
    serve_public: Annotated[
        bool,
        typer.Option(
            "--serve-public",
            help="Allow --serve on an address other machines reach (whoever reaches it reads the findings).",
        ),
    ] = False,
    select: Annotated[list[str] | None, select_option()] = None,
    ignore: IgnoreOpt = None,
    house: HouseOpt = None,
    config: ConfigOpt = None,
    rulesets: RulesetsOpt = None,
) -> None:
    """Follow logs as they are written and report each finding as soon as its line is read.

    The same rules as audit check: once a file is complete (--once, --until-idle), the findings reported for it are those audit check reports. SIGINT or SIGTERM stops it cleanly (exit 0); with --state a restart reports nothing twice and misses nothing. Exit status with --once or --until-idle: 1 if an error-severity finding was reported, else 0 (docs/follow.md).
    """
    library, cfg = _library(config, house, rulesets)
    try:
        selection = choose(
            library,
            select,
            ignore,
            cfg.settings.select,
            cfg.settings.ignore,
            str(cfg.path) if cfg.path else "configuration",
        )
    except SelectionError as err:
        _die(str(err))
    if once and until_idle is not None:
        _die("--once and --until-idle cannot be given together")
    if state is not None and output is not None and Path(state).resolve() == Path(output).resolve():
        _die("--state and --output name the same file")

    def warn(message: str) -> None:
        sys.stderr.write(f"audit: {for_terminal(message)}\n")
        sys.stderr.flush()

    # what following needs, imported when it runs: not on every command's start-up (the live page's
    # server alone brings asyncio and ssl)
    from .emit import Alert, EmitError, Emitter, Output
    from .serve import ServeError
    from .session import Options, Stop
    from .session import follow as run_follow
    from .state import StateError
    from .tail import FollowError

    stop = Stop()
    server = board = None
    try:
        if serve is not None:
            from .board import Board
            from .serve import Server, address

            board = Board(library)
            server = Server(board, *address(serve, serve_public), serve_public)
            server.start()
            warn(f"the live page: {server.url}")
        elif serve_public:
            _die("--serve-public is given without --serve")
        alert = Alert(alert_command, alert_severity.value, warn) if alert_command else None
        out = Output(output)
        emitter = Emitter(out, format.value, alert, lambda f: selection.keeps(f.rule, f.category))
        with stop.on_signals():
            run_follow(
                library,
                paths,
                emitter,
                Options(
                    interval,
                    once,
                    until_idle,
                    state,
                    heartbeat,
                    alpha if statistics else None,
                    poll,
                ),
                stop,
                warn,
                board,
            )
        out.close()
    except (FollowError, EmitError, StateError, ServeError) as err:
        _die(str(err))
    finally:
        if server is not None:
            server.stop()
    grave = emitter.by_severity
    failed = any(SEVERITY_RANK[s] >= SEVERITY_RANK[DEFAULT_FAIL_ON] for s in grave)
    raise typer.Exit(1 if failed and not stop.requested and (once or until_idle is not None) else 0)


def simulate_live(
    output: Annotated[
        Path,
        typer.Argument(
            help="The log file to write (one night, tables interleaved), or with --per-table a folder (one TABLE.del a table)."
        ),
    ],
    rate: Annotated[
        float, typer.Option("--rate", min=0.001, help="Lines a second, at each table.")
    ] = 2.0,
    ruleset: Annotated[
        list[str] | None,
        typer.Option("--ruleset", "-r", help="Ruleset of the tables; repeat for a mixed night."),
    ] = None,
    tables: Annotated[
        int | None,
        typer.Option(
            "--tables",
            min=1,
            help="Number of tables, dealt to the rulesets round-robin (default: 2 per ruleset).",
        ),
    ] = None,
    rounds: Annotated[int, typer.Option("--rounds", min=0, help="Rounds (coups) per table.")] = 100,
    seed: Annotated[int, typer.Option("--seed", help="The same seed gives the same lines.")] = 1,
    per_table: Annotated[
        bool, typer.Option("--per-table", help="Write a folder, one file a table.")
    ] = False,
    inject: Annotated[
        list[str] | None,
        typer.Option(
            "--inject",
            help="Inject one fault of this finding category (repeat), or 'all' (one log only).",
        ),
    ] = None,
    start: Annotated[
        str | None,
        typer.Option("--start", help="When the first table opens, ISO 8601 (default: now)."),
    ] = None,
) -> None:
    """Write a simulated night at a live pace (RATE lines a second at each table), for demonstrations and tests of audit follow."""
    from datetime import datetime

    from .live_writer import LiveError, write_live
    from .session import Stop

    begin = None
    if start is not None:
        try:
            begin = datetime.fromisoformat(start)
        except ValueError:
            _die(f"--start {start!r} is not an ISO 8601 date and time")
    stop = Stop()
    try:
        with stop.on_signals():
            count = write_live(
                output,
                rate=rate,
                rulesets=ruleset or [],
                tables=tables,
                rounds=rounds,
                seed=seed,
                per_table=per_table,
                inject=inject or [],
                start=begin,
                stop=stop,
            )
    except LiveError as err:
        _die(str(err))
    sys.stderr.write(f"audit: {count} lines written to {for_terminal(str(output))}\n")


def register(app: typer.Typer) -> None:
    """Add ``follow`` and ``simulate-live`` to the main command line."""
    app.command("follow")(follow)
    app.command("simulate-live")(simulate_live)
