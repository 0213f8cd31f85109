"""Terminal play: a person plays the persona while the agent answers (``vibesearch play``).

Each turn shows the persona card, the stage card (the stage reached, the next stage's trigger,
its line and its fallback) and the agent's reply, then asks for a decision — d disclose (the line
is pre-filled; Enter accepts it), p push, f perfunctory, r redirect, x done — and the message.
The session is the ordinary one; the person is a ``HumanUser`` that the prompt feeds. Reading the
keyboard happens in a worker thread so the event loop (and a shadow simulator) keeps running.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.console import Console
from rich.panel import Panel

from ..config import Settings
from ..run import Agent, Decision, RunConfig, RunResult, StoredEvent
from ..session import run_session
from ..store import Store
from ..tasks.models import Task
from ..users import HumanUser, ShadowUser, UserTurn, shadow_agreement

# the key that stands for each decision (every one of ``run.events.DECISIONS``)
DECISIONS: dict[str, Decision] = {"d": "disclose", "p": "push", "f": "perfunctory", "r": "redirect", "x": "done"}
PROMPT = "decision [" + " ".join(f"{k}={v}" for k, v in DECISIONS.items()) + "] > "


def _input_prefilled(prompt: str, prefill: str) -> str:
    """input() with ``prefill`` already typed when readline is available (Enter accepts it)."""
    try:
        import readline
    except ImportError:  # pragma: no cover - no readline: Enter on an empty line accepts the line
        return input(prompt)
    readline.set_startup_hook(lambda: readline.insert_text(prefill))
    try:
        return input(prompt)
    finally:
        readline.set_startup_hook(None)


def persona_card(task: Any) -> Panel:
    p = task.persona
    text = f"{p.background.strip()}\n\n[b]How you behave:[/b] {p.behavior.strip() or '-'}"
    return Panel(text, title=f"you are playing · {task.id}", border_style="cyan")


def stage_panel(state: dict[str, Any]) -> Panel:
    lines = [
        f"[b]reached:[/b] stage {state['stage_index']} of {state['stages_total'] - 1} — {state['stage_name']}",
    ]
    if state.get("next_index") is None:
        lines.append("[b]every stage has been disclosed[/b] — press x when the agent has dealt with the last one")
    else:
        lines += [
            f"[b]next:[/b] stage {state['next_index']} — {state['next_name']}",
            f"[b]trigger ({state['trigger_kind']}):[/b] {state['trigger_condition']}",
            f"[b]line:[/b] {state['next_line']}",
            f"[b]if not met:[/b] {state.get('fallback') or '-'}",
        ]
    return Panel("\n".join(lines), title=f"stage card · user turn {state['user_turns'] + 1}", border_style="magenta")


async def _ask(console: Console, state: dict[str, Any]) -> UserTurn | None:
    """Prompt for one decision and message; None on end of input."""
    while True:
        try:
            key = (await asyncio.to_thread(input, PROMPT)).strip().lower()[:1]
        except EOFError:
            return None
        kind = DECISIONS.get(key)
        if kind is None:
            console.print("type d, p, f, r or x")
            continue
        if kind == "disclose" and state.get("next_index") is None:
            console.print("nothing left to disclose; choose p, f, r or x")
            continue
        if kind == "done":
            return UserTurn(message="", reply_kind="done", decided_by="human")
        try:
            if kind == "disclose":
                text = await asyncio.to_thread(_input_prefilled, "message (Enter accepts the line) > ", state["next_line"])
            else:
                text = await asyncio.to_thread(input, "message (Enter: a push from the fallback) > ")
        except EOFError:
            return None
        return UserTurn(message=text.strip(), reply_kind=kind, stage_advanced=kind == "disclose", decided_by="human")


async def play(
    config: RunConfig,
    task: Task,
    agent: Agent,
    user: HumanUser | ShadowUser,
    store: Store,
    settings: Settings,
    *,
    console: Console | None = None,
) -> RunResult:
    console = console or Console()
    cancel = asyncio.Event()

    def show(ev: StoredEvent) -> None:
        d = ev.data
        if d.kind == "message" and d.role == "assistant" and d.final and d.phase == "dialogue":
            console.print(Panel(d.content or "(empty reply)", title="agent", border_style="green"))
        elif d.kind == "message" and d.role == "user" and d.phase == "dialogue":
            console.print(f"[dim]you said:[/dim] {d.content}", highlight=False)
        elif d.kind == "tool_call":
            console.print(f"[dim]· {d.tool} {str(d.arguments)[:100]}[/dim]", highlight=False)
        elif d.kind == "stage" and d.shadow:
            console.print(f"[dim]shadow simulator would have: {d.reply_kind} (advance: {d.advanced})[/dim]")
        elif d.kind == "error":
            console.print(f"[red]{'fatal ' if d.fatal else ''}error ({d.source}):[/red] {d.message}", highlight=False)

    console.print(persona_card(task))
    session = asyncio.ensure_future(run_session(config, task, agent, user, store, settings, listeners=[show], cancel=cancel))
    last_request: object = -1
    while not session.done():
        waiter = asyncio.ensure_future(user.wait_pending())
        await asyncio.wait({session, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if session.done():
            waiter.cancel()
            break
        state = waiter.result()
        if not state or state.get("request") == last_request:
            await asyncio.sleep(0.02)  # the previous turn is still being taken in
            continue
        last_request = state.get("request")
        console.print(persona_card(task))
        console.print(stage_panel(state))
        turn = await _ask(console, state)
        if turn is None:
            console.print("end of input: stopping the run")
            cancel.set()
            break
        await user.submit(turn)
    result = await session
    console.print(
        f"run {result.run_id}: {result.status} ({result.termination}) · stages {result.stages_reached}/{result.stages_total} · "
        f"user turns {result.user_turns} · database {settings.db}",
        highlight=False,
    )
    if isinstance(user, ShadowUser):
        agreement = shadow_agreement(store.events(result.run_id, kinds=["stage"]))
        console.print(f"shadow agreement: {agreement['agree']}/{agreement['n']} turns", highlight=False)
    return result
