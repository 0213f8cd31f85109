"""Read-only panels shared by Play and Runs: the statistics card, the score card, the predicted
graph as rows, a table task's scored answer. Each takes stored data and returns HTML or rows."""

from __future__ import annotations

import html
import json
from typing import Any

from ..store import Run, ScoreRow, Store
from ..tables import render_table_html, table_score_of

BASELINE_LABEL = "retrieval baseline with oracle reader"


def _esc(x: Any) -> str:
    return html.escape(str(x if x is not None else ""))


def judge_text(judge: str) -> str:
    return "offline judge" if judge in ("", "offline", None) else f"judge {judge}"


# --------------------------------------------------------------------------- statistics
def _num(x: Any, digits: int = 0) -> str:
    if x is None:
        return "unknown"
    if isinstance(x, float) and digits:
        return f"{x:,.{digits}f}"
    return f"{int(x):,}" if isinstance(x, (int, float)) else _esc(x)


def stats_html(stats: Any, *, elapsed_s: float | None = None, live: bool = False) -> str:
    """The run's counters (a ``vibesearch.scoring.RunStats``) as a compact card."""
    if stats is None:
        return "<div class='vs-card vs-muted'>No statistics yet.</div>"
    ratio = stats.asst_per_user
    tools = stats.tool_calls_by_tool or {}
    tool_text = ", ".join(f"{_esc(k)} {v}" for k, v in sorted(tools.items())) or "none"
    wall = elapsed_s if elapsed_s is not None else stats.wall_time_s
    rows = [
        ("Assistant steps (#Asst)", _num(stats.n_asst)),
        ("User turns (#User)", _num(stats.n_user)),
        ("#Asst / #User", "—" if ratio is None else f"{ratio:.2f}"),
        ("Tool calls", f"{_num(stats.tool_calls)} ({tool_text})"),
        ("Tokens in / out", f"{_num(stats.input_tokens)} / {_num(stats.output_tokens)}"),
        ("Cost", _esc(stats.cost_text)),
        ("Compactions", _num(stats.compactions)),
        ("Stages reached", f"{_num(stats.stages_reached)} / {_num(stats.stages_total)}"),
        ("Elapsed" if live else "Wall time", "—" if wall is None else f"{wall:,.1f} s"),
    ]
    if not live:
        rows.append(("Termination", _esc(stats.termination or "—")))
        for label, v in (("Perfunctory rate", stats.perfunctory_rate), ("Redirect rate", stats.redirect_rate)):
            rows.append((label, "—" if v is None else f"{100 * v:.0f}%"))
        if stats.errors:
            rows.append(("Errors", _num(stats.errors)))
    body = "".join(f"<tr><td>{k}</td><td class='vs-num'>{v}</td></tr>" for k, v in rows)
    return f"<div class='vs-card vs-stats'><table>{body}</table></div>"


def compute_stats(store: Store, run_id: str) -> Any:
    from ..scoring import run_stats

    return run_stats(store, run_id)


def live_stats(run_id: str, events: list, stages_total: int | None) -> Any:
    """Counters of a run in progress from the events the page already read (no extra query)."""
    from ..scoring import stats_from_events

    return stats_from_events(run_id, events, stages_total=stages_total)


# --------------------------------------------------------------------------- scores
def latest_scores(store: Store, run_id: str) -> list[ScoreRow]:
    """The newest score of each judge, in the order the judges first scored."""
    by_judge: dict[str, ScoreRow] = {}
    for s in store.scores(run_id):
        by_judge[s.judge] = s
    return list(by_judge.values())


def score_html(run: Run, scores: list[ScoreRow], *, scoring: bool = False, error: str | None = None) -> str:
    agent_note = f" <span class='vs-badge'>{BASELINE_LABEL}</span>" if run.agent == "baseline" else ""
    if error:
        return f"<div class='vs-card vs-error'>Scoring failed: {_esc(error)}</div>"
    if not scores:
        msg = "Scoring the graph…" if scoring else "Not scored yet."
        return f"<div class='vs-card vs-muted'>{msg}{agent_note}</div>"
    parts = []
    for s in scores:
        if run.kind == "table":
            extra = f"item-level (cells): {s.n_covered}/{s.n_gt} gold cells right, {s.n_pred} cells written"
        else:
            extra = f"{s.n_covered}/{s.n_gt} ground-truth triples covered · {s.n_valid}/{s.n_pred} predicted triples valid"
            if s.n_unscored:
                extra += f" · {s.n_unscored} unscored"
        parts.append(
            "<div class='vs-score'>"
            f"<span class='vs-big'>{'Item-F1' if run.kind == 'table' else 'F1'} {100 * s.f1:.1f}</span> "
            f"<span>P {100 * s.precision:.1f} · R {100 * s.recall:.1f}</span> "
            f"<span class='vs-badge'>{_esc(judge_text(s.judge))}</span>{agent_note}"
            f"<div class='vs-muted'>{_esc(extra)}</div></div>"
        )
    return "<div class='vs-card'>" + "".join(parts) + "</div>"


def verdict_map(store: Store, score: ScoreRow | None) -> dict[int, tuple[bool | None, list[int]]]:
    if score is None or score.id is None:
        return {}
    out: dict[int, tuple[bool | None, list[int]]] = {}
    for v in store.verdicts(score.id):
        out[v.gt_index] = (v.covered, [int(i) for i in json.loads(v.evidence_json or "[]")])
    return out


def predicted_triples(store: Store, run_id: str) -> list[dict]:
    g = store.latest_graph(run_id)
    return json.loads(g.triples_json) if g is not None else []


def predicted_rows(pred: list[dict], verdicts: dict[int, tuple[bool | None, list[int]]]) -> list[list[Any]]:
    valid: set[int] = set()
    for covered, evidence in verdicts.values():
        if covered:
            valid.update(evidence)
    judged = bool(verdicts)
    return [
        [i, t.get("head", ""), t.get("relation", ""), t.get("tail", ""), ("✓ valid" if i in valid else "✗ invalid") if judged else "—"]
        for i, t in enumerate(pred)
    ]


PRED_HEADERS = ["#", "head", "relation", "tail", "judge"]


def table_answer_html(store: Store, run: Run) -> str:
    """A table task's answer with right/wrong cells coloured (needs a score)."""
    if run.kind != "table":
        return ""
    scores = latest_scores(store, run.id)
    if not scores:
        return "<div class='vs-muted'>The answer table appears here once it is scored.</div>"
    try:
        return render_table_html(table_score_of(scores[-1]))
    except Exception as exc:  # noqa: BLE001 - an unreadable score: say so, keep the page
        return f"<div class='vs-error'>Cannot show the scored table: {_esc(exc)}</div>"
