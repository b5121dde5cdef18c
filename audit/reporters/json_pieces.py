"""A JSON document with one large array, written an element at a time, as ``json.dumps`` writes it whole.

The document is dumped with a mark where the array goes; the text around the
mark is written as it is, and the array's elements one by one in between, each
with the indentation ``json.dumps(..., indent=2)`` gives it at that depth. So
a report of a million findings is the same bytes without a million of them in
memory at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: what stands for the array in the rest of the document (no path or value the reports hold has a NUL)
MARK = "\0elements\0"


def pieces(
    document: Any,
    elements: Iterable[Any],
    escaped: Callable[[str], str] = str,
    sort_keys: bool = False,
) -> Iterator[str]:
    """``json.dumps(document, indent=2, ensure_ascii=False, sort_keys=sort_keys)`` with ``elements``
    where ``document`` holds ``MARK``, in pieces, each passed through ``escaped``."""
    text = json.dumps(document, indent=2, ensure_ascii=False, sort_keys=sort_keys)
    before, _, after = text.partition(json.dumps(MARK))
    line = before[before.rfind("\n") + 1 :]
    depth = len(line) - len(line.lstrip(" "))
    pad = "\n" + " " * (depth + 2)
    yield escaped(before)
    sep = "[" + pad
    for element in elements:
        yield sep + escaped(
            json.dumps(element, indent=2, ensure_ascii=False, sort_keys=sort_keys).replace(
                "\n", pad
            )
        )
        sep = "," + pad
    yield ("[]" if sep[0] == "[" else "\n" + " " * depth + "]") + escaped(after)
