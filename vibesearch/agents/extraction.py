"""Final graph extraction (SPEC 4.3).

When the conversation is over, the agent is given an instruction (``prompts.extraction_instruction``,
English or Chinese by the task's language) asking for everything it found as a JSON array of
``{head, relation, tail}`` triples. The instruction is recorded as a user message of phase
``extraction`` and the answer as the agent's final message of that phase; ``parse_triples`` turns
the answer into a ``GraphResult`` (the session records it as the run's graph).
"""

from __future__ import annotations

from ..run.conversation import Conversation
from ..run.events import Emit, MessageEvent
from ..run.protocols import GraphResult
from ._triples import parse_triples
from .prompts import extraction_instruction

__all__ = ["extraction_instruction", "parse_triples", "ask_for_graph", "pending_instruction", "record_graph_answer"]


def pending_instruction(convo: Conversation | None) -> str | None:
    """The extraction instruction already stored and not yet answered (a resumed run), if any."""
    turn = convo.turns[-1] if convo is not None and convo.turns else None
    if turn is not None and turn.phase == "extraction" and turn.reply is None:
        return turn.user
    return None


def ask_for_graph(emit: Emit, language: str, convo: Conversation | None = None) -> str:
    """Record the extraction instruction as the user's message and return its text (a resumed
    run whose instruction is stored already goes on from it: nothing is recorded again)."""
    stored = pending_instruction(convo)
    if stored is not None:
        return stored
    instruction = extraction_instruction(language)
    emit(MessageEvent(role="user", content=instruction, phase="extraction"))
    return instruction


def record_graph_answer(emit: Emit, text: str, thinking: str | None = None) -> GraphResult:
    """Record the agent's extraction answer and parse it (never raises)."""
    emit(MessageEvent(role="assistant", content=text, thinking=thinking, phase="extraction", final=True))
    return parse_triples(text)
