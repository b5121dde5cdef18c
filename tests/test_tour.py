"""The compliance officer's tour (issue 14): every sentence the issue names, tried on small logs that break it
and logs that keep it, each audited alone; the auditor must report exactly the breach and nothing else.

The cases are listed in ``fixtures/tour.yaml`` (as semgrep pairs ``ruleid:`` and ``ok:`` examples); each names
a table of a fixture (a rule fixture, or a log of ``fixtures/tour/``), whose ``# expect:`` lines say which line
gives which finding. A table is audited alone, with its file's ``# house:`` overlay, so that nothing another
table does can hide or add a finding.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from audit.rulesets import Library
from audit.run import run_audit
from audit.trace import load_index
from fixtures import ROOT, read_fixture

FIXTURES = ROOT / "fixtures"
TOUR = yaml.safe_load((FIXTURES / "tour.yaml").read_text(encoding="utf-8"))

#: the sentences issue 14 names, its open readings included: the tour visits each
ISSUE_14 = {
    "CDF-art30.s1",
    "CDF-art30.s4",
    "CDF-art30.s10",
    "CDF-art31.s1",
    "CDF-art32.s2",
    "CDF-art1.s1",
    "CDF-art3.s1",
    "CDF-art4.s1",
    "CDF-art7.s4",
    "CDF-art8.s1",
    "CDF-art9.s3",
    "CDF-art8.s4",
    "CDF-art8.s7",
    "CDF-art10.s1",
    "CDF-art12.s3",
    "CDF-art21.s2",
    "CDF-art6.s1",
    "CDF-art2.s2",
    "CDF-art9.s2",
    "CDF-art23.s2",
    "CDF-art25.s1",
    "FR-55-19.s6",
    "FR-55-19.s7",
    "FR-55-19.s8",
    "FR-55-19.s35",
    "MC-1.s8",
    "MC-1.s21",
    "MC-1.s23",
    "MC-1.s27",
    "MC-1.s31",
    "MC-1.s34",
}


@dataclass(frozen=True)
class Case:
    item: str
    kind: str  # "ruleid" (the log breaks the sentence) or "ok" (it keeps it)
    ref: str  # FILE#TABLE
    rules: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.ref}"


def _cases() -> list[Case]:
    return [
        Case(item["item"], kind, ref, tuple(item["rules"]))
        for item in TOUR["items"]
        for kind in ("ruleid", "ok")
        for ref in item[kind]
    ]


def _fixture_path(name: str) -> Path:
    for base in (FIXTURES / "rules", FIXTURES):
        if (base / name).is_file():
            return base / name
    raise AssertionError(f"tour case names no fixture {name}")


def _audit_table_alone(
    ref: str, tmp_path: Path
) -> tuple[list[tuple[str, int]], list[tuple[str, int]], str]:
    """(findings, expectations, detail) of one table audited alone, lines as numbered in its fixture."""
    name, _, table = ref.partition("#")
    path = _fixture_path(name)
    fx = read_fixture(path)
    kept: list[str] = []
    original: dict[int, int] = {}  # line of the table alone -> line of the fixture
    for lineno, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        words = text.split()
        if text.startswith(("#DEL", "#casino", "#source")) or (
            len(words) > 2 and not text.startswith("#") and words[1] == table
        ):
            kept.append(text)
            original[len(kept)] = lineno
    assert any(t.split()[1:2] == [table] for t in kept), f"{name} has no table {table}"
    alone = tmp_path / path.name
    alone.write_text("\n".join(kept) + "\n", encoding="utf-8")
    report = run_audit(Library.load(overlays=fx.house), [str(alone)])
    got = sorted((f.rule, original[f.line]) for f in report.findings)
    lines = set(original.values())
    want = sorted((rule, line) for rule, line in fx.expected if line in lines)
    detail = "\n".join(f"  line {original[f.line]}: {f.rule}: {f.message}" for f in report.findings)
    return got, want, detail


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c.id)
def test_the_auditor_reports_exactly_the_breach_and_nothing_else(case, tmp_path):
    got, want, detail = _audit_table_alone(case.ref, tmp_path)
    assert got == want, f"{case.item}: findings differ from the table's expectations:\n{detail}"
    breaches = [rule for rule, _ in got if rule in case.rules]
    if case.kind == "ruleid":
        assert breaches, (
            f"{case.item}: the log breaks the sentence, yet none of {case.rules} is reported"
        )
    else:
        assert not breaches, f"{case.item}: the log keeps the sentence, yet {breaches} is reported"


def test_every_item_has_a_log_that_breaks_it_and_one_that_keeps_it():
    for item in TOUR["items"]:
        assert item["ruleid"] and item["ok"] and item["rules"], item["item"]


def test_the_tour_visits_every_sentence_issue_14_names():
    index = {s.id: s for ix in load_index(ROOT / "rulesets" / "sentences") for s in ix.sentences}
    visited = {s for item in TOUR["items"] for s in item["sentences"]}
    assert ISSUE_14 - visited - set(TOUR["not_checkable"]) == set(), (
        "sentences of issue 14 the tour does not visit"
    )
    unknown = sorted((visited | set(TOUR["not_checkable"])) - set(index))
    assert not unknown, f"the tour names sentences the index does not have: {unknown}"
    assert all(index[s].checkable for s in visited), (
        "the tour tries a sentence the index calls not checkable"
    )
    assert not any(index[s].checkable for s in TOUR["not_checkable"]), (
        "a sentence the tour skips is checkable"
    )
