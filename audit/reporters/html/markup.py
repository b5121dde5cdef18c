"""HTML built from parts that are either markup this package wrote or text, never both.

``Html`` marks a string as markup; anything else given to ``el`` is text, and text is always
escaped: what does not print (controls, bidi, zero-width) written as its escape as on a terminal
(``audit.escape``), then ``<``, ``>``, ``&`` and both quotes as entities. So a log, a file name, a
ruleset or an overlay can only ever show as text, in an element or in an attribute.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Union

from ...escape import for_terminal


class Html(str):
    """Markup written by this package (or escaped already): put in a page as it is."""

    __slots__ = ()


Part = Union["Html", str, int, float, Decimal, None]


def text(value: Part) -> Html:
    """Any value as HTML text: markup kept, the rest escaped; None as nothing."""
    if value is None:
        return Html("")
    if isinstance(value, Html):
        return value
    return Html(
        html.escape(for_terminal(str(value)), quote=True)
    )  # a file name's undecodable byte too: \xNN


def join(parts: Iterable[Part], sep: str = "") -> Html:
    return Html(sep.join(text(p) for p in parts))


def el(tag: str, *children: Part, **attrs: Part | bool) -> Html:
    """``<tag attrs>children</tag>``: ``class_`` is ``class``, ``data_x`` is ``data-x``; an attribute
    True is written bare, False or None left out."""
    return Html(f"<{tag}{attributes(attrs)}>{join(children)}</{tag}>")


def void(tag: str, **attrs: Part | bool) -> Html:
    """An element without content (``<meta>``, ``<input>``)."""
    return Html(f"<{tag}{attributes(attrs)}>")


def attributes(attrs: dict[str, Part | bool]) -> str:
    out = []
    for name, value in attrs.items():
        if value is None or value is False:
            continue
        name = name.rstrip("_").replace("_", "-")
        out.append(f" {name}" if value is True else f' {name}="{text(value)}"')
    return "".join(out)


def money(value: Decimal | None) -> str:
    """An amount with two decimals and thousands separated (``-4,545.00``); a dash when there is none."""
    return "—" if value is None else format(value.quantize(Decimal("0.01")), ",.2f")


def number(value: float | int | None, spec: str = "g") -> str:
    return "—" if value is None else format(value, spec)


def table(
    head: Sequence[Part],
    rows: Iterable[Html],
    *,
    caption: Part = None,
    sortable: bool = False,
    numeric: Iterable[int] = (),
    **attrs: Part | bool,
) -> Html:
    """A table with one header row; ``rows`` are ``<tr>`` already; ``numeric`` columns align right."""
    right = set(numeric)
    cells = [
        el("th", h, scope="col", class_="num" if i in right else None) for i, h in enumerate(head)
    ]
    classes = " ".join(
        c for c in (str(attrs.pop("class_", "") or ""), "sortable" if sortable else "") if c
    )
    return el(
        "table",
        el("caption", caption) if caption is not None else Html(""),
        el("thead", el("tr", *cells)),
        el("tbody", join(rows)),
        class_=classes or None,
        **attrs,
    )


def row(*cells: Part, numeric: Iterable[int] = (), **attrs: Part | bool) -> Html:
    right = set(numeric)
    return el(
        "tr",
        *(el("td", c, class_="num" if i in right else None) for i, c in enumerate(cells)),
        **attrs,
    )
