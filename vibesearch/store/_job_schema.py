"""The job engine's tables (procrastinate's) in a PostgreSQL database, made and upgraded by
``vibesearch db upgrade`` together with ours.

procrastinate ships its whole schema (``schema.sql``, for the installed release) and one SQL file
per change since the first 3.x schema (``sql/migrations/<version>_<nn>_<name>.sql``). Neither is
safe to apply twice, so the version applied is kept in a one-row table of ours
(``job_schema``): a database without procrastinate's tables gets ``schema.sql`` and the version
of the newest migration file shipped with it; one that has them gets the migration files newer
than the version stored, in their order. The caller holds the upgrade's advisory lock and its
transaction, so two upgraders never both apply the schema.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

_FILE = re.compile(r"^(\d{2}\.\d{2}\.\d{2})_(\d{2})_.*\.sql$")


def _migration_files() -> list[tuple[str, str, Path]]:
    """procrastinate's migration files as (version, order, path), oldest first."""
    folder = Path(str(resources.files("procrastinate.sql") / "migrations"))
    found = []
    for path in folder.iterdir():
        m = _FILE.match(path.name)
        if m:
            found.append((m.group(1), m.group(2), path))
    return sorted(found)


def shipped_version() -> str:
    """The version of procrastinate's newest migration file (what ``schema.sql`` is at)."""
    files = _migration_files()
    return files[-1][0] if files else "00.00.00"


def _run_script(conn: Connection, sql: str) -> None:
    """Run a script of several statements as it is (no parameters: nothing in it is a placeholder)."""
    raw = conn.connection.driver_connection
    assert raw is not None
    raw.execute(sql)


def upgrade_job_schema(conn: Connection) -> tuple[str | None, str]:
    """Bring procrastinate's tables to the installed release's, inside the caller's transaction;
    (from, to) versions (from None: they were made now)."""
    tables = set(inspect(conn).get_table_names())
    if "job_schema" not in tables:
        conn.execute(text("CREATE TABLE job_schema (engine text PRIMARY KEY, version text NOT NULL)"))
    before = conn.execute(text("SELECT version FROM job_schema WHERE engine = 'procrastinate'")).scalar()
    target = shipped_version()
    if before is None:
        if "procrastinate_jobs" not in tables:
            schema = (resources.files("procrastinate.sql") / "schema.sql").read_text(encoding="utf-8")
            _run_script(conn, schema)
        # tables made outside vibesearch are taken to be at the installed release's schema
        conn.execute(text("INSERT INTO job_schema (engine, version) VALUES ('procrastinate', :v)"), {"v": target})
        return None, target
    if before >= target:
        return before, before
    for version, _order, path in _migration_files():
        if before < version <= target:
            _run_script(conn, path.read_text(encoding="utf-8"))
    conn.execute(text("UPDATE job_schema SET version = :v WHERE engine = 'procrastinate'"), {"v": target})
    return before, target
