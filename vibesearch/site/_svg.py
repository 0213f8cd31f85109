"""The knowledge-graph picture of a run page as inline SVG: the app's own layout and colours.

The entities are placed by the layout the app uses too (``results.graph_layout.layout`` through
``results.graph.shared_positions``: names merged by the offline judge's normaliser, one block per connected
component), each triple is classified as the app classifies it (``results.graph.classify``:
ground truth covered / missed, predicted valid / invalid) and drawn in the app's colours. Every
name and triple is in a ``<title>`` (shown on hover), escaped.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..results.graph import COLOURS, LABELS, DRAW_ORDER, classify, entity_names, shared_positions
from ._html import esc

WIDTH = 1000
PAD = 30
LABEL_ROOM = 170  # room on the right for the names printed beside the hubs
DASHED = {"pred_valid", "pred_invalid", "pred_unjudged"}


def graph_svg(gt: Sequence[dict[str, Any]], pred: Sequence[dict[str, Any]], verdicts: dict[int, tuple[bool | None, list[int]]] | None) -> str:
    edges = classify(gt, pred, verdicts or None)
    if not edges:
        return '<p id="graph" class="note">No triples to draw.</p>'
    pos = shared_positions(gt, [pred])
    names = entity_names(edges)
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    span_x, span_y = (x1 - x0) or 1.0, (y1 - y0) or 1.0
    width = min(WIDTH, 320 + 45 * len(pos))  # a small graph is a small picture
    room = width - 2 * PAD - LABEL_ROOM
    scale = room / span_x
    height = max(220, min(1400, int(span_y * scale + 2 * PAD)))
    scale = min(scale, (height - 2 * PAD) / span_y)

    def at(key: str) -> tuple[float, float]:
        x, y = pos[key]
        return PAD + (x - x0) * scale, PAD + (y1 - y) * scale

    degree: dict[str, int] = {}
    for e in edges:
        for key in set(e.ends):
            degree[key] = degree.get(key, 0) + 1
    parts = [f'<svg id="graph" class="graph" viewBox="0 0 {width} {height}" style="max-width:{width}px" role="img" '
             f'aria-label="{len(gt)} ground-truth and {len(pred)} predicted triples" xmlns="http://www.w3.org/2000/svg">']
    for cat in DRAW_ORDER:
        for e in (e for e in edges if e.category == cat):
            (ax, ay), (bx, by) = at(e.ends[0]), at(e.ends[1])
            dash = ' stroke-dasharray="6 4"' if cat in DASHED else ""
            if e.ends[0] == e.ends[1]:  # a triple from an entity to itself: a small loop
                path = f"M{ax:.1f},{ay:.1f} c 18,-28 36,0 0,0"
            else:
                bend = 0.15 if cat in DASHED else 0.0
                cx, cy = (ax + bx) / 2 - (by - ay) * bend, (ay + by) / 2 + (bx - ax) * bend
                path = f"M{ax:.1f},{ay:.1f} Q{cx:.1f},{cy:.1f} {bx:.1f},{by:.1f}"
            parts.append(f'<path d="{path}" fill="none" stroke="{COLOURS[cat]}" stroke-width="1.6"{dash} data-category="{cat}">'
                         f"<title>{esc(LABELS[cat])}: {esc(e.head)} — {esc(e.relation)} → {esc(e.tail)}</title></path>")
    hubs = sorted(degree, key=lambda k: -degree[k])[: max(3, len(degree) // 12)]
    for key in names:
        x, y = at(key)
        r = 3.5 + min(6.0, degree.get(key, 1) ** 0.5)
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="#1d232b" fill-opacity="0.75"><title>{esc(names[key])}</title></circle>')
        if key in hubs:
            label = names[key] if len(names[key]) <= 30 else names[key][:29] + "…"
            parts.append(f'<text x="{x + r + 2:.1f}" y="{y - r:.1f}" font-size="12" fill="#1d232b">{esc(label)}</text>')
    parts.append("</svg>")
    shown = sorted({e.category for e in edges}, key=DRAW_ORDER.index)
    legend = "".join(f'<span><i style="background:{COLOURS[c]}"></i>{esc(LABELS[c])}</span>' for c in shown)
    return "".join(parts) + f'<div class="legend">{legend}</div>'
