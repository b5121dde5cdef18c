"""Rule fixtures may take their shared opening lines from a preamble (``# preamble: NAME`` stands
for ``NAME.preamble`` beside the fixture) and mark a passing line ``# ok: RULE-ID``: the fixture
runner fails when that rule fires there, and ``audit explain`` shows that line as the pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_rule_fixtures import check_fixture

from audit.explain import explain_text
from audit.rule_fixtures import FixtureError, fixture_lines, uses_preamble
from audit.rulesets import Library
from fixtures import read_fixture

T = "2026-11-20T21:00:{:02d}.000+01:00"
PREAMBLE = "\n".join(
    f"{T.format(second)} {table} {event}"
    for second, event in (
        (0, "OPEN game=bataille ruleset=fr-bataille-2007 seats=7 min=10 max=500"),
        (1, "DEALER id=D1"),
        (2, "SEAT 5 in player=P1"),
        (4, "SHOE new decks=6 procedure=sabot"),
        (5, "SHUFFLE"),
        (13, "CUT by=dealer"),
        (16, "CUT by=seat:5"),
    )
    for table in ("FR-FAIL", "FR-PASS")
)
FIXTURE = f"""\
#DEL 1
# FR-STOPCARD-TALON: FR-FAIL leaves 40 cards, FR-PASS 52.
# preamble: two-tables
# expect: FR-STOPCARD-TALON
{T.format(19)} FR-FAIL STOPCARD talon=40
# ok: FR-STOPCARD-TALON
{T.format(19)} FR-PASS STOPCARD talon={{talon}}
{T.format(30)} FR-FAIL CLOSE
{T.format(30)} FR-PASS CLOSE
"""


def _fixture(tmp_path: Path, talon: int = 52) -> Path:
    folder = tmp_path / "rules" / "fr-bataille-2007"
    folder.mkdir(parents=True)
    (folder / "two-tables.preamble").write_text(PREAMBLE + "\n", encoding="utf-8")
    path = folder / "FR-STOPCARD-TALON.del"
    path.write_text(FIXTURE.format(talon=talon), encoding="utf-8")
    return path


def test_the_preamble_takes_the_place_of_its_line(tmp_path):
    path = _fixture(tmp_path)
    lines = fixture_lines(path)
    assert uses_preamble(path)
    assert lines[:2] == ["#DEL 1", "# FR-STOPCARD-TALON: FR-FAIL leaves 40 cards, FR-PASS 52."]
    assert lines[2:16] == PREAMBLE.splitlines()
    assert lines[16] == "# expect: FR-STOPCARD-TALON"


def test_marks_count_lines_of_the_log_as_audited(tmp_path):
    fx = read_fixture(_fixture(tmp_path))
    assert fx.expected == [("FR-STOPCARD-TALON", 18)]
    assert fx.ok == [("FR-STOPCARD-TALON", 20)]


def test_a_fixture_with_a_preamble_and_an_ok_mark_passes(tmp_path):
    check_fixture(_fixture(tmp_path), tmp_path)


def test_a_rule_that_fires_on_a_line_marked_ok_fails_the_fixture(tmp_path):
    path = _fixture(tmp_path, talon=41)
    with pytest.raises(AssertionError, match=r"rules fired on lines marked ok: \[\('FR-STOPCARD"):
        check_fixture(path, tmp_path)


def test_a_missing_preamble_is_named(tmp_path):
    path = _fixture(tmp_path)
    (path.parent / "two-tables.preamble").unlink()
    with pytest.raises(
        FixtureError, match=r"FR-STOPCARD-TALON.del, line 3: no preamble two-tables"
    ):
        fixture_lines(path)


def test_a_mark_with_no_line_after_it_is_refused(tmp_path):
    path = _fixture(tmp_path)
    path.write_text(path.read_text() + "# ok: FR-STOPCARD-TALON\n")
    with pytest.raises(ValueError, match="are not followed by any line"):
        read_fixture(path)


def test_explain_shows_the_log_with_its_preamble_and_the_ok_line_as_the_pass(tmp_path):
    path = _fixture(tmp_path)
    text = explain_text(Library.load(), "FR-STOPCARD-TALON", path.parent.parent)
    assert ">>   18  " + f"{T.format(19)} FR-FAIL STOPCARD talon=40" in text
    assert ">>   20  " + f"{T.format(19)} FR-PASS STOPCARD talon=52" in text
    assert f"{T.format(0)} FR-PASS OPEN" in text  # the opening line comes from the preamble
