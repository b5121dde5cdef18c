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
    from alembic.util.exc import CommandError

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
    else:
        try:
            scripts.get_revision(current)
        except CommandError:
            raise StoreError(
                f"store {store.shown}: schema version {current!r} is unknown to this audit "
                f"(it knows up to {newest!r}): a newer del-audit made it; use that version "
                "or a newer one"
            ) from None
    _upgrade(conn)


def _current(conn) -> str | None:
    """The store's schema version (None: none recorded), as Alembic keeps it."""
    from sqlalchemy import inspect, text

    if not inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def _upgrade(conn) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = conn
    command.upgrade(config, "head")
