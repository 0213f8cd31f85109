"""The rows of a CSV file of labels or votes, read one way: a header of known columns first (line
1), each later row exactly the header's cells, blank rows skipped, a cell the export guarded
against spreadsheet formulas (``_files.csv_safe``) read back as the text it was."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Collection, Sequence

from .._files import csv_plain, short


def csv_rows(text: str, path: Path, *, columns: Collection[str], required: Sequence[str], noun: str,
             error: type[ValueError]) -> list[tuple[int, dict[str, Any]]]:
    """(line number, header -> cell) for every row; ``error`` names the file, line and column
    (``noun``: what a row is, "label" or "vote")."""
    try:
        table = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as exc:
        raise error(f"{path}: not a readable CSV: {str(exc)[:120]}") from None
    if not table:
        raise error(f"{path}: no {noun}s in the file")
    header = [cell.strip() for cell in table[0]]
    for i, name in enumerate(header):
        if "\x00" in name:
            raise error(f"{path}:1: column {i + 1}: holds a NUL character (\\u0000)")
        if name not in columns:
            shown = short(name, 40) if name else "(an empty name)"
            raise error(f"{path}:1: column {i + 1}: {shown} is not a {noun} column (the columns are {', '.join(columns)})")
        if name in header[:i]:
            raise error(f"{path}:1: column {i + 1}: {short(name)} is given twice")
    missing = [k for k in required if k not in header]
    if missing:
        raise error(f"{path}:1: the header has no {', '.join(missing)} column")
    out = []
    for n, row in enumerate(table[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue  # a blank line, or a row of empty cells a spreadsheet left
        if len(row) != len(header):
            raise error(f"{path}:{n}: {len(row)} cells, but the header has {len(header)} columns")
        rec = dict(zip(header, row))
        for k, v in rec.items():
            if v[:1] == "'":  # a cell the export guarded against formulas (csv_safe)
                rec[k] = csv_plain(v)
        out.append((n, rec))
    return out
