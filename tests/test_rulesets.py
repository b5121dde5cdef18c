"""Rulesets are data: a broken one is refused with the file, the line and the key."""

from __future__ import annotations

import os
import shutil
import threading
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


# -- the YAML data kept between runs (audit/ruleset_cache.py) -------------------------------------


def _yaml_reads(monkeypatch) -> list[Path]:
    """The ruleset files whose YAML is read from now on."""
    import audit.rulesets as rulesets

    read: list[Path] = []
    real = rulesets._parse
    monkeypatch.setattr(rulesets, "_parse", lambda raw, path: read.append(path) or real(raw, path))
    return read


def _rules(library: Library) -> dict:
    return {
        k: (v.sha256, v.model.model_dump(), {c: r.settings for c, r in v.by_check.items()})
        for k, v in library.rulesets.items()
    }


def test_the_rulesets_data_is_kept_between_runs_and_read_again_when_a_byte_changes(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("AUDIT_CACHE_DIR", str(tmp_path / "cache"))
    folder = _broken(tmp_path, "title:", "title:")  # a copy of the shipped rulesets
    read = _yaml_reads(monkeypatch)
    first = Library.load(folder)
    assert (
        len(read) == len(first.rulesets) == len(list((tmp_path / "cache").glob("ruleset-*.pickle")))
    )
    read.clear()
    again = Library.load(folder)
    assert read == [] and _rules(again) == _rules(first)
    monkeypatch.setenv("AUDIT_CACHE_DIR", "")  # no cache: the same library
    assert _rules(Library.load(folder)) == _rules(first)
    monkeypatch.setenv("AUDIT_CACHE_DIR", str(tmp_path / "cache"))
    path = folder / "fr-bataille-2007.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "    params: {decks: 6}", "    params: {decks: 8}", 1
        ),
        encoding="utf-8",
    )
    read.clear()
    changed = Library.load(folder)
    assert (
        read == [path]
        and changed.rulesets["fr-bataille-2007"].model.rules
        != first.rulesets["fr-bataille-2007"].model.rules
    )
    import audit.rulesets as rulesets

    monkeypatch.setattr(rulesets, "__version__", "0.0.0-another")  # another version of the package
    read.clear()
    Library.load(folder)
    assert sorted(read) == sorted(folder.glob("*.yaml"))


def test_a_broken_ruleset_is_refused_as_without_the_cache(tmp_path, monkeypatch):
    """Its bytes were never kept; and kept data that this version's checks refuse is refused with
    the message and line it gets without the cache."""
    import audit.rulesets as rulesets

    monkeypatch.setenv("AUDIT_CACHE_DIR", str(tmp_path / "cache"))
    folder = _broken(tmp_path, "    params: {decks: 6}", "    params: {decks: six}")
    said = []
    for where in (str(tmp_path / "cache"), str(tmp_path / "cache"), ""):
        monkeypatch.setenv("AUDIT_CACHE_DIR", where)
        with pytest.raises(RulesetError, match=r", line \d+: .*params.decks") as refused:
            Library.load(folder)
        said.append(str(refused.value))
    assert said[0] == said[1] == said[2]
    monkeypatch.setenv("AUDIT_CACHE_DIR", str(tmp_path / "cache"))
    good = _broken(tmp_path / "good", "title:", "title:")
    Library.load(good)  # kept
    monkeypatch.setattr(rulesets, "checks_for", lambda game: set() if game == "bataille" else None)
    with pytest.raises(RulesetError) as cached:
        Library.load(good)
    monkeypatch.setenv("AUDIT_CACHE_DIR", "")
    with pytest.raises(RulesetError) as uncached:
        Library.load(good)
    assert str(cached.value) == str(uncached.value) and ", line " in str(cached.value)


def test_a_damaged_or_foreign_cache_file_is_read_as_no_cache(tmp_path, monkeypatch):
    """A file cut short, or one that would make anything but YAML data when unpickled (code to
    run), is a miss: the YAML is read again and the file written anew."""
    import pickle

    cache = tmp_path / "cache"
    monkeypatch.setenv("AUDIT_CACHE_DIR", str(cache))
    first = _rules(Library.load())
    files = sorted(cache.glob("ruleset-*.pickle"))
    files[0].write_bytes(files[0].read_bytes()[:100])
    key, _data = pickle.loads(files[1].read_bytes())
    marker = tmp_path / "ran"

    class Runs:  # unpickled, it would call open(marker, "w")
        def __reduce__(self):
            return open, (str(marker), "w")

    files[1].write_bytes(pickle.dumps((key, {"id": Runs()})))
    read = _yaml_reads(monkeypatch)
    assert _rules(Library.load()) == first and len(read) == 2 and not marker.exists()
    read.clear()
    assert _rules(Library.load()) == first and read == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_in_the_place_of_a_cache_file_is_a_miss_not_a_wait(tmp_path, monkeypatch):
    """Opening a FIFO to read waits for a writer: one put in the cache folder held every audit
    before it read a log. It is a miss: the YAML is read again and the file written anew."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("AUDIT_CACHE_DIR", str(cache))
    first = _rules(Library.load())
    files = sorted(cache.glob("ruleset-*.pickle"))
    files[0].unlink()
    os.mkfifo(files[0])
    read = _yaml_reads(monkeypatch)
    done = threading.Event()
    loaded: list = []
    worker = threading.Thread(target=lambda: (loaded.append(Library.load()), done.set()))
    worker.daemon = True  # a regression leaves it waiting: the test fails, the run goes on
    worker.start()
    assert done.wait(30), "waited on a FIFO in the cache folder"
    assert _rules(loaded[0]) == first and len(read) == 1 and files[0].is_file()
