"""The store's schema version: a new store is created at the newest, an older one migrated, a
newer or unknown one refused (docs/history.md, "Schema versions").

Alembic keeps the version in ``alembic_version``. The check and the migration run in one
transaction that holds the writers' lock (SQLite: BEGIN IMMEDIATE; PostgreSQL: an advisory
lock), so two jobs that find a new or old store at once migrate it once.
"""

from __future__ import annotations

import functools
from pathlib import Path

from .schema import metadata
from .store import Store, StoreError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: the newest schema version, the head of ``migrations/versions`` (a test checks they agree): a
#: store at this version is used without importing Alembic, which costs about 0.2 s a run
HEAD = "0003"
#: the PostgreSQL advisory lock taken while the schema is checked or migrated (any fixed number)
LOCK_KEY = 0x4155_4449_5448  # "AUDITH"


@functools.cache
def _scripts():
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(MIGRATIONS))


def prepare(store: Store, conn, create: bool) -> None:
    """Make the store's schema the newest, inside ``conn``'s transaction; refuse a store this
    audit cannot read. ``create``: an empty store gets the schema (else it is an error)."""
    from sqlalchemy import inspect, text

    if not store.is_sqlite:
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
    current = _current(conn)
    if current == HEAD:
        return
    scripts = _scripts()
    newest = scripts.get_current_head()
    if current is None:
        ours = set(metadata.tables) & set(inspect(conn).get_table_names())
        if ours:
            raise StoreError(
                f"store {store.shown}: holds tables of a history ({', '.join(sorted(ours))}) "
                "but no schema version: not a store this audit made; refused"
            )
        if not create:
            raise StoreError(
                f"store {store.shown}: nothing recorded yet (audit check --store records a night)"
            )
    elif isinstance(current, tuple):
        raise StoreError(
            f"store {store.shown}: holds {len(current)} schema versions "
            f"({', '.join(map(repr, current[:3]))}{', …' if len(current) > 3 else ''}) where "
            "this audit writes one: another hand wrote them; refused"
        )
    elif current not in _known(scripts):
        raise StoreError(
            f"store {store.shown}: schema version {current!r} is unknown to this audit "
            f"(it knows up to {newest!r}): a newer del-audit made it, or another hand wrote it; "
            "refused"
        )
    elif _holds_newest(conn):
        raise StoreError(
            f"store {store.shown}: says schema version {current!r} but already holds every table "
            f"and column of {newest!r}: its version was changed by another hand; refused"
        )
    _upgrade(conn)


def _holds_newest(conn) -> bool:
    """Whether the store holds every table and column of the newest schema (``schema.metadata``):
    a store at an older version never does (each migration adds to it), so one that says it is
    older had its version written back by another hand, and migrating it would fail half-way."""
    from sqlalchemy import inspect

    seen = inspect(conn)
    present = set(seen.get_table_names())
    for table in metadata.tables.values():
        if table.name not in present:
            return False
        columns = {column["name"] for column in seen.get_columns(table.name)}
        if not {column.name for column in table.columns} <= columns:
            return False
    return True


def _known(scripts) -> set[str]:
    """Every schema version this audit's migrations name, exactly. (Alembic's own lookup takes a
    version's first characters for it, and fails on a value a store was given by another hand,
    such as an empty text.)"""
    return {script.revision for script in scripts.walk_revisions()}


def _current(conn) -> object:
    """The store's schema version as Alembic keeps it (None: none recorded), or, written by another
    hand, a value of any type, or a tuple of several."""
    from sqlalchemy import inspect, text

    if not inspect(conn).has_table("alembic_version"):
        return None
    rows = conn.execute(text("SELECT version_num FROM alembic_version")).all()
    if len(rows) > 1:  # Alembic keeps one (the store is never branched): another hand's rows
        return tuple(row[0] for row in rows)
    return rows[0][0] if rows else None


def _upgrade(conn) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = conn
    command.upgrade(config, "head")
