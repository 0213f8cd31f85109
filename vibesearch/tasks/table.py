"""The table part of a task: a request for one table and its gold rows (WideSearch style).

A ``TableTask`` is a query, the columns the answer must have (each with the rule its cells are
checked by), the primary-key columns that line answer rows up with gold rows, and the gold table
itself. Our own table file format is this model serialised (unknown fields are rejected); the
gold table may sit beside the task as a CSV (``gold``) or inline (``rows``). The loader always
fills ``rows``, so a task snapshot stored with a run is self-contained.

It lives with the task model because a ``Task`` of kind ``"table"`` carries one (``Task.table``);
loading, parsing answers and scoring are in ``vibesearch.tables``.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ._ids import ID_PATTERN, MAX_ID_CHARS

_SPACES = re.compile(r"\s+")
_MD_LINK = re.compile(r"\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*\)")


def nfkc(value: Any) -> str:
    return unicodedata.normalize("NFKC", "" if value is None else str(value))


def norm_text(value: Any) -> str:
    """Lowercase, full-width forms folded (NFKC), whitespace and ``*`` removed, and a Markdown
    link reduced to its text (``[Yale](https://yale.edu)`` reads as ``yale``)."""
    return _SPACES.sub("", _MD_LINK.sub(r"\1", nfkc(value)).lower()).replace("*", "")


def norm_header(value: Any) -> str:
    """A column header compared with the schema: like ``norm_text``, also without backticks."""
    return norm_text(value).replace("`", "")


Metric = Literal["exact", "number", "date", "url", "contains", "llm"]
METRICS: tuple[str, ...] = ("exact", "number", "date", "url", "contains", "llm")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def cell_text(value: Any) -> str:
    """A gold cell as text: numbers keep their plain spelling (1636, 3.551), None is empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


class TableColumn(_Strict):
    """One column of the requested table and how its cells are checked.

    * ``exact`` - equal after normalisation (case, spaces and ``*`` ignored);
    * ``number`` - the first number of each cell, ``|answer - gold| <= |gold| * tolerance``;
    * ``date`` - both read as dates, at most ``window_days`` apart;
    * ``url`` - the same set of web domains (scheme, ``www.`` and paths ignored);
    * ``contains`` - the answer, normalised, is inside the gold value;
    * ``llm`` - a judge model applies ``rule`` (without a judge: normalised match, see score.py).
    """

    name: str = Field(min_length=1)
    metric: Metric = "exact"
    tolerance: float = Field(default=0.0, ge=0.0, description="relative tolerance of a number column")
    window_days: int = Field(default=31, ge=0, description="how many days a date may be off")
    rule: str | None = Field(default=None, description="grading rule of an llm column")
    description: str = Field(default="", description="what the cell holds, shown in the request")

    @field_validator("name")
    @classmethod
    def _name_not_blank(cls, value: str) -> str:
        value = value.strip()
        if not norm_header(value):
            raise ValueError("a column name must hold more than spaces and '*'")
        return value

    @model_validator(mode="after")
    def _rule_for_llm(self) -> "TableColumn":
        if self.metric == "llm" and not (self.rule or "").strip():
            raise ValueError(f"column {self.name!r}: metric 'llm' needs a grading 'rule'")
        return self

    @property
    def key(self) -> str:
        """The normalised name answers' headers are compared with."""
        return norm_header(self.name)

    def describe(self) -> str:
        if self.metric == "number":
            return f"number (relative tolerance {self.tolerance:g})"
        if self.metric == "date":
            return f"date (within {self.window_days} days)"
        if self.metric == "llm":
            return f"llm: {self.rule}"
        return self.metric


class TableTask(_Strict):
    id: str = Field(min_length=1, max_length=MAX_ID_CHARS, pattern=ID_PATTERN)
    language: Literal["en", "zh"]
    title: str = ""
    query: str = Field(min_length=1)
    columns: list[TableColumn] = Field(min_length=1)
    primary_key: list[str] = Field(min_length=1)
    # the gold table: a CSV path relative to the task file, or the rows inline (the loader reads
    # the CSV into ``rows``)
    gold: str | None = None
    rows: list[dict[str, Any]] | None = None
    # offline documents (JSONL of CorpusDoc), relative to the task file
    corpus: str | None = None
    sources: list[str] = Field(default_factory=list)
    origin: Literal["ours", "widesearch"] = "ours"
    # the file the task was read from, given by the loader; never part of a dump
    source_file: str | None = Field(default=None, exclude=True, repr=False)

    @model_validator(mode="after")
    def _consistent(self) -> "TableTask":
        seen: dict[str, str] = {}
        for col in self.columns:
            if col.key in seen:
                raise ValueError(f"columns: {col.name!r} and {seen[col.key]!r} are the same name once normalised")
            seen[col.key] = col.name
        names = {c.name for c in self.columns}
        for k in self.primary_key:
            if k not in names:
                raise ValueError(f"primary_key: {k!r} is not one of the columns {sorted(names)}")
        if len(set(self.primary_key)) != len(self.primary_key):
            raise ValueError("primary_key: a column is listed twice")
        if self.rows is None and self.gold is None:
            raise ValueError("give the gold table: 'gold' (a CSV path) or 'rows'")
        if self.rows is not None:
            self.rows = [self._check_row(i, row) for i, row in enumerate(self.rows)]
            if not self.rows:
                raise ValueError("rows: the gold table has no rows")
            keys: dict[tuple[str, ...], int] = {}
            for i, row in enumerate(self.rows):
                key = tuple(norm_text(row[k]) for k in self.primary_key)
                if not all(key):
                    raise ValueError(f"rows[{i}]: a primary-key cell is empty")
                if key in keys:
                    raise ValueError(f"rows[{i}]: the primary key {self.row_key(row)!r} repeats rows[{keys[key]}]")
                keys[key] = i
        return self

    def _check_row(self, i: int, row: dict[str, Any]) -> dict[str, str]:
        if not isinstance(row, dict):
            raise ValueError(f"rows[{i}]: expected an object mapping column names to values")
        names = [c.name for c in self.columns]
        unknown = [k for k in row if k not in names]
        if unknown:
            raise ValueError(f"rows[{i}]: unknown column(s) {unknown}; the columns are {names}")
        missing = [n for n in names if n not in row]
        if missing:
            raise ValueError(f"rows[{i}]: missing column(s) {missing}")
        return {n: cell_text(row[n]) for n in names}

    # ------------------------------------------------------------------ views
    def column(self, name: str) -> TableColumn:
        for col in self.columns:
            if col.name == name:
                return col
        raise KeyError(name)

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def gold_rows(self) -> list[dict[str, str]]:
        return list(self.rows or [])

    def row_key(self, row: dict[str, Any]) -> str:
        return " | ".join(cell_text(row.get(k)) for k in self.primary_key)
