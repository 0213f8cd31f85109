"""One page per run: persona card, conversation, stage stepper, replay, score, graph, verdicts.

Everything from the task, the agent, the user or a web page is escaped (``_html.esc``); the replay
reads the run's transcript view (``Transcript.as_dict``: its parts in stored order) from embedded
JSON (``_html.json_script``) and writes them with ``textContent`` only (``_assets.REPLAY_JS``). Stable element ids for tests and links:
``replay-play``, ``replay-pause``, ``replay-step``, ``replay-reset``, ``replay-speed``,
``replay-position``, ``replay-state``, ``replay-log``, ``replay-stepper``, ``score``,
``missed-triples``, ``graph``, ``verdicts``, ``conversation``, ``persona``, ``counts`` (the transcript view's counts,
also embedded as JSON under ``run-counts``), ``run-web`` (a run that recorded or replayed its web: how, and its replay misses).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from ..reports.build import stage_label
from ..run.events import MessageEvent
from ..run.transcript import Transcript
from ..scoring.aggregate import RunRecord
from ..judges.registry import judge_label
from ._assets import REPLAY_JS
from ._html import esc, json_script, link, number, page
from ._svg import graph_svg
from .collect import RunData
from .funnel_html import run_funnel_section

SCORE_FIELDS = [("precision", "P"), ("recall", "R"), ("f1", "F1")]
COUNT_FIELDS = [("n_gt", "ground truth"), ("n_pred", "predicted"), ("n_covered", "covered"), ("n_valid", "valid"), ("n_unscored", "unscored")]


def _persona(data: RunData) -> str:
    task = data.task
    if task is None:
        return '<div class="card" id="persona"><p class="note">The task snapshot of this run cannot be read.</p></div>'
    p = task.persona
    sources = "".join(f"<li>{link(u)}</li>" for u in task.sources)
    return (f'<div class="card" id="persona"><h3>{esc(task.title or task.id)}</h3>'
            f'<p class="note">task <code>{esc(task.id)}</code> · {esc(task.subset)} · {esc(task.language)}'
            + (f" · {esc(task.domain)}" if task.domain else "") + "</p>"
            f"<p><b>Who:</b> {esc(p.background)}</p><p><b>Opening question:</b> {esc(p.initial_query)}</p>"
            + (f"<p><b>Behaviour:</b> {esc(p.behavior)}</p>" if p.behavior else "")
            + (f"<details><summary>Sources ({len(task.sources)})</summary><ul>{sources}</ul></details>" if task.sources else "")
            + "</div>")


def _stepper(data: RunData, reached: int | None) -> str:
    stages = data.task.persona.stages if data.task is not None else []
    items = "".join(
        f'<li data-stage="{i}" class="{"reached" if reached is not None and i < reached else ""}">'
        f"{i + 1}. {esc(s.name)} <span class=\"note\">({esc(s.trigger.kind)})</span></li>"
        for i, s in enumerate(stages))
    return f'<ol class="stepper" id="replay-stepper">{items}</ol>' if items else '<p class="note" id="replay-stepper">No stages known.</p>'


def _message(m: MessageEvent) -> str:
    who = m.role + ("" if m.phase == "dialogue" else f" · {m.phase}")
    box = f'<div class="msg {esc(m.role)}"><span class="who">{esc(who)}</span>{esc(m.content)}</div>'
    return box if m.phase == "dialogue" else f'<details class="tool"><summary>{esc(who)}</summary>{box}</details>'


def _conversation(view: Transcript) -> str:
    """The dialogue as stored (the transcript view): messages, each assistant step's tool calls
    folded under it with their results, and the end."""
    out: list[str] = []
    for turn in view.turns:
        if turn.user is not None and turn.user.role in ("user", "assistant"):
            out.append(_message(turn.user))
        for step in turn.steps:
            out.append(_message(step.message))
            for c in step.calls:
                res = c.result
                body = esc(json.dumps(c.call.arguments or {}, ensure_ascii=False, indent=1))
                shown = "" if res is None else f"<div class=\"event\">result{' (error)' if res.error else ''}</div><pre>{esc(res.content)}</pre>"
                out.append(f'<details class="tool"><summary>tool call: {esc(c.call.tool)}</summary><pre>{body}</pre>{shown}</details>')
    if view.end is not None:
        d = view.end
        out.append(f'<div class="event">end: {esc(d.termination)}{(" — " + esc(d.detail)) if d.detail else ""}</div>')
    return "".join(out) or '<p class="note">No messages.</p>'


COUNT_ROWS = [("n_asst", "#Asst"), ("n_user", "#User"), ("tool_calls", "tool calls"), ("input_tokens", "tokens in"),
              ("output_tokens", "tokens out"), ("cost_usd", "cost (USD)"), ("compactions", "compactions"),
              ("stages_reached", "stages reached")]


def _counts(view: Transcript) -> str:
    """The run's counts as the transcript view makes them (the same rule as the statistics)."""
    summary = view.summary()
    cells = "".join(f'<tr><td class="text">{esc(label)}</td><td data-count="{esc(key)}">'
                    f'{esc("unknown" if summary[key] is None else summary[key])}</td></tr>' for key, label in COUNT_ROWS)
    tools = ", ".join(f"{esc(k)} {v}" for k, v in summary["tool_calls_by_tool"].items()) or "none"
    return f'<table id="counts"><tbody>{cells}<tr><td class="text">by tool</td><td class="text">{tools}</td></tr></tbody></table>'


