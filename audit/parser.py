"""Line-by-line parsing of a Dealer Event Log into typed events.

Each line is parsed on its own with the LALR grammar in ``grammars/del.lark``
so that a malformed line becomes one ``syntax`` problem and the lines after
it are still audited. Lark's own error ("Unexpected token") is translated into
a sentence a compliance officer understands, pointing at the offending word.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from collections import OrderedDict
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator

from lark import Lark, Token, Transformer
from lark import __version__ as lark_version
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from pydantic import ValidationError

from . import events as ev
from .resources import cache_dir, grammar_path
from .values import Card, Owner


class DelSyntaxError(Exception):
    """A line that does not follow the DEL grammar; ``column`` is 1-based."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.message = message
        self.column = column


# -- what a parsed line is --------------------------------------------------

@dataclass(frozen=True, slots=True)
class Header:
    key: str  # "DEL", "casino" or "source"
    value: str


@dataclass(frozen=True, slots=True)
class Comment:
    text: str


@dataclass(frozen=True, slots=True)
class Problem:
    """A line that could not be parsed: becomes a ``syntax`` finding."""

    column: int
    message: str


# -- tokens to event fields ---------------------------------------------------

def _after_eq(tok: str) -> str:
    return tok.split("=", 1)[1]


def _cut_by(tok: str) -> Any:
    value = _after_eq(tok)
    return "dealer" if value == "dealer" else Owner.parse(value)


def _unescape(tok: str) -> str:
    return re.sub(r"\\([\"\\])", r"\1", tok[1:-1])


#: token type -> (field, converter)
_FIELDS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "GAME_KV": ("game", _after_eq),
    "RULESET_KV": ("ruleset", _after_eq),
    "SEATS_KV": ("seats", lambda t: int(_after_eq(t))),
    "MIN_KV": ("min", lambda t: Decimal(_after_eq(t))),
    "MAX_KV": ("max", lambda t: Decimal(_after_eq(t))),
    "EGALITE_MIN_KV": ("egalite_min", lambda t: Decimal(_after_eq(t))),
    "EGALITE_MAX_KV": ("egalite_max", lambda t: Decimal(_after_eq(t))),
    "AMOUNT_KV": ("amount", lambda t: Decimal(_after_eq(t))),
    "ID_KV": ("id", _after_eq),
    "PLAYER_KV": ("player", _after_eq),
    "N_KV": ("n", lambda t: int(_after_eq(t))),
    "DECKS_KV": ("decks", lambda t: int(_after_eq(t))),
    "PROCEDURE_KV": ("procedure", _after_eq),
    "CUT_BY_KV": ("by", _cut_by),
    "BY_SEAT_KV": ("by", lambda t: Owner.parse(_after_eq(t))),
    "BY_KV": ("by", lambda t: Owner.parse(_after_eq(t))),
    "TALON_KV": ("talon", lambda t: int(_after_eq(t))),
    "SEAT_KV": ("seat", lambda t: int(_after_eq(t))),
    "SPOT_KV": ("spot", _after_eq),
    "HOW_KV": ("how", _after_eq),
    "MODE_KV": ("mode", _after_eq),
    "PONTE_POINT_KV": ("ponte", lambda t: int(_after_eq(t))),
    "BANKER_POINT_KV": ("banker", lambda t: int(_after_eq(t))),
    "SEAT_NUMBER": ("seat", int),
    "ROUND_NUMBER": ("n", int),
    "CARD": ("card", Card.parse),
    "POINT_DIGIT": ("point", int),
    "STRING": ("text", _unescape),
}

#: bare word -> (field, value); None: the word carries no value of its own
_WORDS: dict[str, tuple[str, Any] | None] = {
    "PRESENT": ("present", True), "ABSENT": ("present", False),
    "IN": ("action", "in"), "OUT": ("action", "out"),
    "LAST_SHOE": ("what", "last-shoe"), "LAST_ROUNDS": ("what", "last-rounds"),
    "NEW": None, "REFUSED": ("refused", True),
    "BEGIN": ("action", "begin"), "END": ("action", "end"),
    "DEALER": ("to", "dealer"), "PONTE": ("side", "ponte"), "BANKER": ("side", "banker"),
    "WAR": ("choice", "war"), "SURRENDER": ("choice", "surrender"),
    "APPROVED": ("approved", True),
    "CARD_WORD": ("draw", True), "NON": ("draw", False),
}

