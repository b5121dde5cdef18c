"""The JUnit XML report, as the test views of GitLab, Jenkins and GitHub read it.

One ``<testsuite>`` per input file (named by its path), with the file's SHA-256
and each table's summary figures as ``<properties>``. One ``<testcase>`` per
rule and table: every enabled rule of the table's ruleset and every rule of
``del-v1``, ``classname`` ``"<ruleset>.<table>"`` and ``name`` the rule id, so
names are unique in a suite and stable from night to night. A finding is a
``<failure>`` of its rule's test case (a finding outside any table, such as a
line that does not parse, goes to ``"del-v1.(no table)"``); a baselined finding
is ``<skipped>``. Counts are of test cases: ``failures`` those with at least one
failure, ``skipped`` those with only baselined findings. Deterministic.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

from ..escape import escape_char
from ..findings import Finding
from ..report import Report
from ..rulesets import LoadedRuleset
from .json_report import table_summary

FORMAT_RULESET = "del-v1"
NO_TABLE = "(no table)"

#: characters XML 1.0 cannot carry at all (a log line, a file name that is not UTF-8 may hold them):
#: shown as their escapes instead (\x1b; a file name's undecodable byte \xNN)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_safe(text: str) -> str:
    return _NOT_XML.sub(lambda m: escape_char(m.group()), text)


@dataclass
class _Case:
    classname: str
    name: str
    failures: list[Finding] = field(default_factory=list)
    skipped: list[tuple[Finding, str, str]] = field(default_factory=list)  # finding, fingerprint, justification
    fingerprints: list[str] = field(default_factory=list)


def _failure_text(f: Finding, fingerprint: str | None) -> str:
    lines = [f"{f.path}:{f.line}"]
    where = f"table {f.table}" if f.table is not None else NO_TABLE
    if f.round is not None:
        where += f", round {f.round}"
    lines.append(where)
    if f.time is not None or f.dealer is not None or f.shoe is not None:
        lines.append(f"time: {f.time or '—'}, dealer: {f.dealer or '—'}, shoe: {f.shoe or '—'}")
    lines.append(f"rule {f.rule} ({f.ruleset}), {f.category}, {f.severity}")
    lines.append(f"message: {f.message}")
    if f.expected is not None:
        lines.append(f"expected: {f.expected}")
    if f.actual is not None:
        lines.append(f"actual: {f.actual}")
    lines.append(f"citation: {f.citation}")
    if fingerprint:
        lines.append(f"fingerprint: {fingerprint}")
    return "\n".join(lines)


def _value(v: Any) -> str:
    return "" if v is None else str(v)


def _suite(report: Report, path: str, sha256: str | None, lines: int | None,
           findings: list[tuple[Finding, str]], suppressed: list[tuple[Finding, str, str]]) -> ET.Element:
    rulesets = {rs.id: rs for rs in report.rulesets}
    fmt = rulesets.get(FORMAT_RULESET)
    stats = [t for t in report.table_stats if t.path == path]
    cases: dict[tuple[str, str], _Case] = {}

    def add_rules(rs: LoadedRuleset | None, table: str) -> None:
        if rs is None:
            return
        for rule in rs.model.rules:
            if rule.enabled and report.reports(rule.id):
                key = (f"{rs.id}.{table}", rule.id)
                cases.setdefault(key, _Case(*key))

    # the checks of the file itself (every line parses, the version is 1) belong to no table
    if fmt is not None:
        for rule in fmt.model.rules:
            if rule.enabled and rule.category == "syntax" and report.reports(rule.id):
                key = (f"{fmt.id}.{NO_TABLE}", rule.id)
                cases.setdefault(key, _Case(*key))
    for t in stats:
        if t.ruleset != FORMAT_RULESET:
            add_rules(rulesets.get(t.ruleset), t.table)
        add_rules(fmt, t.table)
    # tables the auditor did not replay (never opened, unknown ruleset) are still checked by del-v1
    known = {t.table for t in stats}
    for f in [f for f, _ in findings] + [f for f, _, _ in suppressed]:
        if f.table is not None and f.table not in known:
            known.add(f.table)
            add_rules(fmt, f.table)

    def case_of(f: Finding) -> _Case:
        key = (f"{f.ruleset}.{f.table if f.table is not None else NO_TABLE}", f.rule)
        return cases.setdefault(key, _Case(*key))

    for f, fp in findings:
        case = case_of(f)
        case.failures.append(f)
        case.fingerprints.append(fp)
    for f, fp, why in suppressed:
        case_of(f).skipped.append((f, fp, why))

    ordered = [cases[k] for k in sorted(cases)]
    failed = sum(1 for c in ordered if c.failures)
    skipped = sum(1 for c in ordered if c.skipped and not c.failures)
    suite = ET.Element("testsuite", {
        "name": path, "tests": str(len(ordered)), "failures": str(failed),
        "errors": "0", "skipped": str(skipped),
    })
    props = ET.SubElement(suite, "properties")

    def prop(name: str, value: Any) -> None:
        ET.SubElement(props, "property", {"name": name, "value": _value(value)})

    if sha256 is not None:
        prop("sha256", sha256)
    if lines is not None:
        prop("lines", lines)
    if report.baseline is not None:
        prop("baseline", report.baseline)
        prop("baseline.stale", sum(1 for e in report.stale if e.get("path") == path))
    for t in stats:
        summary = table_summary(report, t)
        for key in ("ruleset", "overlay", "game", "rounds", "drop", "paid", "collected",
                    "house_win", "hold_percent", "banked_by"):
            prop(f"table.{t.table}.{key}", summary[key])
        for category, n in sorted(summary["findings"].items()):
            prop(f"table.{t.table}.findings.{category}", n)

    for case in ordered:
        el = ET.SubElement(suite, "testcase", {"classname": case.classname, "name": case.name, "file": path})
        for f, fp in zip(case.failures, case.fingerprints):
            failure = ET.SubElement(el, "failure", {"message": f.message, "type": f.category})
            failure.text = _failure_text(f, fp)
        if case.skipped:
            whys = sorted({why for _, _, why in case.skipped})
            skip = ET.SubElement(el, "skipped", {"message": "baselined: " + "; ".join(whys)})
            skip.text = "\n\n".join(_failure_text(f, fp) for f, fp, _ in case.skipped)
    return suite


def as_element(report: Report) -> ET.Element:
    fps = report.fingerprints if len(report.fingerprints) == len(report.findings) else [""] * len(report.findings)
    by_path: dict[str, list[tuple[Finding, str]]] = {}
    for f, fp in zip(report.findings, fps):
        by_path.setdefault(f.path, []).append((f, fp))
    sup_by_path: dict[str, list[tuple[Finding, str, str]]] = {}
    for s in sorted(report.suppressed, key=lambda s: (*s.finding.sort_key(), s.fingerprint)):
        sup_by_path.setdefault(s.finding.path, []).append((s.finding, s.fingerprint, s.justification))

    root = ET.Element("testsuites", {"name": "audit"})
    seen: set[str] = set()
    for i in report.inputs:
        seen.add(i.path)
        root.append(_suite(report, i.path, i.sha256, i.lines, by_path.get(i.path, []), sup_by_path.get(i.path, [])))
    # findings of a path that is not among the inputs (a report built by hand) are not dropped
    for path in sorted((set(by_path) | set(sup_by_path)) - seen):
        root.append(_suite(report, path, None, None, by_path.get(path, []), sup_by_path.get(path, [])))
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in root)))
    for el in root.iter():
        if el.text:
            el.text = _xml_safe(el.text)
        for name, value in el.attrib.items():
            el.set(name, _xml_safe(value))
    return root


def render(report: Report) -> str:
    root = as_element(report)
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
