"""Where each ground-truth triple was lost (issue 41, docs/analysis.md), as the app shows it.

* Runs: ``run_funnel_html`` — the opened run's funnel under one score (``results.funnel``): a bar
  of the five buckets with their counts (they sum to the ground truth), then every ground-truth
  triple grouped by bucket with when and the evidence (its stage and the user turn that disclosed
  it, the first tool call that showed it, the prediction naming it, the verdict and its
  rationale). A triple with a turn is a link: a click scrolls the transcript to that user turn
  (``JUMP_JS``; the chat's user turns carry the anchors ``render.chat_messages(anchors=...)``
  writes).
* Leaderboard: ``funnel_figure`` — one stacked bar per configuration × profile, the share of its
  ground-truth triples in each bucket (``results.analysis.series_funnels``).

Every text from a task, an agent, a page or a judge is escaped here (``html.escape``); plot text
goes through ``plot_text``.
"""

from __future__ import annotations

import html
import json
from typing import Any, Callable, Mapping

import plotly.graph_objects as go

from .._plot_text import plot_text
from ..reports.funnel import BUCKET_COLOURS
from ..results.funnel import BUCKETS, Bucket, RunFunnel, TripleFate
from ._words import Lang, words

TURN_ANCHOR = "vs-runs-turn"  # the transcript's anchor of user turn n: ``vs-runs-turn-<n>``
FUNNEL_ID = "vs-runs-funnel"
RATIONALE_CHARS = 400  # what a triple's line shows of the judge's rationale

# a click (or Enter) on a triple with a turn scrolls the Runs transcript to that turn, marks its
# message, and says which turn is shown on the chat (``data-shown-turn``, for tests and styling)
JUMP_JS = """
if (!window.__vsFunnelJump) {
  window.__vsFunnelJump = true;
  const jump = (ev) => {
    const item = ev.target && ev.target.closest ? ev.target.closest('#%(funnel)s [data-turn]') : null;
    if (!item || (ev.type === 'keydown' && ev.key !== 'Enter')) return;
    const turn = item.getAttribute('data-turn');
    const mark = document.getElementById('%(anchor)s-' + turn);
    const chat = document.getElementById('vs-runs-chat');
    if (!mark || !chat) return;
    ev.preventDefault();
    ev.stopPropagation();
    // the transcript's own box scrolls the turn to its top; the window moves only as far as it
    // must to show the transcript, so the funnel beside it stays in view
    let box = mark.parentElement;
    while (box && box !== document.body && !(box.scrollHeight > box.clientHeight + 2 && getComputedStyle(box).overflowY !== 'visible')) box = box.parentElement;
    if (box && box !== document.body) box.scrollTop += mark.getBoundingClientRect().top - box.getBoundingClientRect().top - 8;
    chat.scrollIntoView({block: 'nearest'});
    chat.querySelectorAll('.vs-turn-jumped').forEach((el) => { el.classList.remove('vs-turn-jumped'); el.style.outline = ''; });
    const bubble = mark.closest('.message') || mark.parentElement;
    bubble.classList.add('vs-turn-jumped');
    bubble.style.outline = '3px solid #f08a4b';
    chat.setAttribute('data-shown-turn', turn);
  };
  document.addEventListener('click', jump, true);
  document.addEventListener('keydown', jump, true);
}
""" % {"funnel": FUNNEL_ID, "anchor": TURN_ANCHOR}


def _esc(text: Any) -> str:
    return html.escape(str(text if text is not None else ""), quote=True)


def bucket_word(bucket: str, lang: Lang) -> str:
    return words(f"bucket_{bucket}", lang)


def jump_turn(fate: TripleFate) -> int | None:
    """The user turn a triple's line links to: the turn its first sighting came in, else the turn
    its stage was disclosed on (None: never disclosed, nothing to show)."""
    if fate.sighting is not None:
        return fate.sighting.turn
    return fate.disclosed.turn if fate.disclosed is not None else None


def _turn_link(n: int, lang: Lang) -> str:
    return (f"<a href='#{TURN_ANCHOR}-{n}' data-turn='{n}' class='vs-funnel-turn' "
            f"style='text-decoration: underline; cursor: pointer;'>{_esc(words('turn', lang, n=n))}</a>")


