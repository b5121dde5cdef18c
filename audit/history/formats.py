"""A view written as text (aligned columns for a person), JSON (an array of objects) or CSV.

Amounts are exact decimal strings in JSON and CSV, as in the audit's reports; an empty value
is null in JSON, an empty field in CSV and ``-`` in text."""

from __future__ import annotations

import json
import re
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING

from ..escape import for_terminal

if TYPE_CHECKING:
    from .views import View

FORMATS = ("text", "json", "csv")
HUNDREDTH = Decimal("0.01")


def _value(v):
    if isinstance(v, Decimal):  # an amount or a percentage: two decimals
        return format(v.quantize(HUNDREDTH), "f")
    if isinstance(v, date):
        return v.isoformat()
    return v


def render(view: View, fmt: str) -> str:
    rows = [[_value(row[c]) for c in view.columns] for row in view.rows]
    if fmt == "json":
        return (
            json.dumps([dict(zip(view.columns, r)) for r in rows], indent=1, ensure_ascii=False)
            + "\n"
        )
    if fmt == "csv":
        lines = [",".join(csv_cell(c) for c in view.columns)]
        lines += (
            ",".join(csv_cell(v, raw) for v, raw in zip(r, (row[c] for c in view.columns)))
            for r, row in zip(rows, view.rows)
        )
        return "".join(line + "\n" for line in lines)
    return _text(view, rows)


#: what a spreadsheet takes for the start of a formula (OWASP, "CSV injection")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: a cell that is wholly a number is no formula, whatever its sign: kept as the number it is
NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def csv_cell(value, raw=None) -> str:
    """One CSV field, safe to open in a spreadsheet: text that begins as a formula would (a name
    the casino wrote in its log: a dealer, a table, a path) is prefixed with a single quote and
    quoted, so the spreadsheet shows it as text; a number (``raw`` a number, or text that is
    wholly a decimal number such as an amount ``-40.00``) is left as it is. Quoted as RFC 4180
    asks when it holds a comma, a quote or a line end; empty for None."""
    if value is None:
        return ""
    text = str(value)
    number = isinstance(raw, (int, float, Decimal)) and not isinstance(raw, bool)
    formula = text.startswith(FORMULA_STARTS) and not number and not NUMBER.fullmatch(text)
    if formula:
        text = "'" + text
    if formula or any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _text(view: View, rows: list[list]) -> str:
    """Columns aligned, numbers to the right."""
    if not rows:
        return view.empty + "\n"
    columns = view.columns
    cells = [columns] + [[for_terminal("-" if v is None else str(v)) for v in r] for r in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    numeric = [
        all(isinstance(row[c], (int, float, Decimal)) or row[c] is None for row in view.rows)
        for c in columns
    ]
    out = []
    for line in cells:
        out.append(
            "  ".join(
                v.rjust(w) if num else v.ljust(w) for v, w, num in zip(line, widths, numeric)
            ).rstrip()
        )
    return "\n".join(out) + "\n"
