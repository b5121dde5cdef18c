"""What shaped a report is in the report: the configuration file and its hash, the rulesets and
overlays, the selection and the findings it hid, the baseline and what it suppressed, in the JSON,
SARIF, JUnit, text and GitHub reports and in --quiet's line (docs/trust.md)."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from in_process import audit as audit_here
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from audit import findings_store
from audit.cli import app
from fixtures import copy_rulesets

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "tests" / "golden" / "logs" / "fr-bataille-2007-faulty.del"
MIXED = ROOT / "tests" / "golden" / "logs" / "mixed-faulty.del"
HOUSE = ROOT / "rulesets" / "house" / "casino-exemple-fr.yaml"
SCHEMA = json.loads((ROOT / "tests" / "schemas" / "del-audit-configuration.json").read_text())
#: every rule of every shipped ruleset, by the prefixes of their ids
EVERY_RULE = '["DEL-", "FR-", "MC-", "CDF-"]'


def audit(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The command line in this process (tests/in_process.py), in the folder ``cwd``."""
    return audit_here(*args, cwd=cwd, env={"NO_COLOR": "1"})


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_json(*args: str, cwd: Path = ROOT) -> dict:
    done = audit("check", "--no-progress", "-f", "json", *args, cwd=cwd)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    Draft202012Validator(SCHEMA).validate(report["configuration"])
    return report


def in_process(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["check", "--no-progress", *args])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def unselected() -> dict:
    """The JSON report of the mixed night with every rule, as the selections below are measured against."""
    return check_json(str(MIXED))


def test_a_parent_audit_toml_that_ignores_every_rule_says_so_first(tmp_path, unselected):
    (tmp_path / "audit.toml").write_text(f"ignore = {EVERY_RULE}\n")
    child = tmp_path / "nightly"
    child.mkdir()
    every = sum(unselected["summary"]["findings"].values())
    assert every > 0

    text = audit("check", "--no-progress", str(MIXED), cwd=child)
    assert text.returncode == 0, text.stderr  # nothing left to fail the run...
    first = text.stdout.splitlines()[0]
    # ...and the first line says why
    assert (
        first == f"audit: {every} finding(s) hidden by ignore DEL-, FR-, MC-, CDF- (../audit.toml)"
    )
    assert f"no finding reported; {every} hidden by the selection" in text.stdout

    report = check_json(str(MIXED), cwd=child)
    conf = report["configuration"]
    assert conf["files"] == [{"path": "../audit.toml", "sha256": sha256(tmp_path / "audit.toml")}]
    assert conf["selection"] == {
        "select": [],
        "ignore": ["DEL-", "FR-", "MC-", "CDF-"],
        "source": "../audit.toml",
        "hidden": every,
    }
    assert report["findings"] == [] and conf["fail_on"] == "error" and conf["statistics"] is True

    page = tmp_path / "night.html"
    done = audit("check", "--no-progress", "-f", "html", "-o", str(page), str(MIXED), cwd=child)
    assert done.returncode == 0, done.stderr
    html = page.read_text(encoding="utf-8")
    banner = html.index('id="hidden-findings"')
    assert banner < html.index('id="verdict"') + 4000  # on the first screen, beside the verdict
    assert f"{every} findings</strong> hidden by ignore" in html[banner : banner + 2000]
    assert "../audit.toml" in html[banner : banner + 2000]


def test_without_configuration_the_report_says_so_and_hides_nothing(tmp_path):
    report = check_json(str(LOG), cwd=tmp_path)
    conf = report["configuration"]
    assert conf["files"] == [] and conf["overlays"] == [] and conf["baseline"] is None
    assert conf["selection"] == {"select": [], "ignore": [], "source": None, "hidden": 0}
    shipped = {p.stem: sha256(p) for p in (ROOT / "rulesets").glob("*.yaml")}
    assert {r["id"]: r["sha256"] for r in conf["rulesets"]} == shipped
    text = audit("check", "--no-progress", str(LOG), cwd=tmp_path).stdout.splitlines()
    assert text[0].startswith("audit: /") and "configuration file: none (defaults)" in text[1]


