"""The graph picture's figure: ground truth against prediction, as a pannable, zoomable plotly network.

Every entity is one node, whichever graph names it and however it is spelled (names are merged
by the scoring normaliser, see ``results.graph_layout``; the categories are ``results.graph``). Connected components are laid out apart, the
biggest first. Each triple is an edge, coloured and dashed by its category:

* ground truth covered by the prediction (green) / missed by it (red): solid lines;
* predicted triples that are valid (evidence for a covered ground-truth triple, blue) / invalid
  (orange): dashed lines, bowed a little so they do not hide the ground truth they run beside.

Without a judge verdict both graphs are drawn in grey, "not judged". Names are not printed on the
canvas, except each bigger component's most connected entity; hovering a node shows its name and
triples, hovering the middle of an edge shows the triple. The picture can show everything, only
the missed ground truth, only the invalid predictions, or one entity's neighbourhood
(``graph_view.graph_panel`` adds those controls to a page).
"""

from __future__ import annotations

from typing import Sequence

import plotly.graph_objects as go

from .._plot_text import plot_text
from ..results.graph import COLOURS, DRAW_ORDER, FILTERS, LABELS, SHOWN, Edge, Verdicts, classify, entity_names, select
from ..results.graph_layout import components, layout
from ._words import Lang, say_in, zh_text

LEGEND_RANK = {"gt_covered": 1, "gt_missed": 2, "gt_unjudged": 3, "pred_valid": 4, "pred_invalid": 5, "pred_unjudged": 6}
PRED_BEND = 0.15  # how far a predicted edge bows out, relative to its length
LABEL_MIN_COMPONENT = 4  # a component of at least this many entities gets its hub's name printed
LABEL_FOCUS_MAX = 14  # a neighbourhood this small has every name printed
LABEL_CHARS = 30
HOVER_TRIPLES = 8  # triples listed when hovering a node


def _short(name: str) -> str:
    """A long name keeps its start and its end ("Historic Monume…of Ancient Kyoto"): names that
    begin alike stay apart."""
    if len(name) <= LABEL_CHARS:
        return name
    head = LABEL_CHARS // 2
    return name[:head].rstrip() + "…" + name[-(LABEL_CHARS - head - 1):].lstrip()


def _nothing_note(show: str, focus: str | None, judged: bool) -> str:
    if show in SHOWN and not judged:
        return "Not scored yet: score the run to see which triples are missed or invalid."
    if show == "missed":
        return "No missed ground-truth triples: every one is covered."
    if show == "invalid":
        return "No invalid predicted triples."
    if show == "focus" and not focus:
        return "Pick an entity to see its neighbourhood."
    return "No triples to draw."


def _label(cat: str, lang: Lang) -> str:
    """A category's legend name (``results.graph.LABELS``) in ``lang``."""
    return zh_text(LABELS[cat], lang)


