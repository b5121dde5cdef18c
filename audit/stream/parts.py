"""``--jobs``: an input's tables split into parts, one process each; which lines are a part's own.

Every part reads the whole file. Tables go to the parts in turn, in the order they first appear,
so every part makes the same choice; lines of no table go to part 0, headers and comments to every
part (a header can change how the rest is read). A line of another part's table only moves the
file's clock, lazily: it is kept unread (``Part.hold``) and dropped when this part's next event is
not before the largest stamp among the kept ones, else read for its time (``Part.settle``).

Two ways to pick a part's lines, with the same verdicts (a test compares them):

- the plain path, ``Part.owns``: one line at a time, every line split in Python;
- the fast path, the sieve (``Part.sift``): most chunks of a night are plain (every line a stamp
  of the clock's shape, a table already dealt to a part, stamps in order). For such a chunk the
  sieve tells which lines are the part's own from slices of the lines at fixed columns, with no
  Python code run per line; the other parts' lines are not decoded nor split. Looking at another
  part's line in Python cost each part about as much as a sixth of replaying its own lines
  (measured: docs/performance.md). Any other chunk takes the plain path.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Iterator
from functools import partial, reduce
from itertools import compress
from operator import itemgetter, not_, or_

from ..parse.grammar import is_table_id
from ..parse.parsed import EVENT_TYPES, Parsed
from .clock import LogClock

MAX_PENDING = 256  # other parts' lines kept unread at most
MAX_ASSIGNED = 10_000  # tables given to parts in turn; beyond, by a hash of their id
SIFT_MIN_LINES = 8  # a shorter chunk (a compressed log is read line by line) is not worth sifting
MAX_WIDTHS = 4  # table ids of more lengths than this (T1 and T12 are two): the chunk is not sifted


def _first_word(text: str) -> str:
    return text.split(None, 1)[0]


class Part:
    """Part ``k`` of ``n`` of one input's tables: its own lines, and the other parts' lines it keeps
    for the file's clock. Part 0 also reports what belongs to no table."""

    def __init__(self, k: int, n: int, clock: LogClock, parse: Callable[[str, int], Parsed]):
        """``parse``: the replay's own (``LineParser.parse``), for the time of another part's event."""
        self.k, self.n = k, n
        self.primary = k == 0
        self.clock = clock
        self._parse = parse
        self.tables: dict[str, int] = {}  # table -> the part it was dealt to
        self.held: list[
            str
        ] = []  # other parts' lines, kept unread (never rebound: the replay holds it)
        self.held_max = ""  # the largest held stamp, among those of the clock's shape
        self.held_mixed = False  # some held stamp is not of the clock's shape
        self._sieve = Sieve(k)
        self._sifted_size = 0  # the stamps' length in the chunk last sifted

    # -- the plain path ----------------------------------------------------------------------

    def owns(self, text: str) -> bool:
        """Whether this part replays the line; another part's line is held.

        The usual case first: a word, one space, a table already dealt, one space. A first word
        with a tab is left to the full split, so a valid line goes where that sends it; a line
        whose first word holds other white space is not valid whichever part reads it, and this
        same choice in every part (and in the sieve) sends it to one part."""
        words = text.split(" ", 2)
        if (
            len(words) == 3
            and (part := self.tables.get(words[1])) is not None
            and (first := words[0])
            and first[0] != "#"
            and "\t" not in first
        ):
            if part == self.k:
                return True
            self.hold([text], first)
            return False
        words = text.split(None, 2)
        if len(words) < 3 or words[0][0] == "#":
            return self.primary or text.lstrip(" \t")[:1] == "#"
        stamp, table = words[0], words[1]
        part = self.tables.get(table)
        if part is None:
            part = self._deal(table)
        if part == self.k:
            return True
        self.hold([text], stamp)
        return False

    def _deal(self, table: str) -> int:
        """The part a table first seen goes to."""
        if not is_table_id(table):
            return 0  # not a table id: a syntax problem, reported by part 0
        if len(self.tables) >= MAX_ASSIGNED:
            return (
                zlib.crc32(table.encode("utf-8")) % self.n
            )  # a hostile number of tables: memory stays bounded
        # in turn, from the last part down: part 0 also hashes the file and reports what belongs
        # to no table, so with an odd share of tables it is the one dealt fewer
        part = self.tables[table] = self.n - 1 - len(self.tables) % self.n
        return part

    # -- the fast path ------------------------------------------------------------------------

    def sift(self, lines: list[bytes] | list[str]) -> list[bool] | None:
        """Which lines of a chunk as read are this part's (True), or None: read them with ``owns``."""
        clock = self.clock
        if clock.stamp is None or len(lines) < SIFT_MIN_LINES or type(lines[0]) is not bytes:
            return None
        self._sifted_size = len(clock.stamp)
        return self._sieve.sift(lines, self.tables, clock.stamp, clock.zone)

    def hold_after(self, lines: list[bytes], own: list[bool], start: int) -> None:
        """After a sifted chunk was replayed: the other parts' lines before the part's last event
        in it (at ``start``) are not after that event (their stamps are in order), so the clock
        skips them, as it would held ones; those after it are held."""
        tail = list(compress(lines[start:], map(not_, own[start:])))
        if tail:
            texts = list(map(bytes.decode, tail))
            self.hold(
                texts, texts[-1][: self._sifted_size]
            )  # the last has the latest stamp: they are in order

    # -- the other parts' lines and the clock -------------------------------------------------

    def hold(self, texts: list[str], stamp: str) -> None:
        """Other parts' lines, ``stamp`` the largest of their stamps: kept unread. Only the largest
        held stamp counts, if all of them have the shape of the file's clock."""
        if self.clock.shaped(stamp):
            if stamp > self.held_max:
                self.held_max = stamp
        else:
            self.held_mixed = True  # the lines will be read one by one
        self.held.extend(texts)
        if len(self.held) >= MAX_PENDING:
            self.settle()

    def catch_up(self, stamp: str | None) -> None:
        """Before this part's event at ``stamp`` (as written, None if not known), with lines held:
        if it is not before any of them, they cannot move the clock past it and are dropped."""
        if (
            stamp is not None
            and not self.held_mixed
            and stamp >= self.held_max
            and self.clock.shaped(stamp)
        ):
            self.held.clear()
            self.held_max = ""
        else:
            self.settle()

    def settle(self) -> None:
        """Read the held lines for their times (the events among them).

        When all their stamps have the shape of the clock as written, they compare as text as
        they do in time: only the latest event among them can move the clock, so they are read
        from the latest stamp down, up to the first event."""
        clock = self.clock
        shaped = clock.stamp is not None and not self.held_mixed
        for text in sorted(self.held, key=_first_word, reverse=True) if shaped else self.held:
            parsed = self._parse(text, 0)
            if type(parsed) in EVENT_TYPES:
                clock.passed(parsed.ts, _first_word(text) if shaped else None)
                if shaped:
                    break
        self.held.clear()
        self.held_max, self.held_mixed = "", False


