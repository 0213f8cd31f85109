"""How ``vibesearch labels agreement`` prints one side of the agreement report: the judges'
rows with each measure's 95% bootstrap interval in brackets, why kappa says nothing where it does
not, Gwet's AC1 and the share of the positive label on each side, the human ceiling (people
against each other) and the prevalence of the positive label, the splits by language, subset and
relation, the open ties left out, and alpha between annotators. Every table reads at 80 columns: each comparison's measures are split over two
narrow tables (agreement and κ; precision, recall and the counts), the numbers never cut.

Also the ``--min-judge-agreement`` option of the commands that print scores (``report``,
``compare``) and how its value is chosen (the option, else ``VIBESEARCH_MIN_JUDGE_AGREEMENT``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

import typer
from rich import box
from rich.table import Table

from ._common import console, fail

if TYPE_CHECKING:
    from ..labels.judge_trust import Threshold

MinAgreementOption: Any = typer.Option(
    None, "--min-judge-agreement",
    help="Mark (†) the scores whose judge agrees with the stored human labels less than this (0.985 or 98.5, or relative to "
         "people's agreement with each other: ceiling-0.02), or was never measured against them (default: "
         "VIBESEARCH_MIN_JUDGE_AGREEMENT; unset: no marking)")


def chosen_threshold(value: Optional[str]) -> Threshold:
    """The minimum judge agreement to mark by: the option's value (a share, or ``ceiling-M``
    relative to the human ceiling), else the setting (a share)."""
    from ..labels.judge_trust import parse_threshold

    if value is None:
        from ..config import get_settings

        return get_settings().min_judge_agreement
    try:
        return parse_threshold(value)
    except ValueError as exc:
        fail(f"--min-judge-agreement: {exc}")


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.2f}"


def _with_ci(row: dict[str, Any], measure: str, *, percent: bool = True) -> str:
    """A measure and its bootstrap interval: ``85.00 [70.00, 95.00]``; "n/a" when undefined."""
    value, ci = row.get(measure), (row.get("ci") or {}).get(measure)

    def fmt(x: float | None) -> str:
        return "n/a" if x is None else (_pct(x) if percent else f"{x:.3f}")

    return fmt(value) + (f" [{fmt(ci[0])}, {fmt(ci[1])}]" if ci else "")


def _narrow(title: str, columns: list[tuple[str, str]], rows: list[list[str]]) -> Table:
    """A table that reads at 80 columns: "number" columns as wide as their longest value, never
    cut; "text" columns take the rest and wrap (long words folded)."""
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, title_justify="left")
    for i, (col, kind) in enumerate(columns):
        if kind == "text":
            table.add_column(col, overflow="fold", ratio=1)
        else:
            width = max([len(str(r[i])) for r in rows] + [len(col)])
            table.add_column(col, justify="right", no_wrap=True, min_width=width)
    for r in rows:
        table.add_row(*r)
    return table


def _two_tables(title: str, rows: list[dict[str, Any]], label: Callable[[dict[str, Any]], str], head: str, positive: str) -> None:
    """The comparisons ``rows`` in two narrow tables: n, agreement % and κ; then precision and
    recall of the positive label (%) and tp/fn/fp/tn."""
    if not rows:
        return
    first = [[label(r), str(r["n"]), _with_ci(r, "agreement"), _with_ci(r, "kappa", percent=False)] for r in rows]
    console.print(_narrow(title, [(head, "text"), ("n", "number"), ("agreement %", "number"), ("kappa", "number")], first))

    def counts(r: dict[str, Any]) -> str:
        c = r["confusion"]
        return f"{c['tp']}/{c['fn']}/{c['fp']}/{c['tn']}"

    second = [[label(r), _with_ci(r, "precision"), _with_ci(r, "recall"), counts(r)] for r in rows]
    console.print(_narrow(f"{title}: precision and recall of {positive} (%)",
                          [(head, "text"), ("precision", "number"), ("recall", "number"), ("tp/fn/fp/tn", "number")], second))


def _ac1_table(title: str, rows: list[dict[str, Any]], label: Callable[[dict[str, Any]], str], head: str, positive: str) -> None:
    """Gwet's AC1 of each comparison (its interval in brackets) and the share of ``positive`` on
    each side of it."""
    if not rows:
        return
    body = [[label(r), _with_ci(r, "ac1", percent=False), _pct((r.get("prevalence") or {}).get("human")),
             _pct((r.get("prevalence") or {}).get("judge"))] for r in rows]
    console.print(_narrow(f"{title}: Gwet's AC1 and the share of {positive} (%)",
                          [(head, "text"), ("AC1", "number"), ("people", "number"), ("judge", "number")], body))


def ceiling_lines(side: dict[str, Any]) -> list[str]:
    """The human ceiling of a side (people against each other, or why there is none) and the
    prevalence of its positive label among the final human labels, in words."""
    from ..labels.judge_trust import ceiling_text, prevalence_text

    ceiling = ceiling_text(side.get("human_ceiling"))
    return [ceiling[0].upper() + ceiling[1:], f"Prevalence: {prevalence_text(side.get('prevalence'))}"]


def agreement_table(title: str, side: dict[str, Any]) -> None:
    """One side's judge-vs-human rows (with 95% intervals), its splits by language, subset and
    relation, why kappa says nothing where it does not, the open ties left out, and with two or
    more annotators their alpha."""
    from ..judges.registry import judge_label

    if not side["n_items"]:
        return
    positive = "covered" if side.get("side", "coverage") == "coverage" else "valid"

    def who(r: dict[str, Any]) -> str:
        return f"{judge_label(r['judge'])} · {r.get('profile', '')} vs {r['against']}"

    _two_tables(f"{title} (95% bootstrap intervals in brackets)", side["judges"] + side["judge_vs_annotator"], who,
                "judge · profile vs", positive)
    _ac1_table(title, side["judges"] + side["judge_vs_annotator"], who, "judge · profile vs", positive)
    for line in ceiling_lines(side):
        console.print(line, highlight=False)
    for r in side["judges"] + side["judge_vs_annotator"]:
        if r.get("kappa_note"):
            console.print(f"{who(r)}: {r['kappa_note']}", highlight=False)
    ties = side.get("n_open_ties") or 0
    if ties:
        console.print(f"{ties} item(s) left out as open ties: the labels split evenly and nobody adjudicated them.", highlight=False)
    for r in side["judges"]:
        for key, rows in (r.get("by") or {}).items():
            _two_tables(f"{title}: {judge_label(r['judge'])} ({r.get('profile', '')}) against the final human label, by {key}",
                        rows, lambda g: str(g["group"]), key, positive)
    alpha = side["human_alpha"]
    if len(side["annotators"]) >= 2:
        console.print(f"Krippendorff's alpha between annotators (nominal): {'n/a' if alpha is None else f'{alpha:.3f}'}")
