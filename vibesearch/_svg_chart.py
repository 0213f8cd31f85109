"""Small charts drawn as inline SVG: grouped bars (upright or lying) and a scatter of points.

The HTML report draws its figures with these, the way the static site draws its graph picture
(``site._svg``): plain SVG in the page, no script, nothing fetched, a ``<title>`` on every bar and
point (shown on hover) and every text escaped. Values are on a fixed 0..``top`` axis (the report's
are percentages, 0..100); a ``None`` value draws nothing.
"""

from __future__ import annotations

import html
from typing import Sequence

# plotly's first colours, so the report's series keep the colours they had
PALETTE = ("#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3", "#ff6692", "#b6e880", "#ff97ff", "#fecb52")
STYLE = """figure.chart{margin:1em 0}figure.chart svg{width:100%;max-width:900px;height:auto;font:12px system-ui,sans-serif}
figure.chart figcaption{font-weight:600;margin-bottom:4px}.legend span{margin-right:1em;font-size:13px}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}"""
WIDTH = 900
TICKS = 5
LABEL = 28  # characters of a category shown under its bars (all of it on hover)


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _short(text: str, room: int) -> str:
    return text if len(text) <= room else text[: room - 1] + "…"


def _legend(names: Sequence[str]) -> str:
    if len(names) < 2:
        return ""
    spans = "".join(f'<span><i style="background:{PALETTE[k % len(PALETTE)]}"></i>{_esc(n)}</span>' for k, n in enumerate(names))
    return f'<div class="legend">{spans}</div>'


def _figure(chart_id: str, title: str, width: int, height: int, body: list[str], legend: str) -> str:
    return (f'<figure class="chart" id="{_esc(chart_id)}"><figcaption>{_esc(title)}</figcaption>'
            f'<svg viewBox="0 0 {width} {height}" role="img" aria-label="{_esc(title)}" xmlns="http://www.w3.org/2000/svg">'
            + "".join(body) + f"</svg>{legend}</figure>")


def _value_axis(top: float, length: float, at: str, label: str, *, upright: bool, x0: float, y0: float, across: float) -> list[str]:
    """Grid lines and tick labels for 0..top; ``at`` formats the tick values."""
    out = []
    for k in range(TICKS + 1):
        v = top * k / TICKS
        p = length * k / TICKS
        if upright:  # value grows upwards from (x0, y0)
            y = y0 - p
            out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + across}" y2="{y:.1f}" stroke="#e5e5e5"/>'
                       f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#444">{at.format(v)}</text>')
        else:  # value grows rightwards from (x0, y0)
            x = x0 + p
            out.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y0 + across}" stroke="#e5e5e5"/>'
                       f'<text x="{x:.1f}" y="{y0 + across + 16}" text-anchor="middle" fill="#444">{at.format(v)}</text>')
    if upright:
        out.append(f'<text transform="translate(14,{y0 - length / 2:.1f}) rotate(-90)" text-anchor="middle" fill="#222">{_esc(label)}</text>')
    else:
        out.append(f'<text x="{x0 + length / 2:.1f}" y="{y0 + across + 34}" text-anchor="middle" fill="#222">{_esc(label)}</text>')
    return out


