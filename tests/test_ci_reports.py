"""The reports a CI job reads: SARIF 2.1.0 (validated against the official schema) and JUnit XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from jsonschema import Draft4Validator

from audit.report import Report, Suppressed
from audit.reporters import junit, sarif
from audit.rulesets import Library
from audit.run import run_audit

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads(
    (Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8")
)
THREE = "fixtures/acceptance/three-breaches.del"
FR_FOLDER = "fixtures/rules/fr-bataille-2007"
DEL_FOLDER = "fixtures/rules/del-v1"


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="module")
def library() -> Library:
    return Library.load()


def audit(library: Library, *paths: str) -> Report:
    return run_audit(library, list(paths))


def validate_sarif(text: str) -> dict:
    doc = json.loads(text)
    validator = Draft4Validator(SCHEMA, format_checker=Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])
    # uri-reference is not a draft-4 format, so the validator does not look at it: check it here
    for run in doc["runs"]:
        uris = [a["location"]["uri"] for a in run.get("artifacts", [])]
        uris += [
            loc["physicalLocation"]["artifactLocation"]["uri"]
            for r in run["results"]
            for loc in r["locations"]
        ]
        for uri in uris:
            assert uri and not any(c in uri for c in ' <>"{}|\\^`'), uri
            urlsplit(uri)
    return doc


def junit_tree(text: str) -> ET.Element:
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites"
    return root


def check_junit_counts(root: ET.Element) -> None:
    totals = Counter()
    for suite in root.findall("testsuite"):
        cases = suite.findall("testcase")
        failed = sum(1 for c in cases if c.find("failure") is not None)
        skipped = sum(
            1 for c in cases if c.find("skipped") is not None and c.find("failure") is None
        )
        assert int(suite.get("tests")) == len(cases)
        assert int(suite.get("failures")) == failed
        assert int(suite.get("skipped")) == skipped
        assert suite.get("errors") == "0"
        pairs = [(c.get("classname"), c.get("name")) for c in cases]
        assert len(pairs) == len(set(pairs)), [p for p, n in Counter(pairs).items() if n > 1]
        totals.update(tests=len(cases), failures=failed, skipped=skipped)
    for key in ("tests", "failures", "skipped"):
        assert int(root.get(key)) == totals[key]
    assert root.get("errors") == "0"


# -- SARIF ---------------------------------------------------------------------------


def test_sarif_of_three_breaches_validates_and_says_everything(library):
    report = audit(library, THREE)
    doc = validate_sarif(sarif.render(report))
    assert (
        doc["version"] == "2.1.0"
        and doc["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    )
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "audit" and driver["version"]
    enabled = [(rs.id, r.id) for rs in report.rulesets for r in rs.model.rules if r.enabled]
    assert [(d["properties"]["ruleset"], d["id"]) for d in driver["rules"]] == enabled
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["FR-LATE-BET", "FR-BURN-START", "FR-PAY-MAIN"]
    assert [r["partialFingerprints"]["delAudit/v1"] for r in results] == report.fingerprints
    for r, f in zip(results, report.findings):
        rule = driver["rules"][r["ruleIndex"]]
        assert rule["id"] == f.rule and r["level"] == "error"
        assert rule["defaultConfiguration"]["level"] == "error"
        assert rule["properties"]["category"] == f.category
        assert f.citation.split(": ", 1)[1] in rule["help"]["text"]
        loc = r["locations"][0]
        assert loc["physicalLocation"]["artifactLocation"]["uri"] == THREE
        assert loc["physicalLocation"]["region"]["startLine"] == f.line
        assert [ll["name"] for ll in loc["logicalLocations"]] == ["BAT-07", "round 1"]
        assert r["properties"]["table"] == "BAT-07" and r["properties"]["round"] == 1
        assert r["properties"]["citation"] == f.citation and "suppressions" not in r
    pay = results[2]["message"]["text"]
    assert (
        "expected: PAY seat=3 spot=main amount=50" in pay
        and "actual: PAY seat=3 spot=main amount=40" in pay
    )
    (artifact,) = run["artifacts"]
    assert artifact["location"]["uri"] == THREE
    assert artifact["hashes"] == {"sha-256": report.inputs[0].sha256}
    (summary,) = run["properties"]["tableSummaries"]
    assert summary["table"] == "BAT-07" and summary["rounds"] == 1
    assert summary["findings"] == {"late-bet": 1, "missed-burn": 1, "wrong-payout": 1}
    assert run["properties"]["staleBaselineEntries"] == []


def test_sarif_of_a_folder_validates_with_one_result_per_finding(library):
    report = audit(library, FR_FOLDER)
    assert report.findings and len(report.inputs) > 1
    doc = validate_sarif(sarif.render(report))
    (run,) = doc["runs"]
    assert len(run["results"]) == len(report.findings)
    rules = run["tool"]["driver"]["rules"]
    for r, f in zip(run["results"], report.findings):
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"] == f.rule
        assert r["level"] == {"error": "error", "warning": "warning", "info": "note"}[f.severity]
    uris = [a["location"]["uri"] for a in run["artifacts"]]
    assert uris == [i.path for i in report.inputs]
    for r in run["results"]:
        loc = r["locations"][0]["physicalLocation"]["artifactLocation"]
        assert uris[loc["index"]] == loc["uri"]
    fps = [r["partialFingerprints"]["delAudit/v1"] for r in run["results"]]
    assert fps == report.fingerprints


def test_sarif_gives_the_column_of_a_syntax_finding(library):
    report = audit(library, DEL_FOLDER)
    doc = validate_sarif(sarif.render(report))
    syntax = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "DEL-SYNTAX"]
    assert syntax
    for r in syntax:
        region = r["locations"][0]["physicalLocation"]["region"]
        column = r["message"]["text"].split(":", 1)[0]
        if column.startswith("column "):
            assert region["startColumn"] == int(column.split()[1])
        assert "logicalLocations" not in r["locations"][0]


def test_artifact_uris():
    assert sarif.artifact_uri("logs/night 1.del") == "logs/night%201.del"
    assert sarif.artifact_uri("<stdin>") == "stdin"
    assert sarif.artifact_uri("/var/logs/a.del") == "file:///var/logs/a.del"
    assert sarif.artifact_uri("logs/21:00.del") == "logs/21%3A00.del"


# -- JUnit ---------------------------------------------------------------------------


def test_junit_of_three_breaches(library):
    report = audit(library, THREE)
    root = junit_tree(junit.render(report))
    check_junit_counts(root)
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == THREE
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["sha256"] == report.inputs[0].sha256
    assert props["table.BAT-07.rounds"] == "1" and props["table.BAT-07.drop"] == "90.00"
    assert props["table.BAT-07.findings.wrong-payout"] == "1"
    failures = [
        (c.get("classname"), c.get("name"), c.find("failure"))
        for c in suite.findall("testcase")
        if c.find("failure") is not None
    ]
    assert [(cls, name) for cls, name, _ in failures] == [
        ("fr-bataille-2007.BAT-07", "FR-BURN-START"),
        ("fr-bataille-2007.BAT-07", "FR-LATE-BET"),
        ("fr-bataille-2007.BAT-07", "FR-PAY-MAIN"),
    ]
    pay = failures[2][2]
    assert pay.get("type") == "wrong-payout" and pay.get("message").startswith(
        "seat 3 main: paid 40"
    )
    assert ":31\n" in pay.text and "round 1" in pay.text
    assert (
        "expected: PAY seat=3 spot=main amount=50" in pay.text
        and "payée une fois la mise" in pay.text
    )
    names = {(c.get("classname"), c.get("name")) for c in suite.findall("testcase")}
    fr = library.rulesets["fr-bataille-2007"]
    assert {("fr-bataille-2007.BAT-07", r.id) for r in fr.model.rules if r.enabled} <= names
    assert {("del-v1.BAT-07", r.id) for r in library.format_rules.model.rules} <= names


@pytest.mark.parametrize("folder", [FR_FOLDER, DEL_FOLDER])
def test_junit_has_one_failure_per_finding(library, folder):
    report = audit(library, folder)
    root = junit_tree(junit.render(report))
    check_junit_counts(root)
    got = Counter()
    for suite in root.findall("testsuite"):
        for case in suite.findall("testcase"):
            for failure in case.findall("failure"):
                got[
                    (
                        suite.get("name"),
                        case.get("classname"),
                        case.get("name"),
                        failure.get("message"),
                    )
                ] += 1
    want = Counter(
        (
            f.path,
            f"{f.ruleset}.{f.table if f.table is not None else '(no table)'}",
            f.rule,
            f.message,
        )
        for f in report.findings
    )
    assert got == want
    assert [s.get("name") for s in root.findall("testsuite")] == [i.path for i in report.inputs]


def test_junit_survives_characters_xml_cannot_carry(library, tmp_path):
    log = tmp_path / "ctrl.del"
    log.write_bytes(b"#DEL 1\n2026-11-20T21:00:00.000+01:00 BAT-01 OPEN \x01game=bataille\x0c\n")
    report = audit(library, str(log))
    assert report.findings
    root = junit_tree(junit.render(report))
    check_junit_counts(root)
    assert sum(len(c.findall("failure")) for c in root.iter("testcase")) == len(report.findings)
    validate_sarif(sarif.render(report))


# -- both ----------------------------------------------------------------------------


@pytest.mark.parametrize("paths", [[THREE], [FR_FOLDER]])
def test_both_formats_are_deterministic(library, paths):
    a, b = audit(library, *paths), audit(Library.load(), *paths)
    assert sarif.render(a) == sarif.render(b)
    assert junit.render(a) == junit.render(b)


def test_a_suppressed_finding_is_a_sarif_suppression_and_a_junit_skip(library):
    report = audit(library, THREE)
    moved = report.findings.pop(0)
    fingerprint = report.fingerprints.pop(0)
    report.suppressed.append(
        Suppressed(moved, fingerprint, "known late bet, reviewed by the supervisor")
    )
    report.baseline = "audit-baseline.json"
    report.stale = [
        {
            "fingerprint": "0" * 32,
            "rule": "FR-PAY-MAIN",
            "table": "BAT-07",
            "round": 9,
            "path": THREE,
            "message": "seat 3 main: paid 40",
            "justification": "paid at the cage",
        }
    ]

    doc = validate_sarif(sarif.render(report))
    (run,) = doc["runs"]
    assert len(run["results"]) == 3
    suppressed = [r for r in run["results"] if "suppressions" in r]
    (only,) = suppressed
    assert only["ruleId"] == moved.rule == "FR-LATE-BET"
    assert only["suppressions"][0]["kind"] == "external"
    assert only["suppressions"][0]["justification"] == "known late bet, reviewed by the supervisor"
    assert only["partialFingerprints"]["delAudit/v1"] == fingerprint
    assert only["baselineState"] == "unchanged"
    assert {r["baselineState"] for r in run["results"] if "suppressions" not in r} == {"new"}
    assert run["properties"]["staleBaselineEntries"] == report.stale
    assert run["properties"]["baseline"] == "audit-baseline.json"

    root = junit_tree(junit.render(report))
    check_junit_counts(root)
    assert root.get("failures") == "2" and root.get("skipped") == "1"
    props = {p.get("name"): p.get("value") for p in root.find("testsuite/properties")}
    assert props["baseline"] == "audit-baseline.json" and props["baseline.stale"] == "1"
    (case,) = [c for c in root.iter("testcase") if c.find("skipped") is not None]
    assert (case.get("classname"), case.get("name")) == ("fr-bataille-2007.BAT-07", "FR-LATE-BET")
    assert case.find("failure") is None
    assert (
        case.find("skipped").get("message")
        == "baselined: known late bet, reviewed by the supervisor"
    )
    assert (
        sum(len(c.findall("failure")) for c in root.iter("testcase")) == len(report.findings) == 2
    )


def test_a_clean_night_has_no_result_and_no_failure(library):
    report = audit(library, "fixtures/nights/example-night.del")
    assert not report.findings
    doc = validate_sarif(sarif.render(report))
    assert doc["runs"][0]["results"] == []
    root = junit_tree(junit.render(report))
    check_junit_counts(root)
    assert root.get("failures") == "0" and int(root.get("tests")) > 0


def test_the_documented_nightly_command_runs_on_the_example_night(tmp_path):
    """The command line of docs/ci/github-actions.yml, run on a folder holding the example night."""
    import shlex
    import subprocess
    import sys

    import yaml

    root = Path(__file__).resolve().parent.parent
    workflow = yaml.safe_load(
        (root / "docs" / "ci" / "github-actions.yml").read_text(encoding="utf-8")
    )
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    run = next(s["run"] for s in steps if "audit check" in s.get("run", ""))
    line = (
        next(r for r in run.splitlines() if r.strip().startswith("audit check"))
        .strip()
        .rstrip("\\")
        .strip()
    )
    args = shlex.split(line)
    assert "--format" in args and "sarif" in args and "junit" in args
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "night.del").write_bytes(
        (root / "fixtures" / "nights" / "example-night.del").read_bytes()
    )
    baseline = subprocess.run(
        [
            sys.executable,
            "-m",
            "audit",
            "baseline",
            "create",
            "logs/",
            "--output",
            "audit-baseline.json",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert baseline.returncode == 0, baseline.stderr
    done = subprocess.run(
        [sys.executable, "-m", "audit", *args[1:]], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    for name in ("report.json", "audit.sarif", "junit.xml"):
        assert (tmp_path / name).stat().st_size > 0