#: how an argument is written, for messages
_SPELLING = {
    "seat": "seat=N", "spot": "spot=S", "amount": "amount=AMOUNT", "by": "by=OWNER",
    "game": "game=G", "ruleset": "ruleset=R", "seats": "seats=N", "min": "min=AMOUNT",
    "max": "max=AMOUNT", "egalite_min": "egalite-min=AMOUNT", "egalite_max": "egalite-max=AMOUNT",
    "decks": "decks=N", "procedure": "procedure=P", "id": "id=ID", "n": "n=N",
    "talon": "talon=N", "how": "how=H", "mode": "mode=M", "ponte": "ponte=P", "banker": "banker=B",
    "card": "a card", "point": "a point", "text": '"text"',
}


def _limit(name: str, value: int, low: int, high: int, column: int) -> None:
    if not low <= value <= high:
        raise DelSyntaxError(f"{name} {value} is out of range: it must be from {low} to {high}", column)


class _ToEvent(Transformer):
    """Turns each verb's subtree into ``(verb, fields, column)``."""

    def __default__(self, data: str, children: list, meta: Any) -> Any:
        if data.startswith("_"):  # Lark's helper rules for repetitions
            return super().__default__(data, children, meta)
        verb = data.upper()
        fields: dict[str, Any] = {}
        for tok in children:
            if not isinstance(tok, Token):
                continue
            spec = _FIELDS.get(tok.type)
            if spec is not None:
                name, convert = spec
                value = convert(str(tok))
            else:
                word = _WORDS.get(tok.type, ...)
                if word is None:
                    continue
                if word is ...:
                    continue
                name, value = word
            if name in fields:
                raise DelSyntaxError(f"{verb}: {_SPELLING.get(name, name)} is given twice", tok.column)
            self._check_range(name, value, tok.column)
            fields[name] = value
        return (verb, fields)

    @staticmethod
    def _check_range(name: str, value: Any, column: int) -> None:
        if name == "seat":
            _limit("seat", value, 1, 99, column)
        elif name == "by" and isinstance(value, Owner) and value.kind == "seat":
            _limit("seat", int(value.id), 1, 99, column)
        elif name == "seats":
            _limit("seats", value, 1, 99, column)
        elif name == "n":
            _limit("number", value, 1, 999_999_999, column)
        elif name == "decks":
            _limit("decks", value, 1, 99, column)

    def start(self, children: list) -> Any:
        return children[-1]

    def event(self, children: list) -> Any:
        return children[0]

    def comment(self, children: list) -> Comment:
        return Comment(str(children[0]))

    def header_del(self, children: list) -> Header:
        return Header("DEL", str(children[-1]))

    def header_casino(self, children: list) -> Header:
        return Header("casino", str(children[-1]))

    def header_source(self, children: list) -> Header:
        return Header("source", str(children[-1]))

    def event_line(self, children: list) -> Any:
        ts_tok, table_tok, (verb, fields) = children
        try:
            ts = datetime.fromisoformat(str(ts_tok))
        except ValueError:
            raise DelSyntaxError(f"`{ts_tok}` is not a real date and time", ts_tok.column) from None
        return _build(verb, fields, ts, str(table_tok))


def _build(verb: str, fields: dict[str, Any], ts: datetime, table: str) -> Any:
    if verb == "DEAL":
        if "side" in fields:
            fields["to"] = fields.pop("side")
        elif "seat" in fields:
            fields["to"] = "seat"
    elif verb in ("TABLEAU", "ADVICE"):
        fields.pop("side", None)
    elif verb == "STOPCARD" and "talon" in fields:
        fields["action"] = "place"
    elif verb in ("PAY", "COLLECT", "PUSH"):
        _check_settlement(verb, fields)
    model = ev.MODELS[verb]
    try:
        return model(ts=ts, table=table, **fields)
    except ValidationError as err:
        missing = [
            _SPELLING.get(str(e["loc"][0]), str(e["loc"][0]))
            for e in err.errors() if e["type"] == "missing"
        ]
        if missing:
            raise DelSyntaxError(f"{verb} needs {', '.join(missing)}", 0) from None
        raise DelSyntaxError(f"{verb}: {err.errors()[0]['msg']}", 0) from None