def bar_chart(chart_id: str, title: str, categories: Sequence[str], series: Sequence[tuple[str, Sequence[float | None]]], *,
              value_title: str, category_title: str = "", notes: Sequence[str] | None = None, top: float = 100.0) -> str:
    """Upright bars: one group per category, one bar per series in it. ``notes`` (one per
    category, single series) is added to each bar's hover text."""
    left, right, head, foot = 60, 20, 16, 40 + min(110, 6 * max((len(c) for c in categories), default=0))
    height = 340 + foot
    plot_w, plot_h = WIDTH - left - right, height - head - foot
    base = head + plot_h
    body = _value_axis(top, plot_h, "{:.0f}", value_title, upright=True, x0=left, y0=base, across=plot_w)
    slot = plot_w / max(1, len(categories))
    bar = min(slot * 0.8 / max(1, len(series)), 70.0)
    group = bar * len(series)
    for i, category in enumerate(categories):
        cx = left + slot * (i + 0.5)
        for k, (name, values) in enumerate(series):
            v = values[i]
            if v is None:
                continue
            h = plot_h * max(0.0, min(v, top)) / top
            x = cx - group / 2 + bar * k
            tip = f"{name} · {category}: {v:.1f}" if len(series) > 1 else f"{category}: {v:.1f}"
            if notes:
                tip += f" ({notes[i]})"
            body.append(f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{bar:.1f}" height="{h:.1f}" fill="{PALETTE[k % len(PALETTE)]}">'
                        f"<title>{_esc(tip)}</title></rect>")
        body.append(f'<text transform="translate({cx:.1f},{base + 14}) rotate(-30)" text-anchor="end" fill="#444">'
                    f"{_esc(_short(category, LABEL))}<title>{_esc(category)}</title></text>")
    body.append(f'<line x1="{left}" y1="{base}" x2="{left + plot_w}" y2="{base}" stroke="#888"/>')
    if category_title:
        body.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle" fill="#222">{_esc(category_title)}</text>')
    return _figure(chart_id, title, WIDTH, height, body, _legend([name for name, _ in series]))


def hbar_chart(chart_id: str, title: str, categories: Sequence[str], values: Sequence[float | None], *,
               value_title: str, notes: Sequence[str] | None = None, top: float = 100.0) -> str:
    """Lying bars, one per category, the first at the top."""
    left, right, head, row = 230, 30, 10, 22
    plot_w, plot_h = WIDTH - left - right, max(1, len(categories)) * row
    height = head + plot_h + 44
    body = _value_axis(top, plot_w, "{:.0f}", value_title, upright=False, x0=left, y0=head, across=plot_h)
    for i, (category, v) in enumerate(zip(categories, values)):
        y = head + row * i
        body.append(f'<text x="{left - 6}" y="{y + row * 0.65:.1f}" text-anchor="end" fill="#444">'
                    f"{_esc(_short(category, 34))}<title>{_esc(category)}</title></text>")
        if v is None:
            continue
        w = plot_w * max(0.0, min(v, top)) / top
        tip = f"{category}: {v:.1f}" + (f" ({notes[i]})" if notes else "")
        body.append(f'<rect x="{left}" y="{y + 3}" width="{w:.1f}" height="{row - 6}" fill="{PALETTE[0]}"><title>{_esc(tip)}</title></rect>')
    body.append(f'<line x1="{left}" y1="{head}" x2="{left}" y2="{head + plot_h}" stroke="#888"/>')
    return _figure(chart_id, title, WIDTH, height, body, "")


def scatter_chart(chart_id: str, title: str, series: Sequence[tuple[str, Sequence[tuple[float, float, str]]]], *,
                  x_title: str, y_title: str, top: float = 100.0) -> str:
    """Points (x, y, hover text) on 0..top both ways, one colour per series."""
    left, right, head, foot = 60, 20, 16, 50
    size = 420
    plot_w, plot_h = WIDTH - left - right, size - head - foot
    base = head + plot_h
    body = _value_axis(top, plot_h, "{:.0f}", y_title, upright=True, x0=left, y0=base, across=plot_w)
    for k in range(TICKS + 1):
        x = left + plot_w * k / TICKS
        body.append(f'<text x="{x:.1f}" y="{base + 16}" text-anchor="middle" fill="#444">{top * k / TICKS:.0f}</text>')
    body.append(f'<text x="{left + plot_w / 2:.1f}" y="{size - 8}" text-anchor="middle" fill="#222">{_esc(x_title)}</text>')
    body.append(f'<line x1="{left}" y1="{base}" x2="{left + plot_w}" y2="{base}" stroke="#888"/>')
    for k, (name, points) in enumerate(series):
        colour = PALETTE[k % len(PALETTE)]
        for x, y, text in points:
            px = left + plot_w * max(0.0, min(x, top)) / top
            py = base - plot_h * max(0.0, min(y, top)) / top
            body.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="4.5" fill="{colour}" fill-opacity="0.75">'
                        f"<title>{_esc(f'{name} · {text}: {x_title} {x:.1f}, {y_title} {y:.1f}')}</title></circle>")
    return _figure(chart_id, title, WIDTH, size, body, _legend([name for name, _ in series]))