# -- the sieve --------------------------------------------------------------------------------


def _either(rows: Iterable[Iterable[bool]]) -> Iterator[bool]:
    """Line by line, whether any of the rows is true (maps in C, no Python code per line)."""
    return reduce(partial(map, or_), rows)  # type: ignore[arg-type]  # maps take any iterables


class Sieve:
    """The tables dealt so far, as the bytes that follow a stamp of the clock's shape on their lines."""

    def __init__(self, k: int):
        self.k = k
        self._made_for: tuple[int, str] | None = (
            None  # (tables dealt, offset) the keys were made for
        )
        self._all: frozenset[bytes] = frozenset()  # offset, blank, table, blank: every dealt table
        self._own: frozenset[bytes] = frozenset()  # the same, of this part's tables
        self._widths: list[int] = []  # the dealt tables' lengths

    def _keys(self, tables: dict[str, int], zone: str) -> None:
        """Table ids match the grammar's TABLE terminal before they are dealt: ASCII, no blank."""
        self._widths = sorted({len(table) for table in tables})
        keys = {table: f"{zone} {table} ".encode("ascii") for table in tables}
        self._all = frozenset(keys.values())
        self._own = frozenset(key for table, key in keys.items() if tables[table] == self.k)
        self._made_for = (len(tables), zone)  # tables are only ever added: their number tells

    def sift(
        self, lines: list[bytes], tables: dict[str, int], clock: str, zone: str
    ) -> list[bool] | None:
        """Which lines of the chunk are this part's (True), or None if the chunk is not plain.

        ``clock`` is the file's clock as written, ``zone`` its offset (Z or +hh:mm). The chunk is
        plain when all its lines are ASCII (UTF-8 then, nothing for part 0 to report) and each
        line has

        - a first word of ``clock``'s length and offset, with neither blank nor tab in it, which
          does not start with ``#``;
        - one blank, a table already dealt to a part, one blank;

        and the first words are in order as text. The first word is then a stamp of the clock's
        shape or a syntax error: stamps of one length and offset, as the grammar writes them,
        compare as text as they do in time, so no line of another part is after the part's next
        event in the chunk and the file's clock can skip them (``Part.hold_after``). Each
        line goes to the part ``Part.owns`` would send it to: its split on single blanks gives
        this same first word and table. Tables of several lengths are looked
        for at each length; the blank after a table tells one from a longer one it begins.
        """
        if (len(tables), zone) != self._made_for:
            self._keys(tables, zone)
        widths = self._widths
        if not widths or len(widths) > MAX_WIDTHS or not lines or not b"".join(lines).isascii():
            return None
        size, offset = len(clock), len(zone)
        keyed = [
            list(map(itemgetter(slice(size - offset, size + width + 2)), lines)) for width in widths
        ]
        if len(keyed) == 1:
            if not self._all.issuperset(keyed[0]):
                return None
        elif not all(_either(map(self._all.__contains__, keys) for keys in keyed)):
            return None
        heads = list(map(itemgetter(slice(0, size - offset)), lines))  # the stamps but their offset
        if heads[0][0] <= 0x23 or heads != sorted(
            heads
        ):  # in order and the least after "#": none is "#..."
            return None
        joined = b"".join(heads)
        if b" " in joined or b"\t" in joined:
            return None
        return list(_either(map(self._own.__contains__, keys) for keys in keyed))