def _check_settlement(verb: str, fields: dict[str, Any]) -> None:
    if "by" in fields:
        if "seat" in fields or "spot" in fields:
            raise DelSyntaxError(
                f"{verb} takes either seat= and spot= (bataille) or by= (chemin de fer), not both", 0)
        return
    missing = [k for k in ("seat", "spot") if k not in fields]
    if missing:
        raise DelSyntaxError(
            f"{verb} needs {' and '.join(_SPELLING[m] for m in missing)} (or by=OWNER at chemin de fer)", 0)


# -- the parser -----------------------------------------------------------------

@lru_cache(maxsize=1)
def _lark() -> Lark:
    """The grammar, compiled. Compiling takes about 0.1 s, each run; loading Lark's own cache of
    it takes a tenth of that. Lark checks that a cache was made from this grammar text, these
    options and this Lark, else compiles anew and rewrites it."""
    text = grammar_path().read_text(encoding="utf-8")
    where = cache_dir()
    cache: str | bool = False
    if where is not None:
        key = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        cache = str(where / f"del-grammar-{key}-lark-{lark_version}.cache")
    return Lark(text, parser="lalr", lexer="contextual", transformer=_ToEvent(), maybe_placeholders=False,
                cache=cache)


def grammar() -> Lark:
    """The compiled grammar (for tools that want the plain tree)."""
    return _lark()


Parsed = Any  # ev.Event | Header | Comment | Problem | None (blank)


def parse_line(text: str, lineno: int = 0) -> Parsed:
    """Parse one line (without its line end). ``None`` for a blank line."""
    body = text.rstrip()
    if not body:
        return None
    try:
        result = _lark().parse(body)
    except DelSyntaxError as err:
        return Problem(err.column or _verb_column(body), err.message)
    except UnexpectedInput as err:
        column, message = explain(body, err)
        return Problem(column, message)
    if lineno and not isinstance(result, (Header, Comment)):
        result = dataclasses.replace(result, line=lineno)
    return result


def parse_lines(lines: Iterable[str]) -> Iterator[tuple[int, Parsed]]:
    for lineno, text in enumerate(lines, start=1):
        yield lineno, parse_line(text.rstrip("\r\n"), lineno)


# -- explaining errors -------------------------------------------------------------

_TS_NO_OFFSET = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$")
_TS_LIKE = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]")

_VALUE_HELP = {
    "AMOUNT": "an amount: digits, no sign, at most 2 decimals (e.g. 50 or 12.50)",
    "CARD": "a card: rank A K Q J 10 9 8 7 6 5 4 3 2 (or T) then suit S H D C, e.g. 10H",
    "SEAT": "a seat number from 1 to 99",
    "OWNER": "an owner: seat:N or standing:ID",
    "CUT_BY": "dealer or seat:N",
}
_KV_VALUES = {
    "GAME_KV": "bataille or chemin-de-fer",
    "RULESET_KV": "a ruleset id such as fr-bataille-2007",
    "SEATS_KV": "a number of seats from 1 to 99",
    "MIN_KV": _VALUE_HELP["AMOUNT"], "MAX_KV": _VALUE_HELP["AMOUNT"],
    "EGALITE_MIN_KV": _VALUE_HELP["AMOUNT"], "EGALITE_MAX_KV": _VALUE_HELP["AMOUNT"],
    "AMOUNT_KV": _VALUE_HELP["AMOUNT"],
    "ID_KV": "an id (letters, digits, _ . -)", "PLAYER_KV": "a player id (letters, digits, _ . -)",
    "N_KV": "a positive number", "DECKS_KV": "a number of decks",
    "PROCEDURE_KV": "sabot, shuffler or shuffler-dealer",
    "CUT_BY_KV": _VALUE_HELP["CUT_BY"], "BY_SEAT_KV": "seat:N", "BY_KV": _VALUE_HELP["OWNER"],
    "TALON_KV": "a number of cards", "SEAT_KV": _VALUE_HELP["SEAT"],
    "SPOT_KV": "main, egalite, war or egalite-war",
    "HOW_KV": "first, suite, taken, taux or auction", "MODE_KV": "solo, table or suivi",
    "PONTE_POINT_KV": "a point from 0 to 9", "BANKER_POINT_KV": "a point from 0 to 9",
}
_BARE_VALUES = {
    "CARD": _VALUE_HELP["CARD"], "SEAT_NUMBER": _VALUE_HELP["SEAT"],
    "ROUND_NUMBER": "a round number (a positive integer)", "POINT_DIGIT": "a point from 0 to 9",
    "STRING": 'a double-quoted text ("..." with \\" and \\\\ escapes)',
    "TABLE": "a table id: a letter or digit then up to 31 letters, digits, _ . -",
    "TIMESTAMP": "an RFC 3339 timestamp with an offset, e.g. 2026-11-20T21:03:12+01:00",
}


