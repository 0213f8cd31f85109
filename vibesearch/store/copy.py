"""Copy a whole database to another (SQLite ↔ PostgreSQL, either way), then prove the copy.

``copy_database(src, dst)`` brings DST to the newest schema, refuses it unless it is empty,
copies every table in foreign-key order in batches (one transaction per batch), moves
PostgreSQL's id sequences past the copied ids, and compares each table's row count and checksum
on both sides. The copied tables are ``COPIED``: the runs and all they hold (their recorded web's
contents too), labels, campaigns,
adjudications and the adjudications they replaced (``adjudication_history``, whose counts and
checksums are compared like every other's), studies, preference votes and vote campaigns. Leases and stop requests are not copied: they name
processes of the source's machines (and their runs in flight), which drive no run of the copy.
Logins are not copied either: they are the source's app servers' sessions (people log in again
on the copy's servers), nor the failed-login counts that slow down password guessing there, nor
the providers' shared back-offs (the source's queue workers' pacing, ``runner._pacing``).

The checksum (``table_checksum``) is a sha256 over the rows in primary-key order, each value
normalised (booleans, integers, floats by ``repr``, times as ISO text without a zone, NULL), so
SQLite and PostgreSQL give the same digest for the same data.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from sqlalchemy import Table, func, inspect, select, text
from sqlalchemy.engine import Connection, Engine
from sqlmodel import SQLModel

from . import tables as _tables  # noqa: F401 - registers the tables on SQLModel.metadata
from ._engine import make_engine, upgrade_database
from ._open import StoreOpenError
from ._url import DbTarget, db_target
from .migrations import SchemaError

# foreign-key order; ``leases``, ``stop_requests``, ``logins``, ``login_failures`` and ``provider_backoff`` are left out on purpose (see the module's docstring)
COPIED = ("meta", "runs", "events", "graphs", "scores", "verdicts", "labels", "pred_labels", "campaigns", "adjudications",
          "adjudication_history", "studies", "study_codes", "votes", "web_blobs", "vote_campaigns")
BATCH = 1000


class CopyError(RuntimeError):
    """The copy cannot be made (DST not empty, a database that cannot be opened ...): one line."""


@dataclass(frozen=True)
class TableCheck:
    table: str
    src_rows: int
    dst_rows: int
    src_sha256: str
    dst_sha256: str

    @property
    def ok(self) -> bool:
        return self.src_rows == self.dst_rows and self.src_sha256 == self.dst_sha256


def _table(name: str) -> Table:
    return SQLModel.metadata.tables[name]


def _present(engine: Engine) -> set[str]:
    with engine.connect() as conn:
        return set(inspect(conn).get_table_names())


def _norm(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, datetime):
        return value.replace(tzinfo=None).isoformat(sep=" ")
    if isinstance(value, (bytes, bytearray, memoryview)):  # a recorded page's content: by its digest on both engines
        return hashlib.sha256(bytes(value)).hexdigest()
    return str(value)


def _rows(conn: Connection, table: Table) -> Iterable[tuple[Any, ...]]:
    """The table's rows in primary-key order (integer keys sorted by the database; text keys in
    Python, so both engines agree whatever their collation)."""
    pk = list(table.primary_key.columns)
    cols = list(table.columns)
    if all(c.type.python_type is int for c in pk):
        for row in conn.execute(select(*cols).order_by(*pk)).yield_per(BATCH):
            yield tuple(row)
        return
    index = [cols.index(c) for c in pk]
    yield from sorted((tuple(r) for r in conn.execute(select(*cols))), key=lambda r: tuple(r[i] for i in index))


def table_checksum(engine: Engine, name: str) -> tuple[int, str]:
    """(row count, sha256) of one table; (0, digest of nothing) for a table the database lacks."""
    digest = hashlib.sha256()
    count = 0
    if name in _present(engine):
        table = _table(name)
        with engine.connect() as conn:
            for row in _rows(conn, table):
                digest.update(json.dumps([_norm(v) for v in row], ensure_ascii=False).encode() + b"\n")
                count += 1
    return count, digest.hexdigest()


def _refuse_unless_empty(engine: Engine, shown: str) -> None:
    with engine.connect() as conn:
        for name in (*COPIED, "leases"):
            table = _table(name)
            query = select(func.count()).select_from(table)
            if name == "meta":
                query = query.where(table.c.key != "schema_version")
            n = conn.execute(query).scalar_one()
            if n:
                raise CopyError(f"{shown} is not empty ({name} has {n} row{'s' if n > 1 else ''}): copy only into a new database")


def _reset_sequences(conn: Connection) -> None:
    """PostgreSQL hands out ids from a sequence: move each past the copied ids."""
    for name in COPIED:
        table = _table(name)
        if "id" in table.c and table.c.id.primary_key and table.c.id.type.python_type is int:
            conn.execute(text(
                f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), COALESCE(MAX(id), 1), MAX(id) IS NOT NULL) FROM {name}"
            ))


def copy_database(src: str | Path, dst: str | Path) -> list[TableCheck]:
    """Copy SRC into DST (new or empty) and return each table's counts and checksums. A DST file
    this call created is removed again when the copy fails."""
    from ._open import check_db_file

    s_target, d_target = db_target(src), db_target(dst)
    if s_target.key == d_target.key:
        raise CopyError(f"{s_target.shown}: the source and the destination are the same database")
    if s_target.path is not None:
        if not s_target.path.exists():
            raise CopyError(f"{s_target.shown}: no such database file")
        check_db_file(s_target.path)
    created = d_target.path is not None and not d_target.path.exists()
    try:
        return _copy(s_target, d_target, dst, created)
    except BaseException:
        if created:  # a file this copy made (a full disk, a copy that failed): not left behind, not even empty
            assert d_target.path is not None
            _remove_sqlite_file(d_target.path)
        raise


def _remove_sqlite_file(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _copy(s_target: DbTarget, d_target: DbTarget, dst: str | Path, created: bool) -> list[TableCheck]:
    src_engine = make_engine(s_target, read_only=s_target.is_sqlite)
    try:
        upgrade_database(dst)
    except (StoreOpenError, SchemaError):
        src_engine.dispose()
        raise
    except Exception as exc:  # a full disk, a destination that cannot be written: one line naming it
        src_engine.dispose()
        raise CopyError(f"{d_target.shown}: cannot make the destination's tables ({_short(exc)})") from None
    dst_engine = make_engine(d_target)
    try:
        from .migrations import current

        with src_engine.connect() as conn:
            if current(conn, s_target.shown) is None:
                raise CopyError(f"{s_target.shown} holds no vibesearch tables")
        _refuse_unless_empty(dst_engine, d_target.shown)
        present = _present(src_engine)
        name = ""
        try:
            for name in COPIED:
                if name in present:
                    _copy_table(src_engine, dst_engine, name)
        except Exception as exc:
            # DST was empty: leave it empty again, so the copy can simply be run once more
            if created:  # ``copy_database`` removes the file
                left = "the new file was removed"
            elif _empty_again(dst_engine):
                left = "nothing was left in it"
            else:
                left = "the rows copied so far could not be removed: empty it before trying again"
            raise CopyError(f"{d_target.shown}: copying {name} failed ({_short(exc)}); {left}") from None
        if dst_engine.dialect.name == "postgresql":
            with dst_engine.begin() as conn:
                _reset_sequences(conn)
        return verify(src_engine, dst_engine)
    finally:
        src_engine.dispose()
        dst_engine.dispose()


def _copy_table(src_engine: Engine, dst_engine: Engine, name: str) -> None:
    table = _table(name)
    with src_engine.connect() as sconn:
        batch: list[dict[str, Any]] = []
        keys = [c.name for c in table.columns]
        for row in _rows(sconn, table):
            item = dict(zip(keys, row))
            if name == "meta" and item["key"] == "schema_version":
                continue  # DST has its own (same) row
            batch.append(item)
            if len(batch) >= BATCH:
                _insert(dst_engine, table, batch)
                batch = []
        if batch:
            _insert(dst_engine, table, batch)


def _empty_again(engine: Engine) -> bool:
    """Delete every copied row from DST (tables in reverse order: rows that point at others go
    first); False when that failed too."""
    try:
        with engine.begin() as conn:
            for name in reversed(COPIED):
                table = _table(name)
                query = table.delete()
                if name == "meta":
                    query = query.where(table.c.key != "schema_version")
                conn.execute(query)
        return True
    except Exception:  # noqa: BLE001 - the destination itself is what failed
        return False


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split("(Background on this error at:")[0].split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:200] + "…"


def _insert(engine: Engine, table: Table, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    with engine.begin() as conn:
        conn.execute(table.insert(), rows)


def verify(src_engine: Engine, dst_engine: Engine) -> list[TableCheck]:
    out = []
    for name in COPIED:
        sn, sd = table_checksum(src_engine, name)
        dn, dd = table_checksum(dst_engine, name)
        out.append(TableCheck(name, sn, dn, sd, dd))
    return out
