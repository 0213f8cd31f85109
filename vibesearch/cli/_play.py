"""Terminal play: a person plays the persona while the agent answers (``vibesearch play``).

The persona card is printed once (and again on ``?``). Each turn shows the stage card (the stage
reached, the next stage's trigger, its line and its fallback) and the agent's reply, then asks for
a decision — d disclose (the line is pre-filled; Enter accepts it), p push, f perfunctory,
r redirect, x done — and the message; each prompt says what Enter alone sends. ``x`` ends the
conversation, and the run is scored with the configured judge (offline by default): P/R/F1 and
the missed ground-truth triples are printed.

Ctrl-C at the decision prompt leaves at once: the run is marked ``interrupted`` (no end is
written) and the command that continues it is printed (``vibesearch play --resume RUN``).
Ctrl-C while the agent works leaves at the next turn; a second Ctrl-C cancels the run outright.

The session is the ordinary one; the person is a ``HumanUser`` that the prompt feeds. The keyboard
is read in a daemon thread, so the event loop (and a shadow simulator) keeps running and a
pending read never holds the process open.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
from typing import Any, Callable

from rich.console import Console
from rich.panel import Panel

from ..config import Settings
from ..run import Agent, Decision, RunConfig, RunResult, StoredEvent, UserAway
from ..store import Store, new_run_id
from ..tasks.models import Task
from ..users import HumanUser, ShadowUser, UserTurn, shadow_agreement
from ..users import KIND_MEANING, auto_message
from ._common import db_shown
from ._counts import counts_line
from ._play_score import print_score

# the key that stands for each decision (every one of ``run.events.DECISIONS``)
DECISIONS: dict[str, Decision] = {"d": "disclose", "p": "push", "f": "perfunctory", "r": "redirect", "x": "done"}
PROMPT = "decision [" + " ".join(f"{k}={v}" for k, v in DECISIONS.items()) + " ?=persona] > "
_LEAVE = object()  # what a prompt returns when the person pressed Ctrl-C


def _input_prefilled(prompt: str, prefill: str | None) -> str:
    """input() with ``prefill`` already typed when readline is available (Enter accepts it)."""
    if not prefill:
        return input(prompt)
    try:
        import readline
    except ImportError:  # pragma: no cover - no readline: Enter on an empty line accepts the line
        return input(prompt)
    readline.set_startup_hook(lambda: readline.insert_text(prefill))
    try:
        return input(prompt)
    finally:
        readline.set_startup_hook(None)


def read_line(prompt: str, prefill: str | None = None) -> asyncio.Future[str]:
    """One line from the keyboard, read in a daemon thread (never joined: Ctrl-C need not wait for Enter)."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[str] = loop.create_future()

    def hand(setter: Callable[[Any], None], value: Any) -> None:
        if not fut.done():
            setter(value)

    def work() -> None:
        try:
            value = _input_prefilled(prompt, prefill)
        except BaseException as exc:  # noqa: BLE001 - handed to the loop (EOFError ends the run)
            outcome: tuple[Callable[[Any], None], Any] = (fut.set_exception, exc)
        else:
            outcome = (fut.set_result, value)
        try:
            loop.call_soon_threadsafe(hand, *outcome)
        except RuntimeError:  # the loop is gone: nobody waits for this line any more
            pass

    threading.Thread(target=work, name="vibesearch-play-input", daemon=True).start()
    return fut


def persona_card(task: Any) -> Panel:
    p = task.persona
    text = f"{p.background.strip()}\n\n[b]How you behave:[/b] {p.behavior.strip() or '-'}"
    return Panel(text, title=f"you are playing · {task.id}", border_style="cyan")


def stage_panel(state: dict[str, Any]) -> Panel:
    """The stage card; stages and user turns are counted from 1 (the opening is stage 1, user turn 1)."""
    lines = [
        f"[b]reached:[/b] stage {state['stage_index'] + 1} of {state['stages_total']} — {state['stage_name']}",
    ]
    if state.get("next_index") is None:
        lines.append("[b]every stage has been disclosed[/b] — press x when the agent has dealt with the last one")
    else:
        lines += [
            f"[b]next:[/b] stage {state['next_index'] + 1} — {state['next_name']}",
            f"[b]trigger ({state['trigger_kind']}):[/b] {state['trigger_condition']}",
            f"[b]line:[/b] {state['next_line']}",
            f"[b]if not met:[/b] {state.get('fallback') or '-'}",
        ]
    return Panel("\n".join(lines), title=f"stage card · user turn {state['user_turns'] + 1}", border_style="magenta")


def message_prompt(task: Task, kind: Decision, state: dict[str, Any]) -> str:
    """The message prompt for ``kind``, naming what Enter alone sends."""
    if kind == "disclose":
        return "message (Enter accepts the line) > "
    sends = auto_message(task, kind, state["stage_index"], state["user_turns"])
    return f"message (Enter sends: “{sends}”) > "


class _Keys:
    """Ctrl-C while playing: at the prompt it leaves at once; otherwise at the next prompt, and a
    second press cancels the run."""

    def __init__(self, console: Console, cancel: asyncio.Event):
        self.console = console
        self.cancel = cancel
        self.leave = asyncio.Event()
        self.at_prompt = False

    def on_interrupt(self) -> None:
        if self.at_prompt or not self.leave.is_set():
            if not self.at_prompt:
                self.console.print("\n[yellow]Ctrl-C: leaving at your next turn (Ctrl-C again cancels the run now)[/yellow]")
            self.leave.set()
            return
        self.console.print("\n[yellow]Ctrl-C again: cancelling the run[/yellow]")
        self.cancel.set()


