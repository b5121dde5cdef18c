"""Running an audit over inputs and assembling the report the contract describes."""

from __future__ import annotations

import contextlib
import gc
import gzip
import hashlib
import io
import multiprocessing
import zlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from .engine.format_checks import SYNTAX
from .engine.replay import FileReplay
from .engine.stats import TableStats
from .findings import SEVERITIES, Finding
from .fingerprint import fingerprints
from .rulesets import Library, LoadedRuleset

LOG_SUFFIXES = (".del", ".log", ".del.gz", ".log.gz")
GZIP_MAGIC = b"\x1f\x8b"


class InputError(Exception):
    """An input that cannot be read at all: the audit stops with exit 2."""


@dataclass
class InputSummary:
    path: str
    sha256: str
    lines: int
    size: int = 0
    #: what each line read turned out to be: the counts add up to ``lines``
    accounting: dict[str, int] = field(default_factory=dict)


@dataclass
class Suppressed:
    """A finding the baseline accepts: kept in the machine reports, not failing the run."""

    finding: Finding
    fingerprint: str
    justification: str


@dataclass
class Report:
    inputs: list[InputSummary] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    tables: int = 0
    rounds: int = 0
    events: int = 0
    rulesets: list[LoadedRuleset] = field(default_factory=list)
    table_stats: list[TableStats] = field(default_factory=list)
    #: fingerprints of ``findings``, in the same order
    fingerprints: list[str] = field(default_factory=list)
    suppressed: list[Suppressed] = field(default_factory=list)
    #: baseline entries (as written in the baseline file) that match no finding any more
    stale: list[dict] = field(default_factory=list)
    baseline: str | None = None

    def findings_by_category(self, path: str, table: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for f in self.findings:
            if f.path == path and f.table == table:
                out[f.category] = out.get(f.category, 0) + 1
        return dict(sorted(out.items()))

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in SEVERITIES}
        for f in self.findings:
            out[f.severity] += 1
        return out


def expand(paths: list[str]) -> list[str]:
    """Files as given; folders walked for ``*.del``, ``*.log`` (and ``.gz``); ``-`` is standard input.

    The list is sorted and without repeats, so the report does not depend on the order of the
    command line (standard input, if given, comes last).
    """
    out: list[str] = []
    for raw in paths:
        if raw == "-":
            out.append(raw)
            continue
        p = Path(raw)
        if p.is_dir():
            found = sorted(q for q in p.rglob("*") if q.is_file() and q.name.endswith(LOG_SUFFIXES))
            if not found:
                raise InputError(f"{raw}: folder holds no log (*.del, *.log, *.del.gz, *.log.gz)")
            out.extend(q.as_posix() for q in found)
        elif p.exists():
            out.append(p.as_posix())
        else:
            raise InputError(f"{raw}: no such file or folder")
    stdin = ["-"] if "-" in out else []
    return sorted(set(out) - {"-"}) + stdin


#: bytes of lines read at once from an uncompressed log (a compressed one is read line by line,
#: so that every line before a damaged block is audited)
CHUNK_BYTES = 1 << 20
BOM = b"\xef\xbb\xbf"


def _feed_lines(stream: BinaryIO, run: FileReplay, compressed: bool,
                tick: Callable[[int], None] | None = None) -> None:
    """Every line to the replay, a chunk at a time (the replay decodes them).

    ``tick`` receives the bytes read, about every ``CHUNK_BYTES`` and at the end.
    """
    lineno = pending = 0
    hint = 1 if compressed else CHUNK_BYTES
    while chunk := stream.readlines(hint):
        if tick is not None:
            pending += sum(map(len, chunk))
            if pending >= CHUNK_BYTES:
                tick(pending)
                pending = 0
        if lineno == 0 and chunk[0].startswith(BOM):
            chunk[0] = chunk[0][3:]
        lineno = run.feed_chunk(chunk, lineno)
    if tick is not None and pending:
        tick(pending)


#: the cyclic collector's thresholds while a log streams (Python's defaults: 700, 10, 10)
STREAMING_GC_THRESHOLDS = (20_000, 10, 10)


