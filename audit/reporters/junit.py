"""The JUnit XML report, as the test views of GitLab, Jenkins and GitHub read it.

One ``<testsuite>`` per input file (named by its path), with what shaped the
report (``configuration.*``: the JSON report's ``configuration`` object, flat),
the file's SHA-256 and each table's summary figures as ``<properties>``. One ``<testcase>`` per
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
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from ..escape import escape_char
from ..findings import Finding
from ..findings_store import SpilledFindings, ordered_pairs
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
    #: whether findings fail it (they are written in its place afterwards: ``pieces``)
    failed: bool = False
    skipped: list[tuple[Finding, str, str]] = field(
        default_factory=list
    )  # finding, fingerprint, justification


@dataclass
class _Found:
    """What the findings of one file are, without them: their tables and their test cases."""

    tables: dict[str | None, None] = field(default_factory=dict)  # None: outside any table
    cases: dict[tuple[str, str], None] = field(default_factory=dict)


#: stands for a test case's failures in the document, written in its place (``pieces``)
_FAILURES = "audit-failures"


def _case_key(f: Finding) -> tuple[str, str]:
    return (f"{f.ruleset}.{f.table if f.table is not None else NO_TABLE}", f.rule)


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


def _suite(
    report: Report,
    path: str,
    sha256: str | None,
    lines: int | None,
    found: _Found,
    suppressed: list[tuple[Finding, str, str]],
) -> ET.Element:
    """One file's test suite: a test case per rule and table, its properties, its failures."""
    stats = [t for t in report.table_stats if t.path == path]
    ordered = _cases(report, stats, found, suppressed)
    failed = sum(1 for c in ordered if c.failed)
    skipped = sum(1 for c in ordered if c.skipped and not c.failed)
    suite = ET.Element(
        "testsuite",
        {
            "name": path,
            "tests": str(len(ordered)),
            "failures": str(failed),
            "errors": "0",
            "skipped": str(skipped),
        },
    )
    props = ET.SubElement(suite, "properties")
    for name, value in _suite_properties(report, path, sha256, lines, stats):
        ET.SubElement(props, "property", {"name": name, "value": _value(value)})
    for case in ordered:
        el = ET.SubElement(
            suite, "testcase", {"classname": case.classname, "name": case.name, "file": path}
        )
        if case.failed:
            ET.SubElement(el, _FAILURES)
        if case.skipped:
            whys = sorted({why for _, _, why in case.skipped})
            skip = ET.SubElement(el, "skipped", {"message": "baselined: " + "; ".join(whys)})
            skip.text = "\n\n".join(_failure_text(f, fp) for f, fp, _ in case.skipped)
    return suite


def _cases(
    report: Report,
    stats: list,
    found: _Found,
    suppressed: list[tuple[Finding, str, str]],
) -> list[_Case]:
    """The file's test cases, sorted: every enabled, reported rule at each table (the format's
    syntax rules once for the file), failed where it found something, skipped where a baseline
    accepted it."""
    rulesets = {rs.id: rs for rs in report.rulesets}
    fmt = rulesets.get(FORMAT_RULESET)
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
    for table in [*found.tables, *(f.table for f, _, _ in suppressed)]:
        if table is not None and table not in known:
            known.add(table)
            add_rules(fmt, table)

    for key in found.cases:
        cases.setdefault(key, _Case(*key)).failed = True
    for f, fp, why in suppressed:
        key = _case_key(f)
        cases.setdefault(key, _Case(*key)).skipped.append((f, fp, why))
    return [cases[k] for k in sorted(cases)]


#: the table summary's keys each table gives as a property
_TABLE_PROPERTIES = (
    "ruleset",
    "overlay",
    "game",
    "rounds",
    "drop",
    "paid",
    "collected",
    "house_win",
    "hold_percent",
    "banked_by",
)


def _suite_properties(
    report: Report, path: str, sha256: str | None, lines: int | None, stats: list
) -> list[tuple[str, Any]]:
    """The suite's properties: the configuration, the file, its baseline, each table's summary."""
    out: list[tuple[str, Any]] = list(configuration_properties(report))
    if sha256 is not None:
        out.append(("sha256", sha256))
    if lines is not None:
        out.append(("lines", lines))
    if report.baseline is not None:
        out.append(("baseline", report.baseline))
        out.append(("baseline.stale", sum(1 for e in report.stale if e.get("path") == path)))
    for t in stats:
        summary = table_summary(report, t)
        out += [(f"table.{t.table}.{key}", summary[key]) for key in _TABLE_PROPERTIES]
        out += [
            (f"table.{t.table}.findings.{category}", n)
            for category, n in sorted(summary["findings"].items())
        ]
    return out