@lru_cache(maxsize=None)
def _kv_key(term: str) -> str | None:
    """The key a key=value terminal spells, read off the grammar itself."""
    if not term.endswith("_KV"):
        return None
    pattern = _lark().get_terminal(term).pattern.value
    m = re.match(r"([a-z-]+)=", pattern)
    return m.group(1) if m else None


@lru_cache(maxsize=None)
def _display(term: str) -> str:
    if term == "$END":
        return "the end of the line"
    key = _kv_key(term)
    if key:
        return f"{key}=…"
    if term in _BARE_VALUES:
        return _BARE_VALUES[term].split(":")[0]
    try:
        pattern = _lark().get_terminal(term).pattern
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


def _verb_column(body: str) -> int:
    words = list(re.finditer(r"\S+", body))
    return words[2].start() + 1 if len(words) >= 3 else 1


def _expected_before(prefix: str) -> set[str]:
    """The terminals the grammar accepts right after ``prefix``."""
    try:
        _lark().parse(prefix)
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
    if isinstance(err, UnexpectedToken) and err.token.type == "$END" or isinstance(err, UnexpectedEOF):
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
            return start, f"`{word}` is not an RFC 3339 timestamp (e.g. 2026-11-20T21:03:12.345+01:00)"
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
            if _kv_key(term) == key:
                return start, (f"{where}`{value}` is not a valid value for {key}=: "
                               f"expected {_KV_VALUES.get(term, term)}")
        return start, f"{where}unexpected argument `{key}=` here; expected {allowed}"
    for term in sorted(expected):
        if term in _BARE_VALUES and not _kv_key(term):
            return start, f"{where}`{word}` is not {_BARE_VALUES[term]}"
    return start, f"{where}unexpected `{word}`; expected {allowed}"


# -- the fast path ------------------------------------------------------------------

def _terminal_regex(name: str) -> re.Pattern[str]:
    """A terminal of the grammar as a compiled regex: the grammar stays the one definition."""
    return re.compile(_lark().get_terminal(name).pattern.to_regexp())


