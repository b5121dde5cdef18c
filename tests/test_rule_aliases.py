"""A renamed rule keeps its former id as an alias (``aliases: [OLD-ID]``): baselines written
before, ``--select``/``--ignore`` on the command line and in audit.toml, house overlays and
``audit explain OLD-ID`` still name it, while findings carry the new id. An alias that is
another rule's id or alias is a ruleset error with its file and line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.cli import app
from audit.resources import rulesets_dir
from audit.rulesets import Library, RulesetError

ROOT = Path(__file__).resolve().parent.parent
TALON = ROOT / "fixtures" / "rules" / "fr-bataille-2007" / "FR-STOPCARD-TALON.del"
HOUSE = ROOT / "rulesets" / "house" / "casino-exemple-fr.yaml"
OLD, NEW = "FR-STOPCARD-TALON", "FR-STOPCARD-DEPTH-TALON"


def _renamed(tmp_path: Path, aliases: str = f"[{OLD}]", rule: str = OLD) -> Path:
    """The shipped rulesets with one rule of the French ruleset renamed, its old id an alias."""
    folder = tmp_path / "rulesets"
    shutil.copytree(rulesets_dir(), folder, ignore=shutil.ignore_patterns("house", "sentences"))
    path = folder / "fr-bataille-2007.yaml"
    text = path.read_text(encoding="utf-8")
    old = f"  - id: {rule}\n"
    assert text.count(old) == 1
    new_id = NEW if rule == OLD else rule
    path.write_text(
        text.replace(old, f"  - id: {new_id}\n    aliases: {aliases}\n"), encoding="utf-8"
    )
    return folder


def _check(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, ["check", "--format", "json", *args])
    return result.exit_code, (json.loads(result.stdout) if result.stdout.startswith("{") else {})


def _rules(report: dict, key: str = "findings") -> list[str]:
    return sorted({f["rule"] for f in report[key]})


def test_findings_carry_the_new_id(tmp_path):
    _, before = _check(str(TALON))
    _, after = _check("--rulesets", str(_renamed(tmp_path)), str(TALON))
    assert OLD in _rules(before) and OLD not in _rules(after) and NEW in _rules(after)
    assert len(after["findings"]) == len(before["findings"])


def test_a_baseline_written_with_the_former_id_still_accepts_the_findings(tmp_path):
    baseline = tmp_path / "baseline.json"
    result = CliRunner().invoke(app, ["baseline", "create", "--output", str(baseline), str(TALON)])
    assert result.exit_code == 0, result.output
    assert OLD in {e["rule"] for e in json.loads(baseline.read_text())["entries"]}
    code, report = _check(
        "--rulesets", str(_renamed(tmp_path)), "--baseline", str(baseline), str(TALON)
    )
    assert (code, report["findings"], report["baseline"]["stale"]) == (0, [], []), report
    assert NEW in _rules(report, "suppressed")


def test_select_and_ignore_take_the_former_id(tmp_path):
    folder = str(_renamed(tmp_path))
    _, selected = _check("--rulesets", folder, "--select", OLD, str(TALON))
    assert _rules(selected) == [NEW]
    _, ignored = _check("--rulesets", folder, "--ignore", OLD, str(TALON))
    assert selected["findings"] and NEW not in _rules(ignored)


def test_the_configuration_takes_the_former_id(tmp_path):
    config = tmp_path / "audit.toml"
    config.write_text(f'rulesets = "rulesets"\nselect = ["{OLD}"]\n', encoding="utf-8")
    _renamed(tmp_path)
    _, report = _check("--config", str(config), str(TALON))
    assert _rules(report) == [NEW]


def test_an_overlay_naming_the_former_id_applies_to_the_rule(tmp_path):
    library = Library.load(_renamed(tmp_path), overlays=[HOUSE])
    rule = next(r for r in library.rulesets["fr-bataille-2007"].model.rules if r.id == NEW)
    assert (rule.params, rule.severity) == ({"min_talon": 52}, "error")
    assert library.rulesets["fr-bataille-2007"].overlay.changes.tightened == [NEW]


def test_an_overlay_naming_a_rule_twice_is_refused(tmp_path):
    overlay = tmp_path / "twice.yaml"
    overlay.write_text(
        HOUSE.read_text(encoding="utf-8") + f"  {NEW}:\n    severity: error\n",
        encoding="utf-8",
    )
    with pytest.raises(RulesetError, match=f"{OLD} and {NEW} name the same rule|{NEW} and {OLD}"):
        Library.load(_renamed(tmp_path), overlays=[overlay])


def test_explain_the_former_id_says_it_was_renamed(tmp_path):
    result = CliRunner().invoke(
        app, ["explain", "--rulesets", str(_renamed(tmp_path)), OLD.lower()]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == NEW
    assert lines[1] == f"  renamed: {OLD} is now {NEW}; findings carry {NEW}"
    assert "Reading (where the text is silent or ambiguous)" in result.stdout


@pytest.mark.parametrize(
    ("aliases", "rule", "message"),
    [
        ("[FR-SHOE-DECKS]", OLD, f"alias FR-SHOE-DECKS of {NEW} is the id of another rule"),
        (f"[{NEW}]", OLD, f"alias {NEW} is the rule's own id"),
        ("[MC-PAY-MAIN]", OLD, f"alias MC-PAY-MAIN of {NEW} is the id of another rule"),
        ("[lower-case]", OLD, "String should match pattern"),
    ],
)
def test_an_alias_that_names_another_rule_is_refused_with_its_line(
    tmp_path, aliases, rule, message
):
    folder = _renamed(tmp_path, aliases, rule)
    line = next(
        n
        for n, text in enumerate((folder / "fr-bataille-2007.yaml").read_text().splitlines(), 1)
        if text.startswith("    aliases:")
    )
    result = CliRunner().invoke(app, ["rules", "--rulesets", str(folder)])
    assert result.exit_code == 2
    assert f"fr-bataille-2007.yaml, line {line}: rules[" in result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_two_rules_may_not_share_an_alias(tmp_path):
    folder = _renamed(tmp_path, "[FR-OLD-NAME]")
    path = folder / "fr-bataille-2007.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace("  - id: FR-PAY-MAIN\n", "  - id: FR-PAY-MAIN\n    aliases: [FR-OLD-NAME]\n"),
        encoding="utf-8",
    )
    with pytest.raises(
        RulesetError,
        match=r"aliases\[0\]: alias FR-OLD-NAME of FR-PAY-MAIN is "
        f"already an alias of {NEW}",
    ):
        Library.load(folder)


def test_the_rule_reference_gives_the_former_ids(tmp_path):
    from audit.rules_markdown import rules_markdown

    text = rules_markdown(Library.load(_renamed(tmp_path)))
    entry = text[text.index(f"### {NEW}") :]
    assert f"- Former ids: `{OLD}`" in entry[: entry.index("\n### ")]
