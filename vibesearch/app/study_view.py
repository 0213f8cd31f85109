"""The Study tab: the fidelity study (``labels.fidelity``) in the browser — how far each user
simulator is from the people who played beside it, over the runs the caller may read.

Every text shown (agents' messages, people's replies, task ids) is escaped.
"""

from __future__ import annotations

import html
from typing import Any

import gradio as gr
import plotly.graph_objects as go

from .._plot_text import plot_text
from ..labels.fidelity import FIDELITY_FILTERS, FidelityError, fidelity_report, number_text, rate_text
from ..users.registry import is_person
from ._access import agent_hidden
from ._policy import study_agents
from ._studies import MAX_PLAYS, OUTCOMES, StudyConfig, StudyRefused, checked_config, create_study, finished_runs, progress
from ._words import ui_text
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


def pace_figure(report: dict[str, Any]) -> go.Figure:
    """Pace as pictures: for each simulator, the turn at which each stage was reached and the
    turns to the end, people's runs beside the simulator's own (one box per side and place)."""
    fig = go.Figure()
    for sim in report["simulators"]:
        name = plot_text(sim["simulator"])
        for side, label in (("person", f"people (beside {name})"), ("simulator", name)):
            pace = sim["pace"][side]
            xs: list[str] = []
            ys: list[float] = []
            for stage, dist in pace["turns_to_stage"].items():
                xs += [f"stage {stage}"] * len(dist["values"])
                ys += dist["values"]
            xs += ["end"] * len(pace["turns_to_end"]["values"])
            ys += pace["turns_to_end"]["values"]
            if ys:
                fig.add_trace(go.Box(x=xs, y=ys, name=label, boxpoints="all", jitter=0.3, pointpos=0))
    fig.update_layout(title="Pace: the user turn each stage was reached at, and the turns to the end", boxmode="group",
                      yaxis_title="user turn", height=380, margin={"l": 40, "r": 10, "t": 50, "b": 40},
                      legend={"orientation": "h", "y": -0.2})
    if not fig.data:
        fig.add_annotation(text="No finished play to draw", showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    return fig


def build(ctx: AppContext, owner: gr.BrowserState) -> dict[str, Any]:
    gr.Markdown(ui_text("How far is the user simulator from a person? Over the runs people played beside a shadow simulator "
                        "(and the simulator's own runs of the same personas): decision agreement, pace, outcome gap and style, "
                        "with 95% bootstrap intervals. `vibesearch fidelity --csv` writes every disagreeing turn out."))
    boxes: dict[str, gr.Textbox] = {}
    with gr.Row():
        for key in FIDELITY_FILTERS:
            boxes[key] = gr.Textbox(label=ui_text(key.capitalize()), max_lines=1, max_length=200, elem_id=f"vs-study-{key}")
        show_btn = gr.Button(ui_text("Show"), variant="primary", elem_id="vs-study-show")
    out = gr.HTML(elem_id="vs-study-report")
    pace_plot = gr.Plot(label=ui_text("Pace, people and simulator"), elem_id="vs-study-pace", visible=False)

    def show(tok: str, task: str, subset: str, language: str, simulator: str, request: gr.Request) -> tuple[str, Any]:
        who = ctx.who(request, tok)
        values = (task, subset, language, simulator)
        wanted = {k: str(v).strip()[:200] for k, v in zip(FIDELITY_FILTERS, values) if str(v or "").strip()}
        try:
            # a blind study's plays count for admins only: the report groups people's runs by agent
            report = fidelity_report(ctx.store, wanted, may_read=lambda run: ctx.readable(who, run) and not agent_hidden(who, run))
        except FidelityError as exc:
            return f"<div class='vs-card vs-muted'>{_esc(exc)}</div>", gr.Plot(visible=False)
        return report_html(report), gr.Plot(value=pace_figure(report), visible=True)

    show_btn.click(show, [owner, *boxes.values()], [out, pace_plot], api_visibility="private")
    _studies_panel(ctx, owner)
    return {"show": show_btn, "report": out}


def _base_url(ctx: AppContext, request: gr.Request) -> str:
    if ctx.settings.public_url:
        return ctx.settings.public_url.rstrip("/") + "/"
    headers = getattr(request, "headers", None) or {}
    origin = headers.get("origin") or ""
    if origin.startswith(("http://", "https://")):
        return origin.rstrip("/") + "/"
    return f"http://{headers.get('host') or f'{ctx.settings.host}:{ctx.settings.port}'}/"


def progress_html(ctx: AppContext, study: Any) -> str:
    rows = progress(ctx.store, study)
    config = StudyConfig.of(study)
    head = ["persona", *OUTCOMES]
    body = [[_esc(r.task_id), *(str(r.counts[o]) for o in OUTCOMES)] for r in rows]
    totals = {o: sum(r.counts[o] for r in rows) for o in OUTCOMES}
    parts = [
        f"<h3 id='vs-study-progress-title'>{_esc(study.name)}</h3>",
        "<div id='vs-study-totals'>" + " · ".join(f"{n} {o}" for o, n in totals.items()) + "</div>",
        f"<div class='vs-muted'>agent {_esc(config.agent)}{' (' + _esc(config.agent_model) + ')' if config.agent_model else ''} · "
        f"shadow {'on' if config.shadow else 'off'} · {config.time_limit_min:g} min per play · "
        f"{'annotators blind to the agent' if config.blind else 'annotators see the agent'}</div>",
        _table(head, body),
    ]
    done = set(finished_runs(ctx.store, study))
    if done:
        try:
            report = fidelity_report(ctx.store, may_read=lambda run: run.id in done or not is_person(run.user))
            parts.append("<h4>Fidelity over the finished plays</h4>" + report_html(report))
        except FidelityError as exc:
            parts.append(f"<div class='vs-muted'>{_esc(exc)}</div>")
    return "<div class='vs-card' id='vs-study-progress-card'>" + "".join(parts) + "</div>"


def _studies_panel(ctx: AppContext, owner: gr.BrowserState) -> None:
    """Admins make studies for outside players here, get their links and follow their progress."""
    with gr.Accordion(ui_text("Studies for outside players (admins)"), open=False, elem_id="vs-studies"):
        gr.Markdown(ui_text("Each play gets a link with a one-time code: the player needs no account, reads the consent and "
                            "the persona card and plays that persona once. The agent is not named to the player."))
        with gr.Row():
            name = gr.Textbox(label=ui_text("Study name"), max_length=120, elem_id="vs-study-name")
            tasks = gr.Dropdown(ctx.catalog.choices(), multiselect=True, label=ui_text("Personas"), elem_id="vs-study-tasks")
        with gr.Row():
            agent = gr.Dropdown(study_agents(), value="baseline", label=ui_text("Agent"), elem_id="vs-study-agent")
            agent_model = gr.Textbox(label=ui_text("Agent model"), max_length=200, elem_id="vs-study-agent-model")
            sim_model = gr.Textbox(label=ui_text("Shadow simulator model (empty: rule-based)"), max_length=200, elem_id="vs-study-sim-model")
        with gr.Row():
            plays = gr.Number(1, precision=0, minimum=1, maximum=MAX_PLAYS, label=ui_text("Plays per persona"), elem_id="vs-study-plays")
            limit = gr.Number(30, minimum=0.05, maximum=24 * 60, label=ui_text("Time limit per play (minutes)"), elem_id="vs-study-limit")
            shadow = gr.Checkbox(True, label=ui_text("A shadow simulator decides beside the player"), elem_id="vs-study-shadow")
            blind = gr.Checkbox(True, label=ui_text("Annotators do not see the agent"), elem_id="vs-study-blind")
        consent = gr.Textbox(label=ui_text("Consent text (shown to each player first)"), lines=3, max_length=20_000, elem_id="vs-study-consent")
        create = gr.Button(ui_text("Create the study and its links"), variant="primary", elem_id="vs-study-create")
        created = gr.Markdown(elem_id="vs-study-created")
        links = gr.Textbox(label=ui_text("Links (shown once: only digests of the codes are kept)"), lines=6, interactive=False,
                           elem_id="vs-study-links")
        with gr.Row():
            pick = gr.Dropdown([], label=ui_text("Study"), elem_id="vs-study-pick")
            follow = gr.Button(ui_text("Show progress"), elem_id="vs-study-progress-btn")
        shown = gr.HTML(elem_id="vs-study-progress")

    def admin_of(tok: str, request: gr.Request):
        who = ctx.who(request, tok)
        if not who.admin:
            raise gr.Error("Only an admin (VIBESEARCH_ADMINS) makes and follows studies.")
        return who

    def choices() -> list[tuple[str, str]]:
        return [(f"{s.name} ({s.id})", s.id) for s in ctx.store.studies()]

    def on_create(tok, n, t, a, am, sm, p, lim, sh, bl, co, request: gr.Request):
        who = admin_of(tok, request)
        try:
            config = checked_config(ctx.settings, set(ctx.catalog.tasks), tasks=t, agent=a, agent_model=am, simulator_model=sm,
                                    plays=p, time_limit_min=lim, consent=co, shadow=sh, blind=bl)
            study, made = create_study(ctx.store, n, config, who.login or "")
        except StudyRefused as exc:
            raise gr.Error(str(exc)) from None
        base = _base_url(ctx, request)
        text = "\n".join(f"{link.task_id}\t{base}{link.path(study.id)}" for link in made)
        return (f"Study **{_esc(study.name)}** (`{study.id}`): {len(made)} link(s). Send each to one player.",
                text, gr.Dropdown(choices=choices(), value=study.id))

    def on_follow(tok, sid, request: gr.Request):
        admin_of(tok, request)
        study = ctx.store.study(str(sid or ""))
        if study is None:
            return "<div class='vs-card vs-muted'>Pick a study.</div>"
        return progress_html(ctx, study)

    def on_open(tok, request: gr.Request):
        who = ctx.who(request, tok)
        return gr.Dropdown(choices=choices()) if who.admin else gr.skip()

    create.click(on_create, [owner, name, tasks, agent, agent_model, sim_model, plays, limit, shadow, blind, consent],
                 [created, links, pick], api_visibility="private")
    follow.click(on_follow, [owner, pick], shown, api_visibility="private")
    pick.focus(on_open, [owner], pick, api_visibility="private")
