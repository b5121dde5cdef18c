"""Values in a store that no recording writes: a count that is text, an amount that is not one, a
gaming day that is no date. Only another hand puts them there (the store is the audited party's).

A view that meets one would stop with an "internal error", and ``audit check --store`` with it,
its report unwritten: one altered cell would blind the nightly audit. So when reading a store
fails, the store is searched for such values (``find``): found, the failure is the store's and
is named, table, column and row (``damage``, a ``StoreError``: exit 2, the night's report
written first); not found, it is the program's and stays an internal error. ``audit history
verify`` names the nights whose rows changed, whatever the values written.

The raw values are read with plain SQL, so that no column type converts them first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import TypeVar

from sqlalchemy import Boolean, Date, Float, Integer, String, Text

from . import schema
from .store import StoreError

T = TypeVar("T")

#: what a failed read of a store's values raises before this module names the value
READ_ERRORS = (TypeError, ValueError, ArithmeticError)
#: an amount (and a figure per unit) as the reports write it and the recording stores it
_AMOUNT = re.compile(r"-?[0-9]+(\.[0-9]+)?")
#: misfits named in a message at most (the search stops there)
NAMED = 3


@dataclass(frozen=True)
class Misfit:
    table: str
    column: str
    #: the row's id, and the input it belongs to (None: a row of ``audit_input`` itself)
    row: object
    input: object
    value: object
    #: what the column holds when a recording writes it
    wanted: str

    def __str__(self) -> str:
        where = f"{self.table}.{self.column} of row {self.row!r}"
        if self.input is not None:
            where += f" (input #{self.input!r})"
        return f"{where} holds {_shown(self.value)}, not {self.wanted}"


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(value: object) -> bool:
    return type(value) is int


def _is_flag(value: object) -> bool:
    return type(value) is bool or (type(value) is int and value in (0, 1))


def _is_real(value: object) -> bool:
    return type(value) in (int, float)


def _is_text(value: object) -> bool:
    return type(value) is str


def _is_day(value: object) -> bool:
    """A date: PostgreSQL's own type, or the ISO 8601 text SQLite keeps for one."""
    if type(value) is date:
        return True
    if type(value) is not str or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _is_amount(value: object) -> bool:
    if type(value) is not str or not _AMOUNT.fullmatch(value):
        return False
    try:
        return Decimal(value).is_finite()
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        return False


def _is_pair_id(value: object) -> bool:
    return type(value) is str and "+" in value


def _kind(column) -> tuple[Callable[[object], bool], str]:
    """How a column's values are checked, and what the check wants (in a message's words)."""
    kind = column.type
    if kind is schema.Money or kind is schema.Units:  # a String of its own, by identity
        return _is_amount, "an amount"
    if isinstance(kind, Boolean):
        return _is_flag, "a yes or no"
    if isinstance(kind, Integer):  # BigInteger too
        return _is_int, "a whole number"
    if isinstance(kind, Float):
        return _is_real, "a number"
    if isinstance(kind, Date):
        return _is_day, "a date"
    if isinstance(kind, String | Text):
        return _is_text, "text"
    raise AssertionError(f"no check for {column.table.name}.{column.name}")  # pragma: no cover


#: what a recording writes together in a statistics group's row, beyond each column's type: a money
#: or units test's figures (the month's sums add them), bets for a units test only, a pair's two ids
_GROUP_ROW: list[tuple[Callable[[dict], bool], tuple[str, ...], Callable[[object], bool], str]] = [
    (
        lambda r: r["test"] in ("result", "units"),
        ("handle", "result", "expected", "sd"),
        _is_amount,
        "an amount",
    ),
    (
        lambda r: r["test"] == "units",
        ("units", "units_expected", "units_sd"),
        _is_amount,
        "an amount",
    ),
    (lambda r: r["test"] == "units", ("bets",), _is_int, "a whole number"),
    (lambda r: r["test"] != "units", ("bets",), lambda v: v is None, "nothing (a units test's)"),
    (lambda r: r["scope"] == "pair", ("ident",), _is_pair_id, "DEALER+PLAYER"),
]


def _misfits(conn) -> Iterator[Misfit]:
    from sqlalchemy import text

    for table in schema.metadata.sorted_tables:
        columns = [c for c in table.columns if c.name != "id"]
        owner = "input_id" if "input_id" in table.columns else None
        picked = ", ".join(["id", owner or "NULL", *(c.name for c in columns)])
        checks = [(c, *_kind(c)) for c in columns]
        names = [c.name for c in columns]
        rules = _GROUP_ROW if table is schema.groups else []
        for row in conn.execute(text(f"SELECT {picked} FROM {table.name} ORDER BY id")):
            wrong = set()
            for (column, fits, wanted), value in zip(checks, row[2:], strict=True):
                if (value is None and not column.nullable) or (
                    value is not None and not fits(value)
                ):
                    wrong.add(column.name)
                    yield Misfit(table.name, column.name, row[0], row[1], value, wanted)
            values = dict(zip(names, row[2:], strict=True))
            for applies, needed, fits, wanted in rules:
                if not wrong.intersection(("scope", "test")) and applies(values):
                    for name in needed:
                        if name not in wrong and not fits(values[name]):
                            yield Misfit(table.name, name, row[0], row[1], values[name], wanted)


def find(conn, limit: int = NAMED) -> list[Misfit]:
    """The first ``limit`` values of the store that no recording writes, table by table, in row order."""
    out = []
    for misfit in _misfits(conn):
        out.append(misfit)
        if len(out) >= limit:
            break
    return out


class DamagedStore(StoreError):
    """A store holding values no recording writes; ``what`` names them (the message without the store)."""

    def __init__(self, shown: str, what: str) -> None:
        super().__init__(f"store {shown}: {what}")
        self.what = what


def damage(shown: str, found: list[Misfit]) -> DamagedStore:
    """The error that names what was found (``shown``: the store as a message names it)."""
    named = "; ".join(map(str, found))
    more = " (and maybe more)" if len(found) >= NAMED else ""
    return DamagedStore(
        shown,
        f"{named}{more}: no recording writes such a value, so the store was changed by another "
        "hand; `audit history verify` names the nights whose rows changed",
    )


def reading(conn, shown: str, read: Callable[[], T]) -> T:
    """``read()``, and if it fails on a value: the store's damage named when there is any
    (``DamagedStore``), else the failure as it was (the program's)."""
    try:
        return read()
    except READ_ERRORS:
        found = find(conn)
        if found:
            raise damage(shown, found) from None
        raise