def graph_figure(
    gt: Sequence[dict],
    pred: Sequence[dict],
    verdicts: Verdicts | None = None,
    *,
    title: str = "",
    show: str = "all",
    focus: str | None = None,
    positions: dict[str, tuple[float, float]] | None = None,
    lang: Lang = "en",
) -> go.Figure:
    """The picture of both graphs, or of the part a filter keeps (``show``, ``focus``: a node key).

    Positions come from the whole graph, so a filtered picture keeps every entity where it was;
    ``positions`` (``shared_positions``) puts two pictures' entities in the same places. ``lang``:
    the language of the legend, the heading and the notes (the triples' own words stay as written)."""
    say = say_in(lang)
    edges = classify(gt, pred, verdicts)
    names = entity_names(edges)
    nodes = list(names)
    pairs = [e.ends for e in edges]
    pos = layout(nodes, pairs)
    if positions is not None:
        pos = {v: positions.get(v, xy) for v, xy in pos.items()}
    if show == "focus" and focus and focus not in names:
        focus = None
    chosen = select(edges, show, focus)

    fig = go.Figure()
    for cat in DRAW_ORDER:
        group = [e for e in chosen if e.category == cat]
        if group:
            _edge_traces(fig, cat, group, pos, lang)

    drawn = [v for v in nodes if any(v in e.ends for e in chosen)]
    if drawn:
        _node_trace(fig, drawn, chosen, names, pos, edges, focus, lang)
        for v in _printed(drawn, chosen, nodes, pairs, focus if show == "focus" else None):
            fig.add_annotation(  # on a white box, above the node, so lines do not run through it
                x=pos[v][0], y=pos[v][1], text=_esc(_short(names[v])), showarrow=False, yshift=14,
                font={"size": 11, "color": "#222"}, bgcolor="rgba(255,255,255,0.85)", borderpad=1,
            )
    else:
        fig.add_annotation(text=say(_nothing_note(show, focus, bool(verdicts))), showarrow=False, x=0.5, y=0.5,
                           xref="paper", yref="paper", font={"size": 14, "color": "#555"})
    heading = plot_text(title)
    if show != "all":
        what = say(FILTERS.get(show, show)) if lang == "zh" else FILTERS.get(show, show).lower()
        if show == "focus" and focus:
            what = say("neighbourhood of “{name}”").format(name=plot_text(_short(names[focus])))
        shown = say("showing {what}: {n} of {total} triples").format(what=what, n=len(chosen), total=len(edges))
        if show == "focus" and not focus:
            shown = say("pick an entity to see its neighbourhood")
        heading = f"{plot_text(title)} · {shown}".lstrip(" ·")
    fig.update_layout(
        title={"text": heading or None, "font": {"size": 14}},
        showlegend=True,
        legend={"orientation": "h", "y": -0.02, "yanchor": "top", "x": 0, "font": {"size": 12}},
        hovermode="closest",
        hoverlabel={"align": "left"},
        dragmode="pan",
        margin={"l": 10, "r": 10, "t": 40 if heading else 10, "b": 10},
        height=680,
        xaxis={"visible": False},
        yaxis={"visible": False, "scaleanchor": "x", "scaleratio": 1},
        plot_bgcolor="white",
    )
    if positions:  # the same frame in every picture that shares the layout
        xs, ys = [xy[0] for xy in positions.values()], [xy[1] for xy in positions.values()]
        pad_x, pad_y = 0.05 * ((max(xs) - min(xs)) or 1), 0.05 * ((max(ys) - min(ys)) or 1)
        fig.update_layout(xaxis={"range": [min(xs) - pad_x, max(xs) + pad_x], "autorange": False},
                          yaxis={"range": [min(ys) - pad_y, max(ys) + pad_y], "autorange": False})
    return fig


def _edge_traces(fig: go.Figure, cat: str, group: list[Edge], pos: dict[str, tuple[float, float]], lang: Lang = "en") -> None:
    xs: list[float | None] = []
    ys: list[float | None] = []
    mx: list[float] = []
    my: list[float] = []
    hover: list[str] = []
    is_gt = cat.startswith("gt")
    bend = 0.0 if is_gt else PRED_BEND
    which = zh_text("ground truth" if is_gt else "predicted", lang)
    for e in group:
        a, b = e.ends
        (x0, y0), (x1, y1) = pos[a], pos[b]
        if a == b:  # a triple from an entity to itself: a small loop above it
            cx, cy = x0, y0 + 0.4
            xs += [x0, x0 - 0.2, cx, x0 + 0.2, x0, None]
            ys += [y0, y0 + 0.3, cy, y0 + 0.3, y0, None]
        else:
            cx, cy = (x0 + x1) / 2 - bend * (y1 - y0), (y0 + y1) / 2 + bend * (x1 - x0)
            xs += [x0, cx, x1, None]
            ys += [y0, cy, y1, None]
        mx.append(cx)
        my.append(cy)
        hover.append(f"<b>{_esc(e.head)}</b> — {_esc(e.relation)} → <b>{_esc(e.tail)}</b><br>{which} #{e.index + 1} · {_label(cat, lang)}")
    fig.add_trace(
        go.Scatter(
            x=xs, y=ys, mode="lines", name=f"{_label(cat, lang)} ({len(group)})", legendgroup=cat, legendrank=LEGEND_RANK[cat],
            line={"color": COLOURS[cat], "width": 2.2 if is_gt else 1.6, "dash": "solid" if is_gt else "dash"},
            hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=mx, y=my, mode="markers", legendgroup=cat, showlegend=False, hovertext=hover, hoverinfo="text",
            name=zh_text("{label}: triples", lang).format(label=_label(cat, lang)), marker={"size": 6, "color": COLOURS[cat], "opacity": 0.6, "symbol": "diamond"},
        )
    )


