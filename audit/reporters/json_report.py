"""The JSON report of the findings contract (format ``del-audit-report``, version 1)."""

from __future__ import annotations

import json
from typing import Any

from ..report import Report

FORMAT = "del-audit-report"
VERSION = 1


def as_dict(report: Report) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "inputs": [{"path": i.path, "sha256": i.sha256, "lines": i.lines} for i in report.inputs],
        "summary": {
            "tables": report.tables,
            "rounds": report.rounds,
            "events": report.events,
            "findings": report.counts(),
        },
        "findings": [f.model_dump(mode="json") for f in report.findings],
        "rulesets": [
            {
                "id": r.id,
                "sha256": r.sha256,
                "overlay": None if r.overlay is None else {
                    "id": r.overlay.model.overlay, "path": r.overlay.path.as_posix(), "sha256": r.overlay.sha256},
            }
            for r in report.rulesets
        ],
    }


def render(report: Report) -> str:
    return json.dumps(as_dict(report), indent=2, ensure_ascii=False) + "\n"
