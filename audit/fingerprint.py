"""Stable fingerprints of findings, for baselines and code-scanning views.

A fingerprint is made of what a finding is about (rule, table, round, the
event's own text) and never of where it sits in a file: re-audit the same
night, or the same events shifted by an added line, and it does not change.
Identical findings are told apart by their order of occurrence. What is kept
to count them is a 16-byte digest of each distinct content, not the content;
past what memory should hold, the counting is done on disk.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator

from .findings import Finding

_LINE_REFS = re.compile(r"\bline \d+")


def content(f: Finding) -> str:
    """What a finding is about: its rule, table, round and the event's text (no line number)."""
    what = f.actual if f.actual is not None else _LINE_REFS.sub("line", f.message)
    rnd = "" if f.round is None else str(f.round)
    return "\x1f".join((f.rule, f.table or "", rnd, what))


def content_key(f: Finding) -> tuple[str, bytes]:
    """What a finding is about, and the 16-byte digest that stands for it when counting."""
    base = content(f)
    return base, hashlib.blake2b(base.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def fingerprint_of(base: str, ordinal: int) -> str:
    """The fingerprint of the ``ordinal``-th finding (from 1, in report order) about ``base``."""
    return hashlib.sha256(f"{base}\x1f{ordinal}".encode()).hexdigest()[:32]


def fingerprinted(findings: Iterable[Finding]) -> Iterator[tuple[Finding, str]]:
    """Each finding with its fingerprint (findings in report order, iterated once), counting in
    memory: one digest per distinct content. Findings that spilled to disk are counted on disk
    instead (``findings_store.SpilledFindings``), with the same result."""
    seen: dict[bytes, int] = {}
    for f in findings:
        base, key = content_key(f)
        n = seen[key] = seen.get(key, 0) + 1
        yield f, fingerprint_of(base, n)


def fingerprints(findings: Iterable[Finding]) -> list[str]:
    """One fingerprint per finding, in the same order (findings sorted as in the report)."""
    return [fp for _, fp in fingerprinted(findings)]
