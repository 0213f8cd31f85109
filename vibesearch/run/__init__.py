"""The run's domain model: what a run is made of, independent of where it is stored.

* ``config`` — ``RunConfig``, one typed description of a run (stored with it);
* ``events`` — the typed events (a discriminated union on ``kind``) and the turn vocabulary;
* ``conversation`` — the ``Conversation`` view rebuilt from the events (what agents and users read);
* ``transcript`` — the ``Transcript`` every surface reads (turns → steps → tool calls and results,
  usage, stage decisions, notes) and the one counting rule (``Tally`` → ``Counts``);
* ``protocols`` — the ``Agent`` and ``User`` the session plays, ``AgentReply``, ``GraphResult``,
  ``UserTurn``, ``UserState``;
* ``stages`` — the stage pointer rule; ``tools`` — the ``Toolbox`` protocol and
  ``execute_tool_call``; ``result`` — ``RunResult``, the status vocabulary (``RunStatus``) and
  the sets of statuses derived from it.

It imports nothing of the product but ``config`` and ``tasks``.
"""

from .config import PROTOCOLS, AgentSpec, JudgeSpec, Limits, ProtocolProfile, RunConfig, Sampling, SearchSpec, UserSpec
from .conversation import Conversation, Step, Turn
from .events import (
    DECISIONS,
    REPLY_KINDS,
    CompactionEvent,
    DecidedBy,
    Decision,
    Emit,
    EndEvent,
    ErrorEvent,
    EventData,
    GraphEvent,
    MessageEvent,
    NoteEvent,
    ReplyKind,
    StageEvent,
    StoredEvent,
    Termination,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
    WebEvent,
    parse_event,
)
from .protocols import Agent, AgentReply, GraphResult, User, UserAway, UserIdle, UserState, UserTurn
from .result import CONTINUABLE, RESUMABLE, RUN_STATUSES, STATUS_OF, STOPPABLE, PartFailed, RunResult, RunStatus, status_after
from .stages import StageStep, stage_step
from .tools import Toolbox, ToolOutput, execute_tool_call, tool_names
from .transcript import Counts, Tally, Transcript

__all__ = [
    "CONTINUABLE",
    "PROTOCOLS",
    "RESUMABLE",
    "RUN_STATUSES",
    "STOPPABLE",
    "RunStatus",
    "status_after",
    "DECISIONS",
    "REPLY_KINDS",
    "STATUS_OF",
    "Agent",
    "AgentReply",
    "AgentSpec",
    "CompactionEvent",
    "Conversation",
    "Counts",
    "DecidedBy",
    "Decision",
    "Emit",
    "EndEvent",
    "ErrorEvent",
    "EventData",
    "execute_tool_call",
    "GraphEvent",
    "GraphResult",
    "JudgeSpec",
    "Limits",
    "MessageEvent",
    "NoteEvent",
    "parse_event",
    "PartFailed",
    "ProtocolProfile",
    "ReplyKind",
    "RunConfig",
    "RunResult",
    "Sampling",
    "SearchSpec",
    "stage_step",
    "StageEvent",
    "StageStep",
    "Step",
    "StoredEvent",
    "Tally",
    "Termination",
    "tool_names",
    "Toolbox",
    "Transcript",
    "ToolCallEvent",
    "ToolOutput",
    "ToolResultEvent",
    "Turn",
    "UsageEvent",
    "WebEvent",
    "User",
    "UserSpec",
    "UserAway",
    "UserIdle",
    "UserState",
    "UserTurn",
]
