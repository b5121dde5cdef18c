"""The CI annotation formats, parsed back and checked field by field against their documented shapes:
GitHub Actions workflow commands (``--format github``) and GitLab Code Quality JSON (``--format gitlab``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from audit.findings import Finding
from audit.fingerprint import fingerprints
from audit.report import Report, Suppressed
from audit.reporters import REPORTERS, github, gitlab
from audit.rulesets import Library
from audit.run import run_audit

ROOT = Path(__file__).resolve().parent.parent
THREE = "fixtures/acceptance/three-breaches.del"
FOLDERS = [
    "fixtures/rules/del-v1",
    "fixtures/rules/fr-bataille-2007",
    "fixtures/rules/mc-sun-war-2006",
    "fixtures/rules/be-ostende-cdf",
]

#: a workflow command line as the runner reads it: ::command key=value,key=value::data
COMMAND = re.compile(r"^::(?P<command>[a-z]+) (?P<props>[^:]*)::(?P<data>.*)$")
#: GitHub's unescaping of data and of property values (the actions toolkit's command.ts, reversed)
DATA_ESCAPES = {"%0D": "\r", "%0A": "\n", "%25": "%"}
PROPERTY_ESCAPES = {"%3A": ":", "%2C": ",", **DATA_ESCAPES}


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="module")
def library() -> Library:
    return Library.load()


def unescape(text: str, escapes: dict[str, str]) -> str:
    return re.sub("|".join(escapes), lambda m: escapes[m.group(0)], text)


def parse_workflow_commands(text: str) -> list[dict]:
    """Every line a workflow command, each parsed: command, properties and message unescaped."""
    out = []
    for line in text.splitlines():
        m = COMMAND.match(line)
        assert m, line
        assert "\r" not in line
        props = dict(p.split("=", 1) for p in m["props"].split(","))
        out.append(
            {
                "command": m["command"],
                **{k: unescape(v, PROPERTY_ESCAPES) for k, v in props.items()},
                "message": unescape(m["data"], DATA_ESCAPES),
            }
        )
    return out


def made_up(
    message: str = "m",
    path: str = "logs/night.del",
    table: str | None = "T1",
    rnd: int | None = 2,
    severity: str = "error",
    expected: str | None = None,
    actual: str | None = None,
) -> Finding:
    return Finding(
        rule="FR-PAY-MAIN",
        category="wrong-payout",
        severity=severity,
        path=path,
        line=7,
        table=table,
        round=rnd,
        message=message,
        expected=expected,
        actual=actual,
        ruleset="fr-bataille-2007",
        citation="art. 55-19",
    )


def report_of(*findings: Finding) -> Report:
    return Report(findings=list(findings), fingerprints=fingerprints(list(findings)))


# -- GitHub ---------------------------------------------------------------------------


def test_github_annotates_each_finding_of_three_breaches(library):
    report = run_audit(library, [THREE])
    parsed = parse_workflow_commands(REPORTERS["github"].render(report))
    assert [(a["command"], a["file"], a["line"], a["title"]) for a in parsed] == [
        ("error", THREE, "24", "FR-LATE-BET"),
        ("error", THREE, "26", "FR-BURN-START"),
        ("error", THREE, "31", "FR-PAY-MAIN"),
    ]
    assert all(set(a) == {"command", "file", "line", "title", "message"} for a in parsed)
    pay = parsed[2]["message"].split("\n")
    assert pay[0] == (
        "seat 3 main: paid 40, rules pay 50 (1 to 1 on a stake of 50, QH beats 8C) "
        "(table BAT-07, round 1, at 2026-11-20T21:01:18.000+01:00, dealer D0412, shoe 1; "
        "wrong-payout, fr-bataille-2007)"
    )
    assert pay[1:3] == [
        "expected: PAY seat=3 spot=main amount=50",
        "actual: PAY seat=3 spot=main amount=40",
    ]
    assert pay[3].startswith("art. 55-19, « Le principe du jeu »")


@pytest.mark.parametrize("folder", FOLDERS)
def test_github_gives_one_command_per_finding_with_its_severity(library, folder):
    report = run_audit(library, [folder])
    parsed = parse_workflow_commands(github.render(report))
    assert len(parsed) == len(report.findings) > 0
    for a, f in zip(parsed, report.findings):
        assert (
            a["command"] == {"error": "error", "warning": "warning", "info": "notice"}[f.severity]
        )
        assert (a["file"], int(a["line"]), a["title"]) == (f.path, f.line, f.rule)
        assert a["message"].startswith(f.message) and a["message"].endswith(f.citation)


def test_github_escapes_what_would_end_or_split_a_command():
    f = made_up(
        message="100% of\r\nthe ::stake, lost",
        path="logs/a:b,c%.del",
        table=None,
        rnd=None,
        severity="info",
        actual="BET amount=5\n::error::forged",
    )
    text = github.render(report_of(f))
    assert text.count("\n") == 1 and "\r" not in text
    assert text.startswith(
        "::notice file=logs/a%3Ab%2Cc%25.del,line=7,title=FR-PAY-MAIN::100%25 of%0D%0Athe ::stake"
    )
    (a,) = parse_workflow_commands(text)
    assert a["file"] == "logs/a:b,c%.del"
    assert a["message"] == (
        "100% of\r\nthe ::stake, lost (no table; wrong-payout, fr-bataille-2007)\n"
        "expected: —\nactual: BET amount=5\n::error::forged\nart. 55-19"
    )


def test_github_leaves_out_suppressed_findings_and_a_clean_night_is_empty():
    f = made_up()
    report = report_of()
    report.suppressed = [Suppressed(f, fingerprints([f])[0], "reviewed")]
    assert github.render(report) == ""


# -- GitLab ---------------------------------------------------------------------------

GITLAB_SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


def check_code_quality(text: str) -> list[dict]:
    """The documented shape: a JSON list of issues, each with exactly the fields GitLab reads."""
    issues = json.loads(text)
    assert isinstance(issues, list)
    for i in issues:
        assert set(i) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert isinstance(i["description"], str) and i["description"]
        assert isinstance(i["check_name"], str) and i["check_name"]
        assert re.fullmatch(r"[0-9a-f]{32}", i["fingerprint"])
        assert i["severity"] in GITLAB_SEVERITIES
        assert set(i["location"]) == {"path", "lines"} and set(i["location"]["lines"]) == {"begin"}
        assert (
            isinstance(i["location"]["lines"]["begin"], int)
            and i["location"]["lines"]["begin"] >= 1
        )
    # GitLab shows one issue per fingerprint: they must be unique
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    return issues


def test_gitlab_code_quality_of_three_breaches(library):
    report = run_audit(library, [THREE])
    issues = check_code_quality(REPORTERS["gitlab"].render(report))
    assert [
        (i["check_name"], i["severity"], i["location"]["path"], i["location"]["lines"]["begin"])
        for i in issues
    ] == [
        ("FR-LATE-BET", "critical", THREE, 24),
        ("FR-BURN-START", "critical", THREE, 26),
        ("FR-PAY-MAIN", "critical", THREE, 31),
    ]
    assert [i["fingerprint"] for i in issues] == report.fingerprints
    assert issues[2]["description"] == (
        "FR-PAY-MAIN: seat 3 main: paid 40, rules pay 50 "
        "(1 to 1 on a stake of 50, QH beats 8C) (table BAT-07, round 1, "
        "at 2026-11-20T21:01:18.000+01:00, dealer D0412, shoe 1)"
    )


@pytest.mark.parametrize("folder", FOLDERS)
def test_gitlab_gives_one_issue_per_finding(library, folder):
    report = run_audit(library, [folder])
    issues = check_code_quality(gitlab.render(report))
    assert len(issues) == len(report.findings) > 0
    for i, f, fp in zip(issues, report.findings, report.fingerprints):
        assert (
            i["check_name"],
            i["location"]["path"],
            i["location"]["lines"]["begin"],
            i["fingerprint"],
        ) == (f.rule, f.path, f.line, fp)
        assert (
            i["severity"] == {"error": "critical", "warning": "major", "info": "info"}[f.severity]
        )
        assert f.message in i["description"]


def test_gitlab_of_a_clean_night_is_an_empty_list():
    f = made_up()
    report = report_of()
    report.suppressed = [Suppressed(f, fingerprints([f])[0], "reviewed")]
    assert check_code_quality(gitlab.render(report)) == []


# -- the documented CI jobs -------------------------------------------------------------


def _documented_command(name: str) -> list[str]:
    import shlex

    import yaml

    job = yaml.safe_load((ROOT / "docs" / "ci" / name).read_text(encoding="utf-8"))
    if "jobs" in job:
        lines = [
            s["run"]
            for j in job["jobs"].values()
            for s in j["steps"]
            if "audit check" in s.get("run", "")
        ]
    else:
        lines = [line for j in job.values() for line in j["script"] if "audit check" in line]
    (line,) = lines
    return shlex.split(line)


def _run_in_a_repository_of_logs(tmp_path: Path, args: list[str]) -> subprocess.CompletedProcess:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "night.del").write_bytes((ROOT / THREE).read_bytes())
    (tmp_path / "audit-baseline.json").write_text(
        '{"format": "del-audit-baseline", "version": 1, "entries": []}\n', encoding="utf-8"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    assert args[:2] == ["audit", "check"]
    return subprocess.run(
        [sys.executable, "-m", "audit", *args[1:]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_github_job_annotates_the_findings_in_its_log(tmp_path):
    args = _documented_command("github-actions.yml")
    assert (
        args[args.index("github") - 1] == "--format"
        and "--output" not in args[args.index("github") :]
    )
    done = _run_in_a_repository_of_logs(tmp_path, args)
    assert done.returncode == 1, done.stderr
    parsed = parse_workflow_commands(done.stdout)
    assert [(a["command"], a["file"], a["title"]) for a in parsed] == [
        ("error", "logs/night.del", "FR-LATE-BET"),
        ("error", "logs/night.del", "FR-BURN-START"),
        ("error", "logs/night.del", "FR-PAY-MAIN"),
    ]


def test_the_gitlab_job_writes_the_code_quality_report_it_declares(tmp_path):
    import yaml

    args = _documented_command("gitlab-ci.yml")
    output = args[args.index("gitlab") + 2]
    job = next(
        iter(
            yaml.safe_load(
                (ROOT / "docs" / "ci" / "gitlab-ci.yml").read_text(encoding="utf-8")
            ).values()
        )
    )
    assert (
        job["artifacts"]["reports"]["codequality"] == output and output in job["artifacts"]["paths"]
    )
    done = _run_in_a_repository_of_logs(tmp_path, args)
    assert done.returncode == 1, done.stderr
    issues = check_code_quality((tmp_path / output).read_text(encoding="utf-8"))
    assert [(i["check_name"], i["location"]["path"]) for i in issues] == [
        ("FR-LATE-BET", "logs/night.del"),
        ("FR-BURN-START", "logs/night.del"),
        ("FR-PAY-MAIN", "logs/night.del"),
    ]
