"""The DEL grammar (``grammars/del.lark``), compiled once with its transformer, and its terminals:
the one definition of what a timestamp, a table id or a key=value argument is."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from functools import cache, lru_cache

from lark import Lark
from lark import __version__ as lark_version

from ..registry import names, spots, syntaxes
from ..resources import cache_dir, grammar_path
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
    """The grammar, compiled, with the transformer that builds events. Compiling takes about
    0.1 s, each run; loading Lark's own cache of it takes a tenth of that. Lark checks that a
    cache was made from this grammar text, these options and this Lark, else compiles anew and
    rewrites it."""
    text = grammar_text()
    where = cache_dir()
    if where is None:
        return _compile(text, False)
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    cache = where / f"del-grammar-{key}-lark-{lark_version}.cache"
    if cache.is_file():
        return _compile(text, str(cache))
    # Lark writes its cache in place: another run reading it meanwhile would find it half written
    # (it would then compile anew, but it could not know). The cache is written under a name of
    # this process's, then renamed over the shared name in one step.
    fresh = where / f".{cache.name}.{os.getpid()}.tmp"
    try:
        parser = _compile(text, str(fresh))
        if fresh.is_file():
            os.replace(fresh, cache)
    finally:
        with contextlib.suppress(OSError):
            fresh.unlink()
    return parser


def _compile(text: str, cache: str | bool) -> Lark:
    return Lark(
        text,
        parser="lalr",
        lexer="contextual",
        transformer=ToEvent(),
        maybe_placeholders=False,
        cache=cache,
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
