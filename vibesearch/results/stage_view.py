"""Per-stage views of the scored runs: what each stage's need is worth, and where runs stall.

* **Triples of a stage.** A ground-truth triple belongs to the first stage whose own words — its
  name, its line and its cues (the opening stage also the persona's first query) — name the
  triple's head or tail (case and spacing aside; names of three characters or more). Triples no
  stage names are "not tied to a stage". The task says which entities each stage's need is about;
  this reads that from the text, no model needed.
* **The stage map** (``stage_map``, the error analysis' funnel): the triples above, and for the
  others the stage whose line and trigger condition share the most of the triple's words, or
  "unassigned".
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
from functools import lru_cache
from types import SimpleNamespace
from typing import Any, Literal

from ..judges.offline import CJK, PhraseText, norm
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


StageSource = Literal["task", "matched", "unassigned"]


def _content_words(text: str) -> set[str]:
    """A triple's words worth matching: Latin words of four letters or more, Chinese pairs of characters."""
    out: set[str] = set()
    for word in norm(text).split():
        if CJK.search(word):
            out.update(word[i:i + 2] for i in range(len(word) - 1))
        elif len(word) >= 4 and not word.isdigit():
            out.add(word)
    return out


def stage_map(task: Any) -> list[tuple[int | None, StageSource]]:
    """See ``_stage_map`` (kept for each task's stages and graph: many runs share a task)."""
    stages = tuple((st.name, st.line, st.trigger.condition, tuple(st.cues)) for st in task.persona.stages)
    graph = tuple((t.head, t.relation, t.tail) for t in task.graph)
    return list(_stage_map_of(task.persona.initial_query, stages, graph))


@lru_cache(maxsize=256)
def _stage_map_of(query: str, stages: tuple[tuple[str, str, str, tuple[str, ...]], ...],
                  graph: tuple[tuple[str, str, str], ...]) -> tuple[tuple[int | None, StageSource], ...]:
    return tuple(_stage_map(SimpleNamespace(
        persona=SimpleNamespace(initial_query=query, stages=[
            SimpleNamespace(name=n, line=line, cues=list(cues), trigger=SimpleNamespace(condition=c)) for n, line, c, cues in stages]),
        graph=[SimpleNamespace(head=h, relation=r, tail=t) for h, r, t in graph])))


def _stage_map(task: Any) -> list[tuple[int | None, StageSource]]:
    """For each ground-truth triple, the stage whose need it answers and how that was decided:
    ``task`` — the task's map (``stage_of_triples``: the first stage whose words name the head or
    tail); ``matched`` — where the map names none, the stage whose line and trigger condition share
    the most of the triple's words (``_content_words``, found as whole words by the offline
    judge's ``PhraseText``; a tie goes to the earlier stage); ``unassigned`` — no stage shares any."""
    texts = [PhraseText(" ".join([st.line, st.trigger.condition])) for st in task.persona.stages]
    out: list[tuple[int | None, StageSource]] = []
    for t, k in zip(task.graph, stage_of_triples(task)):
        if k is not None:
            out.append((k, "task"))
            continue
        words = _content_words(f"{t.head} {t.relation} {t.tail}")
        scores = [sum(1 for w in words if text.has_phrase(w)) for text in texts]
        best = max(scores, default=0)
        out.append((scores.index(best), "matched") if best else (None, "unassigned"))
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
