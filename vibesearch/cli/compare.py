"""``vibesearch compare RUN_A RUN_B``: two runs of one persona laid out by stage, and what each
covered of the ground truth (``scoring/compare.py``)."""

from __future__ import annotations

from typing import Optional

import typer
from rich.table import Table

from ._common import DbOption, JsonOption, console, fail, open_store, print_json


def compare_command(
    run_a: str = typer.Argument(..., help="the first run"),
    run_b: str = typer.Argument(..., help="the second run (the same task)"),
    judge: Optional[str] = typer.Option(None, "--judge", help="whose verdicts to compare (default: the newest judge both runs have)"),
    as_json: bool = JsonOption,
    db: Optional[str] = DbOption,
) -> None:
    """Stage alignment (the turn each stage was reached, tool calls and tokens per stage) and the
    ground truth covered in both, only in A, only in B."""
    from ..scoring.compare import CompareError, compare_runs

    store = open_store(db, writes=False)
    try:
        result = compare_runs(store, run_a, run_b, judge=judge)
    except CompareError as exc:
        fail(str(exc))
    if as_json:
        print_json(result)
        return
    a, b = result["runs"]["a"], result["runs"]["b"]
    console.print(f"task {result['task']}: A = {a['run_id']} ({a['agent']}, user {a['user']}, {a['turns']} turns) · "
                  f"B = {b['run_id']} ({b['agent']}, user {b['user']}, {b['turns']} turns)", highlight=False)
    table = Table("stage", "A reached at turn", "B reached at turn", "A tools", "B tools", "A tokens", "B tokens")
    for st in result["stages"]:
        sa, sb = st["a"], st["b"]
        table.add_row(f"{st['number']}. {st['name']}", str(sa["reached_at"] or "–"), str(sb["reached_at"] or "–"),
                      str(sa["tool_calls"]), str(sb["tool_calls"]), str(sa["tokens"]), str(sb["tokens"]))
    console.print(table)
    cov = result["coverage"]
    if cov.get("missing"):
        console.print(f"no score to compare for {', '.join(cov['missing'])} (vibesearch score RUN first)", highlight=False)
        return
    console.print(f"ground truth by {cov['judge']}: F1 A {cov['f1']['a']:.3f} · B {cov['f1']['b']:.3f}", highlight=False)
    for key, title in (("both", "covered in both"), ("only_a", "only in A"), ("only_b", "only in B"), ("neither", "in neither")):
        console.print(f"[bold]{title}[/bold] ({len(cov[key])})")
        for item in cov[key]:
            console.print(f"  #{item['number']} {item['triple']}", highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    app.command("compare")(compare_command)
