"""The traceability matrix: every sentence of each regulation traced to rules, every rule to a sentence and fixtures.

The lists below are ratchets. They name today's gaps, so that each is explicit; a new gap fails,
and a gap closed must be taken off its list (the list may only shrink).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from in_process import audit as audit_here

from audit.trace import Matrix, TraceError, build, load_index, render

ROOT = Path(__file__).resolve().parent.parent
INDEX = ROOT / "rulesets" / "sentences"
MATRIX = ROOT / "docs" / "traceability.md"

#: checkable sentences no rule checks yet (issue 14 and the notes in the index say what is missing)
UNCOVERED: set[str] = set()

#: sentences whose rules check only part of what a log can show
PARTIAL: set[str] = set()

#: rules whose fixture has no passing table (the fixture says why)
NO_PASSING_FIXTURE = {"DEL-VERSION", "DEL-EMPTY"}  # whole-file rules: no table can keep them

#: rule citations that are not a word-for-word quotation of the text (abridged), with the reason
ABRIDGED_CITATIONS = {
    "DEL-TABLE-UNOPENED": "quotes the OPEN row without its optional égalité limits",
}


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return build()


def test_the_uncovered_checkable_sentences_are_the_known_gaps(matrix):
    got = set(matrix.uncovered())
    new, closed = sorted(got - UNCOVERED), sorted(UNCOVERED - got)
    assert not new, (
        f"checkable sentences with no rule (write the rule, or mark the sentence): {new}"
    )
    assert not closed, f"now covered: take them off UNCOVERED: {closed}"


def test_the_partly_checked_sentences_are_the_known_gaps(matrix):
    got = set(matrix.partial())
    new, closed = sorted(got - PARTIAL), sorted(PARTIAL - got)
    assert not new, f"sentences with a new gap noted: {new}"
    assert not closed, f"gap closed: take them off PARTIAL: {closed}"


def test_every_rule_of_every_ruleset_checks_a_sentence(matrix):
    assert matrix.uncited() == [], "rules no sentence of the index lists"


def test_every_rule_has_a_failing_and_a_passing_fixture(matrix):
    no_failing = [r for r in matrix.rules if not matrix.failing(r)]
    no_passing = {r for r in matrix.rules if not matrix.passing(r)}
    assert no_failing == [], "rules with no fixture table that breaks them"
    assert no_passing == NO_PASSING_FIXTURE, "rules with no fixture table that keeps them"
    for rule in NO_PASSING_FIXTURE:
        assert matrix.fixtures[rule].no_pass, (
            f"{rule}: its fixture must say why it has no passing table"
        )


def test_sentence_ids_are_unique_across_the_regulations(matrix):
    ids = [s.id for ix in matrix.indexes for s in ix.sentences]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def test_every_ruleset_has_its_sentence_index(matrix):
    assert [ix.ruleset for ix in matrix.indexes] == sorted(
        {rid for rid, _ in matrix.rules.values()}
    )


def _words(text: str) -> str:
    """Letters and digits only: quotation marks, dashes and printed emphasis differ between quotations."""
    return " ".join(re.sub(r"[\W_]+", " ", text.lower()).split())


def test_each_rule_is_listed_on_a_sentence_its_citation_quotes(matrix):
    problems = []
    for rule_id, (ruleset, rule) in matrix.rules.items():
        ix = next(i for i in matrix.indexes if i.ruleset == ruleset)
        whole, spans = "", []
        for s in ix.sentences:
            start = len(whole) + (1 if whole else 0)
            whole = f"{whole} {_words(s.text)}" if whole else _words(s.text)
            spans.append((start, len(whole), rule_id in s.rules))
        hits = []
        for part in re.split(r"\[(?:\.\.\.|…)\]", rule.citation.text):
            words = _words(part)
            if not words:
                continue
            at = whole.find(words)
            if at < 0:
                if rule_id not in ABRIDGED_CITATIONS:
                    problems.append(f"{rule_id}: the text has no « {part.strip()[:60]} »")
                continue
            hits.append((at, at + len(words)))
        if hits and not any(
            listed and a < end and b > start for a, b in hits for start, end, listed in spans
        ):
            problems.append(f"{rule_id}: no sentence its citation quotes lists it")
    assert not problems, "\n".join(problems)


def _texts_dir() -> Path | None:
    for shared in (ROOT.parent / "shared", ROOT.parent.parent / "shared"):
        if (shared / "regulations").is_dir() and (shared / "spec").is_dir():
            return shared
    return None


def test_every_sentence_is_quoted_word_for_word_from_its_source(matrix):
    shared = _texts_dir()
    if shared is None:
        pytest.skip("the regulations' texts are not beside this checkout")
    missing = []
    for ix in matrix.indexes:
        sources = " ".join(
            " ".join((shared / src).read_text(encoding="utf-8").split()) for src in ix.sources
        )
        for s in ix.sentences:
            quoted = " ".join((s.source_text or s.text).split())
            if quoted not in sources:
                missing.append(f"{s.id}: {quoted[:70]}")
    assert not missing, "sentences not found in their sources:\n" + "\n".join(missing)


def test_the_committed_matrix_is_up_to_date(matrix):
    assert MATRIX.read_text(encoding="utf-8") == render(matrix), (
        "docs/traceability.md is out of date: run audit trace --output docs/traceability.md"
    )


def test_the_matrix_is_deterministic(matrix):
    assert render(build()) == render(matrix)


# -- the index refuses what it cannot trace -----------------------------------------------


def _index(tmp_path: Path, sentences: str, name: str = "fr-bataille-2007") -> Path:
    folder = tmp_path / "sentences"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.yaml").write_text(
        f"ruleset: {name}\ntitle: t\nsources: [x.txt]\nsentences:\n{sentences}", encoding="utf-8"
    )
    return folder


@pytest.mark.parametrize(
    "sentences, message",
    [
        (
            "  - {id: FR-1.s1, article: a, text: t, rules: [FR-PAY-MAIN]}\n"
            "  - {id: FR-1.s1, article: a, text: u, rules: [FR-PAY-MAIN]}\n",
            "appears twice",
        ),
        (
            "  - {id: FR-1.s1, article: a, text: t, checkable: false, rules: [FR-PAY-MAIN], reason: r}\n",
            "no rules",
        ),
        ("  - {id: FR-1.s1, article: a, text: t, checkable: false}\n", "reason"),
        ("  - {id: FR-1.s1, article: a, text: t}\n", "gap"),
        ("  - {id: FR-1.s1, article: a, text: t, rules: [FR-PAY-MAIN], reason: r}\n", "use note"),
        (
            "  - {id: FR-1.s1, article: a, text: t, rules: [FR-PAY-MAIN], colour: red}\n",
            "unknown key",
        ),
        ("  - {id: fr-1, article: a, text: t, rules: [FR-PAY-MAIN]}\n", "pattern"),
    ],
)
def test_a_malformed_index_is_refused_with_file_and_line(tmp_path, sentences, message):
    with pytest.raises(TraceError, match=message) as err:
        load_index(_index(tmp_path, sentences))
    assert "fr-bataille-2007.yaml, line" in str(err.value)


def test_an_index_naming_an_unknown_rule_is_refused(tmp_path):
    folder = _index(
        tmp_path, "  - {id: FR-1.s1, article: a, text: t, rules: [FR-PAY-MAIN, FR-NO-SUCH-RULE]}\n"
    )
    with pytest.raises(TraceError, match=r"FR-1\.s1: no rule FR-NO-SUCH-RULE"):
        build(folder)


def test_an_index_named_after_no_ruleset_is_refused(tmp_path):
    folder = _index(
        tmp_path,
        "  - {id: XX-1.s1, article: a, text: t, checkable: false, reason: r}\n",
        name="xx-none",
    )
    with pytest.raises(TraceError, match="names no shipped ruleset"):
        build(folder)


# -- the command ------------------------------------------------------------------------------


def _audit(*args: str) -> subprocess.CompletedProcess:
    """The command line in this process (tests/in_process.py)."""
    return audit_here(*args, cwd=ROOT)


def test_audit_trace_writes_the_matrix_and_check_compares(tmp_path, matrix):
    out = tmp_path / "traceability.md"
    done = _audit("trace", "--check", "--output", str(out))
    assert done.returncode == 1 and "out of date" in done.stderr, done.stderr
    done = _audit("trace", "--output", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == render(matrix)
    assert [p.name for p in tmp_path.iterdir()] == ["traceability.md"], (
        "the temporary file is left behind"
    )
    assert _audit("trace", "--check", "--output", str(out)).returncode == 0
    out.write_text(render(matrix) + "edited by hand\n", encoding="utf-8")
    done = _audit("trace", "--check", "--output", str(out))
    assert done.returncode == 1 and "out of date" in done.stderr
    assert out.read_text(encoding="utf-8").endswith("edited by hand\n"), "--check writes nothing"


def test_audit_trace_prints_without_output_and_refuses_check_without_a_file(matrix):
    done = _audit("trace")
    assert done.returncode == 0 and done.stdout == render(matrix)
    done = _audit("trace", "--check")
    assert (
        done.returncode == 2
        and done.stderr.startswith("audit: --check")
        and "Traceback" not in done.stderr
    )


def test_audit_trace_says_when_it_cannot_write(tmp_path):
    done = _audit("trace", "--output", str(tmp_path / "no-such-folder" / "t.md"))
    assert done.returncode == 2 and "cannot write" in done.stderr and "Traceback" not in done.stderr
