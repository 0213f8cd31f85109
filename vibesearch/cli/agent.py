"""``vibesearch agent ask``: one turn of an agent under test, printed live.

Handy for checking a model, a search backend or an endpoint before a batch: the tool calls and
their results are printed as they happen, then the reply. Nothing is stored unless ``--db`` is
given; then the turn is recorded as a run of its own (status ``finished``, termination ``answer``).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from ..config import SEARCH_BACKENDS
from ._common import console, db_shown, err_console, fail, model_strings, one_line
from ._help import AGENT_NAMES, LateHelp

if TYPE_CHECKING:
    from ..config import Settings
    from ..run import Agent, RunConfig
    from ..tasks.models import Task

agent_app = typer.Typer(help="Talk to an agent under test directly, without a user simulator.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add the ``agent`` group to the main app."""
    app.add_typer(agent_app, name="agent")


def _find_task(task_id: str, extra: Optional[Path], settings: Any):
    """The task named by id (bundled, VIBESEARCH_TASKS, --tasks) or by its file path."""
    from ..tasks import load_tasks_with_problems

    if extra is not None and not extra.exists():
        fail(f"--tasks: no such file or folder: {extra}")
    candidate = Path(task_id)
    if candidate.is_file():
        tasks, problems = load_tasks_with_problems([candidate])
        if tasks:
            return tasks[0]
        fail(one_line("\n".join(str(p) for p in problems)) if problems else f"--task {task_id}: no task in that file")
    paths = [p for p in settings.task_paths() if Path(p).exists()]
    if extra is not None:
        paths.append(extra)
    tasks, problems = load_tasks_with_problems(paths)
    for task in tasks:
        if task.id == task_id:
            return task
    hint = ", ".join(sorted(t.id for t in tasks)[:15]) or "none"
    broken = [str(p) for p in problems if not p.warning][:3]
    more = ("\nproblems while loading:\n  " + "\n  ".join(broken)) if broken else ""
    fail(f"--task {task_id!r}: no such task (known ids: {hint}){more}")


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def make_printer(show: Any = None):
    """A function printing each event of an agent turn to the terminal (rich markup)."""
    from rich.markup import escape
    from rich.panel import Panel

    out = show or console

    def show_event(ev: Any) -> None:
        kind = ev.kind
        if kind == "message" and ev.role == "user" and ev.phase == "extraction":
            out.print("[dim]asking for the graph …[/dim]")
        elif kind == "message" and ev.role == "assistant":
            if ev.phase == "extraction":
                out.print(f"[dim]graph answer ({len(ev.content)} chars):[/dim] {escape(_short(ev.content, 200))}")
            elif ev.final:
                out.print(Panel(escape(ev.content or "(empty)"), title="reply", border_style="green"))
            elif ev.content.strip():
                out.print(f"[dim]step:[/dim] {escape(_short(ev.content, 300))}")
        elif kind == "tool_call":
            out.print(f"[cyan]→ {escape(ev.tool)}[/cyan] {escape(_short(ev.raw_arguments or ev.arguments))}")
        elif kind == "tool_result":
            style = "red" if ev.error else "green"
            cut = f", {ev.truncated_chars} chars cut" if ev.truncated_chars else ""
            took = f"{ev.elapsed_s:.2f}s, " if ev.elapsed_s is not None else ""
            out.print(f"[{style}]← {escape(ev.tool)}[/{style}] [dim]({took}{len(ev.content)} chars{cut})[/dim] {escape(_short(ev.content))}")
        elif kind == "usage":
            cost = f", ${ev.cost_usd:.4f}" if ev.cost_usd is not None else ""
            out.print(f"[dim]  {ev.purpose} call: {ev.input_tokens} in / {ev.output_tokens} out tokens, {ev.latency_s}s{cost}[/dim]")
        elif kind == "compaction":
            out.print(f"[yellow]context compacted: {ev.tokens_before} → {ev.tokens_after} tokens (threshold {ev.threshold})[/yellow]")
        elif kind == "error":
            out.print(f"[red]{'fatal ' if ev.fatal else ''}error ({escape(ev.source)}):[/red] {escape(_short(ev.message, 400))}")
        elif kind == "note":
            out.print(f"[dim]note: {escape(ev.text)}[/dim]")

    return show_event


