"""A person playing the persona (the app or the terminal hands their turns in).

``next_turn`` waits on an asyncio queue; ``submit`` puts the person's ``UserTurn`` there. No
thread blocks: the session's task simply awaits. ``submit`` may be called from another event
loop or thread (a web framework's worker): it then hands the turn over thread-safely.

The person's decision (disclose / push / perfunctory / redirect / done) becomes the same stage
event a simulator's decision does, with ``decided_by="human"``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..run.conversation import Conversation
from ..run.events import DECISIONS, Decision
from ..run.protocols import UserAway, UserIdle, UserState, UserTurn
from ..run.stages import stage_step
from ..tasks.models import Task
from ._replies import auto_message
from ._stages import StageCard, stage_card


class HumanUser:
    kind = "human"
    model: str | None = None

    def __init__(self, task: Task, idle_timeout_s: float | None = None):
        self.task = task
        # None: wait for the person without a limit; else ``UserIdle`` after this long unanswered
        self.idle_timeout_s = idle_timeout_s
        # a time (``time.time()``) after which no turn is waited for (a study's time limit)
        self.deadline: float | None = None
        self._queue: asyncio.Queue[UserTurn | None] = asyncio.Queue()  # None: the person left
        self._loop: asyncio.AbstractEventLoop | None = None
        self._state: UserState | None = None
        self._last_reply: str | None = None
        self._waiting = asyncio.Event()  # set while a turn is awaited
        self.requests = 0  # how many turns have been asked for (tells one wait from the next)

    # ------------------------------------------------------------------ User protocol
    async def opening(self, state: UserState) -> UserTurn:
        self._loop = asyncio.get_running_loop()
        return UserTurn(message=self.task.persona.initial_query, reply_kind="open", decided_by="human")

    async def next_turn(self, convo: Conversation, state: UserState) -> UserTurn:
        self._loop = asyncio.get_running_loop()
        self._state = state
        self._last_reply = convo.last_reply()
        self.requests += 1
        self._waiting.set()
        wait = self.idle_timeout_s
        limited = self.deadline is not None and (wait is None or self.deadline - time.time() < wait)
        if limited:
            assert self.deadline is not None
            wait = max(0.0, self.deadline - time.time())
        try:
            turn = await asyncio.wait_for(self._queue.get(), wait)
        except TimeoutError:
            if limited:
                raise UserIdle("the time limit of the play passed") from None
            raise UserIdle(f"nobody answered for {self.idle_timeout_s:g} s") from None
        finally:
            self._waiting.clear()
            self._state = None
        if turn is None:
            raise UserAway("the person left the run")
        return self.normalise(turn, state)

    # ------------------------------------------------------------------ the UI side
    async def submit(self, turn: UserTurn) -> None:
        """Hand the person's turn in (from any loop or thread)."""
        self.submit_nowait(turn)

    def submit_nowait(self, turn: UserTurn) -> None:
        if turn.reply_kind not in DECISIONS:
            raise ValueError(f"reply_kind must be one of {', '.join(DECISIONS)}, got {turn.reply_kind!r}")
        self._put(turn)

    def leave(self) -> None:
        """The person leaves: the turn awaited now (or the next one asked for) raises ``UserAway``."""
        self._put(None)

    def _put(self, item: UserTurn | None) -> None:
        """Queue ``item`` from any loop or thread."""
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is not None and running is not loop and loop.is_running():
            loop.call_soon_threadsafe(self._queue.put_nowait, item)
        else:
            self._queue.put_nowait(item)

    @property
    def waiting(self) -> bool:
        return self._waiting.is_set()

    async def wait_pending(self) -> dict[str, Any]:
        """Wait until a turn is awaited; return ``pending_state()``."""
        await self._waiting.wait()
        return self.pending_state() or {}

    def pending_state(self) -> dict[str, Any] | None:
        """What the person is asked for now (None when no turn is awaited)."""
        if self._state is None or not self._waiting.is_set():
            return None
        card: StageCard = stage_card(self.task, self._state)
        return {**card.to_dict(), "waiting": True, "request": self.requests, "last_reply": self._last_reply}

    def normalise(self, turn: UserTurn, state: UserState) -> UserTurn:
        """The person's turn as recorded: a disclosure says the next line unless they wrote their own."""
        message = (turn.message or "").strip()
        step = stage_step(state.stage_index, len(self.task.persona.stages), turn.reply_kind, advance=turn.reply_kind == "disclose")
        kind, advanced = step.reply_kind, step.advanced
        if advanced and not message:
            message = self.task.persona.stages[step.stage_index].line
        if not message:  # an empty box: the words the card showed for this kind
            said: Decision = next((d for d in DECISIONS if d == kind and d != "disclose"), "push")
            message = auto_message(self.task, said, state.stage_index, state.user_turns)
        met: bool | None = turn.trigger_met
        if met is None:
            met = None if kind == "done" else advanced
        return UserTurn(
            message=message,
            reply_kind=kind,
            stage_advanced=advanced,
            trigger_met=met,
            decided_by="human",
            rationale=turn.rationale,
        )