def configuration_properties(report: Report) -> list[tuple[str, str]]:
    """What shaped the report (the JSON report's ``configuration``) as flat properties: lists joined
    with ``,``, files and overlays numbered from 1 in the order of the JSON report."""
    conf = report.configuration
    if conf is None:
        return []
    props: list[tuple[str, str]] = []
    for n, f in enumerate(conf.files, 1):
        props += [
            (f"configuration.files.{n}.path", f.path),
            (f"configuration.files.{n}.sha256", f.sha256),
        ]
    for r in conf.rulesets:
        props.append((f"configuration.rulesets.{r.id}.sha256", r.sha256))
    for n, o in enumerate(conf.overlays, 1):
        props += [
            (f"configuration.overlays.{n}.{key}", value)
            for key, value in (
                ("path", o.path),
                ("sha256", o.sha256),
                ("ruleset", o.ruleset or ""),
                ("tables", o.tables),
                ("tightened", ",".join(o.tightened)),
                ("added", ",".join(o.added)),
                ("parameters", ",".join(o.parameters)),
                ("readings", ",".join(o.readings)),
            )
        ]
    for n, p in enumerate(conf.plugins, 1):
        props += [
            (f"configuration.plugins.{n}.{key}", value)
            for key, value in (
                ("game", p.game),
                ("entry_point", p.entry_point),
                ("distribution", p.distribution or ""),
                ("version", p.version or ""),
            )
        ]
    if conf.store is not None:
        props += [
            ("configuration.store.store", conf.store.store),
            ("configuration.store.sealed", str(conf.store.sealed)),
            ("configuration.store.head", conf.store.head or ""),
        ]
        props += [
            (f"configuration.store.{name}", value)
            for name, value in (("damaged", conf.store.damaged), ("unopened", conf.store.unopened))
            if value
        ]
    sel = conf.selection
    props += [
        ("configuration.selection.select", ",".join(sel.select)),
        ("configuration.selection.ignore", ",".join(sel.ignore)),
        ("configuration.selection.source", sel.source or ""),
        ("configuration.selection.hidden", str(sel.hidden)),
    ]
    if conf.baseline is not None:
        props += [
            ("configuration.baseline.path", conf.baseline.path),
            ("configuration.baseline.sha256", conf.baseline.sha256),
            ("configuration.baseline.suppressed", str(conf.baseline.suppressed)),
        ]
    props += [
        ("configuration.fail_on", conf.fail_on),
        ("configuration.fail_on_anomaly", str(conf.fail_on_anomaly).lower()),
        ("configuration.statistics", str(conf.statistics).lower()),
    ]
    return props


def _failure(f: Finding, fingerprint: str) -> ET.Element:
    failure = ET.Element("failure", {"message": _xml_safe(f.message), "type": f.category})
    failure.text = _xml_safe(_failure_text(f, fingerprint))
    return failure


def _skeleton(report: Report) -> tuple[ET.Element, dict[str, int]]:
    """The document with a mark where each test case's failures go; the place of each file's suite."""
    found: dict[str, _Found] = {}
    for f in report.findings:
        mine = found.setdefault(f.path, _Found())
        mine.tables[f.table] = None
        mine.cases[_case_key(f)] = None
    sup_by_path: dict[str, list[tuple[Finding, str, str]]] = {}
    for s in sorted(report.suppressed, key=lambda s: (*s.finding.sort_key(), s.fingerprint)):
        sup_by_path.setdefault(s.finding.path, []).append(
            (s.finding, s.fingerprint, s.justification)
        )

    root = ET.Element("testsuites", {"name": "audit"})
    order = [i.path for i in report.inputs]
    for i in report.inputs:
        root.append(
            _suite(
                report,
                i.path,
                i.sha256,
                i.lines,
                found.get(i.path, _Found()),
                sup_by_path.get(i.path, []),
            )
        )
    extra = sorted((set(found) | set(sup_by_path)) - set(order))
    for path in extra:
        root.append(
            _suite(report, path, None, None, found.get(path, _Found()), sup_by_path.get(path, []))
        )
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in root)))
    for el in root.iter():
        if el.text:
            el.text = _xml_safe(el.text)
        for name, value in el.attrib.items():
            el.set(name, _xml_safe(value))
    return root, {path: n for n, path in enumerate([*order, *extra])}


def _failures(report: Report, place: dict[str, int]) -> Iterator[Iterator[ET.Element]]:
    """The failure elements of each failed test case in document order (the findings sorted by
    suite and case, those that spilled through runs on disk), one at a time. ``place``: the rank
    of each file's suite."""

    def key(pair: tuple[Finding, str]) -> tuple[int, tuple[str, str]]:
        return place[pair[0].path], _case_key(pair[0])

    pairs = ordered_pairs(
        report.fingerprinted(), key, spill=isinstance(report.findings, SpilledFindings)
    )
    for _, group in groupby(pairs, key=key):
        yield (_failure(f, fp) for f, fp in group)


def pieces(report: Report) -> Iterator[str]:
    """The document, a test case's failures at a time (never all the findings in memory)."""
    root, place = _skeleton(report)
    ET.indent(root, space="  ")
    text = '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
    mark = f"<{_FAILURES} />"
    at = 0
    for failures in _failures(
        report, place
    ):  # each in place of the next mark, indented as the mark is
        where = text.index(mark, at)
        indent = text[text.rfind("\n", 0, where) : where]
        yield text[at:where]
        between = ""
        for failure in failures:
            yield between + ET.tostring(failure, encoding="unicode")
            between = indent
        at = where + len(mark)
    yield text[at:]


def render(report: Report) -> str:
    return "".join(pieces(report))
