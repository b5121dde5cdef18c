"""Replaying one input: lines in, findings out, one table state per open table.

The lines are decoded and accounted for here (every line read is exactly one of: event, blank,
comment, header, syntax problem, not audited), headers read, and each event handed to the log's
clock (``clock``) and to its table (``Table.handlers``). With ``--jobs``, ``parts`` tells which
lines are this process's own. What is kept is the state of each open table (bounded by seats and
cards, not by the log's length) and the findings themselves.
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import compress
from typing import Any

from .. import events as ev
from ..engine.flagger import Flagger, Sink
from ..engine.format_checks import (
    DEL_VERSION,
    EMPTY_LOG,
    OUT_OF_CONTEXT,
    RULESET_UNKNOWN,
    SYNTAX,
    TABLE_UNOPENED,
    TIME_ORDER,
)
from ..engine.stats import TableStats
from ..engine.surveillance import Surveillance
from ..engine.table import Table
from ..findings import Finding
from ..parse import Comment, Header, LineParser, Parsed, Problem
from ..parse.grammar import terminal_regex
from ..parse.parsed import EVENT_TYPES
from ..parse.plain import parse_line
from ..registry import GAMES
from ..rulesets import Library, LoadedRuleset
from .clock import LogClock
from .parts import Part

#: the longest line the auditor holds, its end not counted (docs/log-format.md): a longer one is
#: one syntax finding, read past in constant memory (``inputs.feed_lines``)
MAX_LINE_BYTES = 1 << 20


def written_stamp(text: str) -> str:
    """An event line's timestamp as written: its first word."""
    return text.split(None, 1)[0]


def readable_stamp(text: str) -> str | None:
    """The first word of a line that is not an event, when it is a timestamp the grammar reads."""
    words = text.split(None, 1)
    if not words or terminal_regex("TIMESTAMP").fullmatch(words[0]) is None:
        return None
    try:
        datetime.fromisoformat(words[0].replace("Z", "+00:00"))
    except ValueError:
        return None
    return words[0]


@dataclass
class InputStats:
    path: str
    lines: int = 0
    events: int = 0
    tables: dict[str, TableStats] = field(default_factory=dict)
    # every line read is exactly one of these (events above included)
    blank: int = 0
    comments: int = 0
    headers: int = 0
    syntax: int = 0
    not_audited: int = 0  # after a #DEL header of another version

    @property
    def rounds(self) -> int:
        """Rounds begun at the tables of this input (each table counts its own)."""
        return sum(t.rounds for t in self.tables.values())

    def accounting(self) -> dict[str, int]:
        return {
            "events": self.events,
            "comments": self.comments,
            "blank": self.blank,
            "headers": self.headers,
            "syntax": self.syntax,
            "not_audited": self.not_audited,
        }


_PARSERS = threading.local()


def shared_parser() -> LineParser:
    """The thread's line parser, for every input it replays in turn.

    Its caches (an event line's template, a table id checked, a timestamp's shape) depend on
    the text only, never on the file, and stay bounded: kept from one input to the next, a
    night of many small files is parsed as fast as one large file (each file would otherwise
    send its first lines of every kind to the grammar again). One per thread: a thread replays
    its inputs one after the other, so the parser's per-line fields (``rest``, ``stamp``) are
    never used by two replays at once (a cluster's worker may run tasks in several threads)."""
    parser = getattr(_PARSERS, "parser", None)
    if parser is None:
        parser = _PARSERS.parser = LineParser()
    return parser


#: the tables followed at once in one input (each open table keeps its state, about 2.5 KB):
#: an OPEN past them is a finding and the table is not audited, so memory stays bounded
MAX_OPEN_TABLES = 10_000


