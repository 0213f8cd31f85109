"""CLI commands: the ``db`` group (schema upgrades; copies between SQLite and PostgreSQL)."""

from __future__ import annotations

from typing import Optional

import typer
from rich.table import Table

from ._common import console, fail

db_app = typer.Typer(help="The database: bring its schema up to date; copy it between SQLite and PostgreSQL.", no_args_is_help=True)

# text, not a path: a PostgreSQL URL must keep its "//"
_DB_HELP = "SQLite file or database URL (sqlite:///path, postgresql+psycopg://user@host:port/db); default: VIBESEARCH_DB or ./vibesearch.db"


@db_app.command("upgrade")
def db_upgrade(db: Optional[str] = typer.Option(None, "--db", help=_DB_HELP)) -> None:
    """Bring the database's schema to this vibesearch's newest (SQLite files are also upgraded
    when opened; PostgreSQL databases only by this command)."""
    from ..store import SchemaError, StoreOpenError, db_target, upgrade_database

    if db is None:
        from ..config import get_settings

        db = str(get_settings().db)
    try:
        shown = db_target(db).shown
        jobs: list[tuple[str | None, str]] = []
        before, after = upgrade_database(db, on_jobs=lambda a, b: jobs.append((a, b)))
    except (StoreOpenError, SchemaError, ValueError) as exc:
        fail(str(exc))
    except Exception as exc:  # noqa: BLE001 - a database that cannot be reached: one line
        fail(f"{shown}: cannot upgrade the database: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
    if before == after:
        console.print(f"{shown}: schema already at revision {after}", highlight=False, soft_wrap=True)
    else:
        console.print(f"{shown}: schema upgraded from {before or 'nothing'} to revision {after}", highlight=False, soft_wrap=True)
    for was, now in jobs:  # PostgreSQL only: the job queue of `vibesearch run --queue` and `vibesearch worker`
        state = f"already at {now}" if was == now else f"upgraded from {was or 'nothing'} to {now}"
        console.print(f"{shown}: job queue tables (procrastinate) {state}", highlight=False, soft_wrap=True)


@db_app.command("copy")
def db_copy(
    src: str = typer.Argument(..., help="The database to copy (SQLite file or URL)"),
    dst: str = typer.Argument(..., help="A new or empty database to copy into (SQLite file or URL)"),
) -> None:
    """Copy every table (runs, events, graphs, scores, verdicts, labels, campaigns ...; not the
    leases, stop requests and logins, which belong to the source's running processes and app
    servers) and verify counts and checksums."""
    from ..store import SchemaError, StoreOpenError
    from ..store.copy import CopyError, copy_database

    try:
        checks = copy_database(src, dst)
    except (CopyError, StoreOpenError, SchemaError, ValueError) as exc:
        fail(str(exc))
    except Exception as exc:  # noqa: BLE001 - a database that cannot be reached or written: one line
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        fail(f"copy {src} → {dst} failed: {first}")
    table = Table("table", "rows", "copied", "sha256", "")
    for c in checks:
        digest = c.src_sha256[:12] if c.src_sha256 == c.dst_sha256 else f"{c.src_sha256[:12]} ≠ {c.dst_sha256[:12]}"
        table.add_row(c.table, str(c.src_rows), str(c.dst_rows), digest, "ok" if c.ok else "MISMATCH")
    console.print(table)
    bad = [c.table for c in checks if not c.ok]
    if bad:
        fail(f"the copy differs from the source in: {', '.join(bad)}")
    console.print(f"copied {sum(c.src_rows for c in checks)} rows; counts and checksums match (leases are not copied)", highlight=False)


def register(app: typer.Typer) -> None:
    app.add_typer(db_app, name="db")