_esc = plot_text


def _node_trace(fig: go.Figure, drawn: list[str], chosen: list[Edge], names: dict[str, str],
                pos: dict[str, tuple[float, float]], edges: list[Edge], focus: str | None, lang: Lang = "en") -> None:
    side: dict[str, set[str]] = {}
    lines: dict[str, list[str]] = {}
    for e in edges:
        for key in set(e.ends):
            side.setdefault(key, set()).add("gt" if e.category.startswith("gt") else "pred")
    for e in chosen:
        a, b = e.ends
        for key in {a, b}:
            other = e.tail if key == a else e.head
            arrow = f"— {_esc(e.relation)} → {_esc(other)}" if key == a else f"← {_esc(e.relation)} — {_esc(other)}"
            lines.setdefault(key, []).append(("GT " if e.category.startswith("gt") else "pred ") + arrow)
    colour = {frozenset({"gt"}): "#444444", frozenset({"pred"}): "#8fb3dc", frozenset({"gt", "pred"}): "#1f3b57"}
    kind = {frozenset({"gt"}): "ground truth only", frozenset({"pred"}): "prediction only", frozenset({"gt", "pred"}): "both graphs"}

    def hover(v: str) -> str:
        rows = lines.get(v, [])
        more = zh_text("<br>… and {n} more", lang).format(n=len(rows) - HOVER_TRIPLES) if len(rows) > HOVER_TRIPLES else ""
        head = zh_text("<b>{name}</b> · in {kind}<br>", lang).format(name=_esc(names[v]), kind=zh_text(kind[frozenset(side[v])], lang))
        return head + "<br>".join(rows[:HOVER_TRIPLES]) + more

    fig.add_trace(
        go.Scatter(
            x=[pos[v][0] for v in drawn], y=[pos[v][1] for v in drawn], mode="markers",
            customdata=drawn, hovertext=[hover(v) for v in drawn], hoverinfo="text",
            name=zh_text("entities ({n})", lang).format(n=len(drawn)), legendrank=10,
            marker={
                "size": [(16 if v == focus else 6 + min(12, 1.5 * len(lines.get(v, [])))) for v in drawn],
                "color": [colour[frozenset(side[v])] for v in drawn],
                "line": {"width": 1, "color": "white"},
            },
        )
    )


def _printed(drawn: list[str], chosen: list[Edge], nodes: list[str], pairs: list[tuple[str, str]], focus: str | None) -> list[str]:
    """Names printed on the canvas: the focus and its neighbours when few, else one hub per big component."""
    if focus is not None:
        return drawn if len(drawn) <= LABEL_FOCUS_MAX else [focus]
    here = set(drawn)
    degree: dict[str, int] = {}
    for e in chosen:
        for key in set(e.ends):
            degree[key] = degree.get(key, 0) + 1
    out = []
    for comp in components(nodes, pairs):
        inside = [v for v in comp if v in here]
        if len(inside) >= LABEL_MIN_COMPONENT:
            out.append(max(inside, key=lambda v: degree.get(v, 0)))
    return out