def _web(view: Transcript) -> str:
    """What the run did with the web (docs/web.md): the exchanges it recorded and, for a replay,
    how each request was answered — its misses (an unseen query, an unseen URL) said; nothing for
    a run that neither recorded nor replayed."""
    c = view.counts
    if not c.web:
        return ""
    parts = [f'{c.web.get("recorded", 0)} exchanges recorded'] if c.web.get("recorded") else []
    replayed = sum(n for k, n in c.web.items() if k != "recorded")
    if replayed:
        parts.append(f"{replayed} requests replayed from a recording: {c.web.get('exact', 0)} as recorded, "
                     f"{c.web.get('fallback', 0)} by the fallback search, {c.web.get('missing', 0)} not in the recording "
                     f'— <b data-count="web_replay_misses">{c.web_misses}</b> misses')
    return f'<h2>The web</h2><p class="note" id="run-web">{"; ".join(parts)}.</p>'


def _verdict_map(verdicts: list[dict[str, Any]]) -> dict[int, tuple[bool | None, list[int]]]:
    return {int(v["gt_index"]): (v.get("covered"), [int(i) for i in v.get("evidence") or []]) for v in verdicts}


def _triple(t: dict[str, Any]) -> str:
    return f"{esc(t.get('head', ''))} — {esc(t.get('relation', ''))} → {esc(t.get('tail', ''))}"


def _score_block(data: RunData, k: int, rec: RunRecord) -> str:
    check = f"run:{data.run.id}:{k}"
    cells = "".join(f"<td>{number(getattr(rec, f), f'{check}.{f}')}</td>" for f, _ in SCORE_FIELDS)
    counts = "<br>".join(f"{number(getattr(rec, f), f'{check}.{f}', pct=False)} {label}" for f, label in COUNT_FIELDS) if rec.scored else "–"
    return (f'<tr><td class="text">{esc(rec.profile)}<br><span class="note">{esc(judge_label(rec.judge) if rec.judge else "not scored")}</span></td>'
            f'{cells}<td class="text">{counts}</td></tr>')


