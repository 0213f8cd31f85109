"""The scored answer table as HTML: right cells green, wrong cells red, missing gold rows greyed.

Self-contained markup with inline styles (the app drops it into an ``gr.HTML``). Each wrong cell's
tooltip shows the gold value and why it was judged wrong. Every text is escaped.
"""

from __future__ import annotations

from html import escape

from .models import CellVerdict, TableScore

_RIGHT = "background:#d9f2d9;color:#0b3d0b"
_WRONG = "background:#f8d4d4;color:#5c0a0a"
_MISSING = "background:#eeeeee;color:#777777;font-style:italic"
_STATUS = {
    "matched": "",
    "extra": "not in the gold table",
    "duplicate": "duplicate key, dropped",
    "missing": "missing from the answer",
}


def _predicted(c: CellVerdict | None) -> str:
    return (c.predicted or "") if c is not None else ""


def _cell(c: CellVerdict | None, status: str) -> str:
    if c is None:
        return "<td></td>"
    if status == "missing":
        return f'<td style="{_MISSING}" title="gold value, missing from the answer">{escape(c.gold or "")}</td>'
    tip = f"rule: {c.rule}"
    if c.gold is not None:
        tip += f"; gold: {c.gold}"
    if c.note:
        tip += f"; {c.note}"
    style = _RIGHT if c.right else _WRONG
    mark = "" if c.right else " ✗"
    return f'<td style="{style}" title="{escape(tip, quote=True)}">{escape(c.predicted or "")}{mark}</td>'


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def render_table_html(score: TableScore) -> str:
    pct = _pct
    summary = (
        f"<p><b>{'Success' if score.success else 'Not solved'}</b> · "
        f"Row-F1 {pct(score.row_f1)} (P {pct(score.row_precision)}, R {pct(score.row_recall)}) · "
        f"Item-F1 {pct(score.item_f1)} (P {pct(score.item_precision)}, R {pct(score.item_recall)}) · "
        f"judge: {escape(score.judge)}</p>"
    )
    reason = f'<p style="color:#555">{escape(score.reason)}</p>' if score.reason else ""
    if not score.columns:
        return f'<div class="vs-table-score">{summary}{reason}</div>'
    by_row: dict[int, dict[str, CellVerdict]] = {}
    for c in score.cells:
        by_row.setdefault(c.row, {})[c.column] = c
    # the row-status column only when a row is not simply matched (an empty column says nothing)
    status_col = any(rv.status != "matched" for rv in score.rows)
    head = "".join(f"<th>{escape(col)}</th>" for col in score.columns) + ("<th>row status</th>" if status_col else "")
    body = []
    for i, rv in enumerate(score.rows):
        cells = by_row.get(i, {})
        tds = "".join(_cell(cells.get(col), rv.status) for col in score.columns)
        label = _STATUS.get(rv.status, rv.status)
        if rv.status == "duplicate":
            tds = "".join(f'<td style="{_MISSING}">{escape(_predicted(cells.get(col)))}</td>' for col in score.columns)
        extra = f'<td style="color:#555">{escape(label or "✓ matched")}</td>' if status_col else ""
        body.append(f'<tr data-status="{rv.status}">{tds}{extra}</tr>')
    table = (
        '<table style="border-collapse:collapse" border="1" cellpadding="4">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )
    return f'<div class="vs-table-score">{summary}{reason}{table}</div>'
