"""The DEL grammar (``grammars/del.lark``), compiled once with its transformer, and its terminals:
the one definition of what a timestamp, a table id or a key=value argument is."""

from __future__ import annotations

import re
from functools import cache, lru_cache

from lark import Lark

from ..registry import names, spots, syntaxes
from ..resources import grammar_path
from .shipped import load as load_shipped
from .transform import ToEvent

#: where the grammar file leaves the registered games' names to be filled in
GAMES_SLOT = "@GAMES@"
#: and the spots of a box: ``main``, then the games' own (``Syntax.spots``)
SPOTS_SLOT = "@SPOTS@"


def grammar_text() -> str:
    """The grammar's text with the registered games' names in ``GAME_KV`` and their own events'
    rules (``Game.syntax``): a game plugin's lines parse as a built-in game's do."""
    text = grammar_path().read_text(encoding="utf-8")
    text = text.replace(GAMES_SLOT, "|".join(re.escape(name) for name in names()))
    text = text.replace(SPOTS_SLOT, "|".join(re.escape(spot) for spot in spots()))
    own = syntaxes()
    if not own:
        return text
    verbs = [verb.lower() for syntax in own for verb in syntax.verbs()]
    text = text.replace("\nevent: ", "\nevent: " + " | ".join(verbs) + "\n      | ", 1)
    return text + "".join(f"\n// ---- a game's own events\n{s.grammar.strip()}\n" for s in own)


@lru_cache(maxsize=1)
def grammar() -> Lark:
    """The grammar, compiled, with the transformer that builds events: the compiled form shipped
    inside the package when it was made from this very text (``shipped``), else compiled now (about
    0.05 s, a game plugin's grammar among others). Never read back from a folder outside the
    installation, where the audited party could change it (docs/trust.md)."""
    text = grammar_text()
    shipped = load_shipped(text, transformer=ToEvent())
    return shipped if shipped is not None else compile_text(text)


def compile_text(text: str) -> Lark:
    """The grammar ``text`` compiled, with the transformer that builds events."""
    return Lark(
        text,
        parser="lalr",
        lexer="contextual",
        transformer=ToEvent(),
        maybe_placeholders=False,
    )


@cache
def terminal_regex(name: str) -> re.Pattern[str]:
    """A terminal of the grammar as a compiled regex: the grammar stays the one definition."""
    return re.compile(grammar().get_terminal(name).pattern.to_regexp())


def is_table_id(word: str) -> bool:
    """Whether ``word`` is a table id, by the grammar's terminal."""
    return terminal_regex("TABLE").fullmatch(word) is not None


@cache
def kv_key(term: str) -> str | None:
    """The key a key=value terminal spells, read off the grammar itself."""
    if not term.endswith("_KV"):
        return None
    pattern = grammar().get_terminal(term).pattern.value
    m = re.match(r"([a-z-]+)=", pattern)
    return m.group(1) if m else None
