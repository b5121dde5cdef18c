"""Stable fingerprints of findings, for baselines and code-scanning views.

A fingerprint is made of what a finding is about (rule, table, round, the
event's own text) and never of where it sits in a file: re-audit the same
night, or the same events shifted by an added line, and it does not change.
Identical findings are told apart by their order of occurrence.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter

from .findings import Finding

_LINE_REFS = re.compile(r"\bline \d+")


def _content(f: Finding) -> str:
    what = f.actual if f.actual is not None else _LINE_REFS.sub("line", f.message)
    rnd = "" if f.round is None else str(f.round)
    return "\x1f".join((f.rule, f.table or "", rnd, what))


def fingerprints(findings: list[Finding]) -> list[str]:
    """One fingerprint per finding, in the same order (findings sorted as in the report)."""
    seen: Counter[str] = Counter()
    out = []
    for f in findings:
        base = _content(f)
        seen[base] += 1
        out.append(hashlib.sha256(f"{base}\x1f{seen[base]}".encode("utf-8")).hexdigest()[:32])
    return out
