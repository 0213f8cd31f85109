"""The Leaderboard tab: the aggregation tables over every scored run and two plots.

* scores (the paper's table 3): Avg@N and Best@N of P/R/F1 per configuration, overall and per
  subset and language;
* preference: beside Avg F1, each configuration's Bradley–Terry rating from the people's votes
  with its 95% interval (``preference_cells``; empty without votes, docs/votes.md);
* interaction (its table 4): #Asst, #User, their ratio, tool calls, compactions, tokens, cost;
* plots: F1 by configuration and subset; precision against recall (one point per run).

Each score row has the 95% bootstrap intervals of Avg@N and Best@N F1 (tasks resampled) and the
F1 spread across samples; filters above the tables (task subset, language, agent, model, profile)
narrow every table and plot to the runs that match (``scoring.aggregate.where_filter``).

Under the summary, the noise floor split three ways (``scoring.noise_split``: the user's, the
agent's and the judge's part of one run's F1 spread, each with its 95% interval, "not measured"
with the reason where the data cannot tell); the last column's "inside the noise" marks a
difference inside that combined noise or whose interval holds 0 (``scoring.noise_rank``). Then
one line per judge × profile of the shown scores gives the judge's measured
agreement with the people's labels (``labels.judge_trust``: agreement and κ with their 95%
intervals, the number of items) or says "not measured"; with ``VIBESEARCH_MIN_JUDGE_AGREEMENT``
set, the scores of a judge below it or unmeasured carry "†" and a footnote says why. Scores some of
whose samples' judge batches failed (the official rule grades them not covered) or left triples
unscored carry "‡" (``judges.judge_failures``), with a footnote.

Under the tables, the per-stage views of the same runs (``results.stage_view``, drawn by
``reports.stages.stages_html`` as in the HTML report and the site): recall of the ground truth by
stage, where runs stall, F1 by stages reached.

All numbers come from ``vibesearch.scoring`` (``collect_runs``, ``score_table``,
``interaction_table``, ``f1_by_compactions``, ``termination_types``) and ``results.stage_view``;
nothing is computed here.
"""

from __future__ import annotations

import html
import textwrap
from typing import Any, Callable

import gradio as gr
import pandas as pd
import plotly.graph_objects as go

from .._plot_text import plot_text
from ..judges.judge_failures import MARK as FAILED  # the judge failed on some batches, or left triples unscored
from ..reports.stages import stages_html
from ..reports.text import ci as _ci
from ..results.blind import hidden_records, hidden_run
from ..results.stage_view import stage_view
from ..store.tables import Run
from ..tables import aggregate_table_scores, table_score_of
from ._access import Who, agent_hidden
from ._trust_words import footnote_text, trust_text
from ._trust_words import profile_words as _profile
from ._words import Lang, browser_lang, column_words, first_choice, say_in, status_word, ui_text, zh_text
from .funnel_view import funnel_figure
from .queued_view import queued_line
from .context import AppContext
from .panels import judge_text

SCORE_HEADERS = ["configuration", "profile", "group", "tasks", "runs", "N", "Avg P", "Avg R", "Avg F1", "Avg F1 95% CI",
                 "Preference (BT, 95% CI)", "Best P", "Best R", "Best F1", "Best F1 95% CI", "F1 SD", "Avg node F1", "Best node F1",
                 "left out", "vs the next configuration"]
INTERACTION_HEADERS = ["configuration", "profile", "runs", "#Asst", "#User", "#Asst/#User", "tool calls", "tools / user turn",
                       "compactions", "input tokens", "output tokens", "cost (USD)"]
