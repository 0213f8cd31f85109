"""The ``Agent`` protocol: the search agent under test.

An agent answers the latest user message in the conversation, recording everything it does
(assistant steps as ``message`` events, ``tool_call`` / ``tool_result`` events, ``usage`` and
``compaction`` events) through ``emit``. It never talks to the user object: the session hands it
the conversation and takes its reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..store.conversation import Conversation
from ..store.events import Emit


@dataclass
class AgentReply:
    text: str
    # True when the agent considers its work finished (a final answer rather than a question)
    final: bool = False


@dataclass
class GraphResult:
    triples: list[dict[str, str]]
    raw_text: str = ""
    repaired: list[str] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)


class Agent(Protocol):
    name: str  # a short label shown in tables, e.g. "react:openai/gpt-4o" or "baseline"
    description: str

    async def respond(self, convo: Conversation, emit: Emit) -> AgentReply: ...

    async def extract_graph(self, convo: Conversation, emit: Emit) -> GraphResult: ...
