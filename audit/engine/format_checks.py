"""The checks of the log's format itself (ruleset del-v1), whatever the table's game.

Declared apart from the games so that the reading of the stream (lines,
headers, the log's clock) can raise them without importing any game; the
table and shoe raise some of them too.
"""

from __future__ import annotations

from pydantic import Field

from .checks import FORMAT, NoParams, Params, declare


class TimeOrder(Params):
    #: how far behind the latest time seen in a file a line of another table may be
    tolerance_seconds: int = Field(ge=0)


SYNTAX = declare("syntax", NoParams, FORMAT)
DEL_VERSION = declare("del-version", NoParams, FORMAT)
TABLE_UNOPENED = declare("table-unopened", NoParams, FORMAT)
RULESET_UNKNOWN = declare("ruleset-unknown", NoParams, FORMAT)
TIME_ORDER = declare("time-order", TimeOrder, FORMAT)
ROUND_NUMBER = declare("round-number", NoParams, FORMAT)
ROUND_OPEN = declare("round-open", NoParams, FORMAT)
OUT_OF_CONTEXT = declare("out-of-context", NoParams, FORMAT)
STOPCARD_DEPTH = declare("stopcard-depth", NoParams, FORMAT)
TABLE_UNCLOSED = declare("table-unclosed", NoParams, FORMAT)
SHOE_UNFINISHED = declare("shoe-unfinished", NoParams, FORMAT)
EMPTY_LOG = declare("empty-log", NoParams, FORMAT)
