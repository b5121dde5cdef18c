"""``audit explain RULE`` and the generated rule reference ``docs/rules.md``."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from audit.explain import (
    UnknownRule,
    block,
    explain_text,
    find_rule,
    flow,
    rule_params,
)
from audit.rules_markdown import REGENERATE, rules_markdown
from audit.rulesets import Library
from fixtures import ROOT, RULE_FIXTURES

DOCS_RULES = ROOT / "docs" / "rules.md"

_MARKED = re.compile(r"^\s*>>\s*(\d+)  (.*)$")
_SHOWN = re.compile(r"^\s{4,}(\d+)  (.*)$")


@pytest.fixture(scope="module")
def library() -> Library:
    return Library.load()


def _section(text: str, heading: str) -> list[str]:
    """The lines after the line starting with ``heading``, up to the next blank line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    out = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        out.append(line)
    return out


@pytest.mark.parametrize("rule_id", ["FR-PAY-MAIN", "MC-BATAILLE-ACE", "CDF-TABLEAU", "DEL-SYNTAX"])
def test_explain_shows_the_rule_and_its_examples(library, rule_id):
    loaded, rule = find_rule(library, rule_id)
    text = explain_text(library, rule_id, RULE_FIXTURES)

    assert text.splitlines()[0] == rule.id
    assert loaded.id in text.splitlines()[1]
    assert f"category  {rule.category}" in text
    assert f"severity  {rule.severity}" in text
    assert rule.message in text
    assert rule.citation.article in text
    assert rule.citation.text in text
    if rule.reading:
        assert rule.reading in text
    for key in rule.params:
        assert f"{key}:" in text

    fixture = RULE_FIXTURES / loaded.id / f"{rule.id}.del"
    raw = fixture.read_text(encoding="utf-8").splitlines()

    failing = _section(text, "A log that breaks it")
    marked = [m for m in map(_MARKED.match, failing) if m]
    assert len(marked) == 1, failing
    number, shown = int(marked[0].group(1)), marked[0].group(2)
    assert raw[number - 1].rstrip() == shown, "the >> line is not that line of the fixture"
    assert "FAIL" in shown.split()[1]
    above = [line for line in raw[: number - 1] if line.strip()]
    assert re.match(rf"^\s*#\s*expect:\s*{re.escape(rule.id)}\s*$", above[-1]), (
        "the >> line is not the one an `# expect:` comment points at"
    )
    assert _MARKED.match(failing[-1]), "the >> line ends the failing excerpt"
    first = _SHOWN.match(failing[0])
    assert first and first.group(2).split()[2] == "OPEN", "the excerpt starts at the table's OPEN"

    passing = _section(text, "A log that keeps it")
    assert passing and not any(_MARKED.match(line) for line in passing)
    shown_pass = [m for m in map(_SHOWN.match, passing) if m]
    assert shown_pass
    tables = set()
    for m in shown_pass:
        n = int(m.group(1))
        assert raw[n - 1].rstrip() == m.group(2), "a passing line is not that line of the fixture"
        tables.add(m.group(2).split()[1])
    assert len(tables) == 1 and "PASS" in tables.pop()
    assert shown_pass[0].group(2).split()[2] == "OPEN"


def test_passing_excerpt_is_the_same_stretch_of_play(library):
    text = explain_text(library, "FR-PAY-MAIN", RULE_FIXTURES)
    failing = _section(text, "A log that breaks it")[-1]
    passing = _section(text, "A log that keeps it")[-1]
    assert "FR-FAIL COLLECT seat=5 spot=main amount=25" in failing
    assert "FR-PASS COLLECT seat=5 spot=main amount=20" in passing

    # MC-BATAILLE-ACE breaks the rule with a card the passing table never deals: the
    # passing excerpt ends where MC-PASS goes straight on to settle after the Ace.
    text = explain_text(library, "MC-BATAILLE-ACE", RULE_FIXTURES)
    assert "MC-FAIL DEAL dealer 5H" in _section(text, "A log that breaks it")[-1]
    passing = _section(text, "A log that keeps it")
    assert "MC-PASS DEAL seat=2 AS" in passing[-2]
    assert "MC-PASS PUSH seat=2 spot=main" in passing[-1]


