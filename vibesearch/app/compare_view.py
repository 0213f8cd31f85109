"""The Compare tab: two runs of one persona side by side (``labels.compare``), and the page's
deep link ``?compare=A,B`` that opens it.

The stage alignment (the turn each stage was reached, tool calls and tokens per stage), the ground
truth covered in both / only A / only B / neither, and both graphs drawn with one layout, so an
entity sits in the same place in both pictures. Both runs must be readable by the caller: one it
may not read is refused in the words of one that does not exist. A blind study's play names no
agent but to an admin ("agent hidden (blind study)"), and its configuration is not offered below.

Below, two whole configurations (``labels.config_compare``, as ``vibesearch compare --a … --b …``):
the F1 difference per task, its paired 95% interval, the verdict ("inside the noise floor" when the
interval holds 0) and each side's noise floor — over the runs the caller may read only.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

import gradio as gr

from ..labels.compare import CompareError, compare_runs
from ..reports.noise import split_text
from ..reports.text import pct
from ..labels.config_compare import CONFIG_KEYS, ConfigCompareError, compare_configs, configurations, shown
from ..store import RunNotFound
from ..results.graph import shared_positions
from ._access import AGENT_HIDDEN, Who, agent_hidden
from ._graph_figure import graph_figure
from ._trust_words import footnote_text, profile_words, trust_text
from ._words import Lang, browser_lang, column_words, say_in, ui_text
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
    on_show: Any = None  # fills the configuration lists (the tab's select)
    show_io: list[Any] = field(default_factory=list)  # its inputs and outputs (owner, A, B)


def _tokens(value: int | None, lang: Lang = "en") -> str:
    return say_in(lang)("n/a") if value is None else str(value)


STAGE_HEADERS = ["stage", "A reached at turn", "B reached at turn", "A tool calls", "B tool calls", "A tokens", "B tokens"]
CONFIG_HEADERS = ["task", "A F1 (%)", "B F1 (%)", "B − A (points)", "runs A", "runs B"]


def _headers(headers: list[str], lang: Lang) -> str:
    return "<tr>" + "".join(f"<th>{h}</th>" for h in column_words(headers, lang)) + "</tr>"


def stages_html(result: dict[str, Any], lang: Lang = "en") -> str:
    """The stage alignment; its fixed words in ``lang`` (the browser's), names and numbers as they are."""
    a, b = result["runs"]["a"], result["runs"]["b"]
    side = say_in(lang)("{id} ({agent}, user {user}, {turns} turns)")
    head = "<div class='vs-muted'>" + say_in(lang)("task {task} · A = {a} · B = {b}").format(
        task=_esc(result["task"]),
        a=side.format(id=_esc(a["run_id"]), agent=_esc(a["agent"]), user=_esc(a["user"]), turns=a["turns"]),
        b=side.format(id=_esc(b["run_id"]), agent=_esc(b["agent"]), user=_esc(b["user"]), turns=b["turns"])) + "</div>"
    rows = []
    for st in result["stages"]:
        sa, sb = st["a"], st["b"]
        rows.append(
            f"<tr><td>{st['number']}. {_esc(st['name'])}</td><td class='vs-num'>{sa['reached_at'] or '–'}</td>"
            f"<td class='vs-num'>{sb['reached_at'] or '–'}</td><td class='vs-num'>{sa['tool_calls']}</td><td class='vs-num'>{sb['tool_calls']}</td>"
            f"<td class='vs-num'>{_tokens(sa['tokens'], lang)}</td><td class='vs-num'>{_tokens(sb['tokens'], lang)}</td></tr>"
        )
    table = "<table>" + _headers(STAGE_HEADERS, lang) + "".join(rows) + "</table>"
    return f"<div class='vs-card'>{head}{table}</div>"


MARK = "†"  # (``labels.judge_trust.MARK``)


def trust_html(found: dict[str, Any], lang: Lang = "en") -> str:
    """The judge × profile behind the figures, each with its measured agreement with the stored
    labels or "not measured" ("†" where marked), and the footnote; all text escaped."""
    items = "".join(f"<li>{_esc(t['judge'])} · {_esc(profile_words(t['profile'], lang))}: {_esc(trust_text(t, lang))}{' ' + MARK if t['marked'] else ''}</li>"
                    for t in found.get("judge_trust") or [])
    if not items:
        return ""
    note = footnote_text(str(found.get("footnote") or ""), lang) if any((found.get("marked") or {}).values()) else ""
    return (f"<div class='vs-muted' id='vs-cmp-trust'>{say_in(lang)('Judge agreement with people (95% bootstrap intervals):')}<ul>{items}</ul>"
            + (f"{_esc(note)}" if note else "") + "</div>")


def _mark(flag: bool) -> str:
    return MARK if flag else ""


def _threshold(ctx: AppContext) -> float | None:
    return getattr(getattr(ctx, "settings", None), "min_judge_agreement", None)


def coverage_html(result: dict[str, Any], lang: Lang = "en") -> str:
    cov, say = result["coverage"], say_in(lang)
    if cov.get("missing"):
        missing = say("Not scored yet: {runs}. Score both runs to compare what they covered.").format(runs=_esc(", ".join(cov["missing"])))
        return f"<div class='vs-card vs-muted'>{missing}</div>"
    marked = cov.get("marked") or {}
    line = say("verdicts of the {judge} judge · F1 A {a} · B {b}").format(
        judge=_esc(cov["judge"]), a=f"{100 * cov['f1']['a']:.1f}{_mark(marked.get('a', False))}",
        b=f"{100 * cov['f1']['b']:.1f}{_mark(marked.get('b', False))}")
    parts = [f"<div class='vs-muted'>{line}</div>", trust_html(cov, lang)]
    for key, title in (("both", "Covered in both"), ("only_a", "Only in A"), ("only_b", "Only in B"), ("neither", "In neither")):
        items = "".join(f"<li>#{i['number']} {_esc(i['triple'])}</li>" for i in cov[key]) or f"<li class='vs-muted'>{say('none')}</li>"
        parts.append(f"<div id='vs-cmp-{key.replace('_', '-')}'><b>{say(title)} ({len(cov[key])})</b><ul>{items}</ul></div>")
    return "<div class='vs-card'>" + "".join(parts) + "</div>"


def build(ctx: AppContext, owner: gr.BrowserState) -> CompareHandles:
    gr.Markdown(ui_text("Two runs of one persona side by side: when each stage was reached, what each spent on it, what each covered."))
    with gr.Row():
        pick_a = gr.Dropdown(label=ui_text("Pick run A"), choices=[], scale=2, elem_id="vs-cmp-pick-a")
        pick_b = gr.Dropdown(label=ui_text("Pick run B (same task as A)"), choices=[], scale=2, elem_id="vs-cmp-pick-b")
    with gr.Row():
        run_a = gr.Textbox(label=ui_text("Run A"), max_length=MAX_ID, scale=2, elem_id="vs-cmp-a")
        run_b = gr.Textbox(label=ui_text("Run B"), max_length=MAX_ID, scale=2, elem_id="vs-cmp-b")
        button = gr.Button(ui_text("Compare"), variant="primary", scale=1, elem_id="vs-cmp-go")
    status = gr.Markdown(elem_id="vs-cmp-status")
    stages = gr.HTML(elem_id="vs-cmp-stages")
    coverage = gr.HTML(elem_id="vs-cmp-coverage")
    with gr.Row():
        graph_a = gr.Plot(label=ui_text("Graph of run A"), elem_id="vs-cmp-graph-a")
        graph_b = gr.Plot(label=ui_text("Graph of run B"), elem_id="vs-cmp-graph-b")
    outputs = [status, stages, coverage, graph_a, graph_b]

    def compare(tok: str, a: str, b: str, request: gr.Request) -> list[Any]:
        a, b = (str(x or "").strip()[:MAX_ID] for x in (a, b))
        lang = browser_lang(request)
        say = say_in(lang)
        if not a or not b:
            return [say("Give two run ids."), "", "", None, None]
        who = ctx.who(request, tok)
        for rid in (a, b):
            try:
                run = ctx.store.get_run(rid)
            except RunNotFound:
                return [say("No run `{id}` in this database.").format(id=_esc(rid)), "", "", None, None]
            if not ctx.readable(who, run):
                return [say("No run `{id}` in this database.").format(id=_esc(rid)), "", "", None, None]
        try:
            allowed = {run.id for run in ctx.store.list_runs() if ctx.readable(who, run)}
            result = compare_runs(ctx.store, a, b, min_agreement=_threshold(ctx), keep_run=allowed.__contains__)
        except CompareError as exc:
            return [_esc(exc), "", "", None, None]
        hide_agents(ctx, who, result, a, b)
        task = ctx.task_of_run(ctx.store.get_run(a))
        gt = [t.model_dump() for t in task.graph] if task is not None else []
        preds = [predicted_triples(ctx.store, rid) for rid in (a, b)]
        positions = shared_positions(gt, preds)
        judge = result["coverage"].get("judge")
        figures = []
        for rid, pred in zip((a, b), preds):
            score = next((s for s in reversed(ctx.store.scores(rid)) if judge is None or s.judge == judge), None)
            figures.append(graph_figure(gt, pred, verdict_map(ctx.store, score), title=say("run {id}: {n} predicted triples").format(id=rid, n=len(pred)), positions=positions, lang=lang))
        return [say("Comparing **{a}** (A) with **{b}** (B).").format(a=_esc(a), b=_esc(b)), stages_html(result, lang), coverage_html(result, lang), *figures]

    button.click(compare, [owner, run_a, run_b], outputs, api_visibility="private")
    on_configs, configs_io = _configs_section(ctx, owner)

    def picked_a(tok: str, a: Any, request: gr.Request) -> tuple[Any, Any]:
        """Run A chosen: its id in the box, and B's list narrowed to the runs of its task."""
        rid = str(a or "")[:MAX_ID]
        runs = picker_runs(ctx, ctx.who(request, tok))
        task = next((r.task_id for r in runs if r.id == rid), None)
        return rid, gr.Dropdown(choices=[(run_label(r), r.id) for r in runs if r.id != rid and (task is None or r.task_id == task)], value=None)

    pick_a.input(picked_a, [owner, pick_a], [run_a, pick_b], api_visibility="private", show_progress="hidden")
    pick_b.input(lambda b: str(b or "")[:MAX_ID], pick_b, run_b, api_visibility="private", show_progress="hidden")

    def on_show(tok: str, ca: Any, cb: Any, _pa: Any, request: gr.Request) -> tuple[Any, ...]:
        """The tab opened: the configuration lists and run A's list (the runs the caller may read)."""
        who = ctx.who(request, tok)
        if who.player:
            return gr.skip(), gr.skip(), gr.skip()
        choices = [(run_label(r), r.id) for r in picker_runs(ctx, who)]
        return (*on_configs(tok, ca, cb, request), gr.Dropdown(choices=choices))

    show_io = [*configs_io, pick_a]

    def on_link(tok: str, request: gr.Request) -> tuple[Any, ...]:
        """``?compare=A,B`` in the page's address fills both boxes and compares them."""
        wanted = (request.query_params.get("compare") or "") if request is not None else ""
        ids = [x.strip() for x in wanted.split(",") if x.strip()][:2]
        if len(ids) != 2 or ctx.who(request, tok).player:
            return (gr.skip(), gr.skip(), *[gr.skip()] * len(outputs))
        return (ids[0][:MAX_ID], ids[1][:MAX_ID], *compare(tok, ids[0], ids[1], request))

    return CompareHandles(run_a, run_b, button, outputs, compare, on_link, on_show, show_io)


def hide_agents(ctx: AppContext, who: Who, result: dict[str, Any], a: str, b: str) -> None:
    """A blind study's play shows no agent to anyone but an admin (``agent_hidden``)."""
    for side, rid in (("a", a), ("b", b)):
        if agent_hidden(who, ctx.store.get_run(rid)):
            result["runs"][side]["agent"] = AGENT_HIDDEN


def _comparable(ctx: AppContext, who: Who) -> Any:
    """The runs a caller's configurations are made of: those it may read, but a blind study's play
    (its configuration would name the agent) unless the caller is an admin."""
    return lambda run: ctx.readable(who, run) and not agent_hidden(who, run)


def _points(value: float) -> str:
    """A difference of two F1 shares in percentage points, signed ("+3.25")."""
    return f"{100 * value:+.2f}"


def picker_runs(ctx: AppContext, who: Any, limit: int = 300) -> list[Any]:
    """The finished runs ``who`` may read, newest first (at most ``limit``): what the pickers offer."""
    return [r for r in ctx.store.list_runs(status="finished") if ctx.readable(who, r)][:limit]


def run_label(run: Any) -> str:
    """A run in the pickers: its id, task and start time (no agent name: a blind study's runs stay blind)."""
    when = run.created_at.strftime("%Y-%m-%d %H:%M") if getattr(run, "created_at", None) else ""
    return f"{run.id} · {run.task_id}" + (f" · {when}" if when else "")


def config_label(spec: dict[str, str], n_runs: int) -> str:
    model = f" ({spec['agent_model']})" if spec.get("agent_model") else ""
    sim = f" ({spec['simulator_model']})" if spec.get("simulator_model") else ""
    return f"{spec.get('agent', '?')}{model} · user {spec.get('user', '?')}{sim} · {spec.get('protocol', 'vibesearch')} — {n_runs} run(s)"


def _spec_of(value: Any) -> dict[str, str] | None:
    """A configuration chosen in the page (its JSON), checked: only known keys, text values."""
    if not isinstance(value, str) or len(value) > 2000:
        return None
    try:
        spec = json.loads(value)
    except ValueError:
        return None
    if not isinstance(spec, dict) or not all(k in CONFIG_KEYS and isinstance(v, str) and len(v) <= 500 for k, v in spec.items()):
        return None
    return spec


_VERDICTS = (  # ``config_compare``'s verdicts (English, below the app), read back to be worded in ``lang``
    re.compile(r"not ranked: (?P<n>\d+) shared task \(at least (?P<min>\d+) are needed to tell them apart\)"),
    re.compile(r"inside the noise floor: the interval contains 0, so neither is ranked above the other"),
    re.compile(r"inside the noise floor: \|B − A\| is within the combined noise \(±(?P<margin>[0-9.]+) F1 points\), so neither is ranked above the other"),
    re.compile(r"B scores higher than A"), re.compile(r"A scores higher than B"),
)
_VERDICT_KEYS = ("not ranked: {n} shared task (at least {min} are needed to tell them apart)",
                 "inside the noise floor: the interval contains 0, so neither is ranked above the other",
                 "inside the noise floor: |B − A| is within the combined noise (±{margin} F1 points), so neither is ranked above the other",
                 "B scores higher than A", "A scores higher than B")


def verdict_text(verdict: str, lang: Lang) -> str:
    """A configuration comparison's verdict in ``lang`` (one not of ``config_compare``'s forms as it is)."""
    for pattern, key in zip(_VERDICTS, _VERDICT_KEYS):
        if lang == "zh" and (found := pattern.fullmatch(verdict)):
            return say_in(lang)(key).format(**found.groupdict())
    return verdict


def split_words(line: str, lang: Lang) -> str:
    """``reports.noise.split_text``'s line ("user 1.20 [0.00, 3.10] · agent not measured · …") in ``lang``."""
    if lang != "zh":
        return line
    say = say_in(lang)
    return " · ".join(say(part) + say(" not measured") if rest == "not measured" else f"{say(part)} {rest}"
                      for part, _, rest in (p.partition(" ") for p in line.split(" · ")))


def configs_html(result: dict[str, Any], lang: Lang = "en") -> str:
    say = say_in(lang)
    diff = result["difference"]
    lo, hi = diff["ci"]
    marked = result.get("marked") or {}
    ma, mb = _mark(marked.get("a", False)), _mark(marked.get("b", False))
    both = _mark(bool(ma or mb))
    verdict = ("<div id='vs-cmp-verdict' class='vs-card-title'>"
               + say("B − A = {diff} [{lo}, {hi}] F1 points over {n} task(s): {verdict}").format(
                   diff=f"{_points(diff['b_minus_a'])}{both}", lo=_points(lo), hi=_points(hi), n=diff["tasks"],
                   verdict=_esc(verdict_text(result["verdict"], lang))) + "</div>")
    rows = "".join(
        f"<tr><td>{_esc(r['task'])}</td><td class='vs-num'>{pct(r['a'])}{ma}</td><td class='vs-num'>{pct(r['b'])}{mb}</td>"
        f"<td class='vs-num'>{_points(r['b_minus_a'])}{both}</td><td class='vs-num'>{r['runs_a']}</td><td class='vs-num'>{r['runs_b']}</td></tr>"
        for r in result["tasks"]
    )
    table = "<table>" + _headers(CONFIG_HEADERS, lang) + rows + "</table>"
    noise = []
    for side in ("a", "b"):
        n = result[side]["noise"]
        noise.append("<div class='vs-muted'>" + say(
            "{side} = {spec} · {runs} run(s) · noise floor: F1 SD across runs {sd} ({repeated} task(s) repeated), with the user fixed "
            "{fixed}; split (F1 SD in points, 95% interval): {split}").format(
                side=side.upper(), spec=_esc(shown(result[side]["spec"])), runs=result[side]["runs"], sd=pct(n["sd"]),
                repeated=n["tasks_with_repeats"], fixed=pct(n["sd_user_fixed"]),
                split=_esc(split_words(split_text(n["split"], percent=True), lang))) + "</div>")
    return f"<div class='vs-card'>{verdict}{''.join(noise)}{table}{trust_html(result, lang)}</div>"


def _configs_section(ctx: AppContext, owner: gr.BrowserState) -> tuple[Any, list[Any]]:
    """The two-configuration block; returns the handler that fills its lists and its inputs."""
    gr.Markdown(ui_text("### Two configurations\nIs B better than A? The F1 difference per task both played, with a paired 95% "
                        "bootstrap interval; a difference inside the noise is not a ranking."))
    with gr.Row():
        pick_a = gr.Dropdown(label=ui_text("Configuration A"), choices=[], scale=3, elem_id="vs-cmp-config-a")
        pick_b = gr.Dropdown(label=ui_text("Configuration B"), choices=[], scale=3, elem_id="vs-cmp-config-b")
        with gr.Column(scale=1, min_width=160):
            go = gr.Button(ui_text("Compare configurations"), variant="primary", elem_id="vs-cmp-config-go")
            refresh = gr.Button(ui_text("Refresh the lists"), size="sm", elem_id="vs-cmp-config-refresh")
    result = gr.HTML(elem_id="vs-cmp-configs")

    def on_show(tok: str, a: Any, b: Any, request: gr.Request) -> tuple[Any, Any]:
        who = ctx.who(request, tok)
        if who.player:
            return gr.skip(), gr.skip()
        found = configurations(ctx.store, _comparable(ctx, who))
        choices = [(config_label(spec, n), json.dumps(spec, sort_keys=True)) for spec, n in found]
        values = {v for _, v in choices}
        first = choices[0][1] if choices else None
        second = choices[1][1] if len(choices) > 1 else None
        return (gr.Dropdown(choices=choices, value=a if a in values else first),
                gr.Dropdown(choices=choices, value=b if b in values else second))

    def on_go(tok: str, a: Any, b: Any, request: gr.Request) -> str:
        who, lang = ctx.who(request, tok), browser_lang(request)
        say = say_in(lang)
        spec_a, spec_b = _spec_of(a), _spec_of(b)
        if spec_a is None or spec_b is None:
            return f"<div class='vs-card vs-muted'>{say('Choose two configurations (the lists hold those with finished runs you may read).')}</div>"
        if spec_a == spec_b:
            return f"<div class='vs-card vs-muted'>{say('A and B are the same configuration: choose two different ones.')}</div>"
        try:
            got = compare_configs(ctx.store, spec_a, spec_b, may_read=_comparable(ctx, who), min_agreement=_threshold(ctx))
        except ConfigCompareError as exc:
            return f"<div class='vs-card vs-muted'>{_esc(exc)}</div>"
        return configs_html(got, lang)

    go.click(on_go, [owner, pick_a, pick_b], result, api_visibility="private")
    refresh.click(on_show, [owner, pick_a, pick_b], [pick_a, pick_b], api_visibility="private", show_progress="hidden")
    return on_show, [owner, pick_a, pick_b]
