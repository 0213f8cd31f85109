"""The Study tab: the fidelity study (``scoring.fidelity``) in the browser — how far each user
simulator is from the people who played beside it, over the runs the caller may read.

Every text shown (agents' messages, people's replies, task ids) is escaped.
"""

from __future__ import annotations

import html
from typing import Any

import gradio as gr

from ..scoring.fidelity import FIDELITY_FILTERS, FidelityError, fidelity_report, number_text, rate_text
from .context import AppContext

MAX_SHOWN = 50  # disagreeing turns listed in the page (all of them: vibesearch fidelity --csv)


def _esc(text: Any) -> str:
    return html.escape(str(text if text is not None else ""))


def _pct(entry: dict[str, Any]) -> str:
    return rate_text(entry) if entry.get("rate") is None else f"{rate_text(entry)} <span class='vs-muted'>n={entry['n']}</span>"


_num = number_text


def _table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{h}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{th}</tr>{body}</table>"


def simulator_html(sim: dict[str, Any]) -> str:
    parts = [
        f"<h3>Simulator {_esc(sim['simulator'])}</h3>",
        f"<div>{sim['people_runs']} run(s) played by people, {sim['simulator_runs']} by the simulator on the same tasks · "
        f"decisions agree <b>{_pct(sim['agreement'])}</b></div>",
    ]
    rows: list[list[str]] = []
    for key, field, title in (
        ("agreement_by_trigger", "trigger", "trigger of the next stage"),
        ("agreement_by_stage", "next_stage", "next stage"),
        ("agreement_by_reply_kind", "person_kind", "the person's reply kind"),
    ):
        for row in sim[key]:
            shown = "all disclosed" if row[field] is None else row[field]
            rows.append([title, _esc(shown), _pct(row)])
    parts.append(_table(["by", "group", "agreement [95% CI]"], rows))
    confusion = sim["confusion"]
    parts.append("<div class='vs-muted'>person (rows) × shadow (columns)</div>")
    parts.append(_table(["", *confusion.keys()], [[p, *(str(n) for n in row.values())] for p, row in confusion.items()]))
    pace = sim["pace"]
    parts.append(_table(["pace", "person: mean · median", "simulator: mean · median"], [
        [name.replace("_", " "), f"{_num(pace['person'][name]['mean'])} · {_num(pace['person'][name]['median'])}",
         f"{_num(pace['simulator'][name]['mean'])} · {_num(pace['simulator'][name]['median'])}"]
        for name in ("turns_to_end", "stages_reached")
    ]))
    gap_rows = []
    for row in sim["outcome_gap"]:
        f1 = row["f1"]
        ci = f1["ci"]
        gap_rows.append([_esc(row["agent"]), _num(f1["person_minus_simulator"], 3) + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""),
                         str(f1["tasks"]), _num(row["stages_reached"]["person_minus_simulator"], 2)])
    parts.append(_table(["agent", "F1: person − simulator [95% CI]", "tasks", "stages reached: person − simulator"], gap_rows))
    style = sim["style"]
    parts.append(_table(["style", "person", "shadow", "simulator"], [
        *[[name.replace("_", " "), *(_pct(style[side][name]) for side in ("person", "shadow", "simulator"))] for name in ("asks_back", "pushes_back", "off_topic")],
        ["words per reply", *(_num(style[side]["words_per_reply"]["mean"]) for side in ("person", "shadow", "simulator"))],
    ]))
    dis = sim["disagreements"]
    listed = [[_esc(d["run_id"]), str(d["turn"]), _esc(d["person"]), _esc(d["shadow"]), _esc(d["agent_message"][:300]), _esc(d["person_reply"][:300])]
              for d in dis[:MAX_SHOWN]]
    parts.append(f"<div><b>Turns where they differ ({len(dis)})</b>" + (f" — the first {MAX_SHOWN}" if len(dis) > MAX_SHOWN else "") + "</div>")
    parts.append(_table(["run", "turn", "person", "shadow", "the agent said", "the person replied"], listed))
    return "<div class='vs-card vs-study'>" + "".join(parts) + "</div>"


def report_html(report: dict[str, Any]) -> str:
    out = [simulator_html(sim) for sim in report["simulators"]]
    if report["left_out"]:
        out.append("<div class='vs-muted'>left out: " + _esc(", ".join(f"{n} {why}" for why, n in sorted(report["left_out"].items()))) + "</div>")
    return "".join(out)


def build(ctx: AppContext, owner: gr.BrowserState) -> dict[str, Any]:
    gr.Markdown("How far is the user simulator from a person? Over the runs people played beside a shadow simulator "
                "(and the simulator's own runs of the same personas): decision agreement, pace, outcome gap and style, "
                "with 95% bootstrap intervals. `vibesearch fidelity --csv` writes every disagreeing turn out.")
    boxes: dict[str, gr.Textbox] = {}
    with gr.Row():
        for key in FIDELITY_FILTERS:
            boxes[key] = gr.Textbox(label=key, max_lines=1, max_length=200, elem_id=f"vs-study-{key}")
        show_btn = gr.Button("Show", variant="primary", elem_id="vs-study-show")
    out = gr.HTML(elem_id="vs-study-report")

    def show(tok: str, task: str, subset: str, language: str, simulator: str, request: gr.Request) -> str:
        who = ctx.who(request, tok)
        values = (task, subset, language, simulator)
        wanted = {k: str(v).strip()[:200] for k, v in zip(FIDELITY_FILTERS, values) if str(v or "").strip()}
        try:
            report = fidelity_report(ctx.store, wanted, may_read=lambda run: ctx.readable(who, run))
        except FidelityError as exc:
            return f"<div class='vs-card vs-muted'>{_esc(exc)}</div>"
        return report_html(report)

    show_btn.click(show, [owner, *boxes.values()], out, api_visibility="private")
    return {"show": show_btn, "report": out}
