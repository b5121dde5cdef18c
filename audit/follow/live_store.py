"""What the live statistics let go to disk, so that a night's memory stays flat.

A night seats thousands of players an hour, and each player's group goes on all night: his sums
cannot be dropped, as a shoe's are once tested. A player who did not play at a table since its
last look has his sums there written to a temporary SQLite database (on disk, removed when the
follow ends) and let go; a look that moves his group reads them back, with the sums still held,
as ``audit check`` reads a table's spilled runs with its live sums: the figures are the same
whether, or when, anything was written out. The looks at each group (how many, at how many
rounds) are kept there too: a night tests hundreds of thousands of groups.

With ``audit follow --state FILE`` the looks are kept in a file of their own instead,
``FILE.looks`` (SQLite), committed before each write of the state: a restart goes on with the
looks of the run it continues (the correction's count of groups and each group's looks), so it
spends no alpha twice. The state names the run its looks belong to; a looks file of another run
(or none) is started afresh. Only what changed since the last commit is written.
"""

from __future__ import annotations

import itertools
import pickle
import sqlite3
import uuid
from collections.abc import Iterable

from ..engine.surveillance import Record

#: (path, scope, id, test): a group as the run names it
GroupKey = tuple[str, str, str, str]


class LiveStore:
    """The players' sums let go, by generation of a followed file, and the looks of every group."""

    def __init__(self, kept: str | None = None, run: str | None = None) -> None:
        """``kept``: the file the looks are kept in (None: with the sums, gone at the end);
        ``run``: the run whose looks it holds, to go on with (None, or another run's: afresh)."""
        # an empty name: a private database in a temporary file, deleted when it is closed; SQLite
        # holds a bounded cache of its pages (2 MiB by default) in memory
        self.db = sqlite3.connect("", isolation_level=None, check_same_thread=False)
        self.db.executescript(
            """
            PRAGMA journal_mode = OFF;
            PRAGMA synchronous = OFF;
            CREATE TABLE sums (gen INTEGER, scope INTEGER, ident TEXT, tab TEXT, seq INTEGER,
                               acc BLOB);
            CREATE INDEX sums_group ON sums (gen, scope, ident);
            """
        )
        self._seq = itertools.count()
        self._gens = itertools.count(1)
        self.kept = self.db if kept is None else _kept(kept)
        self.kept.executescript(
            """
            CREATE TABLE IF NOT EXISTS looks (path TEXT, scope TEXT, ident TEXT, test TEXT,
                                              k INTEGER, rounds INTEGER,
                                              PRIMARY KEY (path, scope, ident, test));
            CREATE TABLE IF NOT EXISTS run (id TEXT);
            """
        )
        found = self.kept.execute("SELECT id FROM run").fetchone()
        #: whether the looks of the run ``run`` were found, and are gone on with
        self.resumed = run is not None and found is not None and found[0] == run
        if not self.resumed:
            run = uuid.uuid4().hex
            self.kept.execute("DELETE FROM looks")
            self.kept.execute("DELETE FROM run")
            self.kept.execute("INSERT INTO run VALUES (?)", (run,))
        #: the run the looks are of (the state names it)
        self.run: str = run  # type: ignore[assignment]
        #: the groups in ``looks``
        self.looked = self.kept.execute("SELECT count(*) FROM looks").fetchone()[0]
        #: set while a look's anomalies are written: its looks are not kept before they all are
        self.held = False
        self.commit()

    def generation(self) -> int:
        """A number for a new generation of a followed file (its replay from the file's start)."""
        return next(self._gens)

    def drop(self, gen: int) -> None:
        """A generation ended (its file replaced or truncated): its sums are no longer looked up."""
        self.db.execute("DELETE FROM sums WHERE gen = ?", (gen,))

    def put(self, gen: int, rows: Iterable[tuple[int, str, str, object]]) -> None:
        """(scope index, id, table, ``Acc``): a group's sums at a table, as they stand, let go."""
        self.db.executemany(
            "INSERT INTO sums VALUES (?, ?, ?, ?, ?, ?)",
            (
                (gen, scope, ident, table, next(self._seq), pickle.dumps(acc, 5))
                for scope, ident, table, acc in rows
            ),
        )

    def records(self, gen: int, keys: Iterable[tuple[int, str, str]]) -> list[Record]:
        """The records let go of the groups ``keys`` (scope index, id, test "result"), any order."""
        out: list[Record] = []
        query = "SELECT tab, seq, acc FROM sums WHERE gen = ? AND scope = ? AND ident = ?"
        for scope, ident, test in keys:
            for table, seq, blob in self.db.execute(query, (gen, scope, ident)):
                out.append((scope, ident, test, table, seq, pickle.loads(blob)))
        return out

    # -- the looks at each group: a mapping of GroupKey to (looks, rounds at the last)
    def get(self, key: GroupKey, default: tuple[int, int]) -> tuple[int, int]:
        row = self.kept.execute(
            "SELECT k, rounds FROM looks WHERE path = ? AND scope = ? AND ident = ? AND test = ?",
            _storable(key),
        ).fetchone()
        return default if row is None else (row[0], row[1])

    def __getitem__(self, key: GroupKey) -> tuple[int, int]:
        found = self.get(key, (0, 0))
        if found == (0, 0):
            raise KeyError(key)
        return found

    def __setitem__(self, key: GroupKey, value: tuple[int, int]) -> None:
        k, rounds = value
        if k == 1:
            self.looked += 1  # a group's first look: it counts in the correction from now on
        self.kept.execute(
            "INSERT OR REPLACE INTO looks VALUES (?, ?, ?, ?, ?, ?)", (*_storable(key), k, rounds)
        )

    def __len__(self) -> int:
        return self.looked

    def commit(self) -> None:
        """The looks made so far kept (before the state that counts on them is written), unless
        ``held``: the next commit keeps them."""
        if self.kept.in_transaction and not self.held:
            self.kept.commit()

    def close(self) -> None:
        """Closed; looks made since the last ``commit`` are not kept (nor is the state that would
        count on them)."""
        self.db.close()
        if self.kept is not self.db:
            self.kept.close()


def _storable(key: GroupKey) -> tuple:
    """The key as SQLite takes it: a file name that is not UTF-8 (a byte of it a lone surrogate,
    which SQLite refuses as text) as its bytes; every other key as it is, so that a looks file
    written before reads the same."""
    path = key[0]
    if path.isascii():
        return key
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return (path.encode("utf-8", "surrogateescape"), *key[1:])
    return key


def _kept(path: str) -> sqlite3.Connection:
    """The looks file: written ahead (WAL) and synced at each commit, so that a kill or a power
    cut leaves the looks of the last commit; a transaction is opened by the first change after one."""
    db = sqlite3.connect(path, check_same_thread=False)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    return db