def _verdict_table(gt: list[dict[str, Any]], pred: list[dict[str, Any]], verdicts: list[dict[str, Any]]) -> str:
    by_index = {int(v["gt_index"]): v for v in verdicts}
    rows = []
    for i, t in enumerate(gt):
        v = by_index.get(i, {})
        covered = v.get("covered")
        state = ("covered", "covered") if covered else ("missed", "missed") if covered is False else ("unscored", "unscored")
        evidence = "<br>".join(_triple(pred[e]) for e in v.get("evidence") or [] if 0 <= e < len(pred))
        rows.append(f'<tr><td>{i + 1}</td><td class="text">{_triple(t)}</td><td class="text {state[0]}">{state[1]}</td>'
                    f'<td>{esc(v.get("rule") if v.get("rule") is not None else "")}</td><td class="text">{evidence}</td>'
                    f'<td class="text">{esc(v.get("rationale", ""))}</td></tr>')
    return ('<table id="verdicts"><thead><tr><th>#</th><th class="text">ground-truth triple</th><th class="text">verdict</th>'
            '<th>rule</th><th class="text">evidence (predicted)</th><th class="text">rationale</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def run_page(data: RunData, *, app_url: str | None = None, stem: str | None = None) -> str:
    run = data.run
    recs = data.records
    view = data.transcript
    shown = view.as_dict()  # what the replay reads: the view's parts in stored order, and its counts
    files = stem or run.id
    stats_rec = recs[0] if recs else None
    reached = stats_rec.stats.stages_reached if stats_rec else None
    total = stats_rec.stats.stages_total if stats_rec else None
    live = ""
    if app_url:
        live = " · " + link(f"{app_url.rstrip('/')}/?run={quote(run.id)}", "open in the live app")
    head = (f"<h1>Run <code>{esc(run.id)}</code></h1>"
            f'<p class="note">task <code>{esc(run.task_id)}</code> · {esc(stats_rec.config if stats_rec else run.agent)} · '
            f"status {esc(run.status)} · termination {esc(run.termination or '–')} · source {esc(run.source)} · "
            f"{esc(stage_label(reached, total))}{live}</p>")
    scored = [(k, r) for k, r in enumerate(recs) if r.score_id is not None]
    score_rows = "".join(_score_block(data, k, r) for k, r in enumerate(recs))
    score = ('<table id="score"><thead><tr><th class="text">profile · judge</th>'
             + "".join(f"<th>{h} (%)</th>" for _, h in SCORE_FIELDS) + '<th class="text">triples</th>'
             + f"</tr></thead><tbody>{score_rows}</tbody></table>") if recs else '<p class="note" id="score">Not scored, not finished.</p>'
    gt = data.gt
    if scored:
        k, main_rec = scored[0]
        assert main_rec.score_id is not None
        pred, verdicts = data.graded.get(main_rec.score_id, []), data.verdicts.get(main_rec.score_id, [])
        missed = [gt[int(v["gt_index"])] for v in verdicts if v.get("covered") is False and int(v["gt_index"]) < len(gt)]
        missed_html = (f'<p class="note">{len(missed)} of {len(gt)} ground-truth triples missed ({esc(main_rec.profile)}, '
                       f'{esc(judge_label(main_rec.judge or ""))}).</p><ul class="missed-list" id="missed-triples">'
                       + "".join(f"<li>{_triple(t)}</li>" for t in missed) + "</ul>")
        graph = graph_svg(gt, pred, _verdict_map(verdicts))
        verdict_html = _verdict_table(gt, pred, verdicts)
        funnel = run_funnel_section(data, k, main_rec)
    else:
        missed_html = '<ul class="missed-list" id="missed-triples"></ul><p class="note">Not scored: no verdicts.</p>'
        graph = graph_svg(gt, data.latest_graph, None)  # drawn unjudged
        verdict_html = '<p class="note" id="verdicts">No verdicts.</p>'
        funnel = '<p class="note" id="run-funnel">Not scored: no funnel.</p>'
    replay = (
        '<div class="controls"><button id="replay-play" type="button">Play</button>'
        '<button id="replay-pause" type="button">Pause</button><button id="replay-step" type="button">Step</button>'
        '<button id="replay-reset" type="button">Reset</button><label>speed <select id="replay-speed">'
        '<option value="1">1×</option><option value="2">2×</option><option value="4" selected>4×</option>'
        '<option value="16">16×</option></select></label>'
        f'<span id="replay-position">0 / {len(shown["parts"])}</span> <span id="replay-state" class="note">loading</span></div>'
        '<div id="replay-log"></div>'
    )
    body = (
        head + '<div class="grid"><div>' + _persona(data) + "<h2>Replay</h2>" + replay + "</div><div><h2>Stages</h2>"
        + _stepper(data, reached) + "<h2>Counts</h2>" + _counts(view) + _web(view) + "<h2>Score</h2>" + score + "<h3>Missed triples</h3>" + missed_html + "</div></div>"
        + "<h2>Knowledge graph</h2>" + graph
        + "<h2>The judge's verdict per ground-truth triple</h2>" + verdict_html
        + "<h2>Where each fact was lost</h2>" + funnel
        + f'<h2>Conversation</h2><div id="conversation">{_conversation(view)}</div>'
        + f'<p class="note">Bundled data: <a href="../samples/{esc(files)}.json">scores and verdicts</a> · '
          f'<a href="../events/{esc(files)}.json.gz">events</a></p>'
    )
    scripts = (json_script("run-events", shown["parts"]) + json_script("run-counts", shown["counts"])
               + f"<script>{REPLAY_JS}</script>")
    return page(f"Run {run.id}", body, root="../", scripts=scripts)
