"""Where the history is kept: a store named by a path or a URL, opened safely for a nightly job.

``audit-history.sqlite`` or ``sqlite:///…`` is an embedded SQLite file; ``postgresql://…`` a
PostgreSQL database a team shares (driver psycopg, the ``postgres`` extra). A SQLite store is
opened in WAL mode with a busy timeout, and every transaction begins IMMEDIATE: two jobs that
write at once wait for each other instead of failing. A password never reaches a message: the
store is shown with it masked, and any error text is cleaned of it too.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, quote_plus

if TYPE_CHECKING:  # pragma: no cover
    from .. import config as config_file

#: how long a SQLite writer waits for another to finish (seconds)
BUSY_SECONDS = 60
#: how long to wait for a PostgreSQL server to answer (seconds)
CONNECT_SECONDS = 10
MASK = "***"
#: the execution option of a connection that only reads (SQLite: it takes no write lock)
READING = "history_reading"


class StoreError(Exception):
    """A store that cannot be used: unreachable, not a store, of an unknown schema. Exit status 2."""


class Store:
    """A store's URL, how to show it, and its engine (made on first use)."""

    def __init__(self, url, shown: str):
        self.url = url
        self.shown = shown
        self._engine = None

    @property
    def is_sqlite(self) -> bool:
        return self.url.get_backend_name() == "sqlite"

    @property
    def file(self) -> Path | None:
        """The SQLite file (None: in memory, or not SQLite)."""
        if not self.is_sqlite or self.url.database in (None, "", ":memory:"):
            return None
        return Path(self.url.database)

    def mask(self, text: str) -> str:
        """``text`` without the store's password, in any spelling a driver may quote it."""
        secret = self.url.password
        if secret:
            for spelling in {str(secret), quote(str(secret), safe=""), quote_plus(str(secret))}:
                text = text.replace(spelling, MASK)
        return text

    def error(self, what: str, err: BaseException) -> StoreError:
        """A ``StoreError`` naming the store (masked) and the driver's first line of complaint."""
        orig = getattr(err, "orig", None) or err
        detail = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
        return StoreError(self.mask(f"store {self.shown}: {what}: {detail}"))

    @property
    def engine(self):
        if self._engine is None:
            self._engine = _engine(self)
        return self._engine

    def dispose(self) -> None:
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None


def parse(value: str, base: Path | None = None) -> Store:
    """The store named by ``value``: a URL (``sqlite:///…``, ``postgresql://…``) or a file path
    for SQLite, relative to ``base`` (the configuration's folder) when given and not absolute."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    if "://" not in value:
        path = Path(value)
        if base is not None and not path.is_absolute():
            path = base / path
        url = make_url("sqlite://").set(database=str(path))
        return Store(url, str(path))
    try:
        url = make_url(value)
    except (ArgumentError, ValueError):
        raise StoreError(
            f"store {_hide_userinfo(value)}: not a store URL "
            "(a file path, sqlite:///FILE or postgresql://USER@HOST/DATABASE)"
        ) from None
    backend, _, driver = url.drivername.partition("+")
    if backend in ("postgresql", "postgres"):
        if driver not in ("", "psycopg"):
            raise StoreError(
                f"store {url.render_as_string(hide_password=True)}: only the psycopg driver is "
                "supported (postgresql:// or postgresql+psycopg://)"
            )
        url = url.set(drivername="postgresql+psycopg")
    elif backend != "sqlite" or driver not in ("", "pysqlite"):
        raise StoreError(
            f"store {url.render_as_string(hide_password=True)}: unknown kind of store "
            "(a file path, sqlite:///FILE or postgresql://USER@HOST/DATABASE)"
        )
    shown = url.set(drivername=url.drivername.replace("+psycopg", "")).render_as_string(
        hide_password=True
    )
    return Store(url, shown)


def _hide_userinfo(value: str) -> str:
    """``scheme://user:***@host…``: a URL as given, its password masked."""
    scheme, sep, rest = value.partition("://")
    userinfo, at, host = rest.rpartition("@")
    if not at or ":" not in userinfo:
        return value
    return f"{scheme}{sep}{userinfo.split(':', 1)[0]}:{MASK}@{host}"


def _not_regular(store: Store) -> str | None:
    """Why the SQLite store cannot be opened safely, or None: each of its files that exists (the
    database and its journals) must be a regular file. SQLite opens a journal it finds to read it,
    and opening a FIFO waits for a writer: a FIFO put in the place of ``-journal`` held the nightly
    audit before it read a log, deaf to SIGTERM (the wait is in the system call SQLite repeats)."""
    if store.file is None:
        return None
    for path in (
        store.file,
        *(store.file.with_name(store.file.name + end) for end in ("-wal", "-shm", "-journal")),
    ):
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            continue
        except OSError as err:
            return f"{path.name}: {err.strerror or err}"
        if not stat.S_ISREG(mode):
            return f"{path.name} is not a regular file ({_kind_of(mode)}): refused"
    return None


def _kind_of(mode: int) -> str:
    """What a file that is not a regular one is, in a word or two."""
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a file"


def _engine(store: Store):
    import sqlite3

    from sqlalchemy import create_engine, event

    if store.is_sqlite:
        engine = create_engine(store.url, connect_args={"timeout": BUSY_SECONDS})

        @event.listens_for(engine, "do_connect")
        def _opening(dialect, record, cargs, cparams):  # before the driver opens a file
            refused = _not_regular(store)
            if refused is not None:
                raise sqlite3.OperationalError(refused)

        @event.listens_for(engine, "connect")
        def _connect(dbapi, record):  # the driver's own transaction handling off: ours below
            dbapi.isolation_level = None
            cursor = dbapi.cursor()
            cursor.execute(f"PRAGMA busy_timeout = {BUSY_SECONDS * 1000}")
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _begin(
            conn,
        ):  # the write lock at once: no deadlock between two jobs that read then write
            conn.exec_driver_sql(
                "BEGIN" if conn.get_execution_options().get(READING) else "BEGIN IMMEDIATE"
            )

        return engine
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise StoreError(
            f"store {store.shown}: a PostgreSQL store needs the psycopg driver: "
            "pip install 'del-audit[postgres]'"
        ) from None
    return create_engine(store.url, connect_args={"connect_timeout": CONNECT_SECONDS})


def store_setting(store: str | None, cfg: config_file.Config) -> tuple[str, Path | None] | None:
    """The store named on the command line (relative to here) or in the configuration (relative
    to its file), None if neither names one."""
    if store:
        return store, None
    if cfg.settings.store:
        return cfg.settings.store, cfg.path.parent if cfg.path else None
    return None


def store_files(store: str | None, cfg: config_file.Config) -> list[Path]:
    """The files of the SQLite store named (on the command line or in the configuration), that no
    output may replace: the database and its journals. None for another kind of store, or a
    value that is not a store (opening it says why)."""
    chosen = store_setting(store, cfg)
    if chosen is None:
        return []
    try:
        where = parse(*chosen)
    except StoreError:
        return []
    if where.file is None:
        return []
    return [
        where.file,
        *(where.file.with_name(where.file.name + end) for end in ("-wal", "-shm", "-journal")),
    ]
