"""The Compare tab: two runs of one persona side by side (``scoring.compare``), and the page's
deep link ``?compare=A,B`` that opens it.

The stage alignment (the turn each stage was reached, tool calls and tokens per stage), the ground
truth covered in both / only A / only B / neither, and both graphs drawn with one layout, so an
entity sits in the same place in both pictures. Both runs must be readable by the caller: one it
may not read is refused in the words of one that does not exist.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import gradio as gr

from ..scoring.compare import CompareError, compare_runs
from ..store import RunNotFound
from ._graph_figure import graph_figure, shared_positions
from .context import AppContext
from .panels import predicted_triples, verdict_map

MAX_ID = 200


def _esc(text: Any) -> str:
    return html.escape(str(text if text is not None else ""))


@dataclass
class CompareHandles:
    run_a: gr.Textbox
    run_b: gr.Textbox
    button: gr.Button
    outputs: list[Any]
    on_compare: Any
    on_link: Any


def _tokens(value: int | None) -> str:
    return "n/a" if value is None else str(value)


def stages_html(result: dict[str, Any]) -> str:
    a, b = result["runs"]["a"], result["runs"]["b"]
    head = (
        f"<div class='vs-muted'>task {_esc(result['task'])} · A = {_esc(a['run_id'])} ({_esc(a['agent'])}, user {_esc(a['user'])}, "
        f"{a['turns']} turns) · B = {_esc(b['run_id'])} ({_esc(b['agent'])}, user {_esc(b['user'])}, {b['turns']} turns)</div>"
    )
    rows = []
    for st in result["stages"]:
        sa, sb = st["a"], st["b"]
        rows.append(
            f"<tr><td>{st['number']}. {_esc(st['name'])}</td><td class='vs-num'>{sa['reached_at'] or '–'}</td>"
            f"<td class='vs-num'>{sb['reached_at'] or '–'}</td><td class='vs-num'>{sa['tool_calls']}</td><td class='vs-num'>{sb['tool_calls']}</td>"
            f"<td class='vs-num'>{_tokens(sa['tokens'])}</td><td class='vs-num'>{_tokens(sb['tokens'])}</td></tr>"
        )
    table = (
        "<table><tr><th>stage</th><th>A reached at turn</th><th>B reached at turn</th><th>A tool calls</th><th>B tool calls</th>"
        "<th>A tokens</th><th>B tokens</th></tr>" + "".join(rows) + "</table>"
    )
    return f"<div class='vs-card'>{head}{table}</div>"


def coverage_html(result: dict[str, Any]) -> str:
    cov = result["coverage"]
    if cov.get("missing"):
        return f"<div class='vs-card vs-muted'>Not scored yet: {_esc(', '.join(cov['missing']))}. Score both runs to compare what they covered.</div>"
    parts = [f"<div class='vs-muted'>verdicts of the {_esc(cov['judge'])} judge · F1 A {100 * cov['f1']['a']:.1f} · B {100 * cov['f1']['b']:.1f}</div>"]
    for key, title in (("both", "Covered in both"), ("only_a", "Only in A"), ("only_b", "Only in B"), ("neither", "In neither")):
        items = "".join(f"<li>#{i['number']} {_esc(i['triple'])}</li>" for i in cov[key]) or "<li class='vs-muted'>none</li>"
        parts.append(f"<div id='vs-cmp-{key.replace('_', '-')}'><b>{title} ({len(cov[key])})</b><ul>{items}</ul></div>")
    return "<div class='vs-card'>" + "".join(parts) + "</div>"


def build(ctx: AppContext, owner: gr.BrowserState) -> CompareHandles:
    gr.Markdown("Two runs of one persona side by side: when each stage was reached, what each spent on it, what each covered.")
    with gr.Row():
        run_a = gr.Textbox(label="Run A", max_length=MAX_ID, scale=2, elem_id="vs-cmp-a")
        run_b = gr.Textbox(label="Run B", max_length=MAX_ID, scale=2, elem_id="vs-cmp-b")
        button = gr.Button("Compare", variant="primary", scale=1, elem_id="vs-cmp-go")
    status = gr.Markdown(elem_id="vs-cmp-status")
    stages = gr.HTML(elem_id="vs-cmp-stages")
    coverage = gr.HTML(elem_id="vs-cmp-coverage")
    with gr.Row():
        graph_a = gr.Plot(label="Graph of run A", elem_id="vs-cmp-graph-a")
        graph_b = gr.Plot(label="Graph of run B", elem_id="vs-cmp-graph-b")
    outputs = [status, stages, coverage, graph_a, graph_b]

    def compare(tok: str, a: str, b: str, request: gr.Request) -> list[Any]:
        a, b = (str(x or "").strip()[:MAX_ID] for x in (a, b))
        if not a or not b:
            return ["Give two run ids.", "", "", None, None]
        who = ctx.who(request, tok)
        for rid in (a, b):
            try:
                run = ctx.store.get_run(rid)
            except RunNotFound:
                return [f"No run `{_esc(rid)}` in this database.", "", "", None, None]
            if not ctx.readable(who, run):
                return [f"No run `{_esc(rid)}` in this database.", "", "", None, None]
        try:
            result = compare_runs(ctx.store, a, b)
        except CompareError as exc:
            return [_esc(exc), "", "", None, None]
        task = ctx.task_of_run(ctx.store.get_run(a))
        gt = [t.model_dump() for t in task.graph] if task is not None else []
        preds = [predicted_triples(ctx.store, rid) for rid in (a, b)]
        positions = shared_positions(gt, preds)
        judge = result["coverage"].get("judge")
        figures = []
        for rid, pred in zip((a, b), preds):
            score = next((s for s in reversed(ctx.store.scores(rid)) if judge is None or s.judge == judge), None)
            figures.append(graph_figure(gt, pred, verdict_map(ctx.store, score), title=f"run {rid}: {len(pred)} predicted triples", positions=positions))
        return [f"Comparing **{_esc(a)}** (A) with **{_esc(b)}** (B).", stages_html(result), coverage_html(result), *figures]

    button.click(compare, [owner, run_a, run_b], outputs, api_visibility="private")

    def on_link(tok: str, request: gr.Request) -> tuple[Any, ...]:
        """``?compare=A,B`` in the page's address fills both boxes and compares them."""
        wanted = (request.query_params.get("compare") or "") if request is not None else ""
        ids = [x.strip() for x in wanted.split(",") if x.strip()][:2]
        if len(ids) != 2 or ctx.who(request, tok).player:
            return (gr.skip(), gr.skip(), *[gr.skip()] * len(outputs))
        return (ids[0][:MAX_ID], ids[1][:MAX_ID], *compare(tok, ids[0], ids[1], request))

    return CompareHandles(run_a, run_b, button, outputs, compare, on_link)
