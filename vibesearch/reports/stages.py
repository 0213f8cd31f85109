"""The per-stage views (``results.stage_view``) as rows, a sentence and one HTML block.

One computation (``stage_view``), several renderings: the Markdown report takes the rows and the
stall sentence; the HTML report, the app's Leaderboard tab and the static site all show
``stages_html`` (every task, stage and run text escaped). Recall and F1 are percentages.
``stages_html`` takes the words it draws through ``say`` (the app passes its translation into the
browser's language; the report and the site write English).
"""

from __future__ import annotations

import html
from typing import Any, Callable, Sequence

RECALL_HEADERS = ["task", "stage", "triples", "recall (reached)", "runs", "recall (not reached)", "runs", "runs ended here"]
REACHED_HEADERS = ["stages reached", "runs", "mean F1"]
RECALL_NOTE = ("The ground-truth triples whose head or tail a stage's words name; recall over the runs that reached the "
               "stage and over those that did not. Stages are counted from 1 (the opening query is stage 1).")
STALL_LEAD = "Where runs stall (the stage most runs ended on without disclosing the next)"
# the columns written as numbers (right-aligned, never broken inside)
_RECALL_NUMS = {2, 3, 4, 5, 6, 7}


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.2f}"


def has_stages(view: dict[str, Any] | None) -> bool:
    return bool(view and view.get("stages"))


def recall_rows(view: dict[str, Any]) -> list[list[Any]]:
    """Recall by stage: one row per task × stage."""
    return [[r["task"], f"{r['stage']}. {r['name']}", r["triples"], _pct(r["recall_reached"]), r["runs_reached"],
             _pct(r["recall_not_reached"]), r["runs_not_reached"], r["runs_ended_here"]] for r in view["stages"]]


def reached_rows(view: dict[str, Any]) -> list[list[Any]]:
    """F1 by stages reached: one row per number of stages disclosed."""
    return [[b["stages_reached"], b["runs"], _pct(b["mean_f1"])] for b in view["f1_by_stages_reached"]]


def stall_parts(view: dict[str, Any], say: Callable[[str], str] = str) -> list[str]:
    """One phrase per task with a stall point ("none" when no run stopped short)."""
    return [say("{task}: stage {stage} ({name}, {runs} runs ended there)").format(task=t, stage=s["stage"], name=s["name"], runs=s["runs"])
            for t, s in view["stall"].items()]


def stall_text(view: dict[str, Any], say: Callable[[str], str] = str) -> str:
    return f"{say(STALL_LEAD)}: {', '.join(stall_parts(view, say)) or say('none')}."


def _table(table_id: str, headers: Sequence[str], rows: Sequence[Sequence[Any]], nums: set[int]) -> str:
    head = "".join(f"<th class='{'num' if i in nums else 'text'}'>{html.escape(h)}</th>" for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(f"<td class='{'num' if i in nums else 'text'}'>{html.escape(str(c))}</td>" for i, c in enumerate(row))
                   + "</tr>" for row in rows)
    return f"<table id='{table_id}' class='vs-stage-table'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def stages_html(view: dict[str, Any] | None, *, prefix: str = "stages", level: int = 3, say: Callable[[str], str] = str) -> str:
    """The three views as one HTML block (ids ``{prefix}-recall``, ``{prefix}-stall`` and
    ``{prefix}-f1``); a short note when no scored run has stages to show. ``say``: each fixed
    text (headings, headers, notes) as it is to be shown."""
    h = f"h{level}"
    if not has_stages(view):
        return (f"<div id='{prefix}' class='vs-stages'><p class='note' id='{prefix}-none'>"
                f"{html.escape(say('No per-stage figures: no scored run of a task with readable stages.'))}</p></div>")
    assert view is not None
    return (
        f"<div id='{prefix}' class='vs-stages'>"
        f"<{h}>{html.escape(say('Recall by stage'))}</{h}><p class='note'>{html.escape(say(RECALL_NOTE))}</p>"
        + _table(f"{prefix}-recall", [say(x) for x in RECALL_HEADERS], recall_rows(view), _RECALL_NUMS)
        + f"<p class='note' id='{prefix}-stall'>{html.escape(stall_text(view, say))}</p>"
        + f"<{h}>{html.escape(say('F1 by stages reached'))}</{h}>"
        + _table(f"{prefix}-f1", [say(x) for x in REACHED_HEADERS], reached_rows(view), {0, 1, 2})
        + "</div>"
    )