ERROR_HEADERS = ["compactions", "runs", "mean F1", "mean recall"]
TABLE_HEADERS = ["configuration", "tasks", "runs", "SR Avg@N", "SR Pass@N", "Row-F1 Avg@N", "Row-F1 Max@N", "Item-F1 Avg@N", "Item-F1 Max@N"]
AUTO = "(judge with most scores)"
MARK = "†"  # (``labels.judge_trust.MARK``)
Keep = Callable[[Run], bool]
# column widths wide enough for each header's longest word (headers wrap only between words)
# and each number column wide enough for "100.00" (``_assets.CSS`` keeps numbers whole)
SCORE_WIDTHS: list[str | int] = ["9.5%", "6%", "5%", "4%", "4%", "3%", "4.5%", "4.5%", "4.5%", "5.5%", "7%", "4.5%", "4.5%", "4.5%", "5.5%",
                                 "4.5%", "4.5%", "4.5%", "3%", "7%"]
# the filters above the tables: (label, key of ``scoring.aggregate.WHERE_KEYS``)
FILTERS = [("Task subset", "subset"), ("Language", "language"), ("Agent", "agent"), ("Model", "model"), ("Profile", "profile")]
ALL = "(all)"
INTERACTION_WIDTHS: list[str | int] = ["19%", "10%", "5%", "6%", "6%", "9%", "6%", "7%", "10%", "7%", "7%", "8%"]


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.2f}"


def _n(x: Any, digits: int = 1, lang: Lang = "en") -> str:
    if x is None:
        return zh_text("unknown", lang)
    return f"{x:,.{digits}f}" if isinstance(x, float) else f"{x:,}"


def _tokens(row: dict, key: str, lang: Lang = "en") -> str:
    """Mean tokens of an interaction row: "n/a" (offline baseline) or "unknown" (usage not kept) instead of 0."""
    state = row.get("tokens", "recorded")
    return zh_text(state, lang) if state != "recorded" else _n(row[key], 0)


def _judge(judge: str, lang: Lang) -> str:
    """"offline judge" or "judge <model>" (``panels.judge_text``) in ``lang``."""
    text = judge_text(judge)
    return zh_text(text, lang) if text == "offline judge" else zh_text("judge {name}", lang).format(name=judge)


def _group(group: str, lang: Lang) -> str:
    """A score row's group ("all", "subset pro", "language zh") in ``lang``."""
    kind, _, name = group.partition(" ")
    return zh_text(f"{kind} {{name}}", lang).format(name=name) if name else zh_text(group, lang)


def chosen_filters(values: Any) -> dict[str, list[str]]:
    """The filter dropdowns' values (in ``FILTERS`` order) as a ``where``: "(all)" or empty is no filter."""
    return {key: [v] for (_, key), v in zip(FILTERS, values) if v not in (None, "", ALL)}


def judges(ctx: AppContext, lang: Lang = "en") -> list[tuple[str, str]]:
    """The judge menu's (label, value) choices: "(judge with most scores)" first, in ``lang``."""
    return first_choice(AUTO, sorted({s.judge for s in ctx.store.scores()}), lang)


