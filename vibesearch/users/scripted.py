"""Scripted users for the official harness' non-interactive modes.

* ``direct`` — one fully specified query (the task's ``final_query``; without one, the initial
  query followed by every stage line), then ``done`` once the agent has answered;
* ``staged`` — the task's ``sub_queries`` one per turn (without them, the stage lines in order),
  then ``done``. Each sub-query after the first advances the stage pointer while stages remain.
"""

from __future__ import annotations

from ..config import SCRIPTED_USER_KINDS, Settings
from ..run.config import RunConfig
from ..run.conversation import Conversation
from ..run.protocols import UserState, UserTurn
from ..run.stages import stage_step
from ..tasks.models import Task
from ._stages import DONE_SIGNAL
from .registry import UserKindInfo, register_user_kind


def direct_query(task: Task) -> str:
    if task.final_query and task.final_query.strip():
        return task.final_query.strip()
    parts = [task.persona.initial_query.strip()]
    parts += [s.line.strip() for s in task.persona.stages[1:]]
    return "\n".join(parts)


def staged_queries(task: Task) -> list[str]:
    subs = [q.strip() for q in task.sub_queries if q and q.strip()]
    return subs or [s.line for s in task.persona.stages]


class ScriptedUser:
    model: str | None = None

    def __init__(self, task: Task, mode: str):
        if mode not in ("direct", "staged"):
            raise ValueError(f"scripted user mode must be 'direct' or 'staged', got {mode!r}")
        self.task = task
        self.kind = mode
        self.queries = [direct_query(task)] if mode == "direct" else staged_queries(task)

    async def opening(self, state: UserState) -> UserTurn:
        return UserTurn(message=self.queries[0], reply_kind="open", decided_by="script")

    async def next_turn(self, convo: Conversation, state: UserState) -> UserTurn:
        # the opening was query 0; user turn k (1-based count of messages sent) sends query k
        k = state.user_turns
        if k >= len(self.queries):
            return UserTurn(DONE_SIGNAL, "done", decided_by="script", rationale=f"{self.kind}: every scripted query was sent")
        # each query after the first discloses the next stage while one is left
        step = stage_step(state.stage_index, len(self.task.persona.stages), "disclose", advance=True)
        return UserTurn(
            self.queries[k],
            step.reply_kind,
            stage_advanced=step.advanced,
            trigger_met=None,
            decided_by="script",
            rationale=f"{self.kind}: scripted query {k + 1} of {len(self.queries)}",
        )


def build_scripted(config: RunConfig, task: Task, settings: Settings) -> ScriptedUser:
    return ScriptedUser(task, config.user.kind)


for _mode in SCRIPTED_USER_KINDS:
    register_user_kind(UserKindInfo(
        name=_mode, help="", factory=build_scripted, scripted=True, same_answer=True, simulated=False,
    ))
