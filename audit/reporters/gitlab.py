"""GitLab Code Quality: the JSON list GitLab shows in merge requests and the pipeline's Code Quality tab.

Each finding is an object with ``description``, ``check_name`` (the rule id),
``fingerprint`` (the finding's own, as the baseline and SARIF use it: it does
not move with line numbers, and is unique in the report, which GitLab needs),
``severity`` and ``location`` (``path``, ``lines.begin``). GitLab's five
severities are info, minor, major, critical and blocker: an error (a breach
that fails the audit) is ``critical``, a warning ``major``, an info ``info``;
``blocker`` is left to the CI's own failures. Suppressed findings are left out.
"""

from __future__ import annotations

import json

from ..findings import moment, place
from ..report import Report

SEVERITIES = {"error": "critical", "warning": "major", "info": "info"}


def issues(report: Report) -> list[dict]:
    out = []
    for f, fingerprint in zip(report.findings, report.fingerprints):
        out.append({
            "description": f"{f.rule}: {f.message} ({', '.join(filter(None, (place(f), moment(f))))})",
            "check_name": f.rule,
            "fingerprint": fingerprint,
            "severity": SEVERITIES[f.severity],
            "location": {"path": f.path, "lines": {"begin": f.line}},
        })
    return out


def render(report: Report) -> str:
    return json.dumps(issues(report), indent=2, ensure_ascii=False) + "\n"