def tables(ctx: AppContext, judge: str | None, keep: Keep | None = None, where: dict[str, list[str]] | None = None,
           choices: dict[str, list[str]] | None = None, blind: Keep | None = None, lang: Lang = "en"):
    """The tab's figures over the runs ``keep`` accepts (every run without it) and the filters
    ``where`` (``scoring.aggregate.where_filter``) let through. ``choices``: filled with the
    values each filter can take among the readable runs. ``blind``: the runs whose agent must not
    show (grouped, filtered and drawn as ``results.blind.BLIND_AGENT``). ``lang``: the language of
    the words drawn (the browser's: ``_words.browser_lang``); numbers and names stay as they are."""
    say = say_in(lang)
    from ..scoring import collect_runs, interaction_table, score_table
    from ..scoring.aggregate import filter_values, left_out_runs, where_filter
    from ..scoring.errors import f1_by_compactions, termination_types
    from ..judges.judge_failures import FAILURES_FOOTNOTE
    from ..scoring.noise_rank import noise_of, rank_marks

    records, used = collect_runs(ctx.store, judge=None if judge in (None, "", AUTO) else judge, keep=keep)
    if blind is not None:
        records = hidden_records(records, [run for run in ctx.store.list_runs() if blind(run)])
    if choices is not None:
        choices.update(filter_values(records))
    records = [r for r in records if where_filter(where)(r)]
    samples = [r for r in records if not r.left_out]
    scores = score_table(records)
    marks = rank_marks(records, say)
    trust = trust_of(ctx, keep)
    preference = preference_cells(ctx.store, records)

    def num(r: dict, key: str) -> str:
        """A score, marked † when its judge is below the minimum agreement or unmeasured, ‡ when
        some of its samples' judge batches failed (``judges.judge_failures``)."""
        text = _pct(r[key])
        if text == "—":
            return text
        return text + (MARK if trust.flagged(used, r["profile"]) else "") + (FAILED if r.get("judge_failures") else "")

    score_rows = [
        [r["config"], _profile(r["profile"], lang), _group(r["group"], lang), r["n_tasks"], r["n_runs"], f"{r['n_min']}" if r["n_min"] == r["n_max"] else f"{r['n_min']}–{r['n_max']}",
         num(r, "avg_precision"), num(r, "avg_recall"), num(r, "avg_f1"), say(_ci(r.get("avg_f1_ci"), r["n_tasks"])),
         preference.get(r["config"], "") if r["group"] == "all" else "", num(r, "best_precision"), num(r, "best_recall"), num(r, "best_f1"), say(_ci(r.get("best_f1_ci"), r["n_tasks"])), _pct(r.get("sd_f1")),
         num(r, "avg_node_f1"), num(r, "best_node_f1"), r["left_out"],
         marks.get((r["config"], r["profile"]), "") if r["group"] == "all" else ""]
        for r in without_repeats(scores)
    ]
    inter_rows = [
        [r["config"], _profile(r["profile"], lang), r["n_runs"], _n(r["asst"], lang=lang), _n(r["user"], lang=lang), _n(r["asst_per_user"], 2, lang),
         _n(r["tool_calls"], lang=lang), _n(r["tool_calls_per_user_turn"], 2, lang), _n(r["compactions"], 2, lang),
         _tokens(r, "input_tokens", lang), _tokens(r, "output_tokens", lang),
         say("n/a") if r.get("cost_state") == "n/a" else say("unknown") if r["cost_usd"] is None else f"{r['cost_usd']:.4f}"]
        for r in interaction_table(records)
    ]
    err_rows = [[r["bin"], r["n_runs"], _pct(r["mean_f1"]), _pct(r["mean_recall"])] for r in f1_by_compactions(samples)]
    terms = termination_types(samples)
    n_scored = sum(1 for r in records if r.scored)
    left_out = left_out_runs(records)
    profiles = sorted({r.profile for r in records if r.scored})
    summary = (
        (say("Your runs only (runs are private on this server) · ") if keep is not None else "")
        + (say("filtered: ") + ", ".join(f"{say(k)} {say(' or ').join(v)}" for k, v in where.items()) + " · " if where else "")
        + say("{runs} finished or scored persona runs · {scores} scores by the **{judge}** · ").format(
            runs=len({r.run_id for r in records}), scores=n_scored, judge=html.escape(_judge(used, lang)))
        + (say("profiles: {names} · ").format(names=", ".join(_profile(p, lang) for p in profiles)) if profiles else "")
        + (say("left out (cancelled by a person, not samples): {n} · ").format(n=len(left_out)) if left_out else "")
        + (say("terminations: ") + ", ".join(f"{status_word(k, lang)} {v}" for k, v in terms.items()) if terms else say("no runs yet"))
    )
    summary += noise_lines(noise_of(records), lang) if n_scored else ""
    summary += trust_lines(trust, [(used, p) for p in profiles], lang)
    if any(r.get("judge_failures") for r in scores):
        summary += "\n\n" + html.escape(footnote_text(FAILURES_FOOTNOTE, lang))
    stages = stages_html(stage_view(ctx.store, records), prefix="vs-lb-stage", level=4, say=say)
    return summary, score_rows, inter_rows, err_rows, f1_figure(scores, lang), pr_figure(records, lang), stages


