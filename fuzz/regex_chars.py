"""The characters one regex class (``[...]``, ``\\d``...) of a grammar terminal may hold.

Shared by the fuzz tests (hypothesis strategies) and the long fuzz run (a seeded
random generator): both build strings from the grammar's own terminals.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_CATEGORY = {
    "CATEGORY_DIGIT": re.compile(r"\d"),
    "CATEGORY_NOT_DIGIT": re.compile(r"\D"),
    "CATEGORY_SPACE": re.compile(r"\s"),
    "CATEGORY_NOT_SPACE": re.compile(r"\S"),
    "CATEGORY_WORD": re.compile(r"\w"),
    "CATEGORY_NOT_WORD": re.compile(r"\W"),
}


def char_class(items: list) -> tuple[list[str] | None, Callable[[str], bool]]:
    """(the class's characters, when they can be listed; a membership test) for a parsed ``IN`` node."""
    negate, chars, tests = False, [], []
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            chars.append(chr(av))
        elif name == "RANGE":
            chars.extend(chr(c) for c in range(av[0], av[1] + 1))
        elif name == "CATEGORY":
            tests.append(_CATEGORY[str(av)])
        else:
            raise NotImplementedError(f"regex class item {name}")
    inside = set(chars)

    def member(c: str) -> bool:
        return (c in inside or any(t.fullmatch(c) for t in tests)) != negate

    return (sorted(inside) if not negate and not tests else None), member