class FileReplay:
    """The replay of one input: its tables, its clock, its findings."""

    #: what a table's statistics are summed in (``audit follow`` looks at them as each shoe ends)
    surveillance: Callable[[str, bool], Surveillance] = Surveillance

    def __init__(self, library: Library, path: str, part: tuple[int, int] | None = None):
        """``part`` = (k, n): replay only the tables that fall in part k of n (``--jobs``); part 0
        also reports what belongs to no table. Every part reads the whole file (see ``parts``)."""
        self.library = library
        self.sink = Sink(path)
        self.stats = InputStats(path)
        self.format_flagger = Flagger(self.sink, library.format_rules, None, None)
        self.tables: dict[str, Table] = {}
        self.unopened: set[str] = set()  # tables already reported as never opened
        #: table -> (dealer, shoe ordinal) of a table not open now: what a finding there names
        self.marks: dict[str, tuple[str | None, int | None]] = {}
        self.last_line: str | bytes = (
            ""  # the input's last line read: the end-of-log findings' line
        )
        self.parser = shared_parser()
        self.skip_rest = False  # after a #DEL header of another version
        tolerance = self.format_flagger.settings(TIME_ORDER)
        self.clock = LogClock(
            timedelta(seconds=tolerance.tolerance_seconds if tolerance else 0), self._time_order
        )
        self.part = Part(*part, self.clock, self.parser.parse) if part is not None else None
        self.primary = self.part is None or self.part.primary

    @property
    def findings(self) -> list[Finding]:
        return self.sink.findings

    def feed_chunk(self, lines: list[str] | list[bytes], lineno: int) -> int:
        """Lines as read, numbered from ``lineno`` + 1 (bytes are decoded here, a line that is not
        UTF-8 is reported); returns the number of the last one."""
        last = lineno + len(lines)
        if lines:
            self.last_line = lines[-1]
        numbers = range(lineno + 1, last + 1)
        part = self.part
        if part is None:
            self._feed(lines, numbers, None)
        elif not self.skip_rest and (own := part.sift(lines)) is not None:
            last_event = self._feed(compress(lines, own), compress(numbers, own), None)
            part.hold_after(lines, own, max(last_event - lineno, 0))  # type: ignore[arg-type]
        else:
            self._feed(lines, numbers, part.owns)
        self.stats.lines = last
        return last

    def _feed(
        self,
        lines: Iterable[str | bytes],
        numbers: Iterable[int],
        owns: Callable[[str], bool] | None,
    ) -> int:
        """Lines and their numbers; ``owns``: which lines this part replays, when not all of the
        given ones (``--jobs``). Returns the number of the last event line replayed (0 if none).

        This is the auditor's innermost loop: the usual event line goes to the clock and its
        table's handler; everything else goes through ``_parsed`` and ``_no_table``.
        """
        parse, sink, stats, tables = self.parser.parse, self.sink, self.stats, self.tables
        parser, advance, event_types, open_type = (
            self.parser,
            self.clock.advance,
            EVENT_TYPES,
            ev.Open,
        )
        part = self.part
        held = (
            part.held if part is not None else ()
        )  # other parts' lines kept unread (``Part.hold``)
        events = last_event = 0
        text: Any  # bytes until decoded below (``type(text) is bytes`` is the cheapest test)
        for lineno, text in zip(numbers, lines):
            if type(text) is bytes:
                try:
                    text = text.decode()
                except UnicodeDecodeError as err:
                    stats.lines = lineno
                    self._not_utf8(lineno, text.rstrip(b"\r\n"), err)
                    continue
            if self.skip_rest:
                stats.not_audited += self.primary
                continue
            if owns is not None and not owns(text):
                continue
            parsed = parse(text, lineno)
            if type(parsed) not in event_types:
                stats.lines = lineno
                self._parsed(lineno, text, parsed)
                continue
            sink.line = last_event = lineno
            sink.text = parser.rest
            events += 1
            table_id, stamp = parsed.table, parser.stamp
            sink.stamp = stamp if stamp is not None else written_stamp(text)
            if held:  # they may move the clock past this event
                part.catch_up(stamp)  # type: ignore[union-attr]
            advance(parsed.ts, table_id, stamp)
            table = tables.get(table_id)
            if table is not None and type(parsed) is not open_type:
                table.handlers[parsed.verb](table, parsed)
                if table.closed:
                    del tables[table_id]
                    table.ext = None  # type: ignore[assignment]  # never used again; its cycle (the extension names its table) freed now, not at a collection
                    self.marks[table_id] = (table.flagger.dealer, table.flagger.shoe)
            else:
                self._no_table(parsed)
        stats.events += events
        return last_event

    def too_long(self, lineno: int, length: int, head: bytes) -> int:
        """A line longer than the auditor holds, of which only ``head`` was kept: one syntax
        finding (in part 0), and the line counted. Returns its number."""
        self.stats.lines = lineno
        self.last_line = b""  # not read: the end-of-log findings name no time
        if self.primary:
            self.stats.syntax += 1
            sink = self.sink
            sink.line, sink.text = lineno, ""
            sink.stamp = readable_stamp(head.decode("utf-8", "replace"))
            self.format_flagger.flag(
                SYNTAX,
                f"{length} bytes, longer than the {MAX_LINE_BYTES} bytes (1 MiB) "
                "a line may hold; the line is not read",
                actual=None,
            )
        return lineno

    def not_text(self, lines: int, encoding: str) -> None:
        """A file in another encoding (UTF-16, say), of ``lines`` lines counted, not read: one
        finding at its first line, not one a line; the others are not audited."""
        self.stats.lines = lines
        self.last_line = b""
        if self.primary:
            self.stats.syntax += 1
            self.stats.not_audited += lines - 1
            sink = self.sink
            sink.line, sink.text, sink.stamp = 1, "", None
            self.format_flagger.flag(
                SYNTAX,
                f"the file is not UTF-8 text (it looks like {encoding}): none of its "
                f"{lines} lines is audited",
                actual=None,
            )

    def _not_utf8(self, lineno: int, body: bytes, err: UnicodeDecodeError) -> None:
        if self.primary:
            self.stats.syntax += 1
            self.sink.line = lineno
            self.sink.text = ""
            self.sink.stamp = readable_stamp(body.decode("utf-8", "replace"))
            self.format_flagger.flag(
                SYNTAX,
                f"byte {err.start + 1}: not valid UTF-8; the line is not audited",
                actual=body.decode("utf-8", "replace")[:200],
            )

    def _parsed(self, lineno: int, text: str, parsed: Parsed) -> None:
        """A line that is not an event: blank, comment, header or syntax problem."""
        sink = self.sink
        sink.line = lineno
        sink.text = ""
        sink.stamp = None
        if (
            not self.primary
            and not isinstance(parsed, Header)
            and text.lstrip(" \t").startswith("#")
        ):
            return  # a line every part reads: the primary part reports and counts it
        if parsed is None:
            self.stats.blank += 1
            return
        if isinstance(parsed, Comment):
            self.stats.comments += self.primary
            return
        if isinstance(parsed, Problem):
            self.stats.syntax += 1
            sink.stamp = readable_stamp(text)
            column = (
                len(text[: parsed.column - 1].encode("utf-8")) + 1
            )  # a byte column, as editors and hexdumps count
            self.format_flagger.flag(
                SYNTAX, f"column {column}: {parsed.message}", actual=text.strip()[:200]
            )
            return
        if self.part is not None and self.part.held:
            self.part.settle()  # whether an event came first decides what a header line is
        self._header(parsed)

    def _header(self, header: Header) -> None:
        """A header-like line after the first event is a comment (and counted as one)."""
        after_events = self.clock.latest is not None
        if self.primary:
            if after_events:
                self.stats.comments += 1
            else:
                self.stats.headers += 1
        if after_events:
            return
        if header.key == "DEL" and header.value != "1":
            self.skip_rest = True
            if not self.primary:
                return
            self.format_flagger.flag(
                DEL_VERSION,
                f"format version {header.value}; this auditor reads version 1 "
                "only: the rest of the file is not audited",
                expected="#DEL 1",
            )

    def _time_order(self, table_id: str, message: str) -> None:
        """A time-order finding of the clock, at the table's ruleset when it is open."""
        table = self.tables.get(table_id)
        if table is None:
            self.format_flagger.flag(TIME_ORDER, message, round=None)
            return
        # the clock runs before the table's handler: a DEALER or SHOE line counts already
        flagger = table.flagger
        dealer, shoe = flagger.dealer, flagger.shoe
        event = parse_line(f"{self.sink.stamp} {table_id} {self.sink.text}")
        if type(event) is ev.Dealer:
            flagger.dealer = event.id
        elif type(event) is ev.Shoe:
            flagger.shoe = (shoe or 0) + 1
        flagger.flag(TIME_ORDER, message, round=table.round.n if table.round is not None else None)
        flagger.dealer, flagger.shoe = dealer, shoe

    def _flagger(
        self, table: str, format_rules: LoadedRuleset, ruleset: LoadedRuleset | None = None
    ) -> Flagger:
        """A flagger for ``table``, which knows its dealer and shoe so far."""
        flagger = Flagger(self.sink, format_rules, ruleset, table)
        open_now = self.tables.get(table)
        flagger.dealer, flagger.shoe = (
            (open_now.flagger.dealer, open_now.flagger.shoe)
            if open_now is not None
            else self.marks.get(table, (None, None))
        )
        return flagger

    def _no_table(self, e: ev.Event) -> None:
        """An OPEN, or an event for a table that is not open."""
        if type(e) is ev.Open:
            self._open(e)
            return
        if type(e) is ev.Dealer or type(e) is ev.Shoe:  # still the table's dealer and shoes
            dealer, shoe = self.marks.get(e.table, (None, None))
            self.marks[e.table] = (
                (e.id, shoe) if type(e) is ev.Dealer else (dealer, (shoe or 0) + 1)
            )
        if e.table not in self.unopened:
            self.unopened.add(e.table)
            self._flagger(e.table, self.library.format_rules).flag(
                TABLE_UNOPENED,
                f"event for table {e.table}, which is not open; "
                "its events are not audited until it opens",
            )

    def _open(self, e: ev.Open) -> None:
        flagger_fmt = self._flagger(e.table, self.library.format_rules)
        if e.table in self.tables:
            flagger_fmt.flag(OUT_OF_CONTEXT, f"table {e.table} opened again without closing")
            return
        if len(self.tables) >= MAX_OPEN_TABLES:
            flagger_fmt.flag(
                OUT_OF_CONTEXT,
                f"table {e.table} opened while {MAX_OPEN_TABLES} tables are open, the "
                "most the auditor follows at once; its events are not audited until it opens again "
                "after one of them closes",
            )
            self.unopened.add(e.table)
            return
        ruleset = self.library.for_table(e.ruleset, e.table)
        if ruleset is None or ruleset.game != e.game:
            why = (
                self._unknown_ruleset(e.ruleset, e.game)
                if ruleset is None
                else f"ruleset {e.ruleset} governs {ruleset.game}, not {e.game}"
            )
            flagger_fmt.flag(RULESET_UNKNOWN, f"{why}; table {e.table} is not audited")
            self.unopened.add(e.table)
            return
        self.unopened.discard(e.table)
        overlay = ruleset.overlay.model.overlay if ruleset.overlay else None
        stats = self.stats.tables.setdefault(
            e.table, TableStats(self.sink.path, e.table, ruleset.id, e.game, overlay)
        )
        format_rules = self.library.for_table("del-v1", e.table) or self.library.format_rules
        self.tables[e.table] = Table(
            e,
            self._flagger(e.table, format_rules, ruleset),
            stats,
            GAMES[e.game],
            self.surveillance if self.library.statistics else None,
        )

    def _unknown_ruleset(self, name: str, game: str) -> str:
        """An unknown ruleset id, with the known ids of that game, nearest first (a typo is the usual cause)."""
        known = sorted(r.id for r in self.library.rulesets.values() if r.game == game)
        near = difflib.get_close_matches(name, known, n=len(known), cutoff=0.0)
        return f"no ruleset {name!r} is known" + (
            f" (the {game} rulesets: {', '.join(near)})" if near else ""
        )

    def finish(self) -> None:
        sink = self.sink
        # the end-of-log findings are at the last line, which may be another part's: read here alike
        last = self.last_line
        text = last.decode("utf-8", "replace") if isinstance(last, bytes) else last
        parsed = parse_line(text.rstrip())
        if sink.line != self.stats.lines:
            sink.line, sink.text = self.stats.lines, ""
        sink.stamp = (
            written_stamp(text)
            if type(parsed) in EVENT_TYPES
            else readable_stamp(text)
            if isinstance(parsed, Problem)
            else None
        )
        for table_id in sorted(self.tables):
            self.tables[table_id].end_of_input(self.stats.lines)
        stats = self.stats
        if self.primary and stats.lines == stats.blank + stats.comments + stats.headers:
            # (these counts are the whole file's in part 0: other parts count only events and syntax)
            sink.line = max(stats.lines, 1)  # (a finding is on a line: the first, of an empty file)
            self.format_flagger.flag(
                EMPTY_LOG,
                "the file is empty: it holds no event"
                if not stats.lines
                else f"the file holds no event: its {stats.lines} lines are blank lines, "
                "comments and headers",
                actual=None,
            )