class LineParser:
    """Parses lines as ``parse_line`` does, faster, for streaming large logs.

    Most event lines of a night repeat their verb and arguments: only the
    timestamp, the table and the line number change. The text from the verb on
    is parsed once by the grammar and the validated event kept; each further
    line with the same text only has its timestamp and table checked (with the
    grammar's own terminals) and the cached event assembled around them.
    Anything unusual (comments, headers, leading blanks, a line the grammar
    refuses) goes through ``parse_line`` itself, so events and errors are the
    grammar's, as a test checks over every fixture and generated logs.

    Two caches: the text after the timestamp (table and verb on) gives the
    event's fields at once; on a miss, the text from the verb on gives them
    for any table, once the table is checked with the grammar's terminal.
    """

    _CANON_TS = "2000-01-01T00:00:00Z"
    _CANON_TABLE = "T"
    _SPLIT = re.compile(r"([^ \t]+)[ \t]+([^ \t]+)[ \t]+(.+)", re.S)
    #: a round's number changes every round: one template per action, the number put in
    _ROUND = re.compile(r"ROUND[ \t]+([0-9]{1,9})[ \t]+(begin|end)")

    def __init__(self, max_cached: int = 20_000):
        self.max_cached = max_cached
        self.max_lines = max_cached + max_cached // 4
        # verb on -> template; least recently used first: a full cache drops its coldest entry
        self._cache: OrderedDict[str, tuple[type, dict[str, Any]] | None] = OrderedDict()
        # table and verb on -> (class, fields with the table, text from the verb on);
        # when full its older half goes (a night's hot texts fit: memory stays flat)
        self._lines: dict[str, tuple[type, dict[str, Any], str]] = {}
        self._ts = _terminal_regex("TIMESTAMP").fullmatch
        # shapes (digits as 0) of timestamps the grammar's terminal matched: see ``_stamp_ok``
        self._shapes: set[bytes] = set()
        self._digit_blind = _digit_blind(_terminal_regex("TIMESTAMP").pattern)
        self._table = _terminal_regex("TABLE")
        self._tables: set[str] = set()
        # (table, begin or end) -> the fields of its ROUND lines but the number
        self._round_bases: dict[tuple[str, str], tuple[type, dict[str, Any]]] = {}
        self._stand_ins: dict[str, str] = {}  # terminal -> the word standing for its values
        self.rest = ""  # the current line from its verb on
        #: the current line's timestamp as written, when the fast path read it (else None)
        self.stamp: str | None = None

    def parse(self, text: str, lineno: int = 0) -> Parsed:
        stamp, _, tail = text.partition(" ")
        known = self._lines.get(tail)  # the tail as read, its line end included
        if known is None:
            body = text.rstrip()
            if not body:
                self.rest = ""
                return None
            known = self._line_template(body, tail)
            if known is None:
                return self._reference(body, lineno)
        cls, fields, self.rest = known
        try:  # (a stamp that is not UTF-8, a lone surrogate, fails to encode: a ValueError too)
            if stamp.encode().translate(_DIGITS_AS_0) not in self._shapes and not self._stamp_ok(stamp):
                return self._reference(text.rstrip(), lineno)
            ts = _fromisoformat(stamp)
        except ValueError:
            return self._reference(text.rstrip(), lineno)
        self.stamp = stamp
        # the event built as the validated constructor would, without validating again: the grammar did
        values = fields.copy()
        values["ts"] = ts
        values["line"] = lineno
        obj = _new(cls)
        _set(obj, "__dict__", values)
        return obj

    def _stamp_ok(self, stamp: str) -> bool:
        """The grammar's TIMESTAMP terminal matches ``stamp``; its shape is remembered.

        The shape is the stamp's UTF-8 bytes with each ASCII digit written 0. The terminal's
        pattern treats every digit alike (``_digit_blind`` checks it at start-up), so a stamp with
        the shape of one it matched matches too: most lines are checked with one set lookup.
        """
        if self._ts(stamp) is None:
            return False
        if self._digit_blind:
            if len(self._shapes) >= self.max_cached:
                self._shapes.clear()
            self._shapes.add(stamp.encode().translate(_DIGITS_AS_0))
        return True

    def _line_template(self, body: str, key: str) -> tuple[type, dict[str, Any], str] | None:
        """The template of a table-and-verb text not seen lately (None: not a plain event line);
        ``key`` is that text as read (line end included), ``body`` the line without its end."""
        table, _, rest = body.partition(" ")[2].partition(" ")
        if body[0] in " \t#" or not rest or rest[0] in " \t":
            return None  # tabs or repeated blanks: the grammar's business (a tab in the stamp or
            # the table is caught by their terminals, checked before the template is used)
        if rest.startswith("ROUND"):
            known = self._round_line(table, rest)
            if known is not None:
                return known
        template = self._template(rest)
        if template is None or not self._valid_table(table):
            return None
        cls, fields = template
        # ts and line are in place already (the model's order): each event's copy only overwrites them
        known = (cls, {"ts": None, "table": table, "line": 0, **fields}, rest)
        if not rest.startswith("ROUND"):  # one per round: not worth keeping
            lines = self._lines
            if len(lines) >= self.max_lines:  # the older half goes; it is rebuilt cheaply
                self._lines = lines = dict(list(lines.items())[self.max_lines // 2:])
            lines[key] = known
        return known

    def _round_line(self, table: str, rest: str) -> tuple[type, dict[str, Any], str] | None:
        """A ROUND line: its number changes every round, so it is never in the line cache; the
        fields of ``ROUND 1 begin`` (or ``end``) at its table are, with the number put in."""
        m = self._ROUND.fullmatch(rest)
        if m is None:
            return None
        n = int(m.group(1))
        if n < 1:
            return None  # the grammar's error
        key = (table, m.group(2))
        base = self._round_bases.get(key)
        if base is None:
            template = self._template(f"ROUND 1 {m.group(2)}")
            if template is None or not self._valid_table(table):
                return None
            if len(self._round_bases) >= self.max_cached:
                self._round_bases.clear()
            cls, fields = template
            base = self._round_bases[key] = (cls, {"ts": None, "table": table, "line": 0, **fields})
        cls, fields = base
        fields = fields.copy()
        fields["n"] = n
        return cls, fields, rest

    def event_time(self, text: str) -> datetime | None:
        """The timestamp of a line if it is a valid event line, else None: what another process's
        tables need of a line they do not replay (the file's clock). Same verdict as ``parse``."""
        body = text.rstrip().lstrip(" \t")
        m = self._SPLIT.fullmatch(body) if body and body[0] != "#" and not body[0].isspace() else None
        if m is None:
            return None
        stamp, table, rest = m.groups()
        if self._template(rest) is None or not self._valid_table(table) or not self._ts(stamp):
            parsed = parse_line(body)
            return parsed.ts if isinstance(parsed, ev._Event) else None
        try:
            return _fromisoformat(stamp)
        except ValueError:
            return None

    def is_table(self, word: str) -> bool:
        """Whether ``word`` is a table id, by the grammar's terminal."""
        return self._table.fullmatch(word) is not None

    def _reference(self, body: str, lineno: int) -> Parsed:
        self.stamp = None
        words = body.split(None, 2)
        self.rest = words[2] if len(words) == 3 and body[0] != "#" else ""
        return parse_line(body, lineno)

    def _valid_table(self, table: str) -> bool:
        if table in self._tables:
            return True
        if self._table.fullmatch(table) and len(self._tables) < self.max_cached:
            self._tables.add(table)
            return True
        return bool(self._table.fullmatch(table))

    def _shape(self, rest: str) -> tuple[str, dict[str, Any]] | None:
        """``rest`` with its amounts, seats, ids and other free values replaced by one stand-in
        per terminal, and the values taken out; None if nothing is replaced or anything is odd.

        Lines that differ only in such values then share one parse by the grammar. A value is
        taken out only if the word matches exactly one key=value terminal of the grammar, and
        is converted and range-checked by the transformer's own functions, so the event is the
        one the grammar would build. Anything else (a quoted text, a tab, a bad or repeated
        value) is left to the grammar, which gives its exact error.
        """
        if '"' in rest or "\t" in rest:
            return None
        words = rest.split(" ")
        values: dict[str, Any] = {}
        for i in range(1, len(words)):
            word = words[i]
            key, eq, _ = word.partition("=")
            terminals = _kv_terminals().get(key) if eq else None
            if not terminals:
                continue
            matching = [t for t in terminals if t[1](word)]
            if len(matching) != 1 or matching[0][2] not in _SHAPED_FIELDS:
                continue
            term, _, name, convert = matching[0]
            if name in values:
                return None
            try:
                value = convert(word)
                _ToEvent._check_range(name, value, 0)
            except (DelSyntaxError, ArithmeticError, ValueError):
                return None
            values[name] = value
            words[i] = self._stand_ins.setdefault(term, word)
        if not values:
            return None
        shape = " ".join(words)
        return (shape, values) if shape != rest else None

    def _template(self, rest: str) -> tuple[type, dict[str, Any]] | None:
        cache = self._cache
        template = cache.get(rest, _MISSING)
        if template is not _MISSING:
            cache.move_to_end(rest)
            return template  # type: ignore[return-value]
        if rest.startswith("ROUND"):
            m = self._ROUND.fullmatch(rest)
            canonical = f"ROUND 1 {m.group(2)}" if m else rest
            if m and int(m.group(1)) >= 1 and rest != canonical:
                base = self._template(canonical)
                if base is not None:
                    cls, fields = base
                    return cls, {**fields, "n": int(m.group(1))}
        shaped = self._shape(rest)
        if shaped is not None:
            base = self._template(shaped[0])
            if base is not None:
                cls, fields = base
                template = (cls, {**fields, **shaped[1]})
                if len(cache) >= self.max_cached:
                    cache.popitem(last=False)
                cache[rest] = template
                return template
        parsed = parse_line(f"{self._CANON_TS} {self._CANON_TABLE} {rest}", 1)
        template = None
        if isinstance(parsed, ev._Event):
            fields = {k: v for k, v in parsed.__dict__.items() if k not in ("ts", "table", "line")}
            template = (type(parsed), fields)
        if len(cache) >= self.max_cached:
            cache.popitem(last=False)  # memory stays bounded whatever the log
        cache[rest] = template
        return template


#: fields whose values ``LineParser._shape`` may take out of a line (free values, not choices)
_SHAPED_FIELDS = frozenset({"amount", "seat", "player", "id", "by", "n", "talon", "min", "max",
                            "egalite_min", "egalite_max", "seats", "decks", "ponte", "banker"})


@lru_cache(maxsize=1)
def _kv_terminals() -> dict[str, list[tuple[str, Callable[[str], Any], str, Callable[[str], Any]]]]:
    """key -> its key=value terminals as (name, fullmatch, field, converter), read off the grammar."""
    out: dict[str, list] = {}
    for term in _lark().terminals:
        key = _kv_key(term.name)
        if key and term.name in _FIELDS:
            name, convert = _FIELDS[term.name]
            out.setdefault(key, []).append((term.name, _terminal_regex(term.name).fullmatch, name, convert))
    return out


_MISSING = object()
_DIGITS_AS_0 = bytes.maketrans(b"0123456789", b"0000000000")


def _digit_blind(pattern: str) -> bool:
    """Whether a regex gives the same verdict on any two texts that differ only in which ASCII
    digit stands at each place: it has no literal digit and no back-reference, and each of its
    character sets holds all ten digits or none (``LineParser._stamp_ok`` relies on it).
    Anything this does not recognise counts as not blind, and the full regex is used."""
    try:
        import re._parser as sre  # the parser behind ``re.compile``
        from re._constants import (ANY, ASSERT, ASSERT_NOT, AT, BRANCH, CATEGORY, IN, LITERAL, MAX_REPEAT,
                                   MIN_REPEAT, NEGATE, NOT_LITERAL, POSSESSIVE_REPEAT, RANGE, SUBPATTERN)
        tree = sre.parse(pattern)
    except (ImportError, re.error):
        return False
    digits = frozenset(range(0x30, 0x3A))

    def set_blind(items) -> bool:
        held = set()
        for op, av in items:
            if op is NEGATE:
                continue
            if op is LITERAL:
                held.add(av)
            elif op is RANGE:
                held.update(d for d in digits if av[0] <= d <= av[1])
            elif op is CATEGORY:
                return False  # \d, \w and the like: not worth proving, the regex is used
            else:
                return False
        return not held & digits or digits <= held

    def blind(seq) -> bool:
        for op, av in seq:
            if op in (LITERAL, NOT_LITERAL):
                if av in digits:
                    return False
            elif op is IN:
                if not set_blind(av):
                    return False
            elif op in (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT):
                if not blind(av[2]):
                    return False
            elif op is SUBPATTERN:
                if not blind(av[3]):
                    return False
            elif op is BRANCH:
                if not all(blind(b) for b in av[1]):
                    return False
            elif op in (ASSERT, ASSERT_NOT):
                if not blind(av[1]):
                    return False
            elif op not in (AT, ANY):
                return False
        return True

    return blind(tree)


_new = object.__new__
_set = object.__setattr__
_fromisoformat = datetime.fromisoformat