async def _ask(console: Console, task: Task, state: dict[str, Any], keys: _Keys) -> UserTurn | object | None:
    """Prompt for one decision and message; ``_LEAVE`` on Ctrl-C, None on end of input."""

    async def line(prompt: str, prefill: str | None = None) -> str | object:
        reading = read_line(prompt, prefill)
        leaving = asyncio.ensure_future(keys.leave.wait())
        keys.at_prompt = True
        try:
            waits: set[asyncio.Future[Any]] = {reading, leaving}
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            keys.at_prompt = False
            leaving.cancel()
        if keys.leave.is_set():
            return _LEAVE
        return reading.result()

    while True:
        try:
            answer = await line(PROMPT)
        except EOFError:
            return None
        if answer is _LEAVE:
            return _LEAVE
        key = str(answer).strip().lower()[:1]
        if key == "?":
            console.print(persona_card(task))
            console.print(stage_panel(state))
            for k, meant in DECISIONS.items():
                console.print(f"  {k} {meant}: {KIND_MEANING[meant]}", highlight=False)
            continue
        kind = DECISIONS.get(key)
        if kind is None:
            console.print("type d, p, f, r or x (? shows the persona again)")
            continue
        if kind == "disclose" and state.get("next_index") is None:
            console.print("nothing left to disclose; choose p, f, r or x")
            continue
        if kind == "done":
            return UserTurn(message="", reply_kind="done", decided_by="human")
        try:
            text = await line(message_prompt(task, kind, state), state["next_line"] if kind == "disclose" else None)
        except EOFError:
            return None
        if text is _LEAVE:
            return _LEAVE
        return UserTurn(message=str(text).strip(), reply_kind=kind, stage_advanced=kind == "disclose", decided_by="human")


def _install_interrupt(loop: asyncio.AbstractEventLoop, handler: Callable[[], None]) -> bool:
    try:
        loop.add_signal_handler(signal.SIGINT, handler)
        return True
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
        return False


def _terminal_state() -> Callable[[], None]:
    """A function that puts the terminal back as it is now (a read abandoned mid-line leaves it raw)."""
    try:
        import termios

        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
    except Exception:  # noqa: BLE001 - not a terminal: nothing to restore
        return lambda: None

    def restore() -> None:
        try:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        except Exception:  # noqa: BLE001 - best effort on the way out
            pass

    return restore


def resume_command(run_id: str, settings: Settings) -> str:
    return f"vibesearch play --resume {run_id} --db {db_shown(settings.db)}"


async def play(
    config: RunConfig,
    task: Task,
    agent: Agent,
    user: HumanUser | ShadowUser,
    store: Store,
    settings: Settings,
    *,
    console: Console | None = None,
    resume_id: str | None = None,
) -> RunResult | None:
    """Play one run (``resume_id``: continue that interrupted run). None when the person left
    (the run is then ``interrupted`` and the resume command was printed)."""
    from ..session import run_session
    from ..runner import resume_run

    console = console or Console()
    cancel = asyncio.Event()
    keys = _Keys(console, cancel)
    loop = asyncio.get_running_loop()
    handled = _install_interrupt(loop, keys.on_interrupt)
    restore = _terminal_state()
    run_id = resume_id or new_run_id()

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
    if resume_id:
        console.print(f"continuing run {resume_id}", highlight=False)
        driving = resume_run(store, resume_id, settings, agent=agent, user=user, listeners=[show], cancel=cancel)
    else:
        driving = run_session(config, task, agent, user, store, settings, run_id=run_id, listeners=[show], cancel=cancel)
    session = asyncio.ensure_future(driving)
    last_request: object = -1
    try:
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
            if keys.leave.is_set():
                user.leave()
                break
            console.print(stage_panel(state))
            turn = await _ask(console, task, state, keys)
            if turn is _LEAVE:
                user.leave()
                break
            if turn is None:
                console.print("end of input: stopping the run")
                cancel.set()
                break
            assert isinstance(turn, UserTurn)
            await user.submit(turn)
        try:
            result = await session
        except UserAway:
            console.print(
                f"\nrun {run_id} interrupted: it waits for you. Continue it with:\n  {resume_command(run_id, settings)}",
                highlight=False, soft_wrap=True,
            )
            return None
    finally:
        if handled:
            loop.remove_signal_handler(signal.SIGINT)
        restore()
    console.print(
        f"run {result.run_id}: {result.status} ({result.termination}) · stages reached {result.stages_reached} of {result.stages_total} · "
        f"{counts_line(store.events(result.run_id))} · database {db_shown(settings.db)}",
        highlight=False,
    )
    if isinstance(user, ShadowUser):
        agreement = shadow_agreement(store.events(result.run_id, kinds=["stage"]))
        console.print(f"shadow agreement: {agreement['agree']}/{agreement['n']} turns", highlight=False)
    if result.termination == "done" and result.status == "finished":
        await print_score(console, store, result.run_id, task, config, settings)
    return result
