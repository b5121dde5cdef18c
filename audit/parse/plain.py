"""The plain path: one line through the grammar (Lark's LALR parser and the transformer).

Each line is parsed on its own so that a malformed line becomes one ``syntax`` problem and the
lines after it are still audited. The fast path (``fast.LineParser``) gives the same answers.
"""

from __future__ import annotations

import dataclasses

from lark.exceptions import UnexpectedInput

from .grammar import grammar
from .parsed import Comment, DelSyntaxError, Header, Parsed, Problem
from .wording import explain, verb_column


def parse_line(text: str, lineno: int = 0) -> Parsed:
    """Parse one line (without its line end). ``None`` for a blank line."""
    body = text.rstrip()
    if not body:
        return None
    try:
        result: Parsed = grammar().parse(body)  # the grammar's transformer makes the event
    except DelSyntaxError as err:
        return Problem(err.column or verb_column(body), err.message)
    except UnexpectedInput as err:
        column, message = explain(body, err)
        return Problem(column, message)
    if lineno and not isinstance(result, (Header, Comment)):
        result = dataclasses.replace(result, line=lineno)
    return result