def test_a_named_configuration_and_the_command_line(tmp_path, unselected):
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.audit]\nfail-on = "warning"\nselect = ["wrong-payout"]\n')
    conf = check_json("--config", str(config), "--ignore", "FR-PAY-MAIN", str(MIXED), cwd=tmp_path)[
        "configuration"
    ]
    assert conf["files"] == [{"path": "pyproject.toml", "sha256": sha256(config)}]
    assert conf["fail_on"] == "warning"
    # select from the file, ignore from the command line
    assert conf["selection"]["select"] == ["wrong-payout"] and conf["selection"]["ignore"] == [
        "FR-PAY-MAIN"
    ]
    assert conf["selection"]["source"] == "pyproject.toml and command line"
    kept = [
        f
        for f in unselected["findings"]
        if f["category"] == "wrong-payout" and f["rule"] != "FR-PAY-MAIN"
    ]
    assert conf["selection"]["hidden"] == len(unselected["findings"]) - len(kept)


@pytest.mark.parametrize("threshold", [None, 3])
def test_the_hidden_count_whether_the_findings_spilled_or_not(
    threshold, tmp_path, monkeypatch, temporary_folder, unselected
):
    merges = []
    real = findings_store.merged
    monkeypatch.setattr(findings_store, "merged", lambda stores: merges.append(1) or real(stores))
    if threshold is not None:
        monkeypatch.setattr(findings_store, "THRESHOLD", threshold)
    base = tmp_path / "baseline.json"
    assert (
        CliRunner()
        .invoke(
            app,
            [
                "baseline",
                "create",
                "-o",
                str(base),
                "--select",
                "wrong-payout,late-bet",
                str(MIXED),
            ],
        )
        .exit_code
        == 0
    )
    out = tmp_path / "report.json"
    in_process(
        "-f",
        "json",
        "-o",
        str(out),
        "--baseline",
        str(base),
        "--ignore",
        "wrong-payout,MC-DEAL-",
        str(MIXED),
    )
    assert bool(merges) == (threshold is not None)
    report = json.loads(out.read_text())
    conf = report["configuration"]
    hidden = [
        f
        for f in unselected["findings"]
        if f["category"] == "wrong-payout" or f["rule"].startswith("MC-DEAL-")
    ]
    suppressed = [f for f in unselected["findings"] if f["category"] == "late-bet"]
    assert hidden and suppressed
    # the findings hidden and the baselined findings the selection left out both count as hidden
    assert conf["selection"]["hidden"] == len(hidden)
    assert conf["baseline"]["sha256"] == sha256(base) and conf["baseline"]["suppressed"] == len(
        suppressed
    )
    # nothing is lost: what the rules found is listed, suppressed or hidden
    listed = sum(report["summary"]["findings"].values())
    assert listed + conf["baseline"]["suppressed"] + conf["selection"]["hidden"] == len(
        unselected["findings"]
    )


def test_the_baseline_suppressed_count_and_hash(tmp_path, unselected):
    base = tmp_path / "accepted.json"
    assert (
        audit(
            "baseline", "create", "-o", str(base), "--select", "wrong-payout", str(MIXED)
        ).returncode
        == 0
    )
    report = check_json("--baseline", str(base), str(MIXED), cwd=tmp_path)
    accepted = [f for f in unselected["findings"] if f["category"] == "wrong-payout"]
    assert report["configuration"]["baseline"] == {
        "path": "accepted.json",
        "sha256": sha256(base),
        "suppressed": len(accepted),
    }
    assert len(report["suppressed"]) == len(accepted)
    quiet = audit("check", "-q", "--baseline", str(base), str(MIXED), cwd=tmp_path).stdout
    assert f"{len(accepted)} suppressed by the baseline accepted.json" in quiet
    first = audit(
        "check", "--no-progress", "--baseline", str(base), str(MIXED), cwd=tmp_path
    ).stdout.splitlines()[0]
    assert first == f"audit: {len(accepted)} suppressed by baseline accepted.json"


def test_house_overlays_are_listed_with_their_hash(tmp_path):
    report = check_json("--house", str(HOUSE), str(LOG), cwd=ROOT)
    [overlay] = report["configuration"]["overlays"]
    assert overlay["path"] == "rulesets/house/casino-exemple-fr.yaml" and overlay[
        "sha256"
    ] == sha256(HOUSE)
    assert overlay["tables"] == "*" and overlay["ruleset"] == "fr-bataille-2007"
    first = audit("check", "--no-progress", "--house", str(HOUSE), str(LOG)).stdout.splitlines()[0]
    assert first.startswith("audit: house overlay rulesets/house/casino-exemple-fr.yaml")
    # an overlay set for tables by the configuration names them
    (tmp_path / "audit.toml").write_text(f'[house]\n"FR-0*" = "{HOUSE.as_posix()}"\n')
    [overlay] = check_json(str(LOG), cwd=tmp_path)["configuration"]["overlays"]
    assert overlay["tables"] == "FR-0*" and overlay["sha256"] == sha256(HOUSE)


