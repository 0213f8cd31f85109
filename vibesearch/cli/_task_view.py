"""A readable rich rendering of one task: the persona card, then one block per stage."""

from __future__ import annotations

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..tasks.models import Task

KIND_STYLES = {"start": "bold green", "mentions": "cyan", "asks": "bold magenta", "completes": "yellow"}


def _card(task: Task, corpus_docs: int | None) -> Panel:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    kinds: dict[str, int] = {}
    for stage in task.stages:
        kinds[stage.trigger.kind] = kinds.get(stage.trigger.kind, 0) + 1
    rows = [
        ("subset", task.subset + (" (inferred)" if task.extra.get("subset_inferred") else "")),
        ("language", task.language),
        ("domain", task.domain),
        ("origin", task.origin),
        ("file", task.source_file or ""),
        ("stages", f"{task.stage_count()}  (" + ", ".join(f"{k} {n}" for k, n in kinds.items()) + ")"),
        ("triples", str(len(task.graph))),
        ("corpus", (f"{corpus_docs} documents" if corpus_docs is not None else "unreadable") + f"  ({task.corpus})" if task.corpus else ""),
        ("background", task.persona.background),
        ("behaviour", task.persona.behavior),
        ("opening query", task.persona.initial_query),
        ("final query", task.final_query or ""),
    ]
    for key, value in rows:
        if value:
            grid.add_row(key, Text(value))
    title = Text(task.id, style="bold")
    if task.title:
        title.append(f" · {task.title}", style="")
    return Panel(grid, title=title, title_align="left", border_style="blue")


def _stage(number: int, stage) -> Panel:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column()
    grid.add_row("when", Text(stage.trigger.condition))
    grid.add_row("says", Text(stage.line, style="bold"))
    if stage.fallback:
        grid.add_row("else", Text(stage.fallback))
    if stage.cues:
        grid.add_row("cues", Text(", ".join(stage.cues), style="italic"))
    kind = stage.trigger.kind
    title = Text.assemble((f"Stage {number}", "bold"), "  ", (kind, KIND_STYLES.get(kind, "")), "  ", stage.name)
    return Panel(grid, title=title, title_align="left", border_style=KIND_STYLES.get(kind, "white").replace("bold ", ""))


def render_task(task: Task, *, corpus_docs: int | None = None) -> Group:
    return Group(_card(task, corpus_docs), *(_stage(i, s) for i, s in enumerate(task.stages, start=1)))
