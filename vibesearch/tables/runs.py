"""Scoring a stored run of a table task.

The task comes from the run's snapshot (``extra.table_task``), the answer is the agent's last reply
in the dialogue (rebuilt from stored events), and the score is written as a ``ScoreRow``:
precision/recall/F1 are the item-level figures (cells), ``n_gt``/``n_pred`` count gold and answer
cells, ``n_covered``/``n_valid`` the right cells, and ``details_json`` holds the whole
``TableScore`` (success, row-level figures, reason, every cell verdict).
"""

from __future__ import annotations

import json

from ..config import Settings
from ..store import ScoreRow, Store
from ..run import Conversation
from .convert import table_task_from_task
from .models import TableScore
from .score import score_table


def score_table_run(store: Store, run_id: str, *, judge: str = "offline", settings: Settings | None = None) -> ScoreRow:
    run = store.get_run(run_id)
    try:
        snapshot = run.task_snapshot()
    except json.JSONDecodeError as exc:
        raise ValueError(f"run {run_id}: the stored task snapshot is not valid JSON ({exc.msg})") from None
    try:
        tt = table_task_from_task(snapshot)
    except ValueError as exc:
        raise ValueError(f"run {run_id}: {exc}") from None
    answer = Conversation.from_events(store.events(run_id)).last_reply()
    score = score_table(tt, answer, judge=judge, settings=settings)
    if answer is None:
        score.reason = "the agent gave no reply; " + score.reason
    return store.add_score(to_score_row(run_id, score), [])


def to_score_row(run_id: str, score: TableScore) -> ScoreRow:
    return ScoreRow(
        run_id=run_id,
        judge=score.judge,
        precision=score.item_precision,
        recall=score.item_recall,
        f1=score.item_f1,
        n_gt=score.n_gold_cells,
        n_pred=score.n_pred_cells,
        n_covered=score.n_right_cells,
        n_valid=score.n_right_cells,
        n_unscored=score.n_unscored_cells,
        details_json=json.dumps({"kind": "table", **score.model_dump(mode="json")}, ensure_ascii=False),
    )


def table_score_of(row: ScoreRow) -> TableScore:
    """The ``TableScore`` a stored score row holds."""
    data = json.loads(row.details_json or "{}")
    data.pop("kind", None)
    return TableScore.model_validate(data)
