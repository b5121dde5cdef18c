"""Running an audit over inputs and assembling the report the contract describes."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterator

from .engine.replay import FileReplay
from .engine.stats import TableStats
from .findings import SEVERITIES, Finding
from .fingerprint import fingerprints
from .rulesets import Library, LoadedRuleset

LOG_SUFFIXES = (".del", ".log")


class InputError(Exception):
    """An input that cannot be read at all: the audit stops with exit 2."""


@dataclass
class InputSummary:
    path: str
    sha256: str
    lines: int


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
    """Files as given; folders walked (sorted) for ``*.del`` and ``*.log``; ``-`` is standard input."""
    out: list[str] = []
    for raw in paths:
        if raw == "-":
            out.append(raw)
            continue
        p = Path(raw)
        if p.is_dir():
            found = sorted(q for q in p.rglob("*") if q.is_file() and q.name.endswith(LOG_SUFFIXES))
            if not found:
                raise InputError(f"{raw}: folder holds no log (*.del, *.log)")
            out.extend(q.as_posix() for q in found)
        elif p.exists():
            out.append(p.as_posix())
        else:
            raise InputError(f"{raw}: no such file or folder")
    return out


def _lines(stream: BinaryIO, digest: "hashlib._Hash", run: FileReplay) -> Iterator[tuple[int, str]]:
    """Decoded lines, hashing the bytes as they go; a line that is not UTF-8 is reported, not dropped."""
    for lineno, raw in enumerate(stream, start=1):
        digest.update(raw)
        body = raw.rstrip(b"\r\n")
        if lineno == 1 and body.startswith(b"\xef\xbb\xbf"):
            body = body[3:]
        try:
            yield lineno, body.decode("utf-8")
        except UnicodeDecodeError as err:
            run.stats.lines = lineno
            run.sink.line = lineno
            run.sink.text = ""
            run.format.flag("syntax", f"byte {err.start + 1}: not valid UTF-8; the line is not audited",
                            actual=body.decode("utf-8", "replace")[:200])


def audit_input(library: Library, path: str) -> tuple[FileReplay, InputSummary]:
    display = "<stdin>" if path == "-" else path
    run = FileReplay(library, display)
    digest = hashlib.sha256()
    try:
        stream: BinaryIO = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as err:
        raise InputError(f"{path}: cannot read: {err.strerror or err}") from None
    try:
        for lineno, text in _lines(stream, digest, run):
            run.feed(lineno, text)
    except OSError as err:
        raise InputError(f"{path}: read error: {err.strerror or err}") from None
    finally:
        if path != "-":
            stream.close()
    run.finish()
    return run, InputSummary(display, digest.hexdigest(), run.stats.lines)


def run_audit(library: Library, paths: list[str]) -> Report:
    report = Report()
    for path in expand(paths):
        run, summary = audit_input(library, path)
        report.inputs.append(summary)
        report.findings.extend(run.findings)
        report.rounds += run.stats.rounds
        report.events += run.stats.events
        report.table_stats.extend(run.stats.tables[t] for t in sorted(run.stats.tables))
    report.tables = len(report.table_stats)
    report.findings.sort(key=Finding.sort_key)
    report.fingerprints = fingerprints(report.findings)
    report.rulesets = [library.rulesets[k] for k in sorted(library.rulesets)]
    return report
