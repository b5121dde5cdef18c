"""The grammar's tree to events: each verb's tokens to the event's fields, converted, range-checked
and validated by the event's model. A line the model refuses is a ``DelSyntaxError``."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import Any

from lark import Token, Transformer
from pydantic import ValidationError

from .. import events as ev
from ..registry import syntaxes
from ..values import Card, Owner
from .parsed import Comment, DelSyntaxError, Header


def _after_eq(tok: str) -> str:
    return tok.split("=", 1)[1]


def _cut_by(tok: str) -> Any:
    value = _after_eq(tok)
    return "dealer" if value == "dealer" else Owner.parse(value)


def _unescape(tok: str) -> str:
    return re.sub(r"\\([\"\\])", r"\1", tok[1:-1])


#: token type -> (field, converter)
FIELDS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "GAME_KV": ("game", _after_eq),
    "RULESET_KV": ("ruleset", _after_eq),
    "SEATS_KV": ("seats", lambda t: int(_after_eq(t))),
    "MIN_KV": ("min", lambda t: Decimal(_after_eq(t))),
    "MAX_KV": ("max", lambda t: Decimal(_after_eq(t))),
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
    "TO_KV": ("to_seat", lambda t: int(_after_eq(t))),
    "SPOT_KV": ("spot", _after_eq),
    "SEAT_NUMBER": ("seat", int),
    "ROUND_NUMBER": ("n", int),
    "CARD": ("card", Card.parse),
    "STRING": ("text", _unescape),
}

#: bare word -> (field, value); None: the word carries no value of its own
_WORDS: dict[str, tuple[str, Any] | None] = {
    "PRESENT": ("present", True),
    "ABSENT": ("present", False),
    "IN": ("action", "in"),
    "OUT": ("action", "out"),
    "LAST_SHOE": ("what", "last-shoe"),
    "LAST_ROUNDS": ("what", "last-rounds"),
    "NEW": None,
    "REFUSED": ("refused", True),
    "BEGIN": ("action", "begin"),
    "END": ("action", "end"),
    "DEALER": ("to", "dealer"),
}

#: how an argument is written, for messages (the registered games' own: ``Syntax.spellings``)
_SPELLING = {
    "seat": "seat=N",
    "to_seat": "to=N",
    "spot": "spot=S",
    "amount": "amount=AMOUNT",
    "by": "by=OWNER",
    "game": "game=G",
    "ruleset": "ruleset=R",
    "seats": "seats=N",
    "min": "min=AMOUNT",
    "max": "max=AMOUNT",
    "decks": "decks=N",
    "procedure": "procedure=P",
    "id": "id=ID",
    "n": "n=N",
    "talon": "talon=N",
    "card": "a card",
    "text": '"text"',
}


def _limit(name: str, value: int, low: int, high: int, column: int) -> None:
    if not low <= value <= high:
        raise DelSyntaxError(
            f"{name} {value} is out of range: it must be from {low} to {high}", column
        )


def check_range(name: str, value: Any, column: int) -> None:
    """The ranges the grammar cannot say (seats, seat numbers, round numbers, decks)."""
    if name == "seat" or name == "to_seat":
        _limit("seat", value, 1, 99, column)
    elif name == "by" and isinstance(value, Owner) and value.kind == "seat":
        _limit("seat", int(value.id), 1, 99, column)
    elif name == "seats":
        _limit("seats", value, 1, 99, column)
    elif name == "n":
        _limit("number", value, 1, 999_999_999, column)
    elif name == "decks":
        _limit("decks", value, 1, 99, column)


def _own(which: str) -> dict[str, Any]:
    """The registered games' own terminals (``Syntax.fields`` or ``Syntax.words``)."""
    out: dict[str, Any] = {}
    for syntax in syntaxes():
        out.update(getattr(syntax, which))
    return out


#: the format's terminals and the registered games' own: token type -> (field, converter)
ALL_FIELDS: dict[str, tuple[str, Callable[[str], Any]]] = {**_own("fields"), **FIELDS}
_ALL_WORDS: dict[str, tuple[str, Any] | None] = {**_own("words"), **_WORDS}
SPELLING: dict[str, str] = {**_own("spellings"), **_SPELLING}


class ToEvent(Transformer):
    """Turns each verb's subtree into ``(verb, fields, column)``."""

    def __default__(self, data: str, children: list, meta: Any) -> Any:
        if data.startswith("_"):  # Lark's helper rules for repetitions
            return super().__default__(data, children, meta)
        verb = data.upper()
        fields: dict[str, Any] = {}
        for tok in children:
            if not isinstance(tok, Token):
                continue
            spec = ALL_FIELDS.get(tok.type)
            if spec is not None:
                name, convert = spec
                value = convert(str(tok))
            else:
                word = _ALL_WORDS.get(tok.type, ...)
                if word is None:
                    continue
                if word is ...:
                    continue
                name, value = word
            assert tok.column is not None  # a token of the lexer has its place
            if name in fields:
                raise DelSyntaxError(
                    f"{verb}: {SPELLING.get(name, name)} is given twice", tok.column
                )
            check_range(name, value, tok.column)
            fields[name] = value
        return (verb, fields)

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
    elif verb == "STOPCARD" and "talon" in fields:
        fields["action"] = "place"
    elif verb in ("PAY", "COLLECT", "PUSH"):
        _check_settlement(verb, fields)
    model = ev.MODELS[verb]
    try:
        return model(ts=ts, table=table, **fields)
    except ValidationError as err:
        missing = [
            SPELLING.get(str(e["loc"][0]), str(e["loc"][0]))
            for e in err.errors()
            if e["type"] == "missing"
        ]
        if missing:
            raise DelSyntaxError(f"{verb} needs {', '.join(missing)}", 0) from None
        raise DelSyntaxError(f"{verb}: {err.errors()[0]['msg']}", 0) from None


def _check_settlement(verb: str, fields: dict[str, Any]) -> None:
    if "by" in fields:
        if "seat" in fields or "spot" in fields:
            raise DelSyntaxError(
                f"{verb} takes either seat= and spot= (a box's stake) or by= (an owner's), not both",
                0,
            )
        return
    missing = [k for k in ("seat", "spot") if k not in fields]
    if missing:
        raise DelSyntaxError(
            f"{verb} needs {' and '.join(SPELLING[m] for m in missing)} (or by=OWNER)",
            0,
        )
