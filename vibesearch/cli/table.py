"""``vibesearch table``: list WideSearch-style table tasks, show a gold table, score an answer."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from ._common import console, fail, JsonOption, model_strings, print_json

if TYPE_CHECKING:
    from ..tables import CellVerdict, TableScore

table_app = typer.Typer(help="WideSearch-style table tasks: list them, show gold tables, score answers.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add the ``table`` group to the main app."""
    app.add_typer(table_app, name="table")


def _load(path: Path, *, refused: str | None = None):
    """The table tasks of ``path`` and its problems (printed). ``refused``: a task id whose own
    error ends the command as its one ``error:`` line (the id's problem, not a second line)."""
    from ..tables import load_table_tasks_with_problems

    if not path.exists():
        fail(f"no such file or folder: {path}")
    tasks, problems = load_table_tasks_with_problems([path])
    errors = [p for p in problems if not p.warning]
    own = [p for p in errors if refused is not None and p.task_id == refused]
    if own and not any(t.id == refused for t in tasks):
        more = f" (and {len(errors) - 1} more problem(s): `vibesearch tasks validate {path}`)" if len(errors) > 1 else ""
        fail(f"{own[0]}{more}")
    for p in problems:
        typer.echo(("warning: " if p.warning else "") + str(p), err=True)
    return tasks, errors


def _find(path: Path, instance_id: str):
    tasks, errors = _load(path, refused=instance_id)
    for tt in tasks:
        if tt.id == instance_id:
            return tt
    known = ", ".join(t.id for t in tasks[:15]) or "none"
    hint = f" ({len(errors)} task file problem(s) above)" if errors else ""
    fail(f"no table task with id {instance_id!r} in {path} (known: {known}){hint}")


@table_app.command("list")
def list_tables(
    path: Optional[Path] = typer.Argument(None, help="Task file or folder (default: the bundled tables/)"),
    as_json: bool = JsonOption,
) -> None:
    """The table tasks found: id, language, columns, gold rows, corpus documents."""
    from ..config import BUNDLED_TABLE_TASKS
    from ..tables import load_table_corpus

    tasks, errors = _load(path or BUNDLED_TABLE_TASKS)
    rows = []
    for tt in sorted(tasks, key=lambda t: t.id):
        try:
            docs = len(load_table_corpus(tt))
        except Exception:  # noqa: BLE001 - a broken corpus shows as unknown here
            docs = None
        rows.append(
            {
                "id": tt.id,
                "language": tt.language,
                "origin": tt.origin,
                "columns": tt.column_names,
                "primary_key": tt.primary_key,
                "gold_rows": len(tt.gold_rows()),
                "corpus_docs": docs,
            }
        )
    if as_json:
        print_json(rows)
    else:
        from rich import box
        from rich.markup import escape
        from rich.table import Table

        table = Table(title=f"{len(rows)} table task(s)", box=box.SIMPLE_HEAD)
        for name in ("id", "lang", "origin", "columns", "key", "rows", "docs"):
            table.add_column(name)
        for r in rows:
            table.add_row(
                escape(r["id"]), r["language"], r["origin"], escape(", ".join(r["columns"])),
                escape(", ".join(r["primary_key"])), str(r["gold_rows"]), "-" if r["corpus_docs"] is None else str(r["corpus_docs"]),
            )
        console.print(table)
    if errors:
        raise typer.Exit(1)


@table_app.command("gold")
def show_gold(
    tasks_path: Path = typer.Argument(..., help="Task file or folder"),
    instance_id: str = typer.Argument(..., help="Task id (instance_id for WideSearch tasks)"),
) -> None:
    """Print a task's request and its gold table as Markdown."""
    from ..tables import gold_markdown, request_line

    tt = _find(tasks_path, instance_id)
    typer.echo(request_line(tt) + "\n\n" + gold_markdown(tt))


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


# the terminal's row table stops here: a 100,000-row answer took minutes to lay out (scored in seconds)
MAX_ROWS_SHOWN = 500


