"""Alembic revisions of the vibesearch schema (loaded by path, see ``store.migrations``)."""