def preference_cells(store: Any, records: list) -> dict[str, str]:
    """Each configuration's preference from the people's votes between the runs shown (issue 42):
    its Bradley–Terry rating with the 95% bootstrap interval (``labels.preference``, as ``votes
    report`` gives it; 0 is the configurations' mean), "" without a vote."""
    from ..labels.preference import battles, bradley_terry

    config_of = {r.run_id: r.config for r in records}  # a blind play's under its hidden label
    votes = [v for v in store.votes() if v.run_a in config_of and v.run_b in config_of]
    rows = battles(votes, config_of)
    if not rows:
        return {}
    return {r["label"]: f"{r['rating']:+.2f} [{r['ci'][0]:+.2f}, {r['ci'][1]:+.2f}]" if r["ci"] else f"{r['rating']:+.2f}"
            for r in bradley_terry(rows)["ratings"]}


def noise_lines(noise: dict[str, Any], lang: Lang = "en") -> str:
    """The noise split as a Markdown table under the summary (``reports.noise``: the report's rows)."""
    from ..reports.noise import HEADERS, noise_rows

    def word(cell: str) -> str:  # a part's name, a note, "not measured: <reasons>" (``scoring.noise_split``'s own)
        head, sep, why = cell.partition(": ")
        if sep and head == "not measured":
            return zh_text("not measured: {why}", lang).format(why="; ".join(zh_text(r, lang) for r in why.split("; ")))
        return zh_text(cell, lang)

    rows = ["| " + " | ".join(html.escape(word(c)) for c in row) + " |" for row in noise_rows(noise)]
    return (zh_text("\n\n**Noise: user, agent, judge** (F1 standard deviation of one run, percentage points; 95% cluster-bootstrap "
                    "intervals; the judge's from repeated judgements, `vibesearch score --repeat K`):\n\n", lang)
            + "| " + " | ".join(column_words(HEADERS, lang)) + " |\n|" + "---|" * len(HEADERS) + "\n" + "\n".join(rows))


def trust_of(ctx: AppContext, keep: Keep | None = None) -> Any:
    """Each judge × profile's agreement with the stored labels (``labels.judge_trust``), over the
    labels of the runs ``keep`` accepts; marking by the server's ``min_judge_agreement``."""
    from ..labels.judge_trust import judge_trust

    settings = getattr(ctx, "settings", None)
    threshold = getattr(settings, "min_judge_agreement", None)
    keep_run = None
    if keep is not None:
        allowed = {run.id for run in ctx.store.list_runs() if keep(run)}
        keep_run = allowed.__contains__
    return judge_trust(ctx.store, threshold=threshold, keep_run=keep_run)


def trust_lines(trust: Any, keys: list[tuple[str, str]], lang: Lang = "en") -> str:
    """Markdown lines under the summary: one per judge × profile (its agreement, κ, intervals and
    n, or "not measured", flagged "†" where marked), then the footnote. Text from the store is
    escaped."""
    from ..labels.judge_trust import footnote

    if not keys:
        return ""
    lines = []
    rows = trust.rows(keys)
    for row in rows:
        flag = f" {MARK}" if row["marked"] else ""
        lines.append(f"- {html.escape(_judge(row['judge'], lang))} · {html.escape(_profile(row['profile'], lang))}: "
                     f"{html.escape(trust_text(row, lang))}{flag}")
    ties = rows[0].get("open_ties") or {}
    if any(ties.values()):
        lines.append(zh_text("- left out as open ties (labels split evenly, not adjudicated): ", lang)
                     + ", ".join(f"{n} {zh_text(side, lang)}" for side, n in ties.items()))
    note = footnote(trust.threshold) if any(row["marked"] for row in rows) else ""
    return (zh_text("\n\n**Judge agreement with people** (final human labels; 95% bootstrap intervals in brackets):\n\n", lang)
            + "\n".join(lines)
            + (f"\n\n{html.escape(footnote_text(note, lang))}" if note else ""))


_SAME = ("n_tasks", "n_runs", "n_min", "n_max", "avg_precision", "avg_recall", "avg_f1", "best_precision", "best_recall",
         "best_f1", "avg_node_f1", "best_node_f1", "left_out")