def _print_score(score: TableScore) -> None:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    verdict = "[green]SUCCESS[/green]" if score.success else "[red]not solved[/red]"
    console.print(f"[bold]{escape(score.task_id)}[/bold]  SR {1 if score.success else 0} ({verdict})  judge: {escape(score.judge)}", highlight=False)
    console.print(
        f"Row-F1  {_pct(score.row_f1)}  (precision {_pct(score.row_precision)}, recall {_pct(score.row_recall)})\n"
        f"Item-F1 {_pct(score.item_f1)}  (precision {_pct(score.item_precision)}, recall {_pct(score.item_recall)})",
        highlight=False,
    )
    console.print(f"reason: {escape(score.reason)}", soft_wrap=True, highlight=False)
    if not score.rows:
        return
    by_row: dict[int, dict[str, CellVerdict]] = {}
    for cell in score.cells:
        by_row.setdefault(cell.row, {})[cell.column] = cell
    table = Table(box=box.SIMPLE_HEAD, show_lines=False, highlight=False)
    for col in score.columns:
        table.add_column(escape(col))
    table.add_column("row")
    for i, rv in enumerate(score.rows[:MAX_ROWS_SHOWN]):
        cells = []
        for col in score.columns:
            c = by_row.get(i, {}).get(col)
            if c is None:
                cells.append("")
            elif rv.status == "missing":
                cells.append(f"[dim]{escape(c.gold or '')}[/dim]")
            elif rv.status == "duplicate":
                cells.append(f"[dim]{escape(c.predicted or '')}[/dim]")
            elif c.right:
                cells.append(f"[green]{escape(c.predicted or '')}[/green]")
            else:
                gold = f" (gold: {escape(c.gold)})" if c.gold is not None else ""
                cells.append(f"[red]{escape(c.predicted or '')}{gold}[/red]")
        status = {"matched": "ok" if rv.right else "wrong cell(s)", "extra": "not in gold", "missing": "missing", "duplicate": "duplicate, dropped"}[rv.status]
        table.add_row(*cells, status)
    console.print(table)
    if len(score.rows) > MAX_ROWS_SHOWN:  # (--json holds every row)
        console.print(f"… and {len(score.rows) - MAX_ROWS_SHOWN} more rows (--json lists them all)", highlight=False)


@table_app.command("score")
def score_answer(
    tasks_path: Path = typer.Argument(..., help="Task file or folder (ours or WideSearch's widesearch.jsonl layout)"),
    instance_id: str = typer.Argument(..., help="Task id (instance_id for WideSearch tasks)"),
    answer_file: Path = typer.Argument(..., help="File holding the answer text ('-' reads standard input)"),
    judge: str = typer.Option("offline", "--judge", help="'offline' or a litellm model string for header/key mapping and llm columns", callback=model_strings),
    as_json: bool = JsonOption,
) -> None:
    """Score one answer against one table task: SR, Row-F1, Item-F1 and every cell."""
    from ..tables import score_table

    from .._files import InputFileError, read_text

    if str(answer_file) == "-":
        answer = sys.stdin.read()
    else:
        try:
            answer = read_text(answer_file)
        except InputFileError as exc:
            fail(f"no such answer file: {answer_file}" if exc.message == "no such file" else f"the answer file {exc}")
    if "\x00" in answer:  # a cell cannot hold it (nor can a database store it): refused, never scored
        line = answer.count("\n", 0, answer.index("\x00")) + 1
        fail(f"{answer_file}: line {line}: the answer holds a NUL character (\\u0000)")
    tt = _find(tasks_path, instance_id)
    score = score_table(tt, answer, judge=judge)
    if as_json:
        out = score.headline()
        out.update(
            notes=score.notes,
            n_gold_rows=score.n_gold_rows,
            n_pred_rows=score.n_pred_rows,
            cells=[c.model_dump() for c in score.cells],
        )
        print_json(out)
    else:
        _print_score(score)
