"""The reports an ``audit check`` writes and where: chosen, checked before the audit, then written.

Each ``--format`` pairs with the ``--output`` of the same rank; an ``--output``
without one takes the format its extension names; without either, the
configuration's ``reports`` are written; at most one report goes to standard
output. Before any log is read, every report file must be creatable, none may
be an input of the run, and no two may be the same file. The files are then
written together or not at all (``audit.atomic``).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import collector
from .atomic import WriteError, replace_together
from .config import Config
from .report import Report
from .reporters import REPORTERS, Reporter
from .rulesets import Library

DEFAULT_FORMAT = "text"


class OutputError(Exception):
    """Reports that cannot be chosen or written: the audit stops with exit 2."""


@dataclass(frozen=True)
class Output:
    """One report to write: its format, and its file (None: standard output)."""

    reporter: Reporter
    path: Path | None


def reporter_for(path: Path) -> Reporter:
    """The format a file's extension names: the first registered format with that extension."""
    name = path.name.lower()
    for reporter in REPORTERS.values():
        if name.endswith("." + reporter.extension):
            return reporter
    known = ", ".join(f"{r.name} (.{r.extension})" for r in REPORTERS.values())
    raise OutputError(
        f"--output {path}: no report format has its extension: give a --format for it ({known})"
    )


def choose_outputs(formats: list[str], paths: list[Path], cfg: Config) -> list[Output]:
    """Pair each --format with the --output of the same rank; the rest go to standard output."""
    if not formats and not paths and cfg.settings.reports:
        outputs = [Output(REPORTERS[r.format], cfg.resolve(r.output)) for r in cfg.settings.reports]
        where = f"{cfg.path}: reports"
    else:
        formats = formats or ([] if paths else [DEFAULT_FORMAT])
        outputs = [
            Output(REPORTERS[name], paths[i] if i < len(paths) else None)
            for i, name in enumerate(formats)
        ]
        outputs += [Output(reporter_for(path), path) for path in paths[len(formats) :]]
        where = "--format"
    if sum(1 for o in outputs if o.path is None) > 1:
        raise OutputError(
            f"{where}: only one report can go to standard output: give an output for the others"
        )
    for o in outputs:
        if (why := o.reporter.missing()) is not None:
            raise OutputError(f"{where}: {why}")
    return outputs


