"""The SARIF 2.1.0 report, for code-scanning views (GitHub, GitLab, Azure DevOps, IDE viewers).

One run: the auditor as ``tool.driver`` with every enabled rule (its citation as
help text), every input as an artifact with its SHA-256, one result per finding
and one per baselined finding (with an external suppression). The stable
fingerprint of a finding is its ``partialFingerprints["delAudit/v1"]``. The
per-table summaries, the stale baseline entries and what shaped the report (the JSON report's
``configuration`` object: configuration file, rulesets and overlays with their hashes, the
selection and the findings it hid, the baseline) ride in ``run.properties``.
Deterministic: no timestamps, keys sorted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import chain
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..escape import undecodable_escaped
from ..findings import Finding
from ..report import Report
from ..rulesets import LoadedRuleset, Rule, house_reading
from . import json_pieces
from .json_report import table_summary

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
FINGERPRINT_KEY = "delAudit/v1"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}

_COLUMN = re.compile(r"^column (\d+):")


def artifact_uri(path: str) -> str:
    """A URI reference for a path as the report gives it: relative paths stay relative (a byte of
    the name that is not UTF-8 is percent-encoded as itself)."""
    if path in ("<stdin>", "-"):
        return "stdin"
    if PurePosixPath(path).is_absolute():
        return PurePosixPath(path).as_uri()
    if PureWindowsPath(path).is_absolute():
        return PureWindowsPath(path).as_uri()
    return quote(path.replace("\\", "/"), safe="/", errors="surrogateescape")


def _pascal(check: str) -> str:
    return "".join(
        part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", check) if part
    )


def _readings(rule: Rule, house: tuple[str, str] | None) -> list[tuple[str, str]]:
    """(heading, words): the ruleset's reading, then the house overlay's own beside it, as the house's."""
    out = [("Reading", rule.reading)] if rule.reading else []
    if house is not None:
        out.append((f"Reading of the house overlay {house[0]} (changes nothing checked)", house[1]))
    return out


def _rule_descriptor(rs: LoadedRuleset, rule: Rule) -> dict[str, Any]:
    regulation = rs.model.regulation.name
    help_text = f"{rule.message}\n\n{rule.citation.article} ({regulation}): {rule.citation.text}"
    quoted = "\n".join(f"> {line}" if line else ">" for line in rule.citation.text.splitlines())
    help_md = f"{rule.message}\n\n**{rule.citation.article}** ({regulation}):\n\n{quoted}"
    full = rule.citation_text
    house = house_reading(rs, rule)
    for heading, words in _readings(rule, house):
        full += f"\n\n{heading}: {words}"
        help_text += f"\n\n{heading}: {words}"
        help_md += f"\n\n*{heading}:* {words}"
    return {
        "id": rule.id,
        "name": _pascal(rule.check),
        "shortDescription": {"text": rule.message},
        "fullDescription": {"text": full},
        "help": {"text": help_text, "markdown": help_md},
        "defaultConfiguration": {"enabled": True, "level": LEVELS[rule.severity]},
        "properties": {
            "category": rule.category,
            "ruleset": rs.id,
            "severity": rule.severity,
            "check": rule.check,
            "citation": {"article": rule.citation.article, "text": rule.citation.text},
            "reading": rule.reading,
            **({} if house is None else {"house_reading": {"overlay": house[0], "text": house[1]}}),
            "tags": sorted({rule.category, rs.id}),
        },
    }


def _message(f: Finding) -> str:
    text = f.message
    if f.expected is not None:
        text += f"\nexpected: {f.expected}"
    if f.actual is not None:
        text += f"\nactual: {f.actual}"
    return text


def _location(f: Finding, artifact_index: dict[str, int]) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": max(f.line, 1)}
    column = _COLUMN.match(f.message)
    # the message gives a byte column; SARIF counts code points: they agree on an ASCII line
    if column and int(column.group(1)) >= 1 and (f.actual or "").isascii():
        region["startColumn"] = int(column.group(1))
    artifact: dict[str, Any] = {"uri": artifact_uri(f.path)}
    if f.path in artifact_index:
        artifact["index"] = artifact_index[f.path]
    location: dict[str, Any] = {
        "physicalLocation": {"artifactLocation": artifact, "region": region}
    }
    if f.table is not None:
        logical = [{"kind": "table", "name": f.table, "fullyQualifiedName": f.table}]
        if f.round is not None:
            logical.append(
                {
                    "kind": "round",
                    "name": f"round {f.round}",
                    "fullyQualifiedName": f"{f.table}/round {f.round}",
                }
            )
        location["logicalLocations"] = logical
    return location


