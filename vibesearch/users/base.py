"""The ``User`` protocol: whoever plays the persona.

An LLM simulator, the rule-based simulator, a scripted user and a person in the browser all
implement ``next_turn``; the session never knows which it has. The session, not the user, owns
the stage pointer: a turn may advance it by at most one stage.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from ..store.conversation import Conversation
from ..store.events import DecidedBy, Emit, ReplyKind
from ..tasks.models import Task


@dataclass
class UserState:
    task: Task
    # index of the last stage disclosed (0 = the opening question was asked)
    stage_index: int = 0
    # user messages sent so far, the opening included
    user_turns: int = 0
    # where a user records what it spends (usage and non-fatal error events); set by the session
    emit: Emit | None = None

    def copy(self, **changes) -> "UserState":
        return replace(self, **changes)

    @property
    def next_stage_index(self) -> int | None:
        nxt = self.stage_index + 1
        return nxt if nxt < len(self.task.persona.stages) else None

    @property
    def all_disclosed(self) -> bool:
        return self.next_stage_index is None


@dataclass
class UserTurn:
    message: str
    reply_kind: ReplyKind
    # did the user disclose the next stage this turn? (at most one; the session enforces it)
    stage_advanced: bool = False
    trigger_met: bool | None = None
    decided_by: DecidedBy = "simulator"
    rationale: str | None = None
    # the shadow simulator's opinion on the same turn (only beside a human)
    shadow: "UserTurn | None" = None

    @property
    def done(self) -> bool:
        return self.reply_kind == "done"


class User(Protocol):
    kind: str  # "rules" | "simulator" | "paper" | "human" | "direct" | "staged"

    async def opening(self, state: UserState) -> UserTurn:
        """The first user message (the vague initial query, or the direct query)."""
        ...

    async def next_turn(self, convo: Conversation, state: UserState) -> UserTurn: ...