@agent_app.command("ask", cls=LateHelp)
def ask(
    message: str = typer.Argument(..., help="What the user says to the agent"),
    task_id: str = typer.Option(..., "--task", help="Task id (its corpus is searched offline; its language sets the replies)"),
    agent: Optional[str] = typer.Option(None, "--agent", help=f"{AGENT_NAMES} (default: VIBESEARCH_AGENT or baseline)"),
    model: Optional[str] = typer.Option(None, "--model", help="litellm model string for the react agent", callback=model_strings),
    search: Optional[str] = typer.Option(None, "--search", help=" | ".join(SEARCH_BACKENDS)),
    tasks: Optional[Path] = typer.Option(None, "--tasks", help="Extra task file or folder to look for --task in"),
    endpoint_url: Optional[str] = typer.Option(None, "--endpoint-url", help="OpenAI-compatible base URL (endpoint agent)"),
    endpoint_model: Optional[str] = typer.Option(None, "--endpoint-model", help="Model name sent to the endpoint"),
    graph: bool = typer.Option(False, "--graph", help="Also run the final graph extraction and print the triples"),
    db: Optional[str] = typer.Option(None, "--db", help="Store the turn as a run in this database: an SQLite file or a URL (default: not stored)"),
) -> None:
    """One agent turn: print tool calls live, then the reply (and the graph with --graph)."""
    from ..config import get_settings

    settings = get_settings()
    if search is not None and search not in SEARCH_BACKENDS:
        fail(f"--search {search!r}: expected one of {', '.join(SEARCH_BACKENDS)}")
    kind = agent or settings.agent
    from ..agents.registry import find_agent_kind, agent_kind_names

    if find_agent_kind(kind) is None:
        fail(f"--agent {kind!r}: expected one of {', '.join(agent_kind_names())}")
    task = _find_task(task_id, tasks, settings)

    from ..agents import make_agent
    from ..protocol import build_config

    try:
        config = build_config(
            settings, task_id=task.id, agent=kind, agent_model=model, endpoint_url=endpoint_url, endpoint_model=endpoint_model, user="direct",
            search_backend=search,
        )
        the_agent = make_agent(config, task, settings)
    except ValueError as exc:
        fail(one_line(exc))
    except Exception as exc:  # noqa: BLE001 - e.g. a search backend without its key
        from ..llm import scrub

        fail(scrub(f"could not set up the {kind} agent: {exc}"))

    try:
        asyncio.run(_one_turn(the_agent, config, task, settings, message, graph=graph, db=db))
    except KeyboardInterrupt:
        fail("interrupted", code=130)


async def _one_turn(agent: Agent, config: RunConfig, task: Task, settings: Settings, message: str, *, graph: bool, db: Optional[str]) -> None:
    """One agent turn (and the graph with ``graph``); with ``db`` stored as a run of its own,
    opened and closed by the run lifecycle like every other run."""
    from rich.markup import escape

    from ..llm import LLMError, scrub
    from ..run import Conversation, ErrorEvent, GraphEvent, MessageEvent

    convo = Conversation()
    show = make_printer()
    emitted: list[Any] = []
    store = opened = None
    if db is not None:
        from ..session.lifecycle import open_run
        from ._common import open_store

        store = open_store(db)
        opened = open_run(store, config, task, settings, fields={"meta": {"source": "vibesearch agent ask", "agent_name": agent.name}})
    # (said once the database, if any, is open: a refused --db is the only line)
    err_console.print(f"[dim]agent: {agent.name} · task: {task.id} · search: {config.search.backend}[/dim]")

    def emit(ev: Any) -> None:
        if store is not None and opened is not None:
            store.append(opened.run_id, ev, lease=opened.lease_owner)
        convo.add(ev)
        emitted.append(ev)
        show(ev)

    def close(termination: str, detail: str, failed: bool = False) -> None:
        if store is not None and opened is not None:
            from ..session.lifecycle import close_run
            from ..store.leases import release, run_key

            try:
                close_run(store, opened.run_id, termination, detail, failed=failed, lease=opened.lease_owner)
            finally:
                release(store, run_key(opened.run_id), opened.lease_owner)

    emit(MessageEvent(role="user", content=message))
    try:
        await agent.respond(convo, emit)
        if graph:
            result = await agent.extract_graph(convo, emit)
            emit(GraphEvent(triples=result.triples, raw_text=result.raw_text, repaired=result.repaired, dropped=result.dropped))
            _print_graph(result)
    except LLMError as exc:
        text = scrub(str(exc))
        if store is not None:
            emit(ErrorEvent(source="agent", message=text, fatal=True))
        close("error", text[:500], failed=True)
        fail(text)
    close("answer", "one turn (vibesearch agent ask)")
    from ._counts import counts_line

    err_console.print(f"[dim]{escape(counts_line(emitted))}[/dim]", highlight=False)
    if store is not None and opened is not None:
        err_console.print(f"[dim]stored as run {opened.run_id} in {db_shown(db)}[/dim]", highlight=False)


def _print_graph(result: Any) -> None:
    from rich.table import Table

    table = Table(title=f"graph: {len(result.triples)} triples")
    for col in ("head", "relation", "tail"):
        table.add_column(col)
    for t in result.triples:
        table.add_row(t["head"], t["relation"], t["tail"])
    console.print(table)
    if result.repaired:
        console.print(f"[dim]repaired: {', '.join(result.repaired)}[/dim]")
    for d in result.dropped:
        console.print(f"[yellow]dropped[/yellow] {d.get('reason')}: {_short(d.get('item', ''), 120)}")
