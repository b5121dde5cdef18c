"""GitLab Code Quality: the JSON list GitLab shows in merge requests and the pipeline's Code Quality tab.

Each finding is an object with ``description``, ``check_name`` (the rule id),
``fingerprint`` (the finding's own, as the baseline and SARIF use it: it does
not move with line numbers, and is unique in the report, which GitLab needs),
``severity`` and ``location`` (``path``, ``lines.begin``). GitLab's five
severities are info, minor, major, critical and blocker: an error (a breach
that fails the audit) is ``critical``, a warning ``major``, an info ``info``;
``blocker`` is left to the CI's own failures. Suppressed findings are left out.
The format is a bare list of issues, each at a place in a file: it has nowhere
to say what shaped the report (the configuration), so it says nothing of it;
write a JSON, SARIF or JUnit report beside it for that.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..findings import moment, place
from ..report import Report
from . import json_pieces

SEVERITIES = {"error": "critical", "warning": "major", "info": "info"}


def issues(report: Report) -> Iterator[dict]:
    for f, fingerprint in report.fingerprinted():
        yield {
            "description": f"{f.rule}: {f.message} ({', '.join(filter(None, (place(f), moment(f))))})",
            "check_name": f.rule,
            "fingerprint": fingerprint,
            "severity": SEVERITIES[f.severity],
            "location": {"path": f.path, "lines": {"begin": f.line}},
        }


def pieces(report: Report) -> Iterator[str]:
    """The list an issue at a time (never all in memory)."""
    yield from json_pieces.pieces(json_pieces.MARK, issues(report))
    yield "\n"


def render(report: Report) -> str:
    return "".join(pieces(report))
