"""The report's content, independent of its format: a plain dict of tables."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from ..scoring.aggregate import collect_runs, interaction_table, score_table
from ..scoring.errors import error_analysis
from ..scoring.verdicts import judge_label
from ..store import Store


def build_report(store: Store, *, judge: str | None = None) -> dict[str, Any]:
    """Score table (Avg@N / Best@N), interaction table and error analysis for every run."""
    records, judge = collect_runs(store, judge=judge)
    scored = [r for r in records if r.scored]
    return {
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "database": str(store.path),
        "judge": judge,
        "judge_label": judge_label(judge),
        "n_runs": len(records),
        "n_scored": len(scored),
        "unscored_runs": [r.run_id for r in records if not r.scored],
        "scores": score_table(records),
        "interaction": interaction_table(records),
        "errors": error_analysis(store, records),
        "runs": [
            {
                "run_id": r.run_id,
                "task_id": r.task_id,
                "config": r.config,
                "subset": r.subset,
                "language": r.language,
                "source": r.source,
                "precision": r.precision,
                "recall": r.recall,
                "f1": r.f1,
                "n_gt": r.n_gt,
                "n_pred": r.n_pred,
                "n_unscored": r.n_unscored,
                "user_turns": r.stats.n_user,
                "assistant_steps": r.stats.n_asst,
                "tool_calls": r.stats.tool_calls,
                "compactions": r.stats.compactions,
                "termination": r.stats.termination,
                "cost": r.stats.cost_text,
            }
            for r in records
        ],
    }
