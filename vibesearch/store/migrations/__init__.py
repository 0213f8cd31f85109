"""The schema's history as Alembic revisions, applied without an ``alembic.ini``.

* ``versions/r0001_first_release.py``: the first release's tables;
* ``versions/r0002_configs_campaigns.py``: what came after (added only where missing, since the
  releases in between added them on the fly);
* ``versions/r0003_stop_requests.py``: stop requests between app servers (``store.stops``);
* ``versions/r0004_logins.py``: logins shared by the app servers (``store.logins``);
* ``versions/r0005_resolved_configs.py``: every run's configuration, resolved for its profile (a
  data migration: runs from before configurations were kept get theirs, official runs the limits
  they ran by);
* ``versions/r0006_login_failures.py``: failed logins per login name and per client address
  (``store.logins``: the app's login throttling, shared by its servers);
* ``versions/r0007_adjudication_history.py``: the adjudications a newer one replaced;
* ``versions/r0008_studies.py``: studies for outside players and their one-time codes (``store.studies``);
* ``versions/r0010_score_repeat.py``: a score's repeat set and its place in it (``score --repeat K``);
* ``versions/r0011_campaign_blind.py``: whether a labelling campaign is blind (campaigns before it were);
* ``versions/r0012_votes.py``: pairwise preference votes between two runs of a task (``store.votes``).
* ``versions/r0013_web_recording.py``: the contents of recorded web pages, once each by sha256 (``store.web``).
* ``versions/r0014_vote_campaigns.py``: vote campaigns, the pairs their voters vote on (``store.votes``).

A file from before Alembic has a ``meta.schema_version`` row and no ``alembic_version`` table: it
is stamped with revision 0001, then upgraded. A database at a revision this code does not know
(or with a higher ``schema_version``) was written by a newer vibesearch and is refused.

SQLite files are upgraded when opened (``Store``); PostgreSQL only by ``vibesearch db upgrade``,
which holds an advisory lock so two upgrades cannot interleave.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

if TYPE_CHECKING:
    from alembic.config import Config

HEAD = "0014"
REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008", "0009", "0010", "0011", "0012", "0013", "0014")  # oldest first; tests check these against the scripts
LEGACY_VERSION = 1  # the meta.schema_version the releases before Alembic wrote
_LOCK_ID = 7_264_551_902  # PostgreSQL advisory lock of the upgrade


class SchemaError(RuntimeError):
    """The database's schema is not one this vibesearch can use (too new, or behind)."""


def script_location() -> Path:
    return Path(__file__).resolve().parent


def alembic_config(conn: Connection) -> "Config":
    from alembic.config import Config  # imported only when a database needs it: it is slow to load

    cfg = Config()
    cfg.set_main_option("script_location", str(script_location()))
    cfg.attributes["connection"] = conn
    return cfg


def current(conn: Connection, shown: str) -> str | None:
    """The database's revision: None for an empty database, ``REVISIONS[0]`` for a file from
    before Alembic. ``SchemaError`` for one written by a newer vibesearch."""
    tables = set(inspect(conn).get_table_names())
    if "meta" in tables:
        row = conn.execute(text("SELECT value FROM meta WHERE " + _key_column(conn) + " = 'schema_version'")).scalar()
        if row is not None and int(row) > LEGACY_VERSION:
            raise SchemaError(
                f"{shown}: database schema version {row} is newer than this vibesearch understands "
                f"({LEGACY_VERSION}); upgrade vibesearch or use another --db"
            )
    if "alembic_version" in tables:
        rev = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        if rev is not None and rev not in REVISIONS:
            raise SchemaError(
                f"{shown}: the database's schema (revision {rev}) is newer than this vibesearch understands "
                f"({HEAD}); upgrade vibesearch or use another --db"
            )
        return rev
    return REVISIONS[0] if "meta" in tables else None


def _key_column(conn: Connection) -> str:
    return conn.dialect.identifier_preparer.quote("key")


def upgrade(conn: Connection, shown: str) -> tuple[str | None, str]:
    """Bring the database to ``HEAD`` inside the caller's transaction; (from, to) revisions."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_ID})
    before = current(conn, shown)
    if before == HEAD:
        return before, HEAD
    from alembic import command

    cfg = alembic_config(conn)
    if before is not None and "alembic_version" not in inspect(conn).get_table_names():
        command.stamp(cfg, before)  # a file from before Alembic
    command.upgrade(cfg, "head")
    return before, HEAD


def behind_message(shown: str, rev: str | None) -> str:
    where = "holds no vibesearch schema yet" if rev is None else f"has schema revision {rev}, this vibesearch needs {HEAD}"
    return f"{shown} {where}: run `vibesearch db upgrade --db {shown}`"
