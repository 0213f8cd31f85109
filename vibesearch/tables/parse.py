"""Finding the table in an answer.

The first Markdown table is taken: a line with pipes followed by a separator line (``|---|:--:|``)
and then every following line that still holds a pipe. Code fences around it do not matter. When
the answer has no separator line anywhere, the first run of at least two consecutive
pipe-delimited lines is read instead, its first line as the header. Cells are stripped, ``\\|``
stands for a literal pipe, and lines that are themselves separators are skipped.

Rows with fewer cells than the header are padded with empty cells, rows with more are cut; both
are noted, never raised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SEPARATOR_CELL = re.compile(r"^\s*:?-{1,}:?\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass
class ParsedTable:
    headers: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    fallback: bool = False  # read from pipe-delimited lines without a separator line


def split_cells(line: str) -> list[str]:
    """The cells of one pipe-delimited line (outer pipes optional, ``\\|`` kept as ``|``)."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    parts = re.split(r"(?<!\\)\|", text)
    return [p.strip().replace("\\|", "|") for p in parts]


def _is_separator(line: str) -> bool:
    if "-" not in line:
        return False
    cells = split_cells(line)
    return bool(cells) and all(_SEPARATOR_CELL.match(c) for c in cells if c != "") and any(c for c in cells)


def _has_pipe(line: str) -> bool:
    return bool(re.search(r"(?<!\\)\|", line))


def _lines(text: str) -> list[str]:
    # fences carry no meaning for the table; drop them so a fenced table reads like any other
    return ["" if _FENCE.match(line) else line for line in (text or "").splitlines()]


def _count_tables(lines: list[str]) -> int:
    return sum(1 for i in range(1, len(lines)) if _is_separator(lines[i]) and _has_pipe(lines[i - 1]) and not _is_separator(lines[i - 1]))


def _regularise(headers: list[str], body: list[list[str]], notes: list[str]) -> list[list[str]]:
    width = len(headers)
    rows = []
    for i, cells in enumerate(body):
        if len(cells) < width:
            notes.append(f"answer row {i + 1} has {len(cells)} cell(s) for {width} column(s); padded with empty cells")
            cells = cells + [""] * (width - len(cells))
        elif len(cells) > width:
            extra = cells[width:]
            if any(c for c in extra):
                notes.append(f"answer row {i + 1} has {len(cells)} cells for {width} columns; the extra cells were dropped")
            cells = cells[:width]
        rows.append(cells)
    return rows


def parse_answer_table(text: str) -> ParsedTable | None:
    """The first table of an answer, or None when there is none."""
    lines = _lines(text)
    notes: list[str] = []
    for i in range(len(lines) - 1):
        if _has_pipe(lines[i]) and not _is_separator(lines[i]) and _is_separator(lines[i + 1]):
            headers = split_cells(lines[i])
            body: list[list[str]] = []
            j = i + 2
            while j < len(lines) and _has_pipe(lines[j]):
                if not _is_separator(lines[j]):
                    body.append(split_cells(lines[j]))
                j += 1
            n_tables = _count_tables(lines)
            if n_tables > 1:
                notes.append(f"the answer holds {n_tables} tables; only the first was scored")
            return ParsedTable(headers, _regularise(headers, body, notes), notes)
    # fallback: pipe-delimited lines without a separator
    i = 0
    while i < len(lines):
        if _has_pipe(lines[i]) and len(split_cells(lines[i])) >= 2:
            j = i
            block = []
            while j < len(lines) and _has_pipe(lines[j]):
                if not _is_separator(lines[j]):
                    block.append(split_cells(lines[j]))
                j += 1
            if len(block) >= 2:
                notes.append("no Markdown separator line under the header; read the pipe-delimited lines as a table")
                return ParsedTable(block[0], _regularise(block[0], block[1:], notes), notes, fallback=True)
            i = j
        else:
            i += 1
    return None
