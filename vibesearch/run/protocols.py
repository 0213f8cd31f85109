"""The two parts the session plays against each other: the ``Agent`` under test and the ``User``.

The session knows them only through these protocols. An agent answers the latest user message
in the conversation, recording everything it does (assistant steps, tool calls and results,
usage, compaction) through the ``emit`` it is handed; it never talks to the user. A user (an LLM
simulator, the rules, a script or a person) decides each turn; the session, not the user, owns
the stage pointer (``run.stages.stage_step``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ..tasks.models import Task
from .conversation import Conversation
from .events import DecidedBy, Emit, ReplyKind, Termination
from .tools import Toolbox



class UserAway(Exception):
    """A person left in the middle of a run (Ctrl-C at the terminal prompt). The session stops
    without writing an end and marks the run ``interrupted``, so it can be resumed later."""


class UserIdle(UserAway):
    """The person did not answer within the idle timeout (``VIBESEARCH_HUMAN_IDLE_TIMEOUT_S``): the
    session ends the run as ``abandoned`` (an ``end`` event); its owner may continue it later."""


@dataclass
class AgentReply:
    text: str
    # True when the agent considers its work finished (a final answer rather than a question)
    final: bool = False
    # set when the agent's own rules end the conversation (the official loop's "error_loop");
    # the session then goes to the extraction with this termination
    ends_conversation: Termination | None = None


@dataclass
class GraphResult:
    triples: list[dict[str, str]]
    raw_text: str = ""
    repaired: list[str] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    # how the agent's extraction ended, when its rules say ("answer", or e.g. "empty_response",
    # "context_length"): the run's profile may take it into the run's termination
    outcome: str | None = None


class Agent(Protocol):
    """The search agent under test."""

    # (read-only properties here, so that an implementation may hold narrower plain attributes)
    @property
    def kind(self) -> str:
        """"baseline" | "react" | "endpoint" (what ``RunConfig.agent.kind`` names)."""
        ...

    @property
    def model(self) -> str | None:
        """The model it runs on (None: no model, e.g. the baseline)."""
        ...

    @property
    def name(self) -> str:
        """A short label shown in tables, e.g. "react:openai/gpt-4o" or "baseline"."""
        ...

    @property
    def toolbox(self) -> Toolbox | None:
        """The tools it calls (None: none the session can reach, e.g. an external endpoint's)."""
        ...

    @property
    def resumes_open_turn(self) -> bool:
        """Can it continue a turn a resumed run left open (running only the owed tool calls)?"""
        ...

    async def respond(self, convo: Conversation, emit: Emit) -> AgentReply: ...

    async def extract_graph(self, convo: Conversation, emit: Emit) -> GraphResult: ...

    def reply_is_final(self, text: str) -> bool:
        """Is this reply a final answer (not a question to the user)? Decides a resumed turn as
        the live run decided it."""
        ...


@dataclass
class UserState:
    task: Task
    # index of the last stage disclosed (0 = the opening question was asked)
    stage_index: int = 0
    # user messages sent so far, the opening included
    user_turns: int = 0
    # where a user records what it spends (usage and non-fatal error events); set by the session
    emit: Emit | None = None

    def copy(self, **changes: Any) -> "UserState":
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
    """Whoever plays the persona."""

    @property
    def kind(self) -> str:
        """"rules" | "simulator" | "paper" | "human" | "direct" | "staged"."""
        ...

    @property
    def model(self) -> str | None:
        """The simulator model (None: no model)."""
        ...

    async def opening(self, state: UserState) -> UserTurn:
        """The first user message (the vague initial query, or the direct query)."""
        ...

    async def next_turn(self, convo: Conversation, state: UserState) -> UserTurn: ...
