"""Replaying a log: lines in, findings out, one table state per open table.

The log is streamed line by line; what the auditor keeps is the state of
each open table (bounded by seats and cards, not by the log's length) and the
findings themselves.
"""

from __future__ import annotations

import zlib
from itertools import compress
from operator import not_
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Iterable

from .. import events as ev
from ..findings import Finding
from ..parser import Comment, Header, LineParser, Parsed, Problem
from ..rulesets import Library
from ..games import GAMES
from .flagger import Flagger, Sink
from .format_checks import DEL_VERSION, OUT_OF_CONTEXT, RULESET_UNKNOWN, SYNTAX, TABLE_UNOPENED, TIME_ORDER
from .sieve import Sieve
from .stats import TableStats
from .table import Table


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
        return {"events": self.events, "comments": self.comments, "blank": self.blank, "headers": self.headers,
                "syntax": self.syntax, "not_audited": self.not_audited}


_EVENT_TYPES = frozenset(ev.MODELS.values())
MAX_PENDING = 256  # other parts' lines kept unread at most
MAX_ASSIGNED = 10_000  # tables given to parts in turn; beyond, by a hash of their id
SIFT_MIN_LINES = 8  # a shorter chunk (a compressed log is read line by line) is not worth sifting


def _first_word(text: str) -> str:
    return text.split(None, 1)[0]


def _zone(stamp: str) -> str:
    """A stamp's offset as written. Stamps of the same length and offset (RFC 3339, as the
    grammar has them) compare as text as they do in time."""
    return "Z" if stamp[-1:] == "Z" else stamp[-6:]


