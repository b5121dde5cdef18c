"""The generated parts of the docs (``<!-- generated: NAME -->``) are what the rulesets, the check
declarations and the reporters' registry give; the hand-written catalogue describes every
declared check once; the format lists written by hand name the registry's formats."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from audit import docs_gen
from audit.engine.checks import DECLARED
from audit.reporters import REPORTERS

ROOT = Path(__file__).resolve().parent.parent


def test_the_generated_parts_are_up_to_date():
    stale = docs_gen.stale_pages(ROOT)
    assert not stale, f"{', '.join(stale)} out of date: run `{docs_gen.REGENERATE}`"


def test_a_stale_part_is_found_and_rewritten(tmp_path):
    (tmp_path / "docs").mkdir()
    for page in docs_gen.generators(ROOT):
        (tmp_path / page).write_text((ROOT / page).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "rulesets").symlink_to(ROOT / "rulesets")
    page = tmp_path / "docs" / "report.md"
    page.write_text(page.read_text().replace("| `sarif` |", "| `sarif2` |"))
    assert docs_gen.stale_pages(tmp_path) == ["docs/report.md"]
    assert docs_gen.stale_pages(tmp_path, write=True) == ["docs/report.md"]
    assert docs_gen.stale_pages(tmp_path) == []
    assert "| `sarif` |" in page.read_text()


def test_the_check_command_names_the_stale_page_and_the_command(tmp_path, monkeypatch, capsys):
    (tmp_path / "docs").mkdir()
    for page in docs_gen.generators(ROOT):
        (tmp_path / page).write_text((ROOT / page).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "rulesets").symlink_to(ROOT / "rulesets")
    monkeypatch.setattr(docs_gen, "ROOT", tmp_path)
    assert docs_gen.main(["--check"]) == 0
    page = tmp_path / "docs" / "rulesets.md"
    page.write_text(page.read_text().replace("| `del-v1` | `any` |", "| `del-v1` | `anything` |"))
    capsys.readouterr()
    assert docs_gen.main(["--check"]) == 1
    assert capsys.readouterr().out == (
        f"docs/rulesets.md: out of date; run {docs_gen.REGENERATE}\n"
    )
    assert docs_gen.main(["--bogus"]) == 2


def test_a_page_without_its_part_is_refused():
    with pytest.raises(ValueError, match="needs one '<!-- generated: formats -->' part"):
        docs_gen.regenerate("no markers here\n", {"formats": lambda: ""}, "docs/report.md")


def test_the_readings_part_holds_every_reading_of_the_rulesets():
    text = (ROOT / "docs" / "readings.md").read_text(encoding="utf-8")
    part = text[text.index("<!-- generated: readings -->") : text.index("<!-- end generated -->")]
    library = docs_gen.Library.load(ROOT / "rulesets")
    for loaded in library.rulesets.values():
        for rule in loaded.model.rules:
            assert (f"#### {rule.id}\n" in part) == bool(rule.reading), rule.id
            if rule.reading:
                assert " ".join(rule.reading.split()) in part


def _described_checks() -> list[str]:
    """The checks of the hand-written tables (``| check | verifies |``) of docs/rulesets.md."""
    names, inside = [], False
    for line in (ROOT / "docs" / "rulesets.md").read_text(encoding="utf-8").splitlines():
        if line == "| check | verifies |":
            inside = True
        elif not line.startswith("|"):
            inside = False
        elif inside and (m := re.match(r"^\| `([a-z-]+)` \|", line)):
            names.append(m.group(1))
    return names


def test_the_catalogue_describes_every_declared_check_once():
    described = _described_checks()
    assert sorted(described) == sorted(DECLARED), (
        "docs/rulesets.md's catalogue: add a row for each new check, drop the removed ones"
    )


def test_the_hand_written_lists_of_formats_name_the_registry():
    bar = "|".join(REPORTERS)
    assert f"--format {bar} " in (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    comma = ", ".join(REPORTERS)
    assert f'FILES["{comma}"]' in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
