"""Error wording: Lark's own error ("Unexpected token") translated into a sentence a compliance
officer understands, pointing at the offending word."""

from __future__ import annotations

import re
from functools import cache

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .. import events as ev
from ..registry import names, spots, syntaxes
from .grammar import grammar, kv_key
from .parsed import DelSyntaxError

_TS_NO_OFFSET = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$")
_TS_LIKE = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]")

_VALUE_HELP = {
    "AMOUNT": "an amount: digits, no sign, at most 2 decimals (e.g. 50 or 12.50)",
    "CARD": "a card: rank A K Q J 10 9 8 7 6 5 4 3 2 (or T) then suit S H D C, e.g. 10H",
    "SEAT": "a seat number from 1 to 99",
    "OWNER": "an owner: seat:N or standing:ID",
    "CUT_BY": "dealer or seat:N",
}


def _kv_values(term: str) -> str:
    """What a key=value terminal accepts, in words (the games: the registry's)."""
    if term == "GAME_KV":
        return one_of(names())
    if term == "SPOT_KV":
        return one_of(spots())
    return _KV_VALUES.get(term, term)


def one_of(words: list[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    return " or ".join(filter(None, (", ".join(words[:-1]), words[-1]))) if words else ""


_KV_VALUES = {
    "RULESET_KV": "a ruleset id: a letter or digit, then letters, digits, '.', '_' or '-'",
    "SEATS_KV": "a number of seats from 1 to 99",
    "MIN_KV": _VALUE_HELP["AMOUNT"],
    "MAX_KV": _VALUE_HELP["AMOUNT"],
    "AMOUNT_KV": _VALUE_HELP["AMOUNT"],
    "ID_KV": "an id (letters, digits, _ . -)",
    "PLAYER_KV": "a player id (letters, digits, _ . -)",
    "N_KV": "a positive number",
    "DECKS_KV": "a number of decks",
    "PROCEDURE_KV": "sabot, shuffler or shuffler-dealer",
    "CUT_BY_KV": _VALUE_HELP["CUT_BY"],
    "BY_SEAT_KV": "seat:N",
    "BY_KV": _VALUE_HELP["OWNER"],
    "TALON_KV": "a number of cards",
    "SEAT_KV": _VALUE_HELP["SEAT"],
    "TO_KV": _VALUE_HELP["SEAT"],
}
_BARE_VALUES = {
    "CARD": _VALUE_HELP["CARD"],
    "SEAT_NUMBER": _VALUE_HELP["SEAT"],
    "ROUND_NUMBER": "a round number (a positive integer)",
    "STRING": 'a double-quoted text ("..." with \\" and \\\\ escapes)',
    "TABLE": "a table id: a letter or digit then up to 31 letters, digits, _ . -",
    "TIMESTAMP": "an RFC 3339 timestamp with an offset, e.g. 2026-11-20T21:03:12+01:00",
}
#: the registered games' own terminals, in words (``Syntax.values``)
for _syntax in syntaxes():
    for _term, _words in _syntax.values.items():
        (_KV_VALUES if kv_key(_term) else _BARE_VALUES).setdefault(_term, _words)


@cache
def _display(term: str) -> str:
    if term == "$END":
        return "the end of the line"
    key = kv_key(term)
    if key:
        return f"{key}=…"
    if term in _BARE_VALUES:
        return _BARE_VALUES[term].split(":")[0]
    try:
        pattern = grammar().get_terminal(term).pattern
    except KeyError:
        return term
    return pattern.value if pattern.type == "str" else term.lower()


def _verbs() -> set[str]:
    return set(ev.MODELS)


def _word_at(body: str, column: int) -> tuple[int, str]:
    """The blank-separated word covering 1-based ``column``, and where it starts."""
    i = min(max(column - 1, 0), len(body))
    while i < len(body) and body[i] in " \t":
        i += 1
    while i > 0 and body[i - 1] not in " \t":
        i -= 1
    j = i
    while j < len(body) and body[j] not in " \t":
        j += 1
    return i + 1, body[i:j]


def _clip(text: str, width: int = 40) -> str:
    """A word quoted in a message: a 1 MB garbled line must not make a 1 MB message."""
    return text if len(text) <= width else text[: width - 1] + "…"


def verb_column(body: str) -> int:
    words = list(re.finditer(r"\S+", body))
    return words[2].start() + 1 if len(words) >= 3 else 1


def _expected_before(prefix: str) -> set[str]:
    """The terminals the grammar accepts right after ``prefix``."""
    try:
        grammar().parse(prefix)
    except UnexpectedInput as err:
        if isinstance(err, UnexpectedCharacters):
            found = set(err.allowed or ())
        else:
            found = set(getattr(err, "expected", ()) or ())
        found.discard("_WS")
        if found & {"<END-OF-FILE>", "$END"}:
            found = (found - {"<END-OF-FILE>"}) | {"$END"}
        return found
    except DelSyntaxError:
        return {"$END"}
    return {"$END"}


def explain(body: str, err: UnexpectedInput) -> tuple[int, str]:
    """A (column, message) for a line Lark refused.

    Lark reports the character where lexing stopped, which may be inside a
    word; the message is about the whole word, and what the grammar expected
    in its place is found by parsing the line up to that word.
    """
    column = getattr(err, "column", len(body) + 1)
    if (isinstance(err, UnexpectedToken) and err.token.type == "$END") or isinstance(
        err, UnexpectedEOF
    ):
        column = len(body) + 1
    words = body.split()
    verb = words[2] if len(words) >= 3 else None
    where = f"{verb}: " if verb in _verbs() else ""

    if column > len(body):
        expected = _expected_before(body + " ") - {"$END"}
        wanted = ", ".join(sorted(_display(t) for t in expected))
        return column, f"{where}the line ends too early; expected {wanted}"

    start, word = _word_at(body, column)
    word = _clip(word)
    expected = _expected_before(body[: start - 1])
    if "TIMESTAMP" in expected:
        if _TS_NO_OFFSET.match(word):
            return start, f"timestamp `{word}` has no UTC offset: add Z or +hh:mm (RFC 3339)"
        if _TS_LIKE.match(word) or word[:1].isdigit():
            return (
                start,
                f"`{word}` is not an RFC 3339 timestamp (e.g. 2026-11-20T21:03:12.345+01:00)",
            )
        return start, f"a line must start with a timestamp or `#`; found `{word}`"
    if "TABLE" in expected:
        return start, f"`{word}` is not a table id: {_BARE_VALUES['TABLE'].split(': ', 1)[1]}"
    if expected & _verbs():
        if word.upper() in _verbs():
            return start, f"unknown verb `{word}`: verbs are upper case (`{word.upper()}`)"
        return start, f"unknown verb `{word}`"
    if expected <= {"$END"}:
        return start, f"{where}unexpected `{word}`: nothing more belongs on this line"

    allowed = " or ".join(sorted(_display(t) for t in expected))
    if "=" in word:
        key, value = word.split("=", 1)
        for term in sorted(expected):
            if kv_key(term) == key:
                return start, (
                    f"{where}`{value}` is not a valid value for {key}=: expected {_kv_values(term)}"
                )
        return start, f"{where}unexpected argument `{key}=` here; expected {allowed}"
    for term in sorted(expected):
        if term in _BARE_VALUES and not kv_key(term):
            return start, f"{where}`{word}` is not {_BARE_VALUES[term]}"
    return start, f"{where}unexpected `{word}`; expected {allowed}"
