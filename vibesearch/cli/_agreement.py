"""How ``vibesearch labels agreement`` prints one side of the agreement report: the judges'
rows with each measure's 95% bootstrap interval in brackets, why kappa says nothing where it does
not, the splits by language, subset and relation, and alpha between annotators."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from ._common import console


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.2f}"


def _with_ci(row: dict[str, Any], measure: str, *, percent: bool = True) -> str:
    """A measure and its bootstrap interval: ``85.00 [70.00, 95.00]``; "n/a" when undefined."""
    value, ci = row.get(measure), (row.get("ci") or {}).get(measure)

    def fmt(x: float | None) -> str:
        return "n/a" if x is None else (_pct(x) if percent else f"{x:.3f}")

    return fmt(value) + (f" [{fmt(ci[0])}, {fmt(ci[1])}]" if ci else "")


def agreement_table(title: str, side: dict[str, Any]) -> None:
    """One side's judge-vs-human rows (with 95% intervals), its splits by language, subset and
    relation, why kappa says nothing where it does not, and with two or more annotators their alpha."""
    from ..scoring.verdicts import judge_label

    if not side["n_items"]:
        return
    positive = "covered" if side.get("side", "coverage") == "coverage" else "valid"

    def table_of(table_title: str, rows: list[dict[str, Any]], first: dict[str, Any]) -> None:
        table = Table(title=table_title)
        for col in (*first, "n", "agreement %", "kappa", f"precision of {positive} %", f"recall of {positive} %", "tp/fn/fp/tn"):
            table.add_column(col)
        for r in rows:
            c = r["confusion"]
            table.add_row(*(f(r) for f in first.values()), str(r["n"]), _with_ci(r, "agreement"), _with_ci(r, "kappa", percent=False),
                          _with_ci(r, "precision"), _with_ci(r, "recall"), f"{c['tp']}/{c['fn']}/{c['fp']}/{c['tn']}")
        console.print(table)

    table_of(f"{title} (95% bootstrap intervals in brackets)", side["judges"] + side["judge_vs_annotator"],
             {"judge": lambda r: judge_label(r["judge"]), "profile": lambda r: r.get("profile", ""), "against": lambda r: r["against"]})
    for r in side["judges"] + side["judge_vs_annotator"]:
        if r.get("kappa_note"):
            console.print(f"{judge_label(r['judge'])} ({r.get('profile', '')}) vs {r['against']}: {r['kappa_note']}", highlight=False)
    for r in side["judges"]:
        for key, rows in (r.get("by") or {}).items():
            table_of(f"{title}: {judge_label(r['judge'])} ({r.get('profile', '')}) against the final human label (an adjudication, else the majority), by {key}",
                     rows, {key: lambda g: str(g["group"])})
    alpha = side["human_alpha"]
    if len(side["annotators"]) >= 2:
        console.print(f"Krippendorff's alpha between annotators (nominal): {'n/a' if alpha is None else f'{alpha:.3f}'}")