def without_repeats(scores: list[dict]) -> list[dict]:
    """The score table without the breakdown rows (one subset, one language) that hold the same
    runs and numbers as their configuration's "all" row: with one subset and one language,
    "all", "subset …" and "language …" would read alike three times."""
    alls = {(r["config"], r["profile"]): r for r in scores if r["group"] == "all"}
    out = []
    for r in scores:
        base = alls.get((r["config"], r["profile"]))
        if r["group"] != "all" and base is not None and all(r.get(k) == base.get(k) for k in _SAME):
            continue
        out.append(r)
    return out


def table_rows(ctx: AppContext, keep: Keep | None = None, blind: Keep | None = None) -> list[list[str | int]]:
    """WideSearch-style figures of the table-task runs ``keep`` accepts, per configuration (latest
    score per run; a run ``blind`` takes under ``results.blind.BLIND_AGENT``)."""
    from ..scoring.aggregate import config_key

    latest = {}
    for sc in ctx.store.scores():
        latest[sc.run_id] = sc
    by_config: dict[str, list] = {}
    for run in ctx.store.list_runs(kind="table"):
        if run.id in latest and (keep is None or keep(run)):
            by_config.setdefault(config_key(hidden_run(run) if blind is not None and blind(run) else run), []).append((run.task_id, table_score_of(latest[run.id])))
    rows: list[list[str | int]] = []
    for config, pairs in sorted(by_config.items()):
        agg = aggregate_table_scores(pairs)
        rows.append([config, agg.n_tasks, agg.n_runs, _pct(agg.sr_avg), _pct(agg.sr_pass), _pct(agg.row_f1_avg),
                     _pct(agg.row_f1_max), _pct(agg.item_f1_avg), _pct(agg.item_f1_max)])
    return rows