class FileReplay:
    """The replay of one input: its tables, its clock, its findings."""

    def __init__(self, library: Library, path: str, part: tuple[int, int] | None = None):
        """``part`` = (k, n): replay only the tables that fall in part k of n (``--jobs``); part 0
        also reports what belongs to no table. Every part reads the whole file (see ``_mine``)."""
        self.library = library
        self.part = part
        self.primary = part is None or part[0] == 0
        self.sink = Sink(path)
        self.stats = InputStats(path)
        self.format = Flagger(self.sink, library.format_rules, None, None)
        self.tables: dict[str, Table] = {}
        self.unopened: set[str] = set()  # tables already reported as never opened
        self.latest: datetime | None = None
        self.latest_stamp: str | None = None  # ``latest`` as written, when known
        self.latest_zone = ""  # its offset as written (Z or +hh:mm)
        self.table_clock: dict[str, datetime] = {}
        self.seen_event = False
        self.parser = LineParser()
        self.skip_rest = False
        # with parts: table -> part, and the other parts' lines not yet read for the clock
        self.assigned: dict[str, int] = {}
        self.pending: list[str] = []
        self.k = part[0] if part else 0
        self.sieve = Sieve(self.k)
        self.pending_max = ""  # the largest pending stamp, among those of the clock's shape
        self.pending_mixed = False  # some pending stamp is not of the clock's shape
        tol = self.format.settings(TIME_ORDER)
        self.tolerance = timedelta(seconds=tol.tolerance_seconds if tol else 0)

    @property
    def findings(self) -> list[Finding]:
        return self.sink.findings

    # -- parts (``--jobs``): whose line is it, and the other parts' clock --------------------

    def _mine(self, text: str) -> bool:
        """Whether this part replays the line. A line of another part's table only moves the
        file's clock, lazily: when this part's next event is not before the largest stamp among them,
        they are dropped unread (in ``feed_chunk``). Tables go to the parts in turn, in the
        order they first appear, so every part makes the same choice; lines of no table go to
        part 0, headers and comments to every part (a header can change how the rest is read)."""
        words = text.split(None, 2)
        if len(words) < 3 or words[0][0] == "#":
            return self.primary or text.lstrip(" \t")[:1] == "#"
        stamp, table = words[0], words[1]
        part = self.assigned.get(table)
        if part is None:
            part = self._assign(table)
        if part == self.k:
            return True
        self._pend([text], stamp)
        return False

    def _pend(self, texts: list[str], stamp: str) -> None:
        """Other parts' lines, ``stamp`` the largest of their stamps: kept unread. Only the largest
        pending stamp counts, if all of them have the shape (length and offset) of the file's clock
        as written: see ``_clock``."""
        ahead = self.latest_stamp
        if ahead is not None and len(stamp) == len(ahead) and stamp.endswith(self.latest_zone):
            if stamp > self.pending_max:
                self.pending_max = stamp
        else:
            self.pending_mixed = True  # the lines will be read one by one
        self.pending.extend(texts)
        if len(self.pending) >= MAX_PENDING:
            self._settle_pending()

    def _assign(self, table: str) -> int:
        k, n = self.part  # type: ignore[misc]
        if not self.parser.is_table(table):
            return 0  # not a table id: a syntax problem, reported by part 0
        if len(self.assigned) >= MAX_ASSIGNED:
            return zlib.crc32(table.encode("utf-8")) % n  # a hostile number of tables: memory stays bounded
        # in turn, from the last part down: part 0 also hashes the file and reports what belongs
        # to no table, so with an odd share of tables it is the one dealt fewer
        part = self.assigned[table] = n - 1 - len(self.assigned) % n
        return part

    def _settle_pending(self) -> None:
        """Read the other parts' pending lines for their times (the events among them).

        When all their stamps have the shape of the clock as written, they compare as text as
        they do in time: only the latest event among them can move the clock, so they are read
        from the latest stamp down, up to the first event."""
        ahead = self.latest_stamp
        shaped = ahead is not None and not self.pending_mixed
        for text in sorted(self.pending, key=_first_word, reverse=True) if shaped else self.pending:
            ts = self.parser.event_time(text)
            if ts is not None:
                self.seen_event = True
                if self.latest is None or ts > self.latest:
                    self.latest = ts
                    self.latest_stamp = _first_word(text) if shaped else None
                if shaped:
                    break
        self.pending.clear()
        self.pending_max, self.pending_mixed = "", False

    def feed(self, lineno: int, text: str) -> None:
        """One line (its line end may be kept)."""
        self.feed_chunk([text], lineno - 1)

    def feed_chunk(self, lines: list[str] | list[bytes], lineno: int) -> int:
        """Lines as read, numbered from ``lineno`` + 1 (bytes are decoded here, a line that is not
        UTF-8 is reported); returns the number of the last one."""
        last = lineno + len(lines)
        if self.part is not None and self.latest_stamp is not None and not self.skip_rest \
                and len(lines) >= SIFT_MIN_LINES and type(lines[0]) is bytes:
            own = self.sieve.sift(lines, self.assigned, self.latest_stamp, self.latest_zone)  # type: ignore[arg-type]
            if own is not None:
                self._feed_sifted(lines, lineno, own)  # type: ignore[arg-type]
                self.stats.lines = last
                return last
        self._feed(lines, range(lineno + 1, last + 1), self.part is not None)
        self.stats.lines = last
        return last

    def _feed_sifted(self, lines: list[bytes], lineno: int, own: list[bool]) -> None:
        """A plain chunk (``Sieve.sift``): only this part's lines are read. The other parts' lines
        before its last event in the chunk are not after that event (their stamps are in order),
        so the file's clock skips them, as it would from ``pending``; those after it are pending."""
        size = len(self.latest_stamp or "")  # the stamps' length (``sift`` checked it)
        last_event = self._feed(compress(lines, own), compress(range(lineno + 1, lineno + 1 + len(lines)), own), False)
        start = max(last_event - lineno, 0)
        tail = list(compress(lines[start:], map(not_, own[start:])))
        if tail:
            texts = list(map(bytes.decode, tail))
            self._pend(texts, texts[-1][:size])  # the last has the latest stamp: they are in order

    def _feed(self, lines: Iterable[str] | Iterable[bytes], numbers: Iterable[int], sift: bool) -> int:
        """Lines and their numbers; ``sift``: this part picks its own lines (``--jobs``). Returns
        the number of the last event line replayed (0 if none).

        This is the auditor's innermost loop: the usual event line takes the inlined path below
        (the clock's usual case, then its table's handler); everything else goes through
        ``_parsed``, ``_clock`` and ``_no_table``.
        """
        parse, sink, stats, tables = self.parser.parse, self.sink, self.stats, self.tables
        parser, table_clock, event_types, open_type = self.parser, self.table_clock, _EVENT_TYPES, ev.Open
        assigned, pending, k = self.assigned, self.pending, self.k
        events, seen, last_event = 0, self.seen_event, 0
        for lineno, text in zip(numbers, lines):
            if type(text) is bytes:
                try:
                    text = text.decode()
                except UnicodeDecodeError as err:
                    stats.lines = lineno
                    self._not_utf8(lineno, text.rstrip(b"\r\n"), err)
                    continue
            if self.skip_rest:
                self.stats.not_audited += self.primary
                continue
            if sift:
                # whose line? The usual case inline: a word, one space, a table already dealt, one
                # space. A first word with a tab is left to ``_mine``, so a valid line goes where
                # ``_mine`` sends it; a line whose first word holds other white space is not valid
                # whichever part reads it, and this same choice in every part sends it to one part
                words = text.split(" ", 2)
                if len(words) == 3 and (part := assigned.get(words[1])) is not None \
                        and (first := words[0]) and first[0] != "#" and "\t" not in first:
                    if part != k:
                        self._pend([text], first)
                        continue
                elif not self._mine(text):
                    continue
            parsed = parse(text, lineno)
            if type(parsed) not in event_types:
                stats.lines = lineno
                self._parsed(lineno, text, parsed)
                continue
            sink.line = last_event = lineno
            sink.text = parser.rest
            events += 1
            if not seen:
                self.seen_event = seen = True
            stamp, table_id = parser.stamp, parsed.table
            ahead = self.latest_stamp
            if pending:  # other parts' lines since the last own event (they may move the clock)
                if stamp is not None and ahead is not None and not self.pending_mixed and stamp >= self.pending_max \
                        and len(stamp) == len(ahead) and stamp.endswith(self.latest_zone):
                    pending.clear()  # not before any of them: they cannot move the clock past it
                    self.pending_max = ""
                else:
                    self._settle_pending()
                    ahead = self.latest_stamp
            if stamp is not None and ahead is not None and stamp >= ahead and len(stamp) == len(ahead) \
                    and stamp.endswith(self.latest_zone):  # time moves on: see ``_clock``
                table_clock[table_id] = self.latest = parsed.ts
                self.latest_stamp = stamp
            else:
                self._clock(parsed, stamp)
            table = tables.get(table_id)
            if table is not None and type(parsed) is not open_type:
                table.handlers[parsed.verb](parsed)
                if table.closed:
                    del tables[table_id]
            else:
                self._no_table(parsed)
        stats.events += events
        return last_event

    def _not_utf8(self, lineno: int, body: bytes, err: UnicodeDecodeError) -> None:
        if self.primary:
            self.stats.syntax += 1
            self.sink.line = lineno
            self.sink.text = ""
            self.format.flag(SYNTAX, f"byte {err.start + 1}: not valid UTF-8; the line is not audited",
                             actual=body.decode("utf-8", "replace")[:200])

    def _parsed(self, lineno: int, text: str, parsed: Parsed) -> None:
        """A line that is not an event: blank, comment, header or syntax problem."""
        sink = self.sink
        sink.line = lineno
        sink.text = ""
        if not self.primary and not isinstance(parsed, Header) and text.lstrip(" \t").startswith("#"):
            return  # a line every part reads: the primary part reports and counts it
        if parsed is None:
            self.stats.blank += 1
            return
        if isinstance(parsed, Comment):
            self.stats.comments += self.primary
            return
        if isinstance(parsed, Problem):
            self.stats.syntax += 1
            column = len(text[: parsed.column - 1].encode("utf-8")) + 1  # a byte column, as editors and hexdumps count
            self.format.flag(SYNTAX, f"column {column}: {parsed.message}", actual=text.strip()[:200])
            return
        if self.pending:
            self._settle_pending()  # whether an event came first decides what a header line is
        if self.primary:
            self._count_header()
        self._header(parsed)

    def _count_header(self) -> None:
        """A header-like line after the first event is a comment (and counted as one)."""
        if self.seen_event:
            self.stats.comments += 1
        else:
            self.stats.headers += 1

    def _header(self, header: Header) -> None:
        if self.seen_event:
            return  # a header-like line after the first event is a comment
        if header.key == "DEL" and header.value != "1":
            self.skip_rest = True
            if not self.primary:
                return
            self.format.flag(DEL_VERSION, f"format version {header.value}; this auditor reads version 1 only: "
                             "the rest of the file is not audited", expected="#DEL 1")

    def _clock(self, e, stamp: str | None) -> None:
        """Time must not go back at a table, nor fall behind the log's clock by more than the
        tolerance. The usual case, time moving on, is one comparison of the stamps as written:
        two RFC 3339 stamps of the same length and offset compare as text as they do in time."""
        ts = e.ts
        latest = self.latest
        ahead = self.latest_stamp
        if stamp is not None and ahead is not None and len(stamp) == len(ahead) and stamp.endswith(self.latest_zone):
            if stamp >= ahead:  # the usual case: same shape as the log's clock, and later
                self.table_clock[e.table] = self.latest = ts
                self.latest_stamp = stamp
                return
        elif latest is None or ts >= latest:
            self.table_clock[e.table] = self.latest = ts
            self.latest_stamp = stamp
            if stamp is not None:
                self.latest_zone = _zone(stamp)
            return
        last = self.table_clock.get(e.table)
        if last is None or ts >= last:
            if latest - ts > self.tolerance:  # no date arithmetic near year 1: latest > ts here
                self._flagger_of(e.table).flag(
                    TIME_ORDER, f"{ts.isoformat()} is more than {self.tolerance.seconds} s behind the "
                    f"log's clock ({latest.isoformat()})", round=self._round_of(e.table))
            self.table_clock[e.table] = ts
            return
        self._flagger_of(e.table).flag(
            TIME_ORDER, f"time goes back at table {e.table}: {ts.isoformat()} after {last.isoformat()}",
            round=self._round_of(e.table))

    def _flagger_of(self, table: str) -> Flagger:
        return self.tables[table].flagger if table in self.tables else self.format

    def _round_of(self, table: str) -> int | None:
        t = self.tables.get(table)
        return t.round.n if t is not None and t.round is not None else None

    def _no_table(self, e) -> None:
        """An OPEN, or an event for a table that is not open."""
        if type(e) is ev.Open:
            self._open(e)
        elif e.table not in self.unopened:
            self.unopened.add(e.table)
            Flagger(self.sink, self.library.format_rules, None, e.table).flag(
                TABLE_UNOPENED, f"event for table {e.table}, which is not open; "
                "its events are not audited until it opens")

    def _open(self, e: ev.Open) -> None:
        flagger_fmt = Flagger(self.sink, self.library.format_rules, None, e.table)
        if e.table in self.tables:
            flagger_fmt.flag(OUT_OF_CONTEXT, f"table {e.table} opened again without closing")
            return
        ruleset = self.library.for_table(e.ruleset, e.table)
        if ruleset is None or ruleset.game != e.game:
            why = (f"no ruleset {e.ruleset!r} is known" if ruleset is None
                   else f"ruleset {e.ruleset} governs {ruleset.game}, not {e.game}")
            flagger_fmt.flag(RULESET_UNKNOWN, f"{why}; table {e.table} is not audited")
            self.unopened.add(e.table)
            return
        self.unopened.discard(e.table)
        overlay = ruleset.overlay.model.overlay if ruleset.overlay else None
        stats = self.stats.tables.setdefault(
            e.table, TableStats(self.sink.path, e.table, ruleset.id, e.game, overlay))
        format_rules = self.library.for_table("del-v1", e.table) or self.library.format_rules
        self.tables[e.table] = Table(e, Flagger(self.sink, format_rules, ruleset, e.table), stats, GAMES[e.game])

    def finish(self) -> None:
        for table_id in sorted(self.tables):
            self.tables[table_id].end_of_input(self.stats.lines)


def replay(library: Library, path: str, lines: Iterable[str]) -> FileReplay:
    run = FileReplay(library, path)
    for lineno, text in enumerate(lines, start=1):
        run.feed(lineno, text.rstrip("\r\n"))
    run.finish()
    return run
