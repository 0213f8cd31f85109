"""Aggregation over runs (SPEC 5.3): the paper's score table and interaction table.

A *configuration* is agent + agent model + user kind + simulator model. Each task may have N
runs under a configuration.

* Avg@N: for each task, the mean over its runs; then the mean over tasks.
* Best@N (the paper's Max@N): for each task, the best run's value; then the mean over tasks.
  Each metric takes its own best run (the best precision and the best F1 may come from
  different runs).

Rows are given per configuration for all tasks, each subset (pro, daily) and each language.
The interaction table (#Asst, #User, their ratio, tool calls, compactions, tokens, cost) is
averaged over runs; its #Asst/#User is total assistant steps over total user turns.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from statistics import mean
from typing import Any, Iterable

from pydantic import BaseModel

from ..store import Store
from ..store.tables import Run, ScoreRow
from .stats import RunStats, run_stats


class RunRecord(BaseModel):
    run_id: str
    task_id: str
    subset: str
    language: str
    config: str
    agent: str
    agent_model: str | None
    user: str
    simulator_model: str | None
    source: str
    status: str
    score_id: int | None = None
    judge: str | None = None
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    n_gt: int = 0
    n_pred: int = 0
    n_valid: int = 0
    n_covered: int = 0
    n_unscored: int = 0
    stats: RunStats

    @property
    def scored(self) -> bool:
        return self.f1 is not None


# The offline baseline reads the corpus' annotated facts; its scores must never pass for a model's.
BASELINE_LABEL = "baseline (retrieval + oracle reader)"


def agent_label(agent: str | None, model: str | None = None) -> str:
    if agent == "baseline":
        return BASELINE_LABEL
    return f"{agent or '?'}" + (f" ({model})" if model else "")


def config_key(run: Run) -> str:
    agent = agent_label(run.agent, run.agent_model)
    user = f"{run.user or '?'}" + (f" ({run.simulator_model})" if run.simulator_model else "")
    return f"{agent} · user {user}"


def choose_judge(store: Store, runs: Iterable[Run] | None = None) -> str:
    """The judge with scores on the most runs (the offline judge on a tie)."""
    ids = {r.id for r in runs} if runs is not None else None
    counts: Counter[str] = Counter()
    seen: set[tuple[str, str]] = set()
    for s in store.scores():
        if (ids is None or s.run_id in ids) and (s.run_id, s.judge) not in seen:
            seen.add((s.run_id, s.judge))
            counts[s.judge] += 1
    if not counts:
        return "offline"
    best = max(counts.values())
    winners = sorted(j for j, n in counts.items() if n == best)
    return "offline" if "offline" in winners else winners[0]


def latest_scores(store: Store, judge: str) -> dict[str, ScoreRow]:
    out: dict[str, ScoreRow] = {}
    for s in store.scores():  # ordered by id: later scores replace earlier ones
        if s.judge == judge:
            out[s.run_id] = s
    return out


def collect_runs(store: Store, *, judge: str | None = None, include_tables: bool = False) -> tuple[list[RunRecord], str]:
    """Every persona run (finished or with a score) with its latest score by ``judge``."""
    runs = [r for r in store.list_runs() if include_tables or r.kind != "table"]
    judge = judge or choose_judge(store, runs)
    scores = latest_scores(store, judge)
    records = []
    for run in runs:
        score = scores.get(run.id)
        if run.status not in ("finished",) and score is None:
            continue
        try:
            task = json.loads(run.task_json or "{}")
        except json.JSONDecodeError:
            task = {}
        rec = RunRecord(
            run_id=run.id,
            task_id=run.task_id,
            subset=str(task.get("subset") or "?"),
            language=str(task.get("language") or "?"),
            config=config_key(run),
            agent=run.agent,
            agent_model=run.agent_model,
            user=run.user,
            simulator_model=run.simulator_model,
            source=run.source,
            status=run.status,
            stats=run_stats(store, run.id),
        )
        if score is not None:
            rec = rec.model_copy(
                update=dict(
                    score_id=score.id, judge=score.judge, precision=score.precision, recall=score.recall, f1=score.f1,
                    n_gt=score.n_gt, n_pred=score.n_pred, n_valid=score.n_valid, n_covered=score.n_covered,
                    n_unscored=score.n_unscored,
                )
            )
        records.append(rec)
    return records, judge


METRICS = ("precision", "recall", "f1")


def _at_n(records: list[RunRecord]) -> dict[str, Any]:
    by_task: dict[str, list[RunRecord]] = defaultdict(list)
    for r in records:
        by_task[r.task_id].append(r)
    row: dict[str, Any] = {
        "n_tasks": len(by_task),
        "n_runs": len(records),
        "n_min": min(len(v) for v in by_task.values()),
        "n_max": max(len(v) for v in by_task.values()),
    }
    for m in METRICS:
        row[f"avg_{m}"] = mean(mean(getattr(r, m) for r in runs) for runs in by_task.values())
        row[f"best_{m}"] = mean(max(getattr(r, m) for r in runs) for runs in by_task.values())
    return row


def score_table(records: list[RunRecord]) -> list[dict[str, Any]]:
    """Avg@N and Best@N of P/R/F1 per configuration, overall, per subset and per language."""
    scored = [r for r in records if r.scored]
    rows = []
    for config in sorted({r.config for r in scored}):
        mine = [r for r in scored if r.config == config]
        groups: list[tuple[str, list[RunRecord]]] = [("all", mine)]
        groups += [(f"subset {s}", [r for r in mine if r.subset == s]) for s in ("pro", "daily")]
        groups += [(f"language {lang}", [r for r in mine if r.language == lang]) for lang in ("en", "zh")]
        for group, members in groups:
            if members:
                rows.append({"config": config, "group": group, **_at_n(members)})
    return rows


def interaction_table(records: list[RunRecord]) -> list[dict[str, Any]]:
    rows = []
    for config in sorted({r.config for r in records}):
        mine = [r.stats for r in records if r.config == config]
        total_user = sum(s.n_user for s in mine)
        costs = [s.cost_usd for s in mine]
        rows.append(
            {
                "config": config,
                "n_runs": len(mine),
                "asst": mean(s.n_asst for s in mine),
                "user": mean(s.n_user for s in mine),
                "asst_per_user": (sum(s.n_asst for s in mine) / total_user) if total_user else None,
                "tool_calls": mean(s.tool_calls for s in mine),
                "tool_calls_per_user_turn": (sum(s.tool_calls for s in mine) / total_user) if total_user else None,
                "compactions": mean(s.compactions for s in mine),
                "input_tokens": mean(s.agent_input_tokens for s in mine),
                "output_tokens": mean(s.agent_output_tokens for s in mine),
                "cost_usd": None if any(c is None for c in costs) else mean(costs),  # type: ignore[arg-type]
                "cost_known_usd": mean(s.cost_known_usd for s in mine),
            }
        )
    return rows
