"""No module outside ``audit/games/`` names a game: the rest of the auditor asks the registry.

Every ``.py`` under ``audit/`` but ``audit/games/`` is read as tokens: its code (names), its
string literals and docstrings, and its comments. None may spell a registered game's name, title
or words (``Game.vocabulary``) in any of the usual spellings: a newcomer reading the engine meets
no game in it, in code or in prose.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from audit.engine.game import Game
from audit.registry import GAMES

AUDIT = Path(__file__).resolve().parent.parent / "audit"


def spellings(word: str) -> set[str]:
    """A word as code and text spell it: any case, words joined by a space, a dash, an underscore
    or nothing."""
    parts = re.split(r"[\s_-]+", word.strip().lower())
    return {sep.join(parts) for sep in (" ", "-", "_", "")}


def vocabulary(games: list[Game]) -> set[str]:
    return {
        spelling for game in games for word in game.vocabulary() for spelling in spellings(word)
    }


def words_of(text: str) -> str:
    """A token as words: camel case and ``_``/``-`` split, lower case (``CdfRound`` -> ``cdf round``)."""
    text = re.sub(r"(?<=[^\W_])(?=[A-Z][a-z])|(?<=[a-z0-9])(?=[A-Z])", " ", text)
    return re.sub(r"[_\-\s]+", " ", text).lower()


def matcher(words: set[str]) -> re.Pattern[str]:
    """Any of ``words`` as a whole word (a plural too): ``war`` is found in ``SPOT_WAR`` and
    ``"war"``, not in ``award`` nor ``warning``."""
    spelt = sorted({words_of(w) for w in words}, key=len, reverse=True)
    alternatives = "|".join(re.escape(w) for w in spelt)
    return re.compile(rf"(?<![^\W_])(?:{alternatives})s?(?![^\W_])")


def mentions(source: str, words: set[str]) -> list[tuple[int, str]]:
    """(line, token) of each name, string literal (docstrings included) or comment of ``source``
    that holds one of ``words``."""
    found = matcher(words).search
    out = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in (tokenize.NAME, tokenize.STRING, tokenize.COMMENT):
            continue
        if found(words_of(token.string)):
            out.append((token.start[0], token.string))
    return out


def outside_games() -> list[Path]:
    return sorted(p for p in AUDIT.rglob("*.py") if "games" not in p.relative_to(AUDIT).parts[:1])


def test_the_scan_sees_code_strings_docstrings_and_comments():
    source = '"""A bataille docstring."""\nx = 1  # bataille\ndef f():\n    """bataille"""\n'
    assert [line for line, _ in mentions(source, {"bataille"})] == [1, 2, 4]
    assert mentions("x = 1  # the table's dealer\n", {"bataille"}) == []
    assert [t for _, t in mentions('X_BATAILLE = "a"\n', {"bataille"})] == ["X_BATAILLE"]
    assert [t for _, t in mentions('y = f"at {t} chemin de fer"\n', {"chemin de fer"})] == [
        'f"at {t} chemin de fer"'
    ]


def test_a_word_is_found_whole_in_any_spelling_but_not_inside_another():
    source = 'A = award(warning, SPOT_WAR, "egalite-war", CdfRound, "égalités")\n'
    found = [t for _, t in mentions(source, {"war", "cdf", "égalité"})]
    assert found == ["SPOT_WAR", '"egalite-war"', "CdfRound", '"égalités"']


def test_every_spelling_of_a_game_is_looked_for():
    assert {"chemin-de-fer", "chemin_de_fer", "chemin de fer", "chemindefer"} <= vocabulary(
        [GAMES["chemin-de-fer"]]
    )


@pytest.mark.parametrize("path", outside_games(), ids=lambda p: str(p.relative_to(AUDIT)))
def test_no_module_outside_the_games_names_a_game(path):
    words = vocabulary(list(GAMES.values()))
    assert len(GAMES) >= 2 and words
    found = mentions(path.read_text(encoding="utf-8"), words)
    assert not found, f"{path.relative_to(AUDIT.parent)} names a game: {found}"


def test_the_grammar_names_no_game():
    """The grammar's rules and terminals (its comments aside): ``OPEN game=`` takes the registry's
    names, filled in when the grammar is compiled."""
    words = vocabulary(list(GAMES.values()))
    grammar = AUDIT.parent / "grammars" / "del.lark"
    rules = [
        line.split("//", 1)[0].lower()
        for line in grammar.read_text(encoding="utf-8").splitlines()
        if not line.lstrip().startswith("//")
    ]
    assert not [line for line in rules if any(word in line for word in words)]
