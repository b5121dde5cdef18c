"""The store's seal: each recorded input's rows chained to the input recorded before it.

The casino keeps the store. A row changed after its night was recorded (a result, a finding
deleted, a group's figures), an input removed from the middle, or a seal cleared, must show.
When a run records an input it reads back every row it wrote for it (the input, its tables,
dealers, findings and statistics groups, in the order written) and hashes them; the input's
``seal`` is the SHA-256 of the seal of the input sealed before it and that hash. The last seal
is the store's *head*. ``audit history verify`` reads every input again, in the order recorded,
and says where a seal no longer holds.

A seal kept in the same store could be made again by whoever rewrote the rows: the head is
worth what is kept outside the store. Every report of ``audit check --store`` names the head the
store had before the run (``configuration.store``), and ``verify --head`` says whether a head
written in an earlier report is still a seal of this store, and how many inputs came after it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import date

from sqlalchemy import func, select, text, update

from ..escape import for_terminal
from . import schema

#: what the first input's seal is chained to
ORIGIN = "0" * 64
#: the rows under an input, hashed in this order (each in the order it was written)
UNDER = (schema.tables, schema.dealers, schema.findings, schema.groups)


def _iso(value: object) -> object:
    """A column's value JSON has no type for: a date, as ISO 8601 (the same on every read). Any
    other (bytes, say: SQLite keeps whatever a hand writes in a column) as its type and ``repr``, so
    that a row written with it breaks its seal and never stops the verification."""
    if isinstance(value, date):
        return value.isoformat()
    return [type(value).__name__, repr(value)]


#: one row as one JSON line (a date through ``_iso``; nothing else needs converting)
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_iso).encode


def _line(name: str, row) -> bytes:
    return (_encode([name, *row]) + "\n").encode("utf-8")


def _queries() -> list[tuple[str, str]]:
    """(table, SELECT of its own columns for one input, in the order written): plain SQL, its rows
    as the driver gives them (the same on every read of one store; no conversion a row)."""
    out = []
    for table in (schema.inputs, *UNDER):
        own = [c.name for c in table.c if c.name not in ("id", "input_id", "seal")]
        key = "id" if table is schema.inputs else "input_id"
        out.append(
            (
                table.name,
                f"SELECT {', '.join(own)} FROM {table.name} WHERE {key} = :id ORDER BY id",
            )
        )
    return out


_QUERIES = _queries()


def content(conn, input_id: int) -> str:
    """The SHA-256 of every row recorded for one input, as the store holds them now."""
    digest = hashlib.sha256()
    for name, query in _QUERIES:
        for row in conn.execute(text(query), {"id": input_id}):
            digest.update(_line(name, row))
    return digest.hexdigest()


def chained(previous: str, rows: str) -> str:
    """A seal: the previous input's seal and this input's rows' hash, hashed together."""
    return hashlib.sha256(f"{previous}:{rows}".encode("ascii")).hexdigest()


def head(conn) -> tuple[int, str | None]:
    """The sealed inputs and the last seal (None: nothing sealed yet)."""
    inputs = schema.inputs
    sealed = inputs.c.seal.is_not(None)
    count = conn.execute(select(func.count()).select_from(inputs).where(sealed)).scalar()
    last = conn.execute(
        select(inputs.c.seal).where(sealed).order_by(inputs.c.id.desc()).limit(1)
    ).scalar()
    return count or 0, None if last is None else _text(last)


def seal(conn, input_id: int) -> str:
    """Seal an input just recorded in ``conn``'s transaction (which holds the writers' lock):
    chained to the last input sealed before it."""
    inputs = schema.inputs
    previous = conn.execute(
        select(inputs.c.seal)
        .where(inputs.c.id < input_id, inputs.c.seal.is_not(None))
        .order_by(inputs.c.id.desc())
        .limit(1)
    ).scalar()
    value = chained(previous or ORIGIN, content(conn, input_id))
    conn.execute(update(inputs).where(inputs.c.id == input_id).values(seal=value))
    return value


def _text(value: object) -> str:
    return value if isinstance(value, str) else repr(value)


def _day(value: object) -> str | None:
    """A gaming day as read (a date, or the text SQLite keeps), as ISO 8601 text."""
    if value is None:
        return None
    return value.isoformat() if isinstance(value, date) else str(value)