def _same_file(a: os.stat_result | None, b: os.stat_result | None) -> bool:
    return a is not None and b is not None and (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


#: the first bytes of a SQLite database (a history store)
SQLITE_MAGIC = b"SQLite format 3\x00"
#: what a report never replaces, known by its first bytes: (test, what it is)
_LOG_HEADERS = (b"#DEL ", b"#casino ", b"#source ")
SIMULATED = b"#source audit-simulate"


def evidence_kind(path: str, simulated_ok: bool = False) -> str | None:
    """What an existing regular file is, when no output may replace it whatever its name: a
    history store (a SQLite database), a compressed file (an archived log), a Dealer Event Log
    (its headers, or a first event line). ``simulated_ok``: a log ``audit simulate`` wrote (its
    ``#source audit-simulate`` header) is not evidence."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    if head.startswith(SQLITE_MAGIC):
        return "a SQLite database (a history store)"
    if head.startswith(b"\x1f\x8b"):
        return "a compressed file (an archived log)"
    lines = head.removeprefix(b"\xef\xbb\xbf").split(b"\n")[:64]
    from .history.gaming_day import event_stamp

    log = False
    for line in lines:
        text = line.strip()
        if not text:
            continue
        if text.startswith(_LOG_HEADERS):
            log = True
            if simulated_ok and text.startswith(SIMULATED):
                return None
            continue
        if text.startswith(b"#"):
            continue
        log = log or event_stamp(text) is not None
        break
    return "a Dealer Event Log" if log else None


def check_files(
    paths: list[Path],
    inputs: Iterable[str | Path],
    option: str = "--output",
    simulated_ok: bool = False,
) -> None:
    """Before anything is read: each file can be created in its folder, is no input, and is given once.

    Paths are compared as the system sees them (links followed, ``..`` resolved, the same file
    under two names); standard input (``-``) by the file it is, if it is one. An existing file
    that is evidence by its content (``evidence_kind``) is never replaced either. A file that is
    not a regular one (``/dev/null``) may take several reports."""
    inputs = list(inputs)
    sources: list[tuple[str, str | None, os.stat_result | None]] = [
        (str(i), os.path.realpath(i), _stat(str(i))) for i in inputs if str(i) != "-"
    ]
    if (
        any(str(i) == "-" for i in inputs)
        and (fed := _stdin_stat()) is not None
        and stat.S_ISREG(fed.st_mode)
    ):
        sources.append(
            ("standard input", None, fed)
        )  # (a file redirected to it: a pipe has no name)
    seen: dict[str, Path] = {}
    for path in paths:
        real = os.path.realpath(path)
        mine = _stat(str(path))  # through links, /dev/stdout's too (a pipe has no path to resolve)
        for given, source, status in sources:
            if real == source or _same_file(mine, status):
                raise OutputError(
                    f"{option} {path}: is an input of this run ({given}); "
                    "it must not be replaced: give another file"
                )
        if mine is not None and not stat.S_ISREG(mine.st_mode):
            if stat.S_ISDIR(mine.st_mode):
                raise OutputError(f"{option} {path}: is a folder: give a file in it")
            if not os.access(path, os.W_OK):
                raise OutputError(f"{option} {path}: cannot write: permission denied")
            continue
        if mine is not None and (kind := evidence_kind(str(path), simulated_ok)) is not None:
            raise OutputError(
                f"{option} {path}: is {kind}; it must not be replaced: give another file"
            )
        if real in seen:
            raise OutputError(
                f"{option} {path}: two reports would go to the same file ({seen[real]} and {path})"
            )
        seen[real] = path
        folder = os.path.dirname(real)
        if not os.path.isdir(folder):
            raise OutputError(f"{option} {path}: no such folder {folder}")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise OutputError(
                f"{option} {path}: cannot create a file in {folder}: permission denied"
            )
        if mine is not None and not os.access(real, os.W_OK):
            raise OutputError(f"{option} {path}: the file is read-only")


def _stdin_stat() -> os.stat_result | None:
    try:
        return os.fstat(sys.stdin.fileno())
    except (OSError, ValueError, AttributeError):
        return None


def check_outputs(outputs: list[Output], inputs: Iterable[str | Path]) -> None:
    """``check_files`` of the reports that go to files."""
    check_files([o.path for o in outputs if o.path is not None], inputs)


def progress_bar_fits(outputs: list[Output]) -> bool:
    """No progress bar while a report for a program goes to standard output."""
    return not any(o.path is None and o.reporter.show is None for o in outputs)


def write_reports(outputs: list[Output], report: Report) -> None:
    """Every report: the files replaced together, once the one for standard output (if any) is written.

    A report that cannot be written replaces no file: the previous reports stay as they were."""
    files = (
        (o.path, o.reporter.pieces(report)) for o in outputs if o.path is not None
    )  # made as written
    screen = [o for o in outputs if o.path is None]

    def to_standard_output() -> None:
        for o in screen:
            if o.reporter.show is not None:
                with _standard_output():
                    o.reporter.show(report)
            else:
                write_standard_output(o.reporter.pieces(report))

    try:
        with collector.seldom():  # tens of thousands of groups made and let go
            replace_together(files, to_standard_output)
    except WriteError as err:
        raise OutputError(str(err)) from None


@contextmanager
def _standard_output() -> Iterator[None]:
    """Writing to standard output, flushed: a failure (a full disk) is an ``OutputError`` naming it."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:  # a reader that went away: the command line ends quietly, as before
        raise
    except OSError as err:
        raise OutputError(f"standard output: cannot write: {err.strerror or err}") from None


def write_standard_output(text: str | Iterable[str]) -> None:
    """``text``, or each of its pieces in turn."""
    with _standard_output():
        for piece in (text,) if isinstance(text, str) else text:
            sys.stdout.write(piece)


def write_file(path: Path, content: str) -> None:
    """One file, replaced whole or not at all."""
    try:
        replace_together([(path, content)])
    except WriteError as err:
        raise OutputError(str(err)) from None


def run_sources(logs: list[str], library: Library, *others: Path | None) -> list[str | Path]:
    """Every file a run reads or keeps, that no output may replace: the logs, the rulesets and
    overlays loaded, and ``others`` given (the configuration, the baseline, the history store)."""
    loaded = list(library.rulesets.values())
    overlays = [r.overlay for r in loaded if r.overlay is not None] + [
        o for _, o in library.table_overlays
    ]
    return [
        *logs,
        *(r.path for r in loaded),
        *(o.path for o in overlays),
        *(p for p in others if p is not None),
    ]


def configured_files(cfg: Config) -> list[Path]:
    """The files a configuration names, that a command which does not read them must not replace
    either: the configuration itself, its baseline, its overlays, its rulesets."""
    found = [
        p
        for p in (cfg.path, cfg.baseline(), *(o for _, o in cfg.table_overlays()))
        if p is not None
    ]
    folder = cfg.resolve(cfg.settings.rulesets)
    if folder is not None and folder.is_dir():
        found += sorted(folder.glob("*.yaml"))
    return found


def check_simulation(targets: list[tuple[str, Path]]) -> None:
    """``audit simulate``'s files (``option``, path), before a line is written: none may replace a
    file the configuration found from here names (the configuration, its store, baseline,
    overlays and rulesets), a shipped ruleset, a history store, an archive, or a log but one a
    simulation wrote; no two may be the same file. A simulated log may be written again."""
    from . import config as config_file
    from .history.store import store_files
    from .rulesets import shipped_folders

    try:
        cfg = config_file.discover()
        protected: list[Path] = [*configured_files(cfg), *store_files(None, cfg)]
    except config_file.ConfigError:
        protected = []
    protected += [p for folder in shipped_folders() for p in sorted(folder.glob("*.yaml"))]
    seen: dict[str, Path] = {}
    for option, path in targets:
        check_files([path], protected, option, simulated_ok=True)
        real = os.path.realpath(path)
        status = _stat(real)
        if real in seen and (status is None or stat.S_ISREG(status.st_mode)):
            raise OutputError(
                f"{option} {path}: two outputs would go to the same file ({seen[real]} and {path})"
            )
        seen[real] = path