def test_the_json_configuration_is_the_same_bytes_whatever_jobs(tmp_path):
    (tmp_path / "audit.toml").write_text('ignore = ["FR-PAY-"]\n')
    one = audit("check", "--no-progress", "-f", "json", str(MIXED), cwd=tmp_path)
    two = audit("check", "--no-progress", "-f", "json", "--jobs", "2", str(MIXED), cwd=tmp_path)
    assert (
        one.stdout == two.stdout
        and json.loads(one.stdout)["configuration"]["selection"]["hidden"] > 0
    )


def test_sarif_junit_and_github_carry_the_configuration(tmp_path, unselected):
    config = tmp_path / "audit.toml"
    config.write_text('ignore = ["wrong-payout"]\n')
    hidden = sum(1 for f in unselected["findings"] if f["category"] == "wrong-payout")
    sarif = json.loads(audit("check", "-f", "sarif", str(MIXED), cwd=tmp_path).stdout)
    conf = sarif["runs"][0]["properties"]["configuration"]
    assert conf["files"] == [{"path": "audit.toml", "sha256": sha256(config)}]
    assert conf["selection"]["hidden"] == hidden and conf["selection"]["ignore"] == ["wrong-payout"]

    junit = ET.fromstring(audit("check", "-f", "junit", str(MIXED), cwd=tmp_path).stdout)
    [suite] = junit.findall("testsuite")
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["configuration.files.1.path"] == "audit.toml"
    assert props["configuration.files.1.sha256"] == sha256(config)
    assert props["configuration.selection.ignore"] == "wrong-payout"
    assert props["configuration.selection.source"] == "audit.toml"
    assert props["configuration.selection.hidden"] == str(hidden)
    assert props["configuration.fail_on"] == "error" and props["configuration.statistics"] == "true"
    assert props["configuration.rulesets.fr-bataille-2007.sha256"] == sha256(
        ROOT / "rulesets" / "fr-bataille-2007.yaml"
    )

    github = audit("check", "-f", "github", str(MIXED), cwd=tmp_path).stdout.splitlines()
    assert github[0] == (
        f"::notice title=what shaped this report::{hidden} finding(s) hidden by ignore "
        "wrong-payout (audit.toml)"
    )
    assert all(not line.startswith("::notice title=what") for line in github[1:])
    config.unlink()  # nothing shaped the report: no notice
    assert not audit("check", "-f", "github", str(MIXED), cwd=tmp_path).stdout.startswith(
        "::notice title=what"
    )


def test_the_quiet_line_keeps_what_was_hidden(tmp_path, unselected):
    (tmp_path / "audit.toml").write_text('ignore = ["DEL-TIME-ORDER", "FR-"]\n')
    hidden = sum(
        1
        for f in unselected["findings"]
        if f["rule"] == "DEL-TIME-ORDER" or f["rule"].startswith("FR-")
    )
    done = audit("check", "-q", str(MIXED), cwd=tmp_path)
    assert done.stdout.count("\n") == 1
    assert done.stdout.rstrip().endswith(
        f"; {hidden} finding(s) hidden by ignore DEL-TIME-ORDER, FR- (audit.toml)"
    )
    # with a report for a program on standard output, the line goes to standard error, the same
    assert audit("check", "-q", "-f", "json", str(MIXED), cwd=tmp_path).stderr == done.stdout