def _evidence(fate: TripleFate, funnel: RunFunnel, lang: Lang) -> str:
    """When and the evidence of one triple, one short line each."""
    parts = []
    if fate.stage is None:
        parts.append(words("funnel_unassigned", lang))
    else:
        stage = words("funnel_stage", lang, n=fate.stage + 1)
        when = (words("disclosed_on", lang, n=fate.disclosed.turn) if fate.disclosed is not None
                else words("funnel_never_disclosed", lang))
        parts.append(f"{_esc(stage)}: {_esc(when)}")
    if fate.seen == "unknown":
        parts.append(_esc(words("funnel_seen_unknown", lang)))
    elif fate.sighting is not None:
        s = fate.sighting
        seen = _esc(words("funnel_seen", lang, tool="\x00", n="\x01")).replace("\x00", f"<code>{_esc(s.tool)}</code>")
        seen = seen.replace("\x01", str(s.turn))
        parts.append(seen + (f" · <span class='vs-muted'>{_esc(s.url)}</span>" if s.url else ""))
    elif fate.disclosed is not None or fate.stage is None:
        parts.append(_esc(words("funnel_not_seen", lang)))
    if fate.prediction is not None and 0 <= fate.prediction < len(funnel.prediction):
        h, r, t = funnel.prediction[fate.prediction]
        parts.append(_esc(words("funnel_prediction", lang, n=fate.prediction + 1, triple=f"{h} — {r} — {t}")))
    elif fate.bucket == "not_written":
        parts.append(_esc(words("funnel_no_prediction", lang)))
    verdict = _esc(words("funnel_verdict", lang, verdict=words(f"verdict_{fate.verdict}", lang)))
    if fate.rationale:
        clipped = fate.rationale if len(fate.rationale) <= RATIONALE_CHARS else fate.rationale[:RATIONALE_CHARS] + "…"
        verdict += f" — <i>{_esc(clipped)}</i>"
    parts.append(verdict)
    return "<br>".join(parts)


def _triple_item(fate: TripleFate, funnel: RunFunnel, lang: Lang) -> str:
    turn = jump_turn(fate)
    link = f" data-turn='{turn}' role='link' tabindex='0' style='cursor: pointer;'" if turn is not None else ""
    go_to = f" · {_turn_link(turn, lang)}" if turn is not None else ""
    return (f"<li class='vs-funnel-triple' id='{FUNNEL_ID}-gt-{fate.gt_index + 1}' data-bucket='{fate.bucket}' value='{fate.gt_index + 1}'"
            f" style='border-left: 4px solid {BUCKET_COLOURS[fate.bucket]}; padding: 2px 6px; margin: 4px 0;'>"
            f"<div{link}><b>{_esc(fate.head)}</b> — {_esc(fate.relation)} — <b>{_esc(fate.tail)}</b>{go_to}</div>"
            f"<div class='vs-muted' style='font-size: 0.9em;'>{_evidence(fate, funnel, lang)}</div></li>")


def _bar(counts: Mapping[Bucket, int], n_gt: int, lang: Lang) -> str:
    """The five buckets as one bar (each segment as wide as its share) and a legend with the counts."""
    segments = "".join(
        f"<div title='{_esc(bucket_word(b, lang))}: {counts[b]}' style='width: {100 * counts[b] / n_gt:.3f}%; background: {BUCKET_COLOURS[b]};'></div>"
        for b in BUCKETS if counts[b] and n_gt)
    legend = "".join(
        f"<span class='vs-funnel-count' data-bucket='{b}' data-count='{counts[b]}' style='margin-right: 10px; white-space: nowrap;'>"
        f"<span style='display: inline-block; width: 10px; height: 10px; background: {BUCKET_COLOURS[b]}; margin-right: 3px;'></span>"
        f"{_esc(bucket_word(b, lang))} <b>{counts[b]}</b></span>" for b in BUCKETS)
    return (f"<div class='vs-funnel-bar' style='display: flex; height: 14px; border-radius: 4px; overflow: hidden; margin: 4px 0;'>{segments}</div>"
            f"<div class='vs-funnel-counts' style='margin-bottom: 4px;'>{legend}</div>")