def _result(
    f: Finding,
    fingerprint: str,
    rule_index: dict[tuple[str, str], int],
    artifact_index: dict[str, int],
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": f.rule,
        "level": LEVELS[f.severity],
        "message": {"text": _message(f)},
        "locations": [_location(f, artifact_index)],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        "properties": {
            "category": f.category,
            "severity": f.severity,
            "table": f.table,
            "round": f.round,
            "ruleset": f.ruleset,
            "citation": f.citation,
            "expected": f.expected,
            "actual": f.actual,
            "time": f.time,
            "dealer": f.dealer,
            "shoe": f.shoe,
        },
    }
    index = rule_index.get((f.ruleset, f.rule))
    if index is not None:
        result["ruleIndex"] = index
    return result


def as_dict(report: Report) -> dict[str, Any]:
    document, results = _document(report)
    document["runs"][0]["results"] = list(results)
    return document


def _results(
    report: Report, rule_index: dict[tuple[str, str], int], artifact_index: dict[str, int]
) -> Iterator[dict[str, Any]]:
    baselined = report.baseline is not None
    for f, fp in report.fingerprinted():
        result = _result(f, fp, rule_index, artifact_index)
        if baselined:
            result["baselineState"] = "new"
        yield result
    for s in sorted(report.suppressed, key=lambda s: (*s.finding.sort_key(), s.fingerprint)):
        result = _result(s.finding, s.fingerprint, rule_index, artifact_index)
        result["suppressions"] = [
            {"kind": "external", "status": "accepted", "justification": s.justification}
        ]
        if baselined:
            result["baselineState"] = "unchanged"
        yield result


def _document(report: Report) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
    """The document with a mark for its results (``json_pieces``), and the results."""
    rules: list[dict[str, Any]] = []
    rule_index: dict[tuple[str, str], int] = {}
    for rs in report.rulesets:
        for rule in rs.model.rules:
            if rule.enabled and report.reports(rule.id):
                rule_index[(rs.id, rule.id)] = len(rules)
                rules.append(_rule_descriptor(rs, rule))
    # a finding of a rule not listed (disabled after the fact, say) still gets its descriptor
    by_id = {rs.id: rs for rs in report.rulesets}
    for f in chain(report.findings, (s.finding for s in report.suppressed)):
        key = (f.ruleset, f.rule)
        ruleset = by_id.get(f.ruleset)
        if key in rule_index or ruleset is None:
            continue
        for rule in ruleset.model.rules:
            if rule.id == f.rule:
                rule_index[key] = len(rules)
                rules.append(_rule_descriptor(ruleset, rule))

    artifact_index = {i.path: n for n, i in enumerate(report.inputs)}
    artifacts = [
        {
            "location": {"uri": artifact_uri(i.path)},
            "hashes": {"sha-256": i.sha256},
            "roles": ["analysisTarget"],
            "properties": {"path": i.path, "lines": i.lines},
        }
        for i in report.inputs
    ]

    run: dict[str, Any] = {
        "tool": {"driver": {"name": "audit", "version": __version__, "rules": rules}},
        "artifacts": artifacts,
        "results": json_pieces.MARK,
        "columnKind": "unicodeCodePoints",
        "properties": {
            "summary": {
                "tables": report.tables,
                "rounds": report.rounds,
                "events": report.events,
                "findings": report.counts(),
                "suppressed": len(report.suppressed),
            },
            "tableSummaries": [table_summary(report, t) for t in report.table_stats],
            "rulesets": [
                {
                    "id": r.id,
                    "sha256": r.sha256,
                    "overlay": None
                    if r.overlay is None
                    else {
                        "id": r.overlay.model.overlay,
                        "path": r.overlay.path.as_posix(),
                        "sha256": r.overlay.sha256,
                    },
                }
                for r in report.rulesets
            ],
            "baseline": report.baseline,
            "staleBaselineEntries": list(report.stale),
            **(
                {}
                if report.configuration is None
                else {"configuration": report.configuration.as_json()}
            ),
        },
    }
    return {"$schema": SCHEMA, "version": SARIF_VERSION, "runs": [run]}, _results(
        report, rule_index, artifact_index
    )


def pieces(report: Report) -> Iterator[str]:
    """The report as UTF-8 text, a result at a time (never all in memory): a file name's bytes
    that are not UTF-8 are written ``\\xNN``."""
    document, results = _document(report)
    yield from json_pieces.pieces(document, results, _escaped, sort_keys=True)
    yield "\n"


def _escaped(text: str) -> str:
    return undecodable_escaped(text, "\\\\")


def render(report: Report) -> str:
    return "".join(pieces(report))
