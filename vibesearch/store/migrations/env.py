"""Alembic's environment for vibesearch: the connection is handed in by ``store.migrations``
(``config.attributes["connection"]``), inside the caller's transaction."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
