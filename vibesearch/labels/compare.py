"""Two runs of one persona side by side, laid out by stage (``vibesearch compare RUN_A RUN_B``).

For each stage: the user turn it was disclosed at in each run, and the tool calls and agent tokens
spent while it was the newest stage disclosed. For the ground truth: which triples both runs
covered, only A, only B, or neither — each triple once, by the newest score of each run (the same
judge for both when there is one they share). ``judge_trust`` holds, for the judge and profile of
each run's score, its measured agreement with the stored human labels (``judge_trust``), and
``marked`` whether its numbers are to carry the mark (``min_agreement``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..run.events import MessageEvent, StageEvent, ToolCallEvent, UsageEvent
from ..store import RunNotFound, Store, TaskSnapshotError
from ..store.tables import ScoreRow
from .judge_trust import Threshold, judge_trust
from ..scoring.profile import profile_label
from ..results.funnel import stored_funnel


class CompareError(ValueError):
    """Two runs that cannot be compared (the message says why, in one line)."""


@dataclass
class StageSpend:
    reached_at: int | None = None  # the user turn (from 1) it was disclosed at
    tool_calls: int = 0
    tokens: int | None = 0  # None: the run recorded no model usage at all (the offline baseline)


@dataclass
class RunLayout:
    run_id: str
    agent: str
    user: str
    turns: int = 0
    stages: list[StageSpend] = field(default_factory=list)


def layout(store: Store, run_id: str, stages: int) -> RunLayout:
    run = store.get_run(run_id)
    out = RunLayout(run_id, f"{run.agent}:{run.agent_model}" if run.agent_model else run.agent, run.user, stages=[StageSpend() for _ in range(stages)])
    current = 0
    used_a_model = False
    for stored in store.events(run_id):
        data = stored.data
        if isinstance(data, StageEvent) and not data.shadow:
            out.turns += 1
            if data.reply_kind == "open":
                out.stages[0].reached_at = out.turns
            elif data.advanced and data.stage_index < stages:
                current = data.stage_index
                out.stages[current].reached_at = out.turns
        elif isinstance(data, ToolCallEvent) and out.stages:
            out.stages[current].tool_calls += 1
        elif isinstance(data, UsageEvent) and data.purpose == "agent" and out.stages:
            used_a_model = True
            out.stages[current].tokens = (out.stages[current].tokens or 0) + (data.input_tokens or 0) + (data.output_tokens or 0)
        elif isinstance(data, MessageEvent) and data.phase == "extraction":
            break  # what the graph request costs belongs to no stage
    if not used_a_model:  # (the graph request's calls come after the stages: a model-less run has none)
        for st in out.stages:
            st.tokens = None
    return out


def _newest(scores: list[ScoreRow], judge: str | None) -> ScoreRow | None:
    rows = [s for s in scores if judge is None or s.judge == judge]
    return max(rows, key=lambda s: (s.created_at, s.id or 0)) if rows else None


def compare_runs(store: Store, run_a: str, run_b: str, *, judge: str | None = None, min_agreement: Threshold = None,
                 keep_run: Callable[[str], bool] | None = None) -> dict[str, Any]:
    """Stage alignment and coverage of two runs of one task (``keep_run``: the runs whose labels
    measure the judge's agreement)."""
    try:
        a, b = store.get_run(run_a), store.get_run(run_b)
    except (RunNotFound, KeyError) as exc:
        raise CompareError(f"no such run: {exc}") from None
    if a.task_id != b.task_id:
        raise CompareError(f"the runs play different tasks ({a.task_id!r} and {b.task_id!r}); compare two runs of one persona")
    try:
        task = a.task()
    except TaskSnapshotError as exc:
        raise CompareError(f"run {run_a}: its task cannot be read ({exc})") from None
    n = len(task.persona.stages)
    la, lb = layout(store, run_a, n), layout(store, run_b, n)
    scores_a, scores_b = store.scores(run_a), store.scores(run_b)
    if judge is None:  # a judge both were scored by, the newest such score of each
        shared = {s.judge for s in scores_a} & {s.judge for s in scores_b}
        if shared:
            judge = max(shared, key=lambda j: max(s.created_at for s in scores_a + scores_b if s.judge == j))
    sa, sb = _newest(scores_a, judge), _newest(scores_b, judge)
    coverage: dict[str, Any] = {"judge": judge, "both": [], "only_a": [], "only_b": [], "neither": []}
    if sa is not None and sb is not None:
        cov_a = {v.gt_index: v.covered for v in store.verdicts(sa.id)}
        cov_b = {v.gt_index: v.covered for v in store.verdicts(sb.id)}
        # where each side lost each fact (the funnel, docs/analysis.md)
        funnels = {side: stored_funnel(store, rid, s.id) if s.id is not None else None for side, rid, s in (("a", run_a, sa), ("b", run_b, sb))}
        buckets = {side: {t.gt_index: t.bucket for t in f.fates} if f is not None else {} for side, f in funnels.items()}
        for i, triple in enumerate(task.graph):
            ca, cb = bool(cov_a.get(i)), bool(cov_b.get(i))
            key = "both" if ca and cb else "only_a" if ca else "only_b" if cb else "neither"
            coverage[key].append({"number": i + 1, "triple": triple.text(), "bucket_a": buckets["a"].get(i), "bucket_b": buckets["b"].get(i)})
        coverage["funnel"] = {side: f.counts() if f is not None else None for side, f in funnels.items()}
        coverage["f1"] = {"a": sa.f1, "b": sb.f1}
        trust = judge_trust(store, threshold=min_agreement, keep_run=keep_run)
        keys = [(s.judge, profile_label(s.protocol, s.prompt_source)) for s in (sa, sb)]
        coverage["judge_trust"] = trust.rows(keys)
        coverage["marked"] = {side: trust.flagged(*key) for side, key in zip(("a", "b"), keys)}
        coverage["footnote"] = trust.footnote()
    else:
        coverage["missing"] = [rid for rid, s in ((run_a, sa), (run_b, sb)) if s is None]
    return {
        "task": task.id,
        "stages": [
            {"number": k + 1, "name": task.persona.stages[k].name,
             "a": vars(la.stages[k]), "b": vars(lb.stages[k])}
            for k in range(n)
        ],
        "runs": {"a": {"run_id": run_a, "agent": la.agent, "user": la.user, "turns": la.turns},
                 "b": {"run_id": run_b, "agent": lb.agent, "user": lb.user, "turns": lb.turns}},
        "coverage": coverage,
    }
