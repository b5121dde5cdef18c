"""Parsing a Dealer Event Log line by line into typed events.

Two paths give the same answers (a test compares them over every fixture and generated logs):

- ``parse_line`` (``plain``): the line through the LALR grammar in ``grammars/del.lark``
  (``grammar``) and its transformer (``transform``); Lark's errors reworded (``wording``);
- ``LineParser.parse`` (``fast``): the same verdicts, with caches, for streaming large logs.
"""

from .fast import LineParser
from .grammar import grammar
from .parsed import Comment, DelSyntaxError, Header, Parsed, Problem
from .plain import parse_line

__all__ = [
    "Comment",
    "DelSyntaxError",
    "Header",
    "LineParser",
    "Parsed",
    "Problem",
    "grammar",
    "parse_line",
]