def run_funnel_html(funnel: RunFunnel | None, *, judge: str | None, lang: Lang, scored: bool = True) -> str:
    """The opened run's funnel (``funnel``: under the chosen score; None with ``scored``: its task
    cannot be read) as a card: the bar with the counts, then every ground-truth triple by bucket."""
    head = f"<div class='vs-card vs-funnel' id='{FUNNEL_ID}'"
    if funnel is None:
        note = words("funnel_unscored" if not scored else "funnel_unreadable", lang)
        return f"{head} data-n-gt=''><div class='vs-muted'>{_esc(note)}</div></div>"
    counts = funnel.counts()
    title = words("funnel_title", lang, judge=judge or "", n=funnel.n_gt)
    groups = []
    for b in BUCKETS:
        mine = [f for f in funnel.fates if f.bucket == b]
        if not mine:
            continue
        items = "".join(_triple_item(f, funnel, lang) for f in mine)
        groups.append(f"<details open class='vs-funnel-group' data-bucket='{b}'><summary><b>{_esc(bucket_word(b, lang))}</b> ({len(mine)})</summary>"
                      f"<ol style='padding-left: 2.6em; margin: 2px 0;'>{items}</ol></details>")
    method = words(f"funnel_method_{funnel.seen_method}", lang)
    return (f"{head} data-n-gt='{funnel.n_gt}'><div class='vs-card-title'>{_esc(title)}</div>{_bar(counts, funnel.n_gt, lang)}"
            f"<div class='vs-muted' style='font-size: 0.9em;'>{_esc(method)} {_esc(words('funnel_click', lang))}</div>"
            f"<div class='vs-funnel-list' style='max-height: 380px; overflow-y: auto;'>{''.join(groups)}</div></div>")


# --------------------------------------------------------------------------- the Leaderboard's bars
def _ci(share: dict[str, Any]) -> str:
    ci = share.get("ci")
    return f", 95% CI {100 * ci[0]:.1f}–{100 * ci[1]:.1f}" if ci else ""


def funnel_figure(rows: list[dict[str, Any]], lang: Lang, tick: Callable[[str], str] = plot_text) -> go.Figure:
    """One horizontal stacked bar per configuration × profile (``series_funnels``' rows): each
    bucket's share of its ground-truth triples, the count written on the segment."""
    fig = go.Figure()
    labels = [tick(r["group"]) for r in rows]
    for b in BUCKETS:
        shares = [(r.get("shares") or {}).get(b) or {} for r in rows]
        xs = [100 * s["share"] if s.get("share") is not None else 0 for s in shares]
        hover = [plot_text(words("funnel_hover", lang, bucket=bucket_word(b, lang), count=r[b], n=r["n_gt"],
                                 share=f"{x:.1f}", ci=_ci(s))) + f"<br>{plot_text(r['group'])} · {r['n_runs']} runs"
                 for r, s, x in zip(rows, shares, xs)]
        fig.add_trace(go.Bar(
            name=plot_text(bucket_word(b, lang)), y=labels, x=xs, orientation="h", marker={"color": BUCKET_COLOURS[b]},
            text=[str(r[b]) if r[b] else "" for r in rows], textposition="inside", insidetextanchor="middle",
            hovertext=hover, hoverinfo="text", customdata=[json.dumps({"bucket": b, "count": r[b]}) for r in rows],
        ))
    fig.update_layout(title=plot_text(words("funnel_series_title", lang)), barmode="stack", height=160 + 46 * max(1, len(rows)),
                      xaxis={"range": [0, 100], "title": "%"}, yaxis={"autorange": "reversed", "tickfont": {"size": 10}},
                      margin={"l": 10, "r": 10, "t": 80, "b": 40}, legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "traceorder": "normal"})
    fig.update_yaxes(automargin=True)
    if not rows:
        fig.add_annotation(text=plot_text(words("funnel_none", lang)), showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    return fig
