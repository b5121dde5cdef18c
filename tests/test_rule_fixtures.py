"""One fixture per rule, its failing and passing cases side by side, checked exactly: every
``# expect:`` met, no other finding, and none where a line is marked ``# ok:``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from audit.rule_fixtures import fixture_text, uses_preamble
from audit.rulesets import Library
from audit.run import run_audit
from fixtures import RULE_FIXTURES, read_fixture, rule_fixtures

FIXTURES = rule_fixtures()


def _audit(fx, folder: Path):
    """The fixture audited as written, or, when it takes a preamble, with the preamble in place."""
    path = fx.path
    if uses_preamble(path):
        path = folder / path.name
        path.write_text(fixture_text(fx.path), encoding="utf-8")
    library = Library.load(overlays=fx.house)
    report = run_audit(library, [str(path)])
    return sorted((f.rule, f.line) for f in report.findings), report


def check_fixture(path: Path, folder: Path) -> None:
    fx = read_fixture(path)
    assert fx.expected, (
        f"{path.name} expects no finding: a rule fixture must break its rule at least once"
    )
    got, report = _audit(fx, folder)
    text = fixture_text(path)
    opened = set(re.findall(r"^\S+\s+(\S+)\s+OPEN\b", text, re.M))
    passing = {t for t in opened if "PASS" in t}
    waived = re.search(r"^# no-pass-table: \S", text, re.M)
    assert passing or waived, f"{path.name} has no table named ...PASS... that keeps the rule"
    detail = "\n".join(f"  line {f.line}: {f.rule}: {f.message}" for f in report.findings)
    fired = sorted(set(got) & set(fx.ok))
    assert not fired, f"rules fired on lines marked ok: {fired}\n{detail}"
    assert not [f for f in report.findings if f.table in passing], "a PASS table gave findings"
    assert got == fx.expected, f"findings differ from the fixture's expectations:\n{detail}"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.relative_to(RULE_FIXTURES).as_posix())
def test_fixture_gives_exactly_its_expected_findings(path, tmp_path):
    check_fixture(path, tmp_path)


def test_every_rule_has_a_fixture_that_breaks_it():
    library = Library.load()
    by_rule: dict[str, set[str]] = {}
    for path in FIXTURES:
        for rule, _ in read_fixture(path).expected:
            by_rule.setdefault(rule, set()).add(path.name)
    missing = [
        f"{ruleset.id}: {rule.id}"
        for ruleset in library.rulesets.values()
        for rule in ruleset.model.rules
        if rule.id not in by_rule
    ]
    assert not missing, "rules with no failing fixture:\n" + "\n".join(missing)


def test_every_rule_fixture_is_named_after_a_rule():
    library = Library.load()
    ids = {r.id for rs in library.rulesets.values() for r in rs.model.rules}
    strays = [p.name for p in FIXTURES if p.stem not in ids]
    assert not strays, f"fixtures not named after a rule: {strays}"
