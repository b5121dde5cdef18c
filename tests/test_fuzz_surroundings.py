"""A short seeded run of ``fuzz/surroundings.py`` (issue 15): file names, folder trees,
configuration, output files, interruption and the history store; the long run and its result
are in docs/fuzzing.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from fuzz import surroundings


@pytest.mark.parametrize("kind", surroundings.KINDS)
def test_a_short_seeded_run_breaks_no_property(kind, tmp_path):
    summary = surroundings.run(cases=2, seed=15, kinds=(kind,), keep=tmp_path)
    assert summary["violations"] == [], summary["violations"]
    assert sum(summary["outcomes"].values()) == 2


def test_a_broken_property_is_reported_and_its_case_kept(tmp_path, monkeypatch):
    """The run cannot pass vacuously: a case that breaks a property is a violation, kept."""

    def broken(rng, tmp: Path) -> str:
        (tmp / "evidence.del").write_text("kept\n")
        surroundings.expect(False, "a property broken on purpose")
        return "never"

    monkeypatch.setitem(surroundings.CASES, "names", broken)
    summary = surroundings.run(cases=1, seed=0, kinds=("names",), keep=tmp_path)
    (violation,) = summary["violations"]
    assert violation["what"] == "a property broken on purpose"
    assert (Path(violation["kept"]) / "evidence.del").read_text() == "kept\n"