def test_the_quiet_line_names_an_anomaly_and_why_the_run_fails(tmp_path):
    log = tmp_path / "night.del"
    made = audit(
        "simulate",
        "-r",
        "fr-bataille-2007",
        "--rounds",
        "300",
        "--anomaly",
        "stacked-shoe",
        "-o",
        str(log),
    )
    assert made.returncode == 0, made.stderr
    done = audit("check", "--statistics", "-q", str(log), cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.startswith("audit: no finding, 2 statistics anomalies in 1 file(s)")
    failing = audit("check", "--statistics", "-q", "--fail-on-anomaly", str(log), cwd=tmp_path)
    assert failing.returncode == 1
    assert "2 statistics anomalies (failing the run: --fail-on-anomaly)" in failing.stdout
    conf = check_json("--statistics", "--fail-on-anomaly", str(log), cwd=tmp_path)["configuration"]
    assert conf["statistics"] is True and conf["fail_on_anomaly"] is True


def test_baseline_create_says_what_the_selection_left_out(tmp_path, unselected):
    (tmp_path / "audit.toml").write_text('ignore = ["MC-"]\n')
    done = audit("baseline", "create", "-o", "b.json", str(MIXED), cwd=tmp_path)
    hidden = sum(1 for f in unselected["findings"] if f["rule"].startswith("MC-"))
    assert done.returncode == 0 and done.stdout == (
        f"audit: {len(unselected['findings']) - hidden} finding(s) written to b.json; "
        f"{hidden} finding(s) hidden by ignore MC- (audit.toml), not in the baseline\n"
    )


def test_paths_are_shown_from_the_current_folder_when_they_share_more_than_the_root(
    tmp_path, monkeypatch
):
    from audit.configuration import shown_path

    (tmp_path / "logs" / "nightly").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "logs" / "nightly")
    assert shown_path(tmp_path / "audit.toml") == "../../audit.toml"
    assert (
        shown_path(tmp_path / "logs" / "nightly" / "house" / "casino.yaml") == "house/casino.yaml"
    )
    assert shown_path("b.json") == "b.json"
    elsewhere = Path("/") / "nowhere-shared" / "audit.toml"  # only the root in common: as given
    assert shown_path(elsewhere) == "/nowhere-shared/audit.toml"


def test_a_ruleset_that_is_not_the_shipped_one_is_named_in_every_format(tmp_path):
    """A folder of rulesets is the audited party's to give: one whose bytes are not this version's
    own, under the same id, is said to be so (JSON, the text report's first line, -q, HTML)."""
    folder = copy_rulesets(tmp_path / "rules")
    changed = folder / "fr-bataille-2007.yaml"
    changed.write_bytes(changed.read_bytes() + b"# one byte more than the regulation's\n")
    report = check_json("--rulesets", str(folder), str(LOG))
    used = {r["id"]: r for r in report["configuration"]["rulesets"]}
    assert used["fr-bataille-2007"]["shipped"] is False
    assert used["fr-bataille-2007"]["path"].endswith("rules/fr-bataille-2007.yaml")
    assert used["fr-bataille-2007"]["sha256"] == sha256(changed)
    assert all(
        r["shipped"] and r["path"] is None for i, r in used.items() if i != "fr-bataille-2007"
    )
    text = audit("check", "--no-progress", "--rulesets", str(folder), str(LOG)).stdout
    assert text.splitlines()[0].startswith("audit: ruleset fr-bataille-2007 is not the one shipped")
    quiet = audit("check", "-q", "--rulesets", str(folder), str(LOG)).stdout
    assert "ruleset(s) not shipped: fr-bataille-2007" in quiet
    page = tmp_path / "night.html"
    audit(
        "check", "--no-progress", "-f", "html", "-o", str(page), "--rulesets", str(folder), str(LOG)
    )
    html = page.read_text(encoding="utf-8")
    assert 'id="hidden-findings"' in html and "is not the one shipped with audit" in html


def test_the_shipped_rulesets_are_said_to_be_shipped():
    report = check_json(str(LOG))
    assert report["configuration"]["rulesets"] and all(
        r["shipped"] for r in report["configuration"]["rulesets"]
    )


def test_the_hashes_the_docs_publish_are_those_a_report_names():
    """On a machine the audited party controls, a shipped file edited in place is still "shipped":
    the regulator compares each ruleset's hash with the one docs/rulesets.md publishes."""
    report = check_json(str(MIXED), str(ROOT / "fixtures" / "nights" / "cdf-night.del"))
    table = (ROOT / "docs" / "rulesets.md").read_text(encoding="utf-8")
    published = dict(
        re.findall(r"^\| `rulesets/[^`]+` \| `([^`]+)` \|.*\| `([0-9a-f]{64})` \|$", table, re.M)
    )
    used = {r["id"]: r["sha256"] for r in report["configuration"]["rulesets"]}
    assert set(used) == set(published)  # every shipped ruleset: the format's and each game's
    assert used == published