@contextlib.contextmanager
def _collector_for_streaming() -> Iterator[None]:
    """A replay frees almost everything by reference counting: an event lives for one line and
    a round's objects for one round. The cyclic collector, left at its defaults, still ran
    every 700 surviving containers and scanned the whole heap (grammar, rulesets, models)
    at each full pass: about 3% of a night's audit. While a log streams, what is loaded
    beforehand is frozen out of its scans and it runs less often; it still runs, so the
    cycles a closed table leaves are freed and memory stays flat."""
    before, frozen = gc.get_threshold(), gc.get_freeze_count() > 0
    if not frozen:  # a caller that froze objects itself keeps them frozen, and its own choice
        gc.freeze()
    gc.set_threshold(*STREAMING_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        if not frozen:
            gc.unfreeze()


class _Hashing(io.RawIOBase):
    """A raw stream that hashes and counts the bytes read through it (the evidence as stored)."""

    def __init__(self, raw: BinaryIO, digest: "hashlib._Hash | None"):
        self.raw, self.digest, self.size = raw, digest, 0

    def readable(self) -> bool:
        return True

    def drain(self) -> None:
        """Read (and hash) whatever the decompressor left unread."""
        while data := self.raw.read(1 << 16):
            if self.digest is not None:
                self.digest.update(data)
            self.size += len(data)

    def readinto(self, buffer) -> int:  # type: ignore[override]
        data = self.raw.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        if self.digest is not None:
            self.digest.update(data)
        self.size += n
        return n


def audit_input(library: Library, path: str, part: tuple[int, int] | None = None,
                tick: Callable[[int], None] | None = None) -> tuple[FileReplay, InputSummary]:
    """Stream one input through the replay. A gzip-compressed log (nightly archives) is read as
    such; its SHA-256 and size are those of the compressed file, the evidence as stored."""
    display = "<stdin>" if path == "-" else path
    run = FileReplay(library, display, part)
    digest = hashlib.sha256()
    try:
        raw: BinaryIO = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as err:
        raise InputError(f"{path}: cannot read: {err.strerror or err}") from None
    hashing = _Hashing(raw, digest if run.primary else None)  # one part hashes the evidence
    stream = io.BufferedReader(hashing, buffer_size=1 << 16)
    try:
        compressed = stream.peek(2)[:2] == GZIP_MAGIC
        if compressed:
            stream = gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[assignment]
        try:
            with _collector_for_streaming():
                _feed_lines(stream, run, compressed, tick)
        except (EOFError, gzip.BadGzipFile, zlib.error) as err:
            _damaged(run, err)
            hashing.drain()  # the hash and size are of the whole file as stored
    except OSError as err:
        raise InputError(f"{path}: read error: {err.strerror or err}") from None
    finally:
        if path != "-":
            raw.close()
    run.finish()
    return run, InputSummary(display, digest.hexdigest(), run.stats.lines, hashing.size, run.stats.accounting())


def _damaged(run: FileReplay, err: Exception) -> None:
    """A compressed log that ends early or is corrupt: what was read is audited, the rest is one
    unreadable line, reported."""
    run.stats.lines += 1
    if run.primary:
        run.stats.syntax += 1
        run.sink.line, run.sink.text = run.stats.lines, ""
        run.format.flag(SYNTAX, f"the compressed log is damaged or truncated here ({err}); "
                        "what follows cannot be read", actual=None)


@dataclass
class PartResult:
    """What one process returns for one input (or one part of its tables)."""

    summary: InputSummary
    findings: list[Finding]
    events: int
    rounds: int
    tables: dict[str, TableStats]


def _audit_part(library: Library, path: str, part: tuple[int, int] | None,
                tick: Callable[[int], None] | None = None) -> PartResult:
    run, summary = audit_input(library, path, part, tick)
    s = run.stats
    return PartResult(summary, run.findings, s.events, s.rounds, s.tables)


_WORKER_LIBRARY: Library | None = None


def _init_worker(spec: dict) -> None:
    global _WORKER_LIBRARY
    if _WORKER_LIBRARY is None:  # a spawned worker loads the rulesets itself
        _WORKER_LIBRARY = Library.load(**spec)


def _worker(task: tuple[str, tuple[int, int] | None]) -> PartResult:
    assert _WORKER_LIBRARY is not None
    return _audit_part(_WORKER_LIBRARY, *task)


def _tasks(files: list[str], jobs: int) -> list[tuple[str, tuple[int, int] | None]]:
    """One task per file when there are enough files; else each file split by tables into ``jobs`` parts."""
    if jobs <= 1 or len(files) >= jobs:
        return [(f, None) for f in files]
    # standard input can be read only once: it is never split
    return [(f, None) if f == "-" else (f, (k, jobs)) for f in files for k in (range(1) if f == "-" else range(jobs))]


def input_size(files: list[str]) -> int:
    """Bytes to read, for a progress bar (standard input counts as unknown: 0)."""
    return sum(Path(f).stat().st_size for f in files if f != "-")


def run_audit(library: Library, paths: list[str], jobs: int = 1,
              progress: Callable[[int], None] | None = None, files: list[str] | None = None) -> Report:
    """Audit every input; with ``jobs`` > 1 in that many processes, the same report byte for byte.

    ``progress`` is called with the number of bytes read since its last call.
    """
    files = expand(paths) if files is None else files
    tasks = _tasks(files, jobs)
    results: list[PartResult] = []
    if jobs > 1 and "-" not in files and len(tasks) > 1:
        global _WORKER_LIBRARY
        forking = "fork" in multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if forking else "spawn")
        _WORKER_LIBRARY = library if forking else None  # a forked worker has it already: no second load
        with ctx.Pool(min(jobs, len(tasks)), initializer=_init_worker, initargs=(library.spec,)) as pool:
            for (path, part), result in zip(tasks, pool.imap(_worker, tasks)):
                results.append(result)
                if progress:
                    progress(Path(path).stat().st_size // (part[1] if part else 1))
    else:
        for path, part in tasks:
            results.append(_audit_part(library, path, part, progress))
    return _merge(library, tasks, results)


def _merge(library: Library, tasks: list, results: list[PartResult]) -> Report:
    report = Report()
    by_path: dict[str, InputSummary] = {}
    for (path, part), result in zip(tasks, results):
        if part is None or part[0] == 0:
            report.inputs.append(result.summary)
            by_path[result.summary.path] = result.summary
        else:  # another part's tables: its events and syntax lines
            mine = by_path[result.summary.path].accounting
            for key in ("events", "syntax"):
                mine[key] += result.summary.accounting[key]
        report.findings.extend(result.findings)
        report.rounds += result.rounds
        report.events += result.events
        report.table_stats.extend(result.tables[t] for t in sorted(result.tables))
    report.table_stats.sort(key=lambda t: (report_order(report, t.path), t.table))
    report.tables = len(report.table_stats)
    report.findings.sort(key=Finding.sort_key)
    report.fingerprints = fingerprints(report.findings)
    report.rulesets = [library.rulesets[k] for k in sorted(library.rulesets)]
    return report


def report_order(report: Report, path: str) -> int:
    return next(i for i, inp in enumerate(report.inputs) if inp.path == path)
