"""Alembic's entry point: the migrations run on the connection ``audit.history.migrate`` hands
over (in its transaction, under its lock), never on one of their own."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, transactional_ddl=True)
context.run_migrations()
