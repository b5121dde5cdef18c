"""Baselines: the findings a casino has already examined and accepted.

A nightly job fails only on what is new. The baseline file lists accepted
findings by fingerprint (rule, table, round and event content, never line
numbers), each with a justification a person wrote. Re-auditing, a finding
whose fingerprint is in the baseline is reported as suppressed; an entry that
matches nothing any more is reported as stale, so the baseline does not rot.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from . import bounded, fingerprint, nesting
from .escape import undecodable_escaped
from .findings import Finding
from .findings_store import SpilledFindings
from .report import Report, Suppressed

FORMAT = "del-audit-baseline"
DEFAULT_JUSTIFICATION = "accepted when the baseline was created; review and replace this text"


class BaselineError(Exception):
    """A baseline file that cannot be used: the audit stops with exit 2."""


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    fingerprint: str = Field(pattern=r"^[0-9a-f]{32}$")
    rule: str
    table: str | None
    round: int | None
    path: str
    message: str
    justification: str = Field(min_length=1)


class Baseline(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    format: str = Field(pattern=f"^{FORMAT}$")
    version: int = Field(ge=1, le=1)
    entries: list[Entry]


def from_report(report: Report, justification: str = DEFAULT_JUSTIFICATION) -> Baseline:
    entries = [
        Entry(
            fingerprint=fp,
            rule=f.rule,
            table=f.table,
            round=f.round,
            path=f.path,
            message=f.message,
            justification=justification,
        )
        for f, fp in report.fingerprinted()
    ]
    return Baseline(format=FORMAT, version=1, entries=entries)


def render(baseline: Baseline) -> str:
    text = json.dumps(baseline.model_dump(mode="json"), indent=2, ensure_ascii=False)
    return (
        undecodable_escaped(text, "\\\\") + "\n"
    )  # a file name that is not UTF-8: its bytes as \xNN


def load(path: Path) -> Baseline:
    return load_hashed(path)[0]


def load_hashed(path: Path) -> tuple[Baseline, str]:
    """The baseline and the SHA-256 of the bytes it was read from (read once: a pipe gives them once)."""
    try:
        raw = bounded.read_bytes(path, bounded.MAX_BASELINE_BYTES)
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
        nesting.check_depth(text, "json")  # before json's recursion meets it
        data = json.loads(text)
    except OSError as err:
        raise BaselineError(f"{path}: cannot read: {err.strerror or err}") from None
    except bounded.TooLarge as err:
        raise BaselineError(f"{path}: {err}") from None
    except nesting.ShapeProblem as err:
        raise BaselineError(f"{path}, {err}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        where = f", line {err.lineno}" if isinstance(err, json.JSONDecodeError) else ""
        raise BaselineError(f"{path}{where}: not a JSON baseline: {err}") from None
    try:
        return Baseline.model_validate(data), hashlib.sha256(raw).hexdigest()
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "(top level)"
        msg = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        raise BaselineError(f"{path}: {key}: {msg}") from None


def apply(
    report: Report, baseline: Baseline, path_shown: str, aliases: dict[str, str] | None = None
) -> None:
    """Move baselined findings to ``report.suppressed``; list the entries nothing matched.

    ``path_shown`` is the baseline file as the reports name it; ``aliases`` maps a rule's former
    ids to its id now: an entry written before the rule was renamed still accepts its finding."""
    accepted = {e.fingerprint: e for e in baseline.entries}
    kept, kept_fps = [], []
    matched: set[str] = set()  # the fingerprints of the findings suppressed
    used: set[str] = set()  # the entries that suppressed them (a former id's fingerprint)
    # findings that spilled: not copied, narrowed
    where = report.findings.where if isinstance(report.findings, SpilledFindings) else None
    former = _FormerFingerprints(aliases or {})
    for finding, fp in report.fingerprinted():
        key = fp if fp in accepted else None
        for old_fp in former.of(finding):  # counted for every finding, matched or not
            if key is None and old_fp in accepted:
                key = old_fp
        if key is None:
            if where is None:
                kept.append(finding)
                kept_fps.append(fp)
        else:
            matched.add(fp)
            used.add(key)
            report.suppressed.append(Suppressed(finding, fp, accepted[key].justification))
    if where is not None:
        report.findings = where(lambda f, fp: fp not in matched)
        report.fingerprints = report.findings.fingerprints
    else:
        report.findings, report.fingerprints = kept, kept_fps
    report.stale = [
        e.model_dump(mode="json") for e in baseline.entries if e.fingerprint not in used
    ]
    report.baseline = path_shown


class _FormerFingerprints:
    """The fingerprints a finding had when its rule had a former id: the same content under the
    old id, counted the same way (a rename changes every finding of the rule alike, so each keeps
    its rank among its equals)."""

    def __init__(self, aliases: dict[str, str]):
        self.formers: dict[str, list[str]] = {}
        for old, new in sorted(aliases.items()):
            self.formers.setdefault(new, []).append(old)
        self.seen: dict[str, int] = {}

    def of(self, finding: Finding) -> list[str]:
        out = []
        for old in self.formers.get(finding.rule, ()):
            base = fingerprint.content(finding.model_copy(update={"rule": old}))
            n = self.seen[base] = self.seen.get(base, 0) + 1
            out.append(fingerprint.fingerprint_of(base, n))
        return out
