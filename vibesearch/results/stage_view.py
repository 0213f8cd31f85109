"""Per-stage views of the scored runs: what each stage's need is worth, and where runs stall.

* **Triples of a stage.** A ground-truth triple belongs to the first stage whose own words — its
  name, its line and its cues (the opening stage also the persona's first query) — name the
  triple's head or tail (case and spacing aside; names of three characters or more). Triples no
  stage names are "not tied to a stage". The task says which entities each stage's need is about;
  this reads that from the text, no model needed.
* **Recall by stage**: for each stage, the share of its triples the run's newest score (of the
  report's judge) covered — over the runs that reached the stage and over those that did not,
  so the cost of never reaching a stage shows.
* **F1 by stages reached**: the runs grouped by how many stages they got disclosed.
* **Where runs stall**: for each stage, how many runs ended with it as the last one disclosed
  (runs that disclosed every stage are counted apart); the stall point is the stage most runs
  ended on without disclosing the next.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

from ..store import Store
from ..scoring.stored import stored_task
from ..scoring.aggregate import RunRecord
from ..scoring.metrics import stored_verdicts

MIN_NAME = 3


def _norm(text: str) -> str:
    return " ".join(str(text).lower().split())


def stage_of_triples(task: Any) -> list[int | None]:
    """For each ground-truth triple of ``task``, the index of the stage it belongs to (None: none)."""
    stages = task.persona.stages
    texts = []
    for i, st in enumerate(stages):
        words = [st.name, st.line, *st.cues] + ([task.persona.initial_query] if i == 0 else [])
        texts.append(_norm(" ".join(words)))
    out: list[int | None] = []
    for t in task.graph:
        names = [n for n in (_norm(t.head), _norm(t.tail)) if len(n) >= MIN_NAME]
        out.append(next((i for i, text in enumerate(texts) if any(n in text for n in names)), None))
    return out


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def stage_view(store: Store, records: list[RunRecord]) -> dict[str, Any]:
    """The three views over the scored runs in ``records`` (a run counted once: its first record)."""
    first: dict[str, RunRecord] = {}
    for r in records:
        first.setdefault(r.run_id, r)
    scored = [r for r in first.values() if r.scored and r.score_id is not None and not r.left_out]
    # (task, stage index) -> recall values of the runs that reached it / did not
    reached: dict[tuple[str, int], list[float]] = defaultdict(list)
    missed: dict[tuple[str, int], list[float]] = defaultdict(list)
    sizes: dict[tuple[str, int], int] = {}
    names: dict[tuple[str, int], str] = {}
    untied: dict[str, int] = {}
    by_reached: dict[int, list[float]] = defaultdict(list)
    stalls: dict[tuple[str, int], int] = defaultdict(int)
    completed: dict[str, int] = defaultdict(int)
    totals: dict[str, int] = {}
    for r in scored:
        task = stored_task(store, r.run_id)
        if task is None:  # a snapshot that cannot be read: no stages to show
            continue
        stage_idx = stage_of_triples(task)
        covered = {v.gt_index: bool(v.covered) for v in stored_verdicts(store, r.score_id)}
        got = r.stats.stages_reached or 0
        n_stages = len(task.persona.stages)
        totals[r.task_id] = n_stages
        untied[r.task_id] = sum(1 for s in stage_idx if s is None)
        for k, st in enumerate(task.persona.stages):
            mine = [i for i, s in enumerate(stage_idx) if s == k]
            key = (r.task_id, k)
            sizes[key], names[key] = len(mine), st.name
            if mine:
                value = sum(1 for i in mine if covered.get(i)) / len(mine)
                (reached if k < got else missed)[key].append(value)
        if r.f1 is not None:
            by_reached[got].append(r.f1)
        if got >= n_stages:
            completed[r.task_id] += 1
        elif got >= 1:
            stalls[(r.task_id, got - 1)] += 1
    stages = []
    for key in sorted(sizes):
        task_id, k = key
        stages.append({
            "task": task_id, "stage": k + 1, "name": names[key], "triples": sizes[key],
            "recall_reached": _mean(reached[key]), "runs_reached": len(reached[key]),
            "recall_not_reached": _mean(missed[key]), "runs_not_reached": len(missed[key]),
            "runs_ended_here": stalls.get(key, 0),
        })
    stall_points = {}
    for task_id in sorted(totals):
        ended = [(n, k) for (t, k), n in stalls.items() if t == task_id and n]
        if ended:
            n, k = max(ended, key=lambda x: (x[0], -x[1]))
            stall_points[task_id] = {"stage": k + 1, "name": names.get((task_id, k), ""), "runs": n}
    return {
        "stages": stages,
        "not_tied_to_a_stage": dict(sorted(untied.items())),
        "f1_by_stages_reached": [{"stages_reached": n, "runs": len(v), "mean_f1": _mean(v)} for n, v in sorted(by_reached.items())],
        "stall": stall_points,
        "completed": dict(sorted(completed.items())),
    }
