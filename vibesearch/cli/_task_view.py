"""A readable rich rendering of one task: the persona card, then one block per stage.

Text in the cards wraps at the terminal's width in every language: rich breaks lines only at
spaces, so a Chinese sentence (no spaces) was one long word, cut off with "…"; ``Wrapped`` may
break between any two CJK characters instead (not before a closing mark such as ，。）, nor
after an opening one such as （《), and between words elsewhere as rich does."""

from __future__ import annotations

import re
from typing import Iterator

from rich.cells import cell_len, chop_cells
from rich.console import Console, ConsoleOptions, Group, JustifyMethod
from rich.measure import Measurement
from rich.panel import Panel
from rich.style import StyleType
from rich.table import Table
from rich.text import Text

from ..tasks.models import Task

KIND_STYLES = {"start": "bold green", "mentions": "cyan", "asks": "bold magenta", "completes": "yellow"}

# characters a line may break before and after: CJK ideographs, kana, hangul and their punctuation
_CJK = "\u2e80-\u2fff\u3000-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
_PIECES = re.compile(f"\\s+|[{_CJK}]|[^\\s{_CJK}]+")
_NOT_FIRST = set("，。、；：？！）》」』】〕〉”’…·%,.;:?!)]}")  # never starts a line
_NOT_LAST = set("（《「『【〔〈“‘([{")  # never ends a line


def _units(text: str, after: str = "") -> list[str]:
    """``text`` as the pieces a line may break between (spaces kept as pieces of their own);
    a line may also break after any character of ``after`` (``-`` in a task id)."""
    if after:
        split = re.compile(f"(?<=[{re.escape(after)}])")
        return [part for unit in _units(text) for part in (split.split(unit) if not unit.isspace() else [unit]) if part]
    units: list[str] = []
    glue_next = False
    for piece in _PIECES.findall(text):
        if units and not piece.isspace() and not units[-1].isspace() and (glue_next or piece[0] in _NOT_FIRST):
            units[-1] += piece
        else:
            units.append(piece)
        glue_next = not piece.isspace() and piece[-1] in _NOT_LAST
    return units


def wrap_lines(text: str, width: int, after: str = "") -> list[str]:
    """``text`` broken into lines of at most ``width`` cells (a piece wider than that is cut)."""
    width = max(1, width)
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for unit in _units(paragraph, after):
            if unit.isspace():
                line += unit if line else ""
                continue
            if cell_len(line + unit) <= width:
                line += unit
                continue
            if line.strip():
                lines.append(line.rstrip())
            line = ""
            chunks = chop_cells(unit, width) if cell_len(unit) > width else [unit]
            lines.extend(chunks[:-1])
            line = chunks[-1]
        lines.append(line.rstrip())
    return lines


class Wrapped:
    """A text that wraps at its cell's width, CJK text between characters (see the module)."""

    def __init__(self, text: str, style: StyleType = "", *, after: str = "", justify: JustifyMethod | None = None):
        self.text = text
        self.style = style
        self.after = after  # characters a line may also break after
        self.justify = justify

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        for line in wrap_lines(self.text, options.max_width, self.after):
            yield Text(line, style=self.style, no_wrap=True, overflow="crop", justify=self.justify)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        units = [u for u in _units(self.text, self.after) if not u.isspace()] or [""]
        longest = max(cell_len(line) for line in self.text.split("\n"))
        return Measurement(min(max(cell_len(u) for u in units), longest), longest).clamp(max_width=options.max_width)


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
            grid.add_row(key, Wrapped(value))
    title = Text(task.id, style="bold")
    if task.title:
        title.append(f" · {task.title}", style="")
    return Panel(grid, title=title, title_align="left", border_style="blue")


def _stage(number: int, stage) -> Panel:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column()
    grid.add_row("when", Wrapped(stage.trigger.condition))
    grid.add_row("says", Wrapped(stage.line, style="bold"))
    if stage.fallback:
        grid.add_row("else", Wrapped(stage.fallback))
    if stage.cues:
        grid.add_row("cues", Wrapped(", ".join(stage.cues), style="italic"))
    kind = stage.trigger.kind
    title = Text.assemble((f"Stage {number}", "bold"), "  ", (kind, KIND_STYLES.get(kind, "")), "  ", stage.name)
    return Panel(grid, title=title, title_align="left", border_style=KIND_STYLES.get(kind, "white").replace("bold ", ""))


def render_task(task: Task, *, corpus_docs: int | None = None) -> Group:
    return Group(_card(task, corpus_docs), *(_stage(i, s) for i, s in enumerate(task.stages, start=1)))