def f1_figure(scores: list[dict], lang: Lang = "en") -> go.Figure:
    fig = go.Figure()
    groups = [("all", zh_text("all tasks", lang)), ("subset pro", zh_text("Pro", lang)), ("subset daily", zh_text("Daily", lang))]
    hover = zh_text("{name}: Avg F1 {avg}, Best F1 {best} ({runs} runs)", lang)
    configs = sorted({_series(r) for r in scores})
    for key, name in groups:
        by = {_series(r): r for r in scores if r["group"] == key}
        if not by:
            continue
        fig.add_trace(go.Bar(
            name=name, x=[_tick(c) for c in configs], y=[100 * by[c]["avg_f1"] if c in by else None for c in configs],
            text=[f"{100 * by[c]['avg_f1']:.1f}" if c in by else "" for c in configs], textposition="outside",
            hovertext=[f"{plot_text(c)}<br>" + hover.format(name=name, avg=f"{100 * by[c]['avg_f1']:.2f}", best=f"{100 * by[c]['best_f1']:.2f}",
                                                             runs=by[c]["n_runs"]) if c in by else "" for c in configs],
            hoverinfo="text",
        ))
    top = max([100 * r["avg_f1"] for r in scores] or [0])
    fig.update_layout(title=zh_text("Avg@N F1 by configuration and subset", lang), barmode="group", yaxis_title="F1 (%)", height=420,
                      margin={"l": 40, "r": 10, "t": 80, "b": 80}, legend={"orientation": "h", "y": 1.02, "yanchor": "bottom"})
    fig.update_yaxes(range=[0, min(100, max(10.0, top * 1.25))])
    fig.update_xaxes(tickfont={"size": 10})
    if not configs:
        fig.add_annotation(text=zh_text("No scored runs yet", lang), showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    return fig


def _tick(series: str) -> str:
    """A configuration's name under its bars, wrapped on a few short lines (long names written on
    one line were slanted and squeezed the plot)."""
    return "<br>".join(plot_text(line) for line in textwrap.wrap(series, 24)) or plot_text(series)


def _series(row: dict) -> str:
    """A bar's or a trace's name: the configuration and the profile of its numbers."""
    return f"{row['config']} · {row['profile']}"


def pr_figure(records: list, lang: Lang = "en") -> go.Figure:
    fig = go.Figure()
    scored = [r for r in records if r.scored and not r.left_out]
    for name in sorted({f"{r.config} · {r.profile}" for r in scored}):
        mine = [r for r in scored if f"{r.config} · {r.profile}" == name]
        fig.add_trace(go.Scatter(
            name=plot_text(name), mode="markers", x=[100 * r.recall for r in mine], y=[100 * r.precision for r in mine],
            hovertext=[f"{plot_text(r.run_id)} · {plot_text(r.task_id)}<br>P {100 * r.precision:.1f} · R {100 * r.recall:.1f} · F1 {100 * r.f1:.1f}" for r in mine],
            hoverinfo="text", marker={"size": 10, "opacity": 0.8},
        ))
    fig.update_layout(title=zh_text("Precision against recall (one point per run)", lang), xaxis_title=zh_text("recall (%)", lang),
                      yaxis_title=zh_text("precision (%)", lang),
                      height=420, margin={"l": 40, "r": 10, "t": 50, "b": 40}, legend={"orientation": "h", "y": -0.2})
    fig.update_xaxes(range=[-2, 102])
    fig.update_yaxes(range=[-2, 102])
    if not scored:
        fig.add_annotation(text=zh_text("No scored runs yet", lang), showarrow=False, x=50, y=50)
    return fig


def funnel_plot(ctx: AppContext, judge: str | None, keep: Keep | None = None, where: dict[str, list[str]] | None = None,
                blind: Keep | None = None, lang: Lang = "en") -> go.Figure:
    """Where each fact was lost, one stacked bar per configuration × profile
    (``results.analysis.series_funnels``) over the runs the tables show (``tables``' arguments)."""
    from ..results.analysis import series_funnels
    from ..scoring import collect_runs
    from ..scoring.aggregate import where_filter

    records, _ = collect_runs(ctx.store, judge=None if judge in (None, "", AUTO) else judge, keep=keep)
    if blind is not None:
        records = hidden_records(records, [run for run in ctx.store.list_runs() if blind(run)])
    return funnel_figure(series_funnels(ctx.store, [r for r in records if where_filter(where)(r)]), lang, tick=_tick)


def reader(ctx: AppContext, who: Who) -> Keep | None:
    """Under ``VIBESEARCH_READ_RUNS=own`` the tab counts only the runs ``who`` may read (an admin:
    all); otherwise every run."""
    if not ctx.access.read_own:
        return None
    return lambda run: ctx.readable(who, run)


def blind_to(who: Who) -> Keep:
    """The runs whose agent ``who`` may not know (``_access.agent_hidden``: a blind study's plays,
    for anyone but an admin)."""
    return lambda run: agent_hidden(who, run)


def build(ctx: AppContext, owner: gr.BrowserState) -> dict[str, Any]:
    with gr.Row():
        judge = gr.Dropdown(judges(ctx), value=AUTO, label=ui_text("Scores of the judge"), scale=3)
        refresh = gr.Button(ui_text("Refresh"), variant="primary", scale=1, elem_id="vs-lb-refresh")
    with gr.Row():
        filters = [gr.Dropdown(first_choice(ALL, []), value=ALL, label=ui_text(label), elem_id=f"vs-lb-filter-{key}", scale=1) for label, key in FILTERS]
    summary = gr.Markdown(elem_id="vs-lb-summary")
    score_df = gr.Dataframe(headers=SCORE_HEADERS, value=[], interactive=False, wrap=True, column_widths=SCORE_WIDTHS,
                            label=ui_text("Scores — Avg@N and Best@N of P / R / F1 (%) per configuration (paper table 3)"), elem_id="vs-lb-scores")
    with gr.Row():
        f1_plot = gr.Plot(label=ui_text("F1 by configuration and subset"), elem_id="vs-lb-f1")
        pr_plot = gr.Plot(label=ui_text("Precision against recall"), elem_id="vs-lb-pr")
    funnel = gr.Plot(label=ui_text("Where each fact was lost, per configuration"), elem_id="vs-lb-funnel")  # issue 41
    inter_df = gr.Dataframe(headers=INTERACTION_HEADERS, value=[], interactive=False, wrap=True, column_widths=INTERACTION_WIDTHS,
                            label=ui_text("Interaction statistics, mean per run (paper table 4)"), elem_id="vs-lb-interaction")
    table_df = gr.Dataframe(headers=TABLE_HEADERS, value=[], interactive=False, wrap=True,
                            label=ui_text("Table tasks (WideSearch): success rate, Row-F1 and Item-F1 (%)"), elem_id="vs-lb-tables")
    gr.Markdown(ui_text("### By stage: recall of the ground truth, where runs stall, F1 by stages reached"))
    stages = gr.HTML(elem_id="vs-lb-stages")
    with gr.Accordion(ui_text("Error analysis: F1 by number of compactions"), open=False):
        err_df = gr.Dataframe(headers=ERROR_HEADERS, value=[], interactive=False)

    def on_refresh(tok: str | None, j: str, subset: str = ALL, language: str = ALL, agent: str = ALL, model: str = ALL,
                   profile: str = ALL, request: gr.Request = None):  # type: ignore[assignment]
        """The tab's figures in the browser's language (the tables as frames whose headers are in it);
        without the filter values (the Refresh button's first step) every readable run."""
        who, lang = ctx.who(request, tok), browser_lang(request)
        keep = reader(ctx, who)
        picked = [subset, language, agent, model, profile]
        offered: dict[str, list[str]] = {}
        s, sr, ir, er, f1, pr, st = tables(ctx, j, keep, chosen_filters(picked), offered, blind_to(who), lang)
        going = queued_line(ctx, who, lang)  # runs workers are still driving are not in these numbers yet
        s = f"{s}\n\n{going}" if going else s
        menus = [gr.Dropdown(choices=first_choice(ALL, offered.get(key, []), lang), value=v if v in offered.get(key, []) else ALL)
                 for (_, key), v in zip(FILTERS, picked)]
        frames = [pd.DataFrame(rows, columns=column_words(headers, lang)) for rows, headers in
                  ((sr, SCORE_HEADERS), (ir, INTERACTION_HEADERS), (er, ERROR_HEADERS), (table_rows(ctx, keep, blind_to(who)), TABLE_HEADERS))]
        return gr.Dropdown(choices=judges(ctx, lang)), s, *frames[:3], f1, pr, frames[3], *menus, st

    outs = [judge, summary, score_df, inter_df, err_df, f1_plot, pr_plot, table_df, *filters, stages]
    inputs = [owner, judge, *filters]
    # Refresh reads the judge first, then the filters (a step of its own, so the first keeps its two inputs)
    def on_refresh_all(tok: str | None, j: str, request: gr.Request):
        first = on_refresh(tok, j, request=request)
        return *first[:8], first[-1]

    # the first step leaves the filter menus alone (the second sets them from what the runs hold)
    def on_funnel(tok: str | None, j: str, subset: str = ALL, language: str = ALL, agent: str = ALL, model: str = ALL,
                  profile: str = ALL, request: gr.Request = None):  # type: ignore[assignment]  # (Gradio passes the request)
        """The funnel bars over the runs the tables show (a step after them: it reads every run's events)."""
        who = ctx.who(request, tok)
        where = chosen_filters([subset, language, agent, model, profile])
        return funnel_plot(ctx, j, reader(ctx, who), where, blind_to(who), browser_lang(request))

    refresh.click(on_refresh_all, [owner, judge], [*outs[:8], stages], api_visibility="private").then(
        on_refresh, inputs, outs, api_visibility="private").then(on_funnel, inputs, funnel, api_visibility="private")
    for c in (judge, *filters):
        c.input(on_refresh, inputs, outs, api_visibility="private").then(on_funnel, inputs, funnel, api_visibility="private")
    return {"refresh": refresh, "on_refresh": on_refresh, "inputs": inputs, "outputs": outs, "judge": judge, "filters": filters,
            "funnel": funnel, "on_funnel": on_funnel}
