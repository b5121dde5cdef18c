"""The DEL grammar (``grammars/del.lark``), compiled once with its transformer, and its terminals:
the one definition of what a timestamp, a table id or a key=value argument is."""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

from lark import Lark
from lark import __version__ as lark_version

from ..resources import cache_dir, grammar_path
from .transform import ToEvent


@lru_cache(maxsize=1)
def grammar() -> Lark:
    """The grammar, compiled, with the transformer that builds events. Compiling takes about
    0.1 s, each run; loading Lark's own cache of it takes a tenth of that. Lark checks that a
    cache was made from this grammar text, these options and this Lark, else compiles anew and
    rewrites it."""
    text = grammar_path().read_text(encoding="utf-8")
    where = cache_dir()
    cache: str | bool = False
    if where is not None:
        key = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        cache = str(where / f"del-grammar-{key}-lark-{lark_version}.cache")
    return Lark(text, parser="lalr", lexer="contextual", transformer=ToEvent(), maybe_placeholders=False,
                cache=cache)


@lru_cache(maxsize=None)
def terminal_regex(name: str) -> re.Pattern[str]:
    """A terminal of the grammar as a compiled regex: the grammar stays the one definition."""
    return re.compile(grammar().get_terminal(name).pattern.to_regexp())


def is_table_id(word: str) -> bool:
    """Whether ``word`` is a table id, by the grammar's terminal."""
    return terminal_regex("TABLE").fullmatch(word) is not None


@lru_cache(maxsize=None)
def kv_key(term: str) -> str | None:
    """The key a key=value terminal spells, read off the grammar itself."""
    if not term.endswith("_KV"):
        return None
    pattern = grammar().get_terminal(term).pattern.value
    m = re.match(r"([a-z-]+)=", pattern)
    return m.group(1) if m else None

