"""Rulesets are data: a broken one is refused with the file, the line and the key."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from audit.engine.checks import DECLARED
from audit.findings import CATEGORIES
from audit.games.bataille.round import BOXES_PER_PLAYER
from audit.resources import rulesets_dir
from audit.rulesets import Library, RulesetError, load_ruleset

FR = rulesets_dir() / "fr-bataille-2007.yaml"


def _broken(tmp_path: Path, old: str, new: str) -> Path:
    folder = tmp_path / "rulesets"
    shutil.copytree(rulesets_dir(), folder, ignore=shutil.ignore_patterns("house"))
    path = folder / "fr-bataille-2007.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


def _line_of(folder: Path, needle: str) -> int:
    lines = (folder / "fr-bataille-2007.yaml").read_text(encoding="utf-8").splitlines()
    return next(i for i, text in enumerate(lines, start=1) if needle in text)


def test_shipped_rulesets_load_and_cite_every_rule():
    library = Library.load()
    assert {"del-v1", "fr-bataille-2007", "mc-sun-war-2006", "be-ostende-cdf"} <= set(
        library.rulesets
    )
    for ruleset in library.rulesets.values():
        for rule in ruleset.model.rules:
            assert rule.category in CATEGORIES and rule.check in DECLARED
            assert rule.citation.text.strip() and rule.citation.article.strip()


@pytest.mark.parametrize(
    "old, new, needle, key",
    [
        (
            "    params: {decks: 6}\n",
            "    params: {decks: 6}\n    colour: red\n",
            "colour: red",
            "rules[0].colour: unknown key",
        ),
        ("    category: shoe\n", "    category: shoes\n", "category: shoes", "rules[0].category"),
        ("    params: {decks: 6}", "    params: {decks: six}", "decks: six", "params.decks"),
        ("    params: {odds: 1}", "    params: {odds: -1}", "odds: -1", "params.odds"),
        (
            "    check: shoe-decks",
            "    check: shoe-deck",
            "check: shoe-deck",
            "unknown check 'shoe-deck'",
        ),
    ],
)
def test_a_broken_rule_names_file_line_and_key(tmp_path, old, new, needle, key):
    folder = _broken(tmp_path, old, new)
    with pytest.raises(RulesetError) as err:
        Library.load(folder)
    message = str(err.value)
    assert message.startswith(str(folder / "fr-bataille-2007.yaml"))
    assert key in message
    if "params" not in key and "check" not in key:
        assert f"line {_line_of(folder, needle)}:" in message


def test_a_missing_citation_is_refused(tmp_path):
    folder = _broken(
        tmp_path,
        """    citation:
      article: "art. 55-19"
      text: "« Le jeu de la bataille se joue avec six jeux""",
        """    citation_missing:
      article: "art. 55-19"
      text: "« Le jeu de la bataille se joue avec six jeux""",
    )
    with pytest.raises(RulesetError, match=r"rules\[0\]\.citation"):
        Library.load(folder)


def test_invalid_yaml_names_the_line(tmp_path):
    folder = _broken(tmp_path, "id: fr-bataille-2007\n", "id: [fr-bataille-2007\n")
    with pytest.raises(RulesetError, match=r"fr-bataille-2007.yaml, line \d+: invalid YAML"):
        Library.load(folder)


def test_an_alias_bomb_is_refused_quickly(tmp_path):
    bomb = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    bomb += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(bomb) + "\n", encoding="utf-8")
    with pytest.raises(RulesetError, match="aliases"):
        load_ruleset(path)


def test_a_huge_file_is_refused(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_text("# " + "x" * 1_100_000 + "\n", encoding="utf-8")
    with pytest.raises(RulesetError, match="larger than"):
        load_ruleset(path)


def test_overlay_changes_params_and_must_name_real_rules(tmp_path):
    ok = tmp_path / "ok.yaml"
    ok.write_text(
        "overlay: t\nruleset: fr-bataille-2007\ntitle: t\nrules:\n  FR-HOUSE-BOXES:\n"
        "    enabled: true\n    params: {max_boxes: 4}\n",
        encoding="utf-8",
    )
    fr = Library.load(overlays=[ok]).get("fr-bataille-2007")
    assert fr.settings(BOXES_PER_PLAYER).max_boxes == 4 and fr.overlay is not None
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "overlay: t\nruleset: fr-bataille-2007\ntitle: t\nrules:\n  FR-NOPE: {enabled: false}\n",
        encoding="utf-8",
    )
    with pytest.raises(RulesetError, match=r"bad.yaml, line 5: rules.FR-NOPE: no such rule"):
        Library.load(overlays=[bad])
    worse = tmp_path / "worse.yaml"
    worse.write_text(
        "overlay: t\nruleset: fr-bataille-2007\ntitle: t\nrules:\n  FR-PAY-MAIN:\n"
        "    params: {odds: 0}\n",
        encoding="utf-8",
    )
    with pytest.raises(RulesetError, match=r"worse.yaml, line 5: rules.FR-PAY-MAIN: .*params.odds"):
        Library.load(overlays=[worse])


def test_a_ruleset_read_again_in_one_process_is_the_same_and_a_changed_byte_is_read(tmp_path):
    """The YAML is parsed once a process (``rulesets._READ``, memory only): a library loaded again
    is the one the plain parse gives, and a file whose bytes changed is parsed anew."""
    import audit.rulesets as rulesets

    folder = _broken(tmp_path, "title:", "title:")  # a copy of the shipped rulesets
    first = Library.load(folder)
    again = Library.load(folder)
    rulesets._READ.clear()
    plain = Library.load(folder)
    described = lambda lib: {  # noqa: E731
        k: (v.sha256, v.model.model_dump()) for k, v in lib.rulesets.items()
    }
    assert described(first) == described(again) == described(plain)
    again.rulesets["fr-bataille-2007"].model.rules.clear()  # a caller's change stays its own
    assert described(Library.load(folder)) == described(plain)
    path = folder / "fr-bataille-2007.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("params: {decks: 6}", "params: {decks: 8}", 1),
        encoding="utf-8",
    )
    changed = Library.load(folder).rulesets["fr-bataille-2007"]
    assert changed.model.rules != plain.rulesets["fr-bataille-2007"].model.rules