@dataclass
class Break:
    """An input whose seal no longer holds, or that has none where it should."""

    input: int
    path: str
    gaming_day: str | None
    why: str


@dataclass
class Verdict:
    inputs: int = 0
    sealed: int = 0
    #: inputs recorded before the store was sealed (by an older version): not verifiable
    unsealed: int = 0
    #: the last seal and the input it seals
    head: str | None = None
    head_input: int | None = None
    broken: list[Break] = field(default_factory=list)
    #: ``--head``: the input it seals (None: not a seal of this store), and inputs sealed after it
    anchor: str | None = None
    anchor_input: int | None = None
    after_anchor: int = 0

    @property
    def holds(self) -> bool:
        return not self.broken and (self.anchor is None or self.anchor_input is not None)


def verify(conn, anchor: str | None = None) -> Verdict:
    """Every input's seal checked again, in the order recorded."""
    inputs = schema.inputs
    out = Verdict(anchor=anchor)
    previous = ORIGIN
    # plain SQL, no conversion: a value a hand wrote where a date belongs is shown, not parsed
    rows = conn.execute(
        text(f"SELECT id, path, gaming_day, seal FROM {inputs.name} ORDER BY id")
    ).all()
    for input_id, read_path, read_day, read_seal in rows:
        # SQLite keeps whatever a hand writes in a column: anything but text is shown as it is
        path, day = _text(read_path), _day(read_day)
        kept = None if read_seal is None else _text(read_seal)
        out.inputs += 1
        if kept is None:
            if out.sealed:
                out.broken.append(
                    Break(input_id, path, day, "it has no seal, though inputs before it have one")
                )
            else:
                out.unsealed += 1
            continue
        out.sealed += 1
        if chained(previous, content(conn, input_id)) != kept:
            out.broken.append(
                Break(
                    input_id,
                    path,
                    day,
                    "its seal does not hold: its rows, or the inputs recorded before it, are not "
                    "those it was sealed with (a row changed, added or removed)",
                )
            )
        if anchor is not None and kept == anchor and out.anchor_input is None:
            out.anchor_input = input_id
        elif out.anchor_input is not None:
            out.after_anchor += 1
        previous = kept
        out.head, out.head_input = kept, input_id
    return out


def as_json(store: str, v: Verdict) -> dict:
    """``audit history verify --format json``."""
    return {
        "store": store,
        "holds": v.holds,
        "inputs": v.inputs,
        "sealed": v.sealed,
        "unsealed": v.unsealed,
        "head": v.head,
        "head_input": v.head_input,
        "broken": [
            {
                "input": b.input,
                "path": b.path,
                "gaming_day": b.gaming_day,
                "why": b.why,
            }
            for b in v.broken
        ],
        **(
            {}
            if v.anchor is None
            else {
                "anchor": v.anchor,
                "anchor_input": v.anchor_input,
                "sealed_after_anchor": v.after_anchor if v.anchor_input is not None else None,
            }
        ),
    }


def as_text(store: str, v: Verdict) -> str:
    """``audit history verify``: one line of verdict, then the breaks, one a line."""
    lines = []
    if v.holds:
        lines.append(
            f"store {for_terminal(store)}: the seal holds: {v.sealed} input(s) sealed"
            + (f", head {v.head} (input #{v.head_input})" if v.head else "")
        )
    else:
        lines.append(f"store {for_terminal(store)}: the seal does NOT hold")
    if v.unsealed:
        lines.append(
            f"  {v.unsealed} input(s) recorded before the store was sealed: not verifiable"
        )
    for b in v.broken:
        day = f", gaming day {for_terminal(b.gaming_day)}" if b.gaming_day else ""
        # the path as the store holds it: the store is the audited party's, its text escaped
        lines.append(f"  input #{b.input} ({for_terminal(b.path)}{day}): {b.why}")
    if v.anchor is not None:
        if v.anchor_input is None:
            lines.append(
                f"  head {v.anchor} is not a seal of this store: the inputs up to it were "
                "changed or removed since it was written down"
            )
        else:
            lines.append(
                f"  head {v.anchor} is the seal of input #{v.anchor_input}; "
                f"{v.after_anchor} input(s) sealed since"
            )
    return "\n".join(lines) + "\n"
