"""``audit history``: the views of the recorded nights (docs/history.md), and the few hooks
``audit check --store`` calls. SQLAlchemy is imported only when a store is used, so the rest
of the command line starts as fast as before."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from datetime import date
from enum import Enum
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from . import config as config_file
from .cli_options import ConfigOpt, alpha_option
from .escape import for_terminal
from .history.formats import FORMATS
from .history.periods import PERIODS, parse_day
from .history.store import READING, StoreError, parse, store_setting
from .outputs import OutputError, write_standard_output

history_app = typer.Typer(
    no_args_is_help=True,
    help="The nights recorded by audit check --store: "
    "per night, table, dealer and rule, and this year against the last.",
)

HistoryFormat = Enum("HistoryFormat", [(f, f) for f in FORMATS], type=str)  # type: ignore[misc]
Period = Enum("Period", [(p, p) for p in PERIODS], type=str)  # type: ignore[misc]

StoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store",
        help="The store: a SQLite file, sqlite:///FILE or postgresql://USER@HOST/DB (default: the configuration's store).",
    ),
]
FormatOpt = Annotated[
    HistoryFormat, typer.Option("--format", "-f", help="text, json (an array of objects) or csv.")
]
PeriodOpt = Annotated[
    Period, typer.Option("--period", help="Group the gaming days by day, month or year.")
]
FromOpt = Annotated[str | None, typer.Option("--from", help="First gaming day, YYYY-MM-DD.")]
ToOpt = Annotated[str | None, typer.Option("--to", help="Last gaming day, YYYY-MM-DD.")]


def _die(message: str) -> NoReturn:
    sys.stderr.write(f"audit: {for_terminal(message)}\n")
    raise typer.Exit(2)


def open_recorder(store: str | None, cfg: config_file.Config, files: list[str]):
    """``audit check``'s recorder, its store ready, and None; (None, None) without a store.

    Options that name no usable store (standard input, a gaming day start, a store of an unknown
    kind) exit 2 before a log is read. A store that cannot be opened (unreachable, not a store, a
    newer schema, a driver missing) gives (None, (store, why)): the night is audited and its
    reports written all the same, saying so, and the run then exits 2 (``unopened``). Left to
    stop the run, a store the audited party breaks would keep the night's reports from being
    written at all."""
    chosen = store_setting(store, cfg)
    if chosen is None:
        return None, None
    from .history.recording import Recorder

    try:
        recorder = Recorder.made(*chosen, files, cfg.settings.gaming_day_start)
    except StoreError as err:
        _die(str(err))
    try:
        recorder.prepare()
    except StoreError as err:
        recorder.store.dispose()
        shown = recorder.store.shown
        return None, (
            shown,
            str(err).removeprefix(f"store {shown}: ").removeprefix("cannot open: "),
        )
    return recorder, None


def unopened(shown: str, why: str) -> NoReturn:
    """Exit 2 for a store that could not be opened, once the night's reports are written."""
    _die(
        f"store {shown}: could not be opened: {why} (the report is written; the night is not recorded)"
    )


def month_to_date(recorder, report) -> tuple[object, str | None]:
    """The month to date's anomalies, the night's groups with the month's recorded nights, and
    None; or, from a store holding values no recording writes, or that cannot be read, no month
    to date and why (the night's report is written all the same: ``damaged``)."""
    from .history.anomalies import month_to_date as summed
    from .history.misfits import DamagedStore

    try:
        return summed(recorder, report, recorder.statistics), None
    except DamagedStore as err:
        return None, err.what
    except StoreError as err:
        return None, str(err).removeprefix(f"store {recorder.store.shown}: ")


def damaged(recorder, what: str) -> NoReturn:
    """Exit 2 for a store the month to date could not be read from, once the night's reports are
    written and the night recorded."""
    _die(f"store {recorder.store.shown}: {what} (the report leaves the month to date out)")


def record(recorder, report, quiet: bool) -> None:
    """Record the run; a line on standard error says what was recorded, with --quiet too (the
    one line a nightly job leaves in its log besides the summary)."""
    try:
        outcome = recorder.record(report)
    except StoreError as err:
        _die(str(err))
    finally:
        recorder.store.dispose()  # SQLite: the last connection closed folds the write-ahead log into the file
    sys.stderr.write(for_terminal(outcome.summary(recorder.store).rstrip("\n")) + "\n")


def _show(store: str | None, config: Path | None, fmt: HistoryFormat, view: Callable) -> None:
    """Open the store named, make its schema current (or refuse it), print ``view(conn)``."""
    from .history.formats import render

    _write(_read(store, config, lambda conn, shown: render(view(conn), fmt.value)))


def _read(store: str | None, config: Path | None, read: Callable[..., str]) -> str:
    """Open the store named, make its schema current (or refuse it); ``read(conn, shown)``: the
    text to print (``shown``: the store as a message names it)."""
    try:
        cfg = config_file.load(config) if config else config_file.discover()
    except config_file.ConfigError as err:
        _die(str(err))
    chosen = store_setting(store, cfg)
    if chosen is None:
        _die("no store: give --store, or set store in the configuration")
    from sqlalchemy.exc import SQLAlchemyError

    from .history.migrate import prepare
    from .history.misfits import reading

    try:
        where = parse(*chosen)
        if where.file is not None and not where.file.exists():
            raise StoreError(f"store {where.shown}: no such file (nothing recorded yet)")
        try:
            with (
                where.engine.begin() as conn
            ):  # the schema checked (or migrated) under the writers' lock
                prepare(where, conn, create=False)
            with where.engine.connect().execution_options(**{READING: True}) as conn, conn.begin():
                # a reader: a job recording meanwhile is not held up; a value no recording
                # writes is named as the store's damage, never an internal error
                content = reading(conn, where.shown, lambda: read(conn, where.shown))
        except SQLAlchemyError as err:
            raise where.error("cannot read", err) from None
        finally:
            where.dispose()
    except StoreError as err:
        _die(str(err))
    return content


