"""Read-only panels shared by Play and Runs: the statistics card, the score card, the predicted
graph as rows, a table task's scored answer. Each takes stored data and returns HTML or rows."""

from __future__ import annotations

import html
import json
from typing import Any

from ..agents.registry import find_agent_kind
from ..judges.judge_failures import MARK, judge_gaps
from ..judges.registry import judge_for
from ..store import Run, ScoreRow, Store, TaskSnapshotError, VerdictRow
from ..tables import render_table_html, table_score_of
from ._words import Lang, stat_label

BASELINE_LABEL = "retrieval baseline with oracle reader"


def _esc(x: Any) -> str:
    return html.escape(str(x if x is not None else ""))


def judge_text(judge: str) -> str:
    return "offline judge" if not judge or judge_for(judge).is_offline else f"judge {judge}"


# --------------------------------------------------------------------------- statistics
def _num(x: Any, digits: int = 0) -> str:
    if x is None:
        return "unknown"
    if isinstance(x, float) and digits:
        return f"{x:,.{digits}f}"
    return f"{int(x):,}" if isinstance(x, (int, float)) else _esc(x)


def stats_html(stats: Any, *, elapsed_s: float | None = None, live: bool = False, no_model: bool = False, lang: Lang = "en") -> str:
    """The run's counters (a ``vibesearch.scoring.RunStats``) as a compact card. ``no_model``: the
    agent calls no model (the offline baseline); without any model call in the run (no simulator
    either) tokens and cost read "n/a", not a measured zero. A run that kept no usage at all and
    whose cost is unknown (an imported trajectory) reads "unknown" for its tokens, not 0. Its labels
    are in ``lang`` (the task's language, as the card around them: ``_words``)."""
    if stats is None:
        return "<div class='vs-card vs-muted'>No statistics yet.</div>"
    no_calls = no_model and not stats.input_tokens and not stats.output_tokens and not stats.cost_usd
    # no usage kept at all and an unknown cost: a run made elsewhere (imported), its tokens were never recorded
    unrecorded = not no_calls and not stats.tokens_by_purpose and stats.cost_usd is None and not stats.cost_unknown_calls
    ratio = stats.asst_per_user
    tools = stats.tool_calls_by_tool or {}
    tool_text = ", ".join(f"{_esc(k)} {v}" for k, v in sorted(tools.items())) or "none"
    wall = elapsed_s if elapsed_s is not None else stats.wall_time_s
    rows = [
        ("Assistant steps (#Asst)", _num(stats.n_asst)),
        ("User turns (#User)", _num(stats.n_user)),
        ("#Asst / #User", "—" if ratio is None else f"{ratio:.2f}"),
        ("Tool calls", f"{_num(stats.tool_calls)} ({tool_text})"),
        ("Tokens in / out", "n/a (no model calls)" if no_calls else "unknown (usage not recorded)" if unrecorded
         else _esc(stats.tokens_text())),
        ("Cost", "n/a" if no_calls else _esc(stats.cost_text)),
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
    body = "".join(f"<tr><td>{stat_label(k, lang)}</td><td class='vs-num'>{stat_label(v, lang)}</td></tr>" for k, v in rows)
    return f"<div class='vs-card vs-stats'><table>{body}</table></div>"


def compute_stats(store: Store, run_id: str) -> Any:
    from ..scoring import run_stats

    return run_stats(store, run_id)


def live_stats(run_id: str, events: list, stages_total: int | None, *, imported: bool = False) -> Any:
    """Counters of a run in progress (or replayed) from the events the page already read (no extra
    query); ``imported``: a run made elsewhere, whose tokens and cost were never recorded."""
    from ..scoring import stats_from_events

    return stats_from_events(run_id, events, stages_total=stages_total, imported=imported)


# --------------------------------------------------------------------------- scores
def latest_scores(store: Store, run_id: str) -> list[ScoreRow]:
    """The newest score of each judge, in the order the judges first scored."""
    by_judge: dict[str, ScoreRow] = {}
    for s in store.scores(run_id):
        by_judge[s.judge] = s
    return list(by_judge.values())


def score_html(run: Run, scores: list[ScoreRow], *, scoring: bool = False, error: str | None = None) -> str:
    agent_note = f" <span class='vs-badge'>{BASELINE_LABEL}</span>" if _oracle_baseline(run) else ""
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
            gaps = judge_gaps(s)
            if gaps.marked:  # failed judge batches (official rule: not covered) or unscored triples
                extra += f" · {MARK} {gaps.note()}"
        parts.append(
            "<div class='vs-score'>"
            f"<span class='vs-big'>{'Item-F1' if run.kind == 'table' else 'F1'} {100 * s.f1:.1f}</span> "
            f"<span>P {100 * s.precision:.1f} · R {100 * s.recall:.1f}</span> "
            f"<span class='vs-badge'>{_esc(judge_text(s.judge))}</span>{agent_note}"
            f"<div class='vs-muted'>{_esc(extra)}</div></div>"
        )
    return "<div class='vs-card'>" + "".join(parts) + "</div>"


def no_model(run: Run) -> bool:
    """The run's agent calls no model (the offline baseline)."""
    info = find_agent_kind(run.agent)
    return info is not None and info.calls_no_model(run.agent_model)


def _oracle_baseline(run: Run) -> bool:
    """The run's agent reads the annotated facts (its kind's registration says so)."""
    info = find_agent_kind(run.agent)
    return info is not None and info.oracle_baseline


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
        # numbered from 1, like every list a person reads
        [i + 1, t.get("head", ""), t.get("relation", ""), t.get("tail", ""), ("✓ valid" if i in valid else "✗ invalid") if judged else "—"]
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


# --------------------------------------------------------------------------- ground truth, covered or missed
GT_HEADERS = ["#", "head", "relation", "tail", "judge", "rule / rationale", "evidence (supporting predicted triples)"]


def ground_truth(run: Run) -> list[dict[str, Any]]:
    """The run's ground-truth triples (``head`` / ``relation`` / ``tail`` dicts), from the task as
    the run stored it; none when that cannot be read."""
    try:
        return [t.model_dump() for t in run.task().graph]
    except TaskSnapshotError:
        return []


def _triple(t: dict[str, Any]) -> str:
    return f"({t.get('head', '')}, {t.get('relation', '')}, {t.get('tail', '')})"


def verdict_rows(store: Store, score: ScoreRow | None) -> dict[int, VerdictRow]:
    """The score's verdicts by ground-truth index (empty without a score)."""
    if score is None or score.id is None:
        return {}
    return {v.gt_index: v for v in store.verdicts(score.id)}


def _evidence(v: VerdictRow) -> list[int]:
    try:
        return [int(i) for i in json.loads(v.evidence_json or "[]")]
    except (ValueError, TypeError):
        return []


def gt_rows(gt: list[dict[str, Any]], pred: list[dict[str, Any]], verdicts: dict[int, VerdictRow]) -> list[list[Any]]:
    """Every ground-truth triple (numbered from 1) with the judge's decision, its rule and
    rationale, and the predicted triples it rests on, written out."""
    rows = []
    for i, t in enumerate(gt):
        v = verdicts.get(i)
        if v is None:
            said, why, evidence = "—", "", ""
        else:
            said = "✓ covered" if v.covered else "✗ missed" if v.covered is False else "? unscored"
            why = ": ".join(x for x in (v.rule or "", v.rationale or "") if x)
            evidence = "\n".join(_triple(pred[e]) for e in _evidence(v) if 0 <= e < len(pred)) if v.covered else ""
        rows.append([i + 1, t.get("head", ""), t.get("relation", ""), t.get("tail", ""), said, why, evidence])
    return rows


def missed_html(gt: list[dict[str, Any]], verdicts: dict[int, VerdictRow], *, judge: str, elem_id: str) -> str:
    """The ground-truth triples the judge found missing (numbered from 1), as a short list
    beside the score; the unscored ones are counted."""
    if not verdicts or not gt:
        return ""
    missed = [i for i in range(len(gt)) if i in verdicts and verdicts[i].covered is False]
    unscored = sum(1 for i in range(len(gt)) if i in verdicts and verdicts[i].covered is None)
    note = f"<div class='vs-muted'>{unscored} ground-truth triple(s) unscored.</div>" if unscored else ""
    title = f"Missed ground-truth triples ({_esc(judge_text(judge))}): {len(missed)} of {len(gt)}"
    if not missed:
        body = "<div class='vs-muted'>None: every scored ground-truth triple is covered.</div>"
    else:
        body = "<ol class='vs-missed-list'>" + "".join(
            f"<li value='{i + 1}'>{_esc(gt[i].get('head', ''))} — {_esc(gt[i].get('relation', ''))} — {_esc(gt[i].get('tail', ''))}</li>"
            for i in missed) + "</ol>"
    return f"<div class='vs-card vs-missed' id='{_esc(elem_id)}'><div class='vs-card-title'>{title}</div>{body}{note}</div>"


# --------------------------------------------------------------------------- judge agreement (for the Label tab)
def _pct_ci(row: dict[str, Any], measure: str, *, percent: bool = True) -> str:
    value, ci = row.get(measure), (row.get("ci") or {}).get(measure)

    def fmt(x: float | None) -> str:
        return "n/a" if x is None else (f"{100 * x:.1f}%" if percent else f"{x:.2f}")

    return fmt(value) + (f" <span class='vs-muted'>[{fmt(ci[0])}, {fmt(ci[1])}]</span>" if ci else "")


def agreement_side_html(side: dict[str, Any], *, against: str | None = None, elem_id: str = "vs-agreement") -> str:
    """One side of ``labels.agreement.agreement_report`` as a table: each judge (and profile)
    against the human majority (or the annotator ``against``): agreement, κ, Gwet's AC1, the
    share of the positive label on each side, precision and recall, with 95% bootstrap intervals
    in brackets and, below, why kappa says nothing where it does not."""
    rows = side["judges"] if against is None else [r for r in side["judge_vs_annotator"] if r["against"] == against]
    if not rows:
        return f"<div class='vs-muted' id='{_esc(elem_id)}'>No judge has scored these labelled items yet.</div>"
    positive = "covered" if side.get("side", "coverage") == "coverage" else "valid"
    head = ("<tr><th>judge</th><th>profile</th><th>items</th><th>agreement</th><th>Cohen's κ</th><th>Gwet's AC1</th>"
            f"<th>“{positive}”: people / judge</th><th>precision of “{positive}”</th><th>recall of “{positive}”</th></tr>")

    def shares(r: dict[str, Any]) -> str:
        prev = r.get("prevalence") or {}
        return " / ".join("n/a" if prev.get(k) is None else f"{100 * prev[k]:.1f}%" for k in ("human", "judge"))

    body = "".join(
        f"<tr><td>{_esc(judge_text(r['judge']))}</td><td>{_esc(r.get('profile', ''))}</td><td class='vs-num'>{r['n']}</td>"
        f"<td class='vs-num'>{_pct_ci(r, 'agreement')}</td><td class='vs-num'>{_pct_ci(r, 'kappa', percent=False)}</td>"
        f"<td class='vs-num'>{_pct_ci(r, 'ac1', percent=False)}</td><td class='vs-num'>{shares(r)}</td>"
        f"<td class='vs-num'>{_pct_ci(r, 'precision')}</td><td class='vs-num'>{_pct_ci(r, 'recall')}</td></tr>"
        for r in rows)
    notes = "".join(f"<div class='vs-muted vs-kappa-note'>{_esc(r['kappa_note'])}</div>" for r in rows if r.get("kappa_note"))
    return (f"<div class='vs-card vs-agree' id='{_esc(elem_id)}'><table>{head}{body}</table>"
            f"<div class='vs-muted'>95% bootstrap intervals in brackets.</div>{notes}</div>")