def test_explain_every_rule(library):
    for loaded in library.rulesets.values():
        for rule in loaded.model.rules:
            text = explain_text(library, rule.id, RULE_FIXTURES)
            assert ">>" in text, rule.id
            assert "A log that keeps it" in text, rule.id


def test_explain_a_rule_with_no_passing_table(library):
    text = explain_text(library, "DEL-VERSION", RULE_FIXTURES)
    assert re.search(r">>\s+\d+  #DEL 2$", text, re.M)
    assert "A log that keeps it: the fixture has no passing table: the whole file after" in text


def test_explain_an_off_rule_names_its_house_overlay(library):
    text = explain_text(library, "FR-HOUSE-BOXES", RULE_FIXTURES)
    assert "state     off" in text
    assert "rulesets/house/fixture-fr-all-house-rules.yaml" in text
    assert "max_boxes: 2" in text


def test_rule_ids_are_case_insensitive(library):
    loaded, rule = find_rule(library, "fr-pay-main")
    assert (loaded.id, rule.id) == ("fr-bataille-2007", "FR-PAY-MAIN")
    assert explain_text(library, "fr-pay-main", RULE_FIXTURES).startswith("FR-PAY-MAIN\n")


def test_unknown_rule(library):
    assert find_rule(library, "FR-NO-SUCH-RULE") is None
    with pytest.raises(UnknownRule, match="no rule 'FR-PAY-MIAN'; did you mean FR-PAY-MAIN"):
        explain_text(library, "FR-PAY-MIAN", RULE_FIXTURES)
    with pytest.raises(LookupError, match="audit rules"):
        explain_text(library, "NOTHING-LIKE-IT-AT-ALL", RULE_FIXTURES)


def test_explain_without_the_fixtures_folder(library, tmp_path):
    text = explain_text(library, "FR-PAY-MAIN", tmp_path / "absent")
    assert text.rstrip().splitlines()[-1].startswith("Examples: the rule fixtures are not here")
    assert ">>" not in text
    assert "« Lorsque la valeur de la carte du joueur" in text


def test_explain_finds_the_fixtures_of_the_checkout_by_default(library):
    assert explain_text(library, "FR-PAY-MAIN") == explain_text(
        library, "FR-PAY-MAIN", RULE_FIXTURES
    )


def test_parameters_are_shown_exactly(library):
    _, surrender = find_rule(library, "FR-SURRENDER")
    assert rule_params(surrender) == {"fraction": Decimal("0.5"), "rounding": "down"}
    assert flow(rule_params(surrender)) == "{fraction: 0.5, rounding: down}"
    _, pay = find_rule(library, "FR-PAY-BATAILLE")
    assert block(rule_params(pay)) == [
        "equal: {main: push, war: push}",
        "higher: {main: pay, war: push}",
        "lower: {main: collect, war: collect}",
        "odds: 1",
    ]
    _, auction = find_rule(library, "CDF-AUCTION")
    lines = block(rule_params(auction))
    assert lines[:2] == ["bank_at_least_price: true", "grid: previous-bracket"]
    assert lines[2:5] == ["steps:", "  - below: 200", "    step: 20"]
    assert lines[-2:] == ["  - below: null", "    step: 1000"]


def test_rules_markdown_is_deterministic_and_complete(library):
    text = rules_markdown(library)
    assert text == rules_markdown(Library.load())
    assert text.startswith("# Rule reference\n")
    assert "do not edit it by hand" in text and REGENERATE in text
    for loaded in library.rulesets.values():
        assert f"\n## {loaded.id}\n" in text
        for rule in loaded.model.rules:
            assert f"\n### {rule.id}\n" in text
            assert (
                f"| [{rule.id}](#{rule.id.lower()}) | {rule.category} | {rule.severity} |" in text
            )
            assert f"> {' '.join(rule.citation.text.split())}\n" in text
    assert "- Parameters: `{fraction: 0.5, rounding: down}`" in text


def test_committed_rule_reference_is_up_to_date(library):
    expected = rules_markdown(library)
    committed = DOCS_RULES.read_text(encoding="utf-8") if DOCS_RULES.is_file() else ""
    assert committed == expected, (
        f"{DOCS_RULES.relative_to(ROOT)} is out of date with the rulesets; regenerate it with\n"
        f"    {REGENERATE}\nand commit the result"
    )
