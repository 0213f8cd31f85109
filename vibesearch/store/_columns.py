"""Columns added to existing tables after the first release: a file written before gets them (NULL)
from the migrations (``store.migrations``, revisions 0002, 0010 and 0011) when opened for writing, and reads as
if it had them when opened read-only (NULL, or the column's default where it has one: ``READ_AS``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


# columns added after the first release (revisions 0002, 0010 and 0011 add them); an older vibesearch reads such a
# file as before
ADDED_COLUMNS = {"runs": {"run_config_json": "TEXT"},
                 "scores": {"protocol": "TEXT", "prompt_source": "TEXT", "repeat_set": "TEXT", "repeat_index": "INTEGER"},
                 "campaigns": {"blind": "BOOLEAN"}}
# what a missing column reads as when not NULL: the value its migration gives the rows already stored
READ_AS = {("campaigns", "blind"): "1"}


def read_only_connect_as_new(path: Path) -> Any:
    """A read-only connection on which a file written before a column was added reads as if it
    had it (NULL, or its ``READ_AS`` value): a temporary view of the same name stands in for the table."""
    from ._open import read_only_connect

    conn = read_only_connect(path)
    for table, columns in ADDED_COLUMNS.items():
        have = {row[1] for row in conn.execute(f"PRAGMA main.table_info({table})")}
        missing = [name for name in columns if name not in have]
        if have and missing:
            stand_in = ", ".join(f"{READ_AS.get((table, name), 'NULL')} AS {name}" for name in missing)
            conn.execute(f"CREATE TEMP VIEW {table} AS SELECT *, {stand_in} FROM main.{table}")
    return conn
