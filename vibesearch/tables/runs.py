"""Scoring a stored run of a table task.

The task comes from the run's snapshot (``Run.task()``, its table part), the answer is the agent's last reply
in the dialogue (rebuilt from stored events), and the score is a ``RunScore`` (stored as a ``ScoreRow``):
precision/recall/F1 are the item-level figures (cells), ``n_gt``/``n_pred`` count gold and answer
cells, ``n_covered``/``n_valid`` the right cells, and ``details_json`` holds the whole
``TableScore`` (success, row-level figures, reason, every cell verdict).
"""

from __future__ import annotations

import json

from ..config import Settings
from ..run import Conversation
from ..run.scores import RunScore
from ..store import ScoreRow, Store, record_score
from .convert import table_task_from_task
from .models import TableScore
from .score import score_table


def score_table_run(store: Store, run_id: str, *, judge: str = "offline", settings: Settings | None = None) -> ScoreRow:
    """Score a table run and store its score."""
    return record_score(store, table_run_score(store, run_id, judge=judge, settings=settings))


def table_run_score(store: Store, run_id: str, *, judge: str = "offline", settings: Settings | None = None) -> RunScore:
    """A table run's score (not stored)."""
    task = store.get_run(run_id).task()  # an unreadable snapshot: TaskSnapshotError, naming the run
    try:
        tt = table_task_from_task(task)
    except ValueError as exc:
        raise ValueError(f"run {run_id}: {exc}") from None
    answer = Conversation.from_events(store.events(run_id)).last_reply()
    score = score_table(tt, answer, judge=judge, settings=settings)
    if answer is None:
        score.reason = "the agent gave no reply; " + score.reason
    return to_run_score(run_id, score)


def to_run_score(run_id: str, score: TableScore) -> RunScore:
    return RunScore(
        run_id=run_id,
        judge=score.judge,
        protocol="vibesearch",
        precision=score.item_precision,
        recall=score.item_recall,
        f1=score.item_f1,
        n_gt=score.n_gold_cells,
        n_pred=score.n_pred_cells,
        n_covered=score.n_right_cells,
        n_valid=score.n_right_cells,
        n_unscored=score.n_unscored_cells,
        details={"kind": "table", **score.model_dump(mode="json")},
    )


def table_score_of(row: ScoreRow) -> TableScore:
    """The ``TableScore`` a stored score row holds."""
    data = json.loads(row.details_json or "{}")
    data.pop("kind", None)
    return TableScore.model_validate(data)
