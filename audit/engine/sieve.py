"""``--jobs``: a part picks its own lines out of a chunk with a few passes in C, when the chunk allows.

Every part reads the whole file. Looking at another part's line in Python, one line at a time,
cost each part about as much as a sixth of replaying its own lines (measured: docs/performance.md).
Most chunks of a night are plain: every line a stamp of the clock's shape, a table already dealt
to a part, stamps in order. For such a chunk the sieve tells which lines are the part's own from
slices of the lines at fixed columns, with no Python code run per line; the other parts' lines
are not decoded nor split. Any other chunk is read line by line, as before (``FileReplay``).
"""

from __future__ import annotations

from functools import partial, reduce
from operator import itemgetter, or_
from typing import Iterable, Iterator


MAX_WIDTHS = 4  # table ids of more lengths than this (T1 and T12 are two): the chunk is read line by line


def _either(rows: Iterable[Iterable[bool]]) -> Iterator[bool]:
    """Line by line, whether any of the rows is true (maps in C, no Python code per line)."""
    return reduce(partial(map, or_), rows)  # type: ignore[arg-type,return-value]


class Sieve:
    """The tables dealt so far, as the bytes that follow a stamp of the clock's shape on their lines."""

    def __init__(self, k: int):
        self.k = k
        self._made_for: tuple[int, str] | None = None  # (tables dealt, offset) the keys were made for
        self._all: frozenset[bytes] = frozenset()  # offset, blank, table, blank: every dealt table
        self._own: frozenset[bytes] = frozenset()  # the same, of this part's tables
        self._widths: list[int] = []  # the dealt tables' lengths

    def _keys(self, assigned: dict[str, int], zone: str) -> None:
        """Table ids match the grammar's TABLE terminal before they are dealt: ASCII, no blank."""
        self._widths = sorted({len(table) for table in assigned})
        keys = {table: f"{zone} {table} ".encode("ascii") for table in assigned}
        self._all = frozenset(keys.values())
        self._own = frozenset(key for table, key in keys.items() if assigned[table] == self.k)
        self._made_for = (len(assigned), zone)  # tables are only ever added: their number tells

    def sift(self, lines: list[bytes], assigned: dict[str, int], clock: str, zone: str) -> list[bool] | None:
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
        event in the chunk and the file's clock can skip them (``FileReplay._feed_sifted``). Each
        line goes to the part the line-by-line reading would send it to: the split on single
        blanks there gives this same first word and table. Tables of several lengths are looked
        for at each length; the blank after a table tells one from a longer one it begins.
        """
        if (len(assigned), zone) != self._made_for:
            self._keys(assigned, zone)
        widths = self._widths
        if not widths or len(widths) > MAX_WIDTHS or not lines or not b"".join(lines).isascii():
            return None
        size, offset = len(clock), len(zone)
        keyed = [list(map(itemgetter(slice(size - offset, size + width + 2)), lines)) for width in widths]
        if len(keyed) == 1:
            if not self._all.issuperset(keyed[0]):
                return None
        elif not all(_either(map(self._all.__contains__, keys) for keys in keyed)):
            return None
        heads = list(map(itemgetter(slice(0, size - offset)), lines))  # the stamps but their offset
        if heads[0][0] <= 0x23 or heads != sorted(heads):  # in order and the least after "#": none is "#..."
            return None
        joined = b"".join(heads)
        if b" " in joined or b"\t" in joined:
            return None
        return list(_either(map(self._own.__contains__, keys) for keys in keyed))
