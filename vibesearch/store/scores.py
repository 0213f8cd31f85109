"""A run's score as rows: the one place a ``RunScore`` (``run.scores``) becomes a ``ScoreRow`` and
its ``VerdictRow``s, written together."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..run.scores import RunScore
from .tables import ScoreRow, VerdictRow

if TYPE_CHECKING:
    from .db import Store


def score_rows(score: RunScore, repeat: tuple[str, int] | None = None) -> tuple[ScoreRow, list[VerdictRow]]:
    """``repeat``: (the repeat set, the judgement's place in it from 1) of one of the judgements
    ``score --repeat K`` makes of one graph; None for a single judgement."""
    row = ScoreRow(
        run_id=score.run_id,
        graph_id=score.graph_id,
        judge=score.judge,
        precision=score.precision,
        recall=score.recall,
        f1=score.f1,
        n_gt=score.n_gt,
        n_pred=score.n_pred,
        n_covered=score.n_covered,
        n_valid=score.n_valid,
        n_unscored=score.n_unscored,
        details_json=json.dumps(score.details, ensure_ascii=False, default=str),
        protocol=score.protocol,
        prompt_source=score.prompt_source,
        repeat_set=repeat[0] if repeat else None,
        repeat_index=repeat[1] if repeat else None,
    )
    verdicts = [
        VerdictRow(
            score_id=0,
            run_id=score.run_id,
            gt_index=v.gt_index,
            covered=v.covered,
            rule=str(v.rule) if v.rule is not None else None,
            evidence_json=json.dumps(v.evidence),
            rationale=v.rationale,
        )
        for v in score.verdicts
    ]
    return row, verdicts


def record_score(store: "Store", score: RunScore, repeat: tuple[str, int] | None = None) -> ScoreRow:
    """Store ``score`` (its row and its verdicts, in one transaction) and return the row
    (``repeat``: see ``score_rows``)."""
    row, verdicts = score_rows(score, repeat)
    return store.add_score(row, verdicts)
