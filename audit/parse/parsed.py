"""What a parsed line is: an event (``audit.events``), a header, a comment, a problem, or None (blank)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import events as ev


class DelSyntaxError(Exception):
    """A line that does not follow the DEL grammar; ``column`` is 1-based."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.message = message
        self.column = column


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


Parsed = Any  # ev.Event | Header | Comment | Problem | None (blank)

#: the classes of the events a line can be (``type(parsed) in EVENT_TYPES``: one set lookup)
EVENT_TYPES = frozenset(ev.MODELS.values())
