"""WideSearch-style table tasks and their scores.

A ``TableTask`` (defined in ``vibesearch.tasks.table``, re-exported here) is a request for one
table: a query, the columns the answer must have, the primary-key columns and the gold table.

``TableScore`` is what the scorer returns for one answer: success, row- and item-level
precision/recall/F1, the reason behind the numbers and a verdict for every cell.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

# the task side (what is asked, the gold rows) is the table part of a ``Task``
from ..tasks.table import METRICS, Metric, TableColumn, TableTask, cell_text

__all__ = [
    "METRICS",
    "CellVerdict",
    "Metric",
    "RowStatus",
    "RowVerdict",
    "TableColumn",
    "TableScore",
    "TableTask",
    "cell_text",
]

# ---------------------------------------------------------------------- scores
RowStatus = Literal["matched", "extra", "missing", "duplicate"]


class CellVerdict(BaseModel):
    row: int  # index into TableScore.rows
    row_key: str
    column: str
    predicted: str | None  # None: the row is missing from the answer
    gold: str | None  # None: the row is not in the gold table
    right: bool
    rule: str  # the column's metric, "key" for a primary-key cell of an aligned row
    note: str = ""


class RowVerdict(BaseModel):
    key: str  # as the answer wrote it (missing rows: as the gold table has it)
    gold_key: str | None = None
    status: RowStatus
    right: bool = False
    n_right: int = 0
    note: str = ""


class TableScore(BaseModel):
    task_id: str
    judge: str = "offline"
    success: bool = False
    row_precision: float = 0.0
    row_recall: float = 0.0
    row_f1: float = 0.0
    item_precision: float = 0.0
    item_recall: float = 0.0
    item_f1: float = 0.0
    reason: str = ""
    notes: list[str] = Field(default_factory=list)
    columns: list[str] = Field(default_factory=list)
    n_gold_rows: int = 0
    n_pred_rows: int = 0  # answer rows counted (duplicates dropped)
    n_right_rows: int = 0
    n_right_cells: int = 0
    n_unscored_cells: int = 0  # llm cells the judge gave no verdict on (checked offline instead)
    parsed: bool = False  # an answer table was found and its header matched
    rows: list[RowVerdict] = Field(default_factory=list)
    cells: list[CellVerdict] = Field(default_factory=list)

    @property
    def n_gold_cells(self) -> int:
        return self.n_gold_rows * len(self.columns)

    @property
    def n_pred_cells(self) -> int:
        return self.n_pred_rows * len(self.columns)

    def headline(self) -> dict[str, Any]:
        """The numbers a command prints with ``--json``."""
        return {
            "task_id": self.task_id,
            "judge": self.judge,
            "success": self.success,
            "row_precision": self.row_precision,
            "row_recall": self.row_recall,
            "row_f1": self.row_f1,
            "item_precision": self.item_precision,
            "item_recall": self.item_recall,
            "item_f1": self.item_f1,
            "reason": self.reason,
        }
