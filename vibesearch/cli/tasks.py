"""``vibesearch tasks``: list, show, validate and export tasks.

Only the task package, typer and rich are imported here, so these commands start fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional, TypedDict

import typer

from ._common import JsonOption, console, fail, print_json

tasks_app = typer.Typer(help="List, inspect, validate and export tasks (ours and the official format).", no_args_is_help=True)

TasksOption = typer.Option(None, "--tasks", help="Task file or folder (default: bundled personas/ plus VIBESEARCH_TASKS)")


class _TaskRow(TypedDict):
    id: str
    subset: str
    language: str
    stages: int
    triples: int
    corpus_docs: int | None


def register(app: typer.Typer) -> None:
    """Add the ``tasks`` group to the main app."""
    app.add_typer(tasks_app, name="tasks")


def _paths(paths: Optional[List[Path]]) -> list[Path]:
    if paths:
        missing = [p for p in paths if not p.exists()]
        if missing:
            fail(f"no such file or folder: {missing[0]}")
        return list(paths)
    from ..config import get_settings

    return get_settings().task_paths()


def _echo_problem(problem, *, err: bool = False) -> None:
    label = "warning: " if problem.warning else ""
    typer.echo(f"{label}{problem}", err=err)


def _corpus_size(task) -> int | None:
    from ..tasks import TaskLoadError, load_corpus

    try:
        return len(load_corpus(task))
    except TaskLoadError:
        return None


@tasks_app.command("list")
def list_tasks(
    path: Optional[List[Path]] = typer.Argument(None, help="Task files or folders"),
    as_json: bool = JsonOption,
) -> None:
    """Table of the tasks found: id, subset, language, stages, triples, corpus documents."""
    from ..tasks import load_tasks_with_problems

    tasks, problems = load_tasks_with_problems(_paths(path))
    rows: list[_TaskRow] = [
        {
            "id": t.id,
            "subset": t.subset,
            "language": t.language,
            "stages": t.stage_count(),
            "triples": len(t.graph),
            "corpus_docs": _corpus_size(t),
        }
        for t in sorted(tasks, key=lambda t: t.id)
    ]
    errors = [p for p in problems if not p.warning]
    for problem in problems:
        _echo_problem(problem, err=True)
    if as_json:
        print_json(rows)
    else:
        from rich.table import Table

        from rich import box

        table = Table(title=f"{len(rows)} task(s)", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
        table.add_column("id", no_wrap=True, min_width=min(40, max((len(r["id"]) for r in rows), default=2)))
        table.add_column("subset")
        table.add_column("language")
        for name in ("stages", "triples", "corpus docs"):
            table.add_column(name, justify="right")
        for r in rows:
            docs = "-" if r["corpus_docs"] is None else str(r["corpus_docs"])
            table.add_row(r["id"], r["subset"], r["language"], str(r["stages"]), str(r["triples"]), docs)
        console.print(table)
    if errors:
        raise typer.Exit(1)


def _get_task_or_fail(task_id: str, tasks: Optional[List[Path]]):
    """The task with this id, or a clear error (and every problem that kept it from loading)."""
    from ..tasks import TaskLoadError, TaskNotFound, get_task

    try:
        return get_task(task_id, _paths(tasks))
    except TaskNotFound as exc:
        fail(str(exc))
    except TaskLoadError as exc:
        for problem in exc.problems:
            _echo_problem(problem, err=True)
        fail(f"could not load task {task_id!r} (see the problems above)")


@tasks_app.command("show")
def show_task(
    task_id: str = typer.Argument(..., metavar="ID", help="Task id"),
    tasks: Optional[List[Path]] = TasksOption,
    as_json: bool = JsonOption,
) -> None:
    """The persona card and its stages (trigger, line, fallback, cues)."""
    task = _get_task_or_fail(task_id, tasks)
    if as_json:
        print_json(task.model_dump(mode="json"))
        return
    from ._task_view import render_task

    console.print(render_task(task, corpus_docs=_corpus_size(task)))


@tasks_app.command("validate")
def validate(paths: List[Path] = typer.Argument(..., help="Task files or folders")) -> None:
    """Check task files; print one line per problem (exit 1) or a one-line OK summary."""
    from ..tasks import TaskLoadError, TaskProblem, iter_task_files, load_corpus, load_tasks_with_problems

    tasks, problems = load_tasks_with_problems(paths)
    for task in tasks:
        try:
            load_corpus(task)
        except TaskLoadError as exc:
            problems.extend(exc.problems)
    files = iter_task_files(paths)
    if not files and not problems:
        problems.append(TaskProblem(", ".join(str(p) for p in paths), "", "no task files found (.json, .jsonl, .yaml, .yml)"))
    errors = [p for p in problems if not p.warning]
    for problem in errors:
        _echo_problem(problem)
    for problem in problems:
        if problem.warning:
            _echo_problem(problem)
    if errors:
        raise typer.Exit(1)
    warnings = len(problems) - len(errors)
    stages = sum(t.stage_count() for t in tasks)
    triples = sum(len(t.graph) for t in tasks)
    note = f", {warnings} warning(s)" if warnings else ""
    typer.echo(f"OK: {len(tasks)} task(s) in {len(files)} file(s), {stages} stages, {triples} triples{note}")


@tasks_app.command("export")
def export(
    task_id: str = typer.Argument(..., metavar="ID", help="Task id"),
    out: Path = typer.Option(..., "--out", "-o", help="File to write (.json: one record; .jsonl: one line)"),
    tasks: Optional[List[Path]] = TasksOption,
) -> None:
    """Write a task in the official VibeSearchBench format."""
    from .._files import OutputFileError
    from ..tasks import write_official

    task = _get_task_or_fail(task_id, tasks)
    try:
        written = write_official(task, out)
    except OutputFileError as exc:
        fail(str(exc))
    typer.echo(f"wrote {written} (task {task.id}, official format)")