def _write(content: str) -> None:
    try:
        write_standard_output(content)
    except OutputError as err:
        _die(str(err))


def _days(since: str | None, until: str | None) -> tuple[date | None, date | None]:
    try:
        return (
            parse_day(since, "--from") if since else None,
            parse_day(until, "--to") if until else None,
        )
    except ValueError as err:
        _die(str(err))


@history_app.command()
def nights(
    store: StoreOpt = None,
    config: ConfigOpt = None,
    format: FormatOpt = HistoryFormat("text"),
    since: FromOpt = None,
    until: ToOpt = None,
    inputs: Annotated[
        bool,
        typer.Option(
            "--inputs", help="One row per recorded file (path, SHA-256) instead of one per night."
        ),
    ] = False,
) -> None:
    """The recorded nights, one per gaming day: inputs, tables, rounds, findings."""
    from .history import views

    view = views.inputs if inputs else views.nights
    first, last = _days(since, until)
    _show(store, config, format, lambda conn: view(conn, first, last))


@history_app.command()
def tables(
    store: StoreOpt = None,
    config: ConfigOpt = None,
    format: FormatOpt = HistoryFormat("text"),
    period: PeriodOpt = Period("month"),
    since: FromOpt = None,
    until: ToOpt = None,
) -> None:
    """Drop, result and hold per table and per game, by day, month or year."""
    from .history.views import tables as view

    first, last = _days(since, until)
    _show(store, config, format, lambda conn: view(conn, period.value, first, last))


@history_app.command()
def compare(
    store: StoreOpt = None,
    config: ConfigOpt = None,
    format: FormatOpt = HistoryFormat("text"),
    period: PeriodOpt = Period("month"),
    until: ToOpt = None,
) -> None:
    """Each table's hold this period against the same days a year earlier, flagged outside a 95 % interval."""
    from .history.compare import compare as view

    _, last = _days(None, until)
    _show(store, config, format, lambda conn: view(conn, period.value, last))


@history_app.command()
def dealers(
    store: StoreOpt = None,
    config: ConfigOpt = None,
    format: FormatOpt = HistoryFormat("text"),
    period: PeriodOpt = Period("month"),
    since: FromOpt = None,
    until: ToOpt = None,
) -> None:
    """Findings per 100 rounds per dealer, by day, month or year."""
    from .history.views import dealers as view

    first, last = _days(since, until)
    _show(store, config, format, lambda conn: view(conn, period.value, first, last))


@history_app.command()
def rules(
    store: StoreOpt = None,
    config: ConfigOpt = None,
    format: FormatOpt = HistoryFormat("text"),
    period: PeriodOpt = Period("month"),
    since: FromOpt = None,
    until: ToOpt = None,
) -> None:
    """Each rule's findings by period, their trend and the tables where they repeat."""
    from .history.views import rules as view

    first, last = _days(since, until)
    _show(store, config, format, lambda conn: view(conn, period.value, first, last))


@history_app.command()
def anomalies(
    store: StoreOpt = None,
    config: ConfigOpt = None,
    format: FormatOpt = HistoryFormat("text"),
    period: PeriodOpt = Period("month"),
    since: FromOpt = None,
    until: ToOpt = None,
    alpha: Annotated[
        float, alpha_option("Error rate, corrected (Holm) for every group of every period shown.")
    ] = 0.001,
) -> None:
    """The statistics' groups summed over each period's nights, tested together: anomalies, most improbable first."""
    from .history.anomalies import anomalies as view

    first, last = _days(since, until)
    _show(store, config, format, lambda conn: view(conn, period.value, first, last, alpha))


VerifyFormat = Enum("VerifyFormat", [(f, f) for f in ("text", "json")], type=str)  # type: ignore[misc]


@history_app.command()
def verify(
    store: StoreOpt = None,
    config: ConfigOpt = None,
    format: Annotated[
        VerifyFormat, typer.Option("--format", "-f", help="text or json (an object).")
    ] = VerifyFormat("text"),
    head: Annotated[
        str | None,
        typer.Option(
            "--head",
            help="A head written down earlier (an audit check report's configuration.store.head): "
            "whether it is still a seal of this store.",
        ),
    ] = None,
) -> None:
    """Whether every recorded input is as it was recorded: the seal chained through the store; exit 1 if not."""
    import json

    from .history import seal

    if head is not None and not re.fullmatch(r"[0-9a-f]{64}", head):
        _die(f"--head {head!r}: a seal is 64 lowercase hexadecimal digits")
    verdict: list[seal.Verdict] = []

    def read(conn, shown: str) -> str:
        v = seal.verify(conn, head)
        verdict.append(v)
        if format.value == "json":
            return json.dumps(seal.as_json(shown, v), indent=1, ensure_ascii=False) + "\n"
        return seal.as_text(shown, v)

    _write(_read(store, config, read))
    if not verdict[0].holds:
        raise typer.Exit(1)
