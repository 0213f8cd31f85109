"""Small helpers the agents share: keeping the conversation in step with what was emitted, and
turning a tool-calling history into plain chat messages for calls made without tools."""

from __future__ import annotations

from typing import Any

from ..run.conversation import Conversation, Step
from ..run.events import Emit, EventData, ToolCallEvent


def _fingerprint(convo: Conversation) -> tuple:
    last = convo.turns[-1] if convo.turns else None
    step = last.steps[-1] if last and last.steps else None
    return (
        len(convo.turns),
        len(last.steps) if last else 0,
        len(step.calls) if step else 0,
        len(step.results) if step else 0,
        len(last.notes) if last else 0,
        convo.summary,
        len(convo.usage),
    )


def tracking_emit(convo: Conversation, emit: Emit) -> Emit:
    """Wrap ``emit`` so the agent always sees its own steps in ``convo``.

    The session's emitter adds every event to the live conversation itself. A caller that only
    stores or prints events (a bare ``store.append``) does not; then this wrapper adds the event,
    so the agent's context never misses the steps of the current turn.
    """

    def wrapped(data: EventData) -> None:
        before = _fingerprint(convo)
        emit(data)
        if _fingerprint(convo) == before:
            convo.add(data)

    return wrapped


def open_turn_steps(convo: Conversation) -> list[Step]:
    """The steps already stored of the dialogue turn the agent is answering (a resumed run).

    Empty for a fresh turn. An agent continues after these: it makes no stored tool call again
    and only runs the calls whose result is missing.
    """
    turn = convo.turns[-1] if convo.turns else None
    if turn is None or turn.phase != "dialogue" or turn.reply is not None:
        return []
    return list(turn.steps)


def missing_results(steps: list[Step]) -> list[ToolCallEvent]:
    """Tool calls of ``steps`` that have no stored result, in call order."""
    return [c for step in steps for c in step.calls if c.call_id not in step.results]


def plain_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same context without native tool messages (for a call that offers no tools).

    Some providers refuse a history with tool calls when the request declares no tools, so tool
    calls and results are written out as text. Consecutive messages of one role are merged.
    """
    out: list[dict[str, Any]] = []

    def put(role: str, text: str) -> None:
        if role == "assistant" and not text.strip():
            return  # an empty assistant turn is refused by some providers and says nothing
        if out and out[-1]["role"] == role and role != "system":
            out[-1]["content"] = f"{out[-1]['content']}\n\n{text}".strip()
        else:
            out.append({"role": role, "content": text})

    for msg in messages:
        role = msg.get("role")
        content = msg.get("content") or ""
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if role == "assistant" and msg.get("tool_calls"):
            lines = [content] if content else []
            for call in msg["tool_calls"]:
                fn = call.get("function", {})
                lines.append(f"[called tool {fn.get('name')} with {fn.get('arguments')}]")
            put("assistant", "\n".join(lines))
        elif role == "tool":
            put("user", f"[result of tool {msg.get('name', '')}]\n{content}")
        else:
            put(str(role), content)
    return out


def transcript(messages: list[dict[str, Any]], tool_chars: int | None = None) -> str:
    """A readable text rendering of an agent context (for summarising it)."""
    parts: list[str] = []
    for msg in messages:
        role = msg.get("role")
        content = msg.get("content") or ""
        if role == "tool":
            if tool_chars is not None and len(content) > tool_chars:
                content = content[:tool_chars] + f" [... {len(content) - tool_chars} characters left out]"
            parts.append(f"TOOL RESULT ({msg.get('name', '')}):\n{content}")
        elif role == "assistant":
            if content:
                parts.append(f"ASSISTANT:\n{content}")
            for call in msg.get("tool_calls") or []:
                fn = call.get("function", {})
                parts.append(f"ASSISTANT CALLED {fn.get('name')}: {fn.get('arguments')}")
        elif role == "user":
            parts.append(f"USER:\n{content}")
    return "\n\n".join(parts)


def ends_with_question(text: str) -> bool:
    """True when a reply ends by asking the user something."""
    tail = text.rstrip().rstrip("*_)\"'”」 \n")
    return tail.endswith(("?", "？", "吗", "呢"))
