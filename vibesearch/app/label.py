"""The Label tab: a person decides, triple by triple, whether a run's prediction covers the
ground truth — the human side of the judge meta-evaluation (SPEC 8).

Keys (when no text field has the focus): ``y`` covered, ``n`` not covered, ``j`` next, ``k``
previous. "Covered" needs at least one supporting predicted triple ticked. With a login on, labels
are stored under the login (the name box is filled and locked); without one the name is typed.
Each label is stored at once (``Store.put_label``) and the agreement with every judge
that scored the run is recomputed from the database. A judge's verdict on a triple stays hidden
until the person has labelled it, so it cannot sway them (a toggle shows it anyway).
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any

import gradio as gr
from rapidfuzz import fuzz

from ._access import Who
from .context import AppContext
from .panels import judge_text, predicted_triples

SUGGESTED = 25  # predicted triples listed (most similar first) while the search box is empty
NEEDS_SUPPORT = ("Not stored: a \"covered\" label needs at least one supporting prediction. Tick the predicted "
                 "triple(s) that cover it (search the list if needed), or label it \"not covered\".")


class LabelRefused(ValueError):
    """A label the tab will not store; the message is shown on the status line."""


@dataclass
class LabelView:
    run_id: str | None = None
    annotator: str = ""
    idx: int = 0
    gt: list[dict] = field(default_factory=list)
    pred: list[dict] = field(default_factory=list)
    mine: dict[int, tuple[bool, list[int]]] = field(default_factory=dict)
    # judge → gt index → (covered, evidence, rule, rationale)
    verdicts: dict[str, dict[int, tuple[bool | None, list[int], str | None, str]]] = field(default_factory=dict)
    last: str = ""  # feedback on the label just given


def _esc(x: Any) -> str:
    return html.escape(str(x if x is not None else ""))


def _ttext(t: dict) -> str:
    return f"{t.get('head', '')} | {t.get('relation', '')} | {t.get('tail', '')}"


def labelable_runs(ctx: AppContext, who: Any = None) -> list[tuple[str, str]]:
    """Finished persona runs that have a graph, newest first (with ``who``: those it may read)."""
    out = []
    for r in ctx.store.list_runs():
        if r.kind == "table" or r.status == "running":
            continue
        if who is not None and not ctx.readable(who, r):
            continue
        if ctx.store.latest_graph(r.id) is None:
            continue
        out.append((f"{r.id} · {r.task_id} · {r.agent}{' (' + r.agent_model + ')' if r.agent_model else ''} · {r.status}", r.id))
    return out


def annotator_for(who: Who, typed: Any) -> str:
    """The name labels are stored under: the login when there is one, else the typed name."""
    if who.login:
        return who.login
    return (typed if isinstance(typed, str) else "").strip()[:200]


def start_problem(run_id: Any, annotator: str) -> str | None:
    """Why "Start labelling" cannot start yet, or None."""
    if not run_id or not isinstance(run_id, str):
        return "Pick a run first (the list holds the finished runs you may read that have a graph)."
    if not annotator:
        return "Type your annotator name first (labels are stored under it)."
    return None


def record_label(ctx: AppContext, v: LabelView, covered: bool, evidence: Any, note: str) -> None:
    """Store the label of the shown triple and move on; ``LabelRefused`` (nothing stored) when the
    view has no run or "covered" comes without a supporting prediction."""
    if not v.run_id or not v.gt:
        raise LabelRefused("Load a run first: pick one and press \"Start labelling\".")
    evidence_ids = sorted({int(i) for i in (evidence or []) if 0 <= int(i) < len(v.pred)}) if covered else []
    if covered and not evidence_ids:
        raise LabelRefused(NEEDS_SUPPORT)
    ctx.store.put_label(v.run_id, v.idx, v.annotator, covered, evidence=evidence_ids, note=note or "")
    v.mine[v.idx] = (covered, evidence_ids)
    judged = []
    for judge, verdicts in v.verdicts.items():
        jc = verdicts.get(v.idx, (None,))[0]
        if jc is not None:
            judged.append(f"{judge_text(judge)} {'agrees' if jc == covered else 'disagrees'}")
    v.last = f"Triple {v.idx + 1}: {'covered' if covered else 'not covered'}" + (f" ({'; '.join(judged)})." if judged else ".")
    if v.idx + 1 < len(v.gt):
        v.idx += 1


def load_view(ctx: AppContext, run_id: str, annotator: str) -> LabelView:
    run = ctx.store.get_run(run_id)
    task = ctx.task_of_run(run)
    if task is None:
        raise ValueError(f"run {run_id} has no ground-truth graph in its task snapshot")
    v = LabelView(run_id=run_id, annotator=annotator, gt=[t.model_dump() for t in task.graph], pred=predicted_triples(ctx.store, run_id))
    for lab in ctx.store.labels(run_id=run_id, annotator=annotator):
        v.mine[lab.gt_index] = (lab.covered, [int(i) for i in json.loads(lab.evidence_json or "[]")])
    by_judge = {}
    for s in ctx.store.scores(run_id):
        by_judge[s.judge] = s  # latest per judge
    for judge, s in by_judge.items():
        v.verdicts[judge] = {
            vr.gt_index: (vr.covered, [int(i) for i in json.loads(vr.evidence_json or "[]")], vr.rule, vr.rationale)
            for vr in ctx.store.verdicts(s.id)
        }
    v.idx = next((i for i in range(len(v.gt)) if i not in v.mine), 0)
    return v


# --------------------------------------------------------------------------- views
def triple_html(v: LabelView) -> str:
    if not v.gt:
        return "<div class='vs-muted'>Load a run to start labelling.</div>"
    t = v.gt[v.idx]
    mine = v.mine.get(v.idx)
    you = ""
    if mine is not None:
        you = f"<div>Your label: <b class='{'vs-verdict-covered' if mine[0] else 'vs-verdict-missed'}'>{'covered' if mine[0] else 'not covered'}</b>"
        you += f" · evidence {', '.join(f'#{i}' for i in mine[1])}</div>" if mine[1] else "</div>"
    return (
        f"<div class='vs-card vs-triple' id='vs-label-triple'><div class='vs-muted'>Ground-truth triple {v.idx + 1} of {len(v.gt)}</div>"
        f"<span class='vs-part'>{_esc(t['head'])}</span> — <span class='vs-part'>{_esc(t['relation'])}</span> → "
        f"<span class='vs-part'>{_esc(t['tail'])}</span>{you}</div>"
    )


def verdict_html(v: LabelView, show_anyway: bool) -> str:
    if not v.gt:
        return ""
    if not v.verdicts:
        return "<div class='vs-muted'>No judge has scored this run yet (score it in the Runs tab).</div>"
    if v.idx not in v.mine and not show_anyway:
        return "<div class='vs-muted'>The judges' verdicts on this triple appear once you have labelled it.</div>"
    parts = []
    for judge, verdicts in v.verdicts.items():
        covered, evidence, rule, why = verdicts.get(v.idx, (None, [], None, ""))
        word = {True: "covered", False: "not covered", None: "unscored"}[covered]
        cls = {True: "vs-verdict-covered", False: "vs-verdict-missed", None: "vs-muted"}[covered]
        ev = f" · evidence {', '.join(f'#{i}' for i in evidence)}" if evidence else ""
        r = f" · rule {rule}" if rule else ""
        parts.append(f"<div><b>{_esc(judge_text(judge))}</b>: <span class='{cls}'>{word}</span>{_esc(r)}{_esc(ev)}"
                     + (f"<div class='vs-muted'>{_esc(why[:400])}</div>" if why else "") + "</div>")
    return "<div class='vs-card'>" + "".join(parts) + "</div>"


def evidence_choices(v: LabelView, query: str, selected: list[int]) -> list[tuple[str, int]]:
    """Predicted triples matching the search (all words), or the most similar to the shown triple."""
    if not v.pred:
        return []
    q = (query or "").strip().lower()
    if q:
        words = q.split()
        idxs = [i for i, t in enumerate(v.pred) if all(w in _ttext(t).lower() for w in words)]
    else:
        target = _ttext(v.gt[v.idx]) if v.gt else ""
        ranked = sorted(range(len(v.pred)), key=lambda i: -fuzz.token_set_ratio(target, _ttext(v.pred[i])))
        idxs = ranked[:SUGGESTED]
    keep = [i for i in selected if i not in idxs and 0 <= i < len(v.pred)]
    return [(f"#{i}  {_ttext(v.pred[i])}", i) for i in [*keep, *idxs]]


def progress_text(v: LabelView) -> str:
    if not v.gt:
        return ""
    done = sum(1 for i in range(len(v.gt)) if i in v.mine)
    covered = sum(1 for c, _ in v.mine.values() if c)
    return f"**{done} / {len(v.gt)}** labelled by **{_esc(v.annotator)}** · {covered} covered so far. {v.last}"


def agreement_html(ctx: AppContext, v: LabelView) -> str:
    if not v.run_id or not v.mine:
        return "<div class='vs-muted'>Agreement with each judge appears after your first label.</div>"
    from ..scoring import agreement_report
    from ..scoring.agreement import kappa_explanation

    rep = agreement_report(ctx.store, v.run_id)
    rows, notes = [], []
    for r in rep["judge_vs_annotator"]:
        if r["against"] != v.annotator:
            continue
        agree = "—" if r["agreement"] is None else f"{100 * r['agreement']:.1f}%"
        kappa = "n/a" if r["kappa"] is None else f"{r['kappa']:.2f}"
        rows.append(f"<tr><td>{_esc(judge_text(r['judge']))}</td><td class='vs-num'>{r['n']}</td><td class='vs-num'>{agree}</td><td class='vs-num'>{kappa}</td></tr>")
        why = kappa_explanation(r["confusion"], judge=judge_text(r["judge"]), human="you")
        if why:
            notes.append(f"<div class='vs-muted vs-kappa-note'>{_esc(why)}</div>")
    if not rows:
        return "<div class='vs-muted'>No judge has scored this run yet, so there is nothing to agree with.</div>"
    head = "<tr><th>judge</th><th>triples</th><th>agreement with you</th><th>Cohen's κ</th></tr>"
    extra = "".join(notes)
    prf = next((p for p in rep["prf"] if p["run_id"] == v.run_id), None)
    if prf is not None:
        h = prf["human"]
        extra += (f"<div class='vs-muted'>From the labels so far (all annotators, {prf['n_labelled']} triples): "
                  f"P {100 * h['precision']:.1f} · R {100 * h['recall']:.1f} · F1 {100 * h['f1']:.1f}</div>")
    if rep.get("human_alpha") is not None:
        extra += f"<div class='vs-muted'>Krippendorff's α between annotators: {rep['human_alpha']:.2f}</div>"
    return f"<div class='vs-card vs-agree'><table>{head}{''.join(rows)}</table>{extra}</div>"


# --------------------------------------------------------------------------- the tab
def build(ctx: AppContext) -> dict[str, Any]:
    """The tab; returns ``on_show`` (fills the run list and, with a login, the annotator name) and
    its ``outputs``, for the page's load event and the tab's select event (app/ui.py)."""
    view = gr.State(LabelView())
    with gr.Row():
        # filled per person when the page loads and when the tab is shown (the read policy applies)
        run_pick = gr.Dropdown([], label="Run (finished, with a graph)", scale=3, elem_id="vs-label-run")
        annotator = gr.Textbox(label="Annotator name", scale=1, elem_id="vs-label-annotator")
        with gr.Column(scale=1, min_width=120):
            load_btn = gr.Button("Start labelling", variant="primary", elem_id="vs-label-load")
            reload_btn = gr.Button("Refresh run list", size="sm")
    status = gr.Markdown(elem_id="vs-label-status")
    progress = gr.Markdown(elem_id="vs-label-progress")
    with gr.Row(equal_height=False):
        with gr.Column(scale=3):
            triple = gr.HTML(elem_id="vs-label-card")
            with gr.Row():
                prev_btn = gr.Button("◀ Previous (k)", elem_id="vs-label-prev", size="sm")
                yes_btn = gr.Button("Covered (y)", variant="primary", elem_id="vs-label-yes")
                no_btn = gr.Button("Not covered (n)", variant="stop", elem_id="vs-label-no")
                next_btn = gr.Button("Next (j) ▶", elem_id="vs-label-next", size="sm")
            gr.HTML("<div class='vs-keys vs-muted'>Keys: <kbd>y</kbd> covered · <kbd>n</kbd> not covered · "
                    "<kbd>j</kbd> next · <kbd>k</kbd> previous (click outside text fields first). "
                    "Tick the predicted triples that cover it before pressing <kbd>y</kbd>.</div>")
            search = gr.Textbox(label="Search the predicted triples", placeholder="words that must all appear", elem_id="vs-label-search")
            evidence = gr.CheckboxGroup([], label="Evidence: predicted triples that cover it", elem_id="vs-label-evidence")
            note = gr.Textbox(label="Note (optional)", lines=1)
        with gr.Column(scale=2):
            show_anyway = gr.Checkbox(False, label="Show the judges' verdicts before I label", elem_id="vs-label-show")
            verdict = gr.HTML(elem_id="vs-label-verdict")
            agreement = gr.HTML(elem_id="vs-label-agreement")

    outs = [view, status, progress, triple, search, evidence, note, verdict, agreement]

    def render(v: LabelView, show: bool, *, agree: bool = True) -> dict:
        own = v.mine.get(v.idx)
        sel = own[1] if own else []
        out = {
            view: v, status: "", progress: progress_text(v), triple: triple_html(v), search: "",
            evidence: gr.CheckboxGroup(choices=evidence_choices(v, "", sel), value=sel), note: "",
            verdict: verdict_html(v, show),
        }
        if agree:
            out[agreement] = agreement_html(ctx, v)
        return out

    def refused(message: str) -> dict:
        """One clear line on the status line; every other component is left as it is."""
        return {status: f"⚠ {message}"}

    def on_load(run_id: str, typed: str, show: bool, request: gr.Request):
        who = ctx.who(request)
        name = annotator_for(who, typed)
        problem = start_problem(run_id, name)
        if problem:
            return refused(problem)
        try:
            if not ctx.readable(who, ctx.store.get_run(run_id)):
                raise KeyError(f"no run with id {run_id!r} in this database")
            v = load_view(ctx, run_id, name)
        except (KeyError, ValueError) as exc:
            return refused(str(exc).strip("'\""))
        return render(v, show)

    def on_label(covered: bool):
        def handler(v: LabelView, ev: list[int] | None, text: str, show: bool):
            try:
                record_label(ctx, v, covered, ev, text)
            except LabelRefused as exc:
                return refused(str(exc))
            return render(v, show)
        return handler

    def on_move(step: int):
        def handler(v: LabelView, show: bool):
            if not v.gt:
                return {view: v}
            v.idx = max(0, min(len(v.gt) - 1, v.idx + step))
            return render(v, show, agree=False)
        return handler

    def on_search(v: LabelView, q: str, sel: list[int] | None):
        return gr.CheckboxGroup(choices=evidence_choices(v, q, [int(i) for i in (sel or [])]), value=sel or [])

    load_btn.click(on_load, [run_pick, annotator, show_anyway], outs, api_visibility="private")

    def on_reload(request: gr.Request):
        return gr.Dropdown(choices=labelable_runs(ctx, ctx.who(request)))

    def on_show(request: gr.Request):
        who = ctx.who(request)
        name = gr.Textbox(value=who.login, interactive=False, info="labels are stored under your login") if who.login else gr.skip()
        return gr.Dropdown(choices=labelable_runs(ctx, who)), name

    reload_btn.click(on_reload, None, run_pick, api_visibility="private")
    yes_btn.click(on_label(True), [view, evidence, note, show_anyway], outs, api_visibility="private")
    no_btn.click(on_label(False), [view, evidence, note, show_anyway], outs, api_visibility="private")
    next_btn.click(on_move(1), [view, show_anyway], outs, api_visibility="private")
    prev_btn.click(on_move(-1), [view, show_anyway], outs, api_visibility="private")
    search.input(on_search, [view, search, evidence], evidence, api_visibility="private", show_progress="hidden")
    show_anyway.change(lambda v, s: verdict_html(v, s), [view, show_anyway], verdict, api_visibility="private")
    return {"on_show": on_show, "outputs": [run_pick, annotator]}
