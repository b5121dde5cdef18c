"""The registry: games found through their entry points, the built-in ones also without the
package's metadata, each game once, and a verb several games play belonging to each of them."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from audit import registry
from audit.engine.game import RegistryError
from audit.registry import GAMES

ROOT = Path(__file__).resolve().parent.parent


class Point:
    """An entry point as ``importlib.metadata`` gives it."""

    def __init__(self, name: str, value: str, load):
        self.name, self.value, self._load = name, value, load

    def load(self):
        return self._load()


def test_without_metadata_the_builtin_games_are_registered(monkeypatch):
    monkeypatch.setattr(registry, "entry_points", lambda group: [])
    assert registry.published() == []
    assert [g.name for g in registry.discover()] == ["bataille", "chemin-de-fer"]


def test_a_game_published_and_built_in_is_registered_once(monkeypatch):
    from audit.games import bataille

    point = Point("bataille", "audit.games.bataille:GAME", lambda: bataille.GAME)
    monkeypatch.setattr(registry, "entry_points", lambda group: [point])
    assert [g.name for g in registry.discover()] == ["bataille", "chemin-de-fer"]


def test_two_games_of_one_name_are_refused(monkeypatch):
    twin = replace(GAMES["bataille"], title="another")
    monkeypatch.setattr(
        registry, "entry_points", lambda group: [Point("x", "x:GAME", lambda: twin)]
    )
    with pytest.raises(RegistryError, match="two games are named 'bataille'"):
        registry.discover()


def test_a_plugin_that_fails_to_load_is_named(monkeypatch):
    def broken():
        raise ImportError("no module named nowhere")

    monkeypatch.setattr(registry, "entry_points", lambda group: [Point("x", "x:GAME", broken)])
    with pytest.raises(RegistryError, match="'x:GAME' cannot be loaded: no module named nowhere"):
        registry.discover()


def test_something_not_a_game_is_refused(monkeypatch):
    monkeypatch.setattr(registry, "entry_points", lambda group: [Point("x", "x:GAME", lambda: 3)])
    with pytest.raises(RegistryError, match="not a Game"):
        registry.discover()


def test_a_verb_two_other_games_play_is_named_for_both():
    third = replace(GAMES["bataille"], name="third", title="third game")
    games = registry.registry([GAMES["bataille"], GAMES["chemin-de-fer"], third])
    assert games["chemin-de-fer"].foreign["BET"] == "bataille or third game"
    # a verb a game plays is never another's at its table, whoever else plays it
    assert "BET" not in games["bataille"].foreign and "BET" not in games["third"].foreign
    assert games["bataille"].foreign["HAND"] == "chemin de fer"


def test_a_broken_plugin_is_one_line_and_exit_2(tmp_path):
    """From a source tree (no metadata of this checkout's), a published plugin that fails to load."""
    dist = tmp_path / "broken_game-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-game\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[del_audit.games]\nbroken = broken_game:GAME\n")
    done = subprocess.run(
        [sys.executable, "-m", "audit", "rules"],
        cwd=ROOT,
        env={"PYTHONPATH": f"{ROOT}:{tmp_path}", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("audit: game plugin 'broken_game:GAME' cannot be loaded")
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
