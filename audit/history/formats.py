"""A view written as text (aligned columns for a person), JSON (an array of objects) or CSV.

Amounts are exact decimal strings in JSON and CSV, as in the audit's reports; an empty value
is null in JSON, an empty field in CSV and ``-`` in text."""

from __future__ import annotations

import csv
import io
import json
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
        return json.dumps([dict(zip(view.columns, r)) for r in rows], indent=1, ensure_ascii=False) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(view.columns)
        writer.writerows(["" if v is None else v for v in r] for r in rows)
        return out.getvalue()
    return _text(view, rows)


def _text(view: View, rows: list[list]) -> str:
    """Columns aligned, numbers to the right."""
    if not rows:
        return "nothing recorded in this range\n"
    columns = view.columns
    cells = [columns] + [[for_terminal("-" if v is None else str(v)) for v in r] for r in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    numeric = [all(isinstance(row[c], (int, float, Decimal)) or row[c] is None for row in view.rows) for c in columns]
    out = []
    for line in cells:
        out.append("  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(line, widths, numeric)).rstrip())
    return "\n".join(out) + "\n"
