"""The fast path: lines parsed as ``plain.parse_line`` parses them, faster, for streaming large logs."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from typing import Any

from .. import events as ev
from ..registry import syntaxes
from .digit_blind import digit_blind
from .grammar import grammar, kv_key, terminal_regex
from .parsed import DelSyntaxError, Parsed
from .plain import parse_line
from .transform import ALL_FIELDS, check_range


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

    Two caches: the text from the verb on, as read, gives the event's fields
    at once, for any table already checked with the grammar's terminal; on a
    miss, the same text without its line end gives its template (the parse of
    a line like it), from which the entry is made.
    """

    _CANON_TS = "2000-01-01T00:00:00Z"
    _CANON_TABLE = "T"
    #: a round's number changes every round: one template per action, the number put in
    _ROUND = re.compile(r"ROUND[ \t]+([0-9]{1,9})[ \t]+(begin|end)")

    def __init__(self, max_cached: int = 20_000):
        self.max_cached = max_cached
        self.max_lines = max_cached + max_cached // 4
        # verb on -> template; least recently used first: a full cache drops its coldest entry
        self._cache: OrderedDict[str, tuple[type, dict[str, Any]] | None] = OrderedDict()
        # verb on as read -> (class, fields, text from the verb on); the table is each line's own
        # (one entry serves every table); when full its older half goes (memory stays flat)
        self._lines: dict[str, tuple[type, dict[str, Any], str]] = {}
        self._ts = terminal_regex("TIMESTAMP").fullmatch
        # shapes (digits as 0) of timestamps the grammar's terminal matched: see ``_stamp_ok``
        self._shapes: set[bytes] = set()
        self._digit_blind = digit_blind(terminal_regex("TIMESTAMP").pattern)
        self._table = terminal_regex("TABLE")
        self._tables: set[str] = set()
        # (table, begin or end) -> the fields of its ROUND lines but the number
        self._round_bases: dict[tuple[str, str], tuple[type, dict[str, Any]]] = {}
        self._stand_ins: dict[str, str] = {}  # terminal -> the word standing for its values
        #: word -> what ``take_out`` makes of it: the words of a night's lines repeat (the same amounts,
        #: players, seats) where the lines do not, so each is matched and converted once
        self._taken: dict[str, tuple[str, str, Any] | object | None] = {}
        self.rest = ""  # the current line from its verb on
        #: the current line's timestamp as written, when the fast path read it (else None)
        self.stamp: str | None = None

    def parse(self, text: str, lineno: int = 0) -> Parsed:
        try:
            stamp, table, key = text.split(" ", 2)
        except ValueError:  # fewer than three words: as two partitions would cut them
            stamp, _, tail = text.partition(" ")
            table, _, key = tail.partition(" ")
        known = self._lines.get(key)  # the text from the verb on as read, its line end included
        if known is None or table not in self._tables:
            body = text.rstrip()
            if not body:
                self.rest = ""
                return None
            known = self._line_template(body, key)
            if known is None:
                return self._reference(body, lineno)
        cls, fields, self.rest = known
        try:  # (a stamp that is not UTF-8, a lone surrogate, fails to encode: a ValueError too)
            if stamp.encode().translate(_DIGITS_AS_0) not in self._shapes and not self._stamp_ok(
                stamp
            ):
                return self._reference(text.rstrip(), lineno)
            ts = _fromisoformat(stamp)
        except ValueError:
            return self._reference(text.rstrip(), lineno)
        self.stamp = stamp
        # the event built as the validated constructor would, without validating again: the grammar did.
        # Its own (empty) attribute dictionary is filled in place: replacing it through
        # ``object.__setattr__`` (the class is frozen) costs a slot wrapper's call, about 50 ns an event
        obj: Any = _new(cls)
        values = obj.__dict__
        values.update(fields)
        values["ts"] = ts
        values["table"] = table
        values["line"] = lineno
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
        """The template of a line whose text from the verb on was not seen lately, or whose
        table is not known yet (None: not a plain event line); ``key`` is that text as read (line
        end included), ``body`` the line without its end. The table is the caller's to put in."""
        table, _, rest = body.partition(" ")[2].partition(" ")
        if body[0] in " \t#" or not rest or rest[0] in " \t":
            return None  # tabs or repeated blanks: the grammar's business (a tab in the stamp or
            # the table is caught by their terminals, checked before the template is used)
        known = self._round_line(table, rest) if rest.startswith("ROUND") else None
        if known is None:
            template = self._template(rest)
            if template is None or not self._valid_table(table):
                return None
            cls, fields = template
            # ts, table and line are in place already (the model's order): each event's copy overwrites them
            known = (cls, {"ts": None, "table": None, "line": 0, **fields}, rest)
        lines = self._lines
        if len(lines) >= self.max_lines:  # the older half goes; it is rebuilt cheaply
            self._lines = lines = dict(list(lines.items())[self.max_lines // 2 :])
        lines[key] = known
        return known

    def _round_line(self, table: str, rest: str) -> tuple[type, dict[str, Any], str] | None:
        """A ROUND line: its number changes every round, so its text is new at its first table
        (the line cache keeps it for the others); the fields of ``ROUND 1 begin`` (or ``end``)
        at its table are kept, with the number put in."""
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
        taken = self._taken
        for i in range(1, len(words)):
            word = words[i]
            found: Any = taken.get(word, _MISSING)  # a (term, name, value), _REFUSED or None
            if found is _MISSING:  # a word not seen lately: looked at as ``take_out`` does
                found = take_out(word)
                if len(taken) >= self.max_cached:
                    taken.clear()
                taken[word] = found
            if found is None:
                continue
            if found is _REFUSED:
                return None
            term, name, value = found
            if name in values:
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
            if (
                base is not None
            ):  # not kept: the line cache keeps the line, the grammar's parses stay here
                cls, fields = base
                return cls, {**fields, **shaped[1]}
        parsed = parse_line(f"{self._CANON_TS} {self._CANON_TABLE} {rest}", 1)
        template = None
        if isinstance(parsed, ev._Event):
            fields = {k: v for k, v in parsed.__dict__.items() if k not in ("ts", "table", "line")}
            template = (type(parsed), fields)
        if len(cache) >= self.max_cached:
            cache.popitem(last=False)  # memory stays bounded whatever the log
        cache[rest] = template
        return template


def take_out(word: str) -> tuple[str, str, Any] | object | None:
    """What ``LineParser._shape`` does with one word of a line after its verb: (terminal, field,
    value) when its value is taken out; None when it stays in the text; ``_REFUSED`` when the
    line is left to the grammar (a value that does not convert, or out of range)."""
    key, eq, _ = word.partition("=")
    terminals = _kv_terminals().get(key) if eq else None
    if not terminals:
        return None
    matching = [t for t in terminals if t[1](word)]
    if len(matching) != 1 or matching[0][2] not in _SHAPED_FIELDS:
        return None
    term, _, name, convert = matching[0]
    try:
        value = convert(word)
        check_range(name, value, 0)
    except (DelSyntaxError, ArithmeticError, ValueError):
        return _REFUSED
    return term, name, value


#: ``take_out``: the word's value is not one the grammar would accept
_REFUSED = object()

#: fields whose values ``LineParser._shape`` may take out of a line (free values, not choices)
_SHAPED_FIELDS = frozenset(
    {
        "amount",
        "seat",
        "player",
        "id",
        "by",
        "n",
        "talon",
        "min",
        "max",
        "seats",
        "decks",
    }
).union(*(syntax.free for syntax in syntaxes()))


@lru_cache(maxsize=1)
def _kv_terminals() -> dict[str, list[tuple[str, Callable[[str], Any], str, Callable[[str], Any]]]]:
    """key -> its key=value terminals as (name, fullmatch, field, converter), read off the grammar."""
    out: dict[str, list] = {}
    for term in grammar().terminals:
        key = kv_key(term.name)
        if key and term.name in ALL_FIELDS:
            name, convert = ALL_FIELDS[term.name]
            out.setdefault(key, []).append(
                (term.name, terminal_regex(term.name).fullmatch, name, convert)
            )
    return out


_MISSING = object()
_DIGITS_AS_0 = bytes.maketrans(b"0123456789", b"0000000000")
_new = object.__new__
_fromisoformat = datetime.fromisoformat
