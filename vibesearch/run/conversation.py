"""The conversation of a run, rebuilt from its events.

Agents and users read this; nobody writes to it directly. The session appends every event it
records with ``Conversation.add`` so the live view and a view rebuilt from the database (resume)
are the same object built the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from .events import (
    CompactionEvent,
    EventData,
    MessageEvent,
    NoteEvent,
    StageEvent,
    StoredEvent,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)


@dataclass
class Step:
    """One assistant LLM call: its text and the tool calls it made, with their results."""

    content: str = ""
    thinking: str | None = None
    calls: list[ToolCallEvent] = field(default_factory=list)
    results: dict[str, ToolResultEvent] = field(default_factory=dict)
    final: bool = False


@dataclass
class Turn:
    """A user message followed by the assistant steps answering it."""

    user: str
    steps: list[Step] = field(default_factory=list)
    phase: str = "dialogue"
    # notes recorded during the turn (e.g. the agent's step limit), so a resumed turn knows them
    notes: list[NoteEvent] = field(default_factory=list)
    # the turn's model calls, compactions and notes in the order they happened (what an agent that
    # steers by the sizes the provider reported reads back)
    log: list[UsageEvent | CompactionEvent | NoteEvent] = field(default_factory=list)

    @property
    def reply(self) -> str | None:
        """The assistant's reply to the user in this turn (last final step), if any."""
        for step in reversed(self.steps):
            if step.final:
                return step.content
        return None


@dataclass
class Conversation:
    turns: list[Turn] = field(default_factory=list)
    # agent-side context compaction: the latest summary and the turn index it covers up to
    summary: str | None = None
    summary_upto: int = 0  # number of turns (and steps of the last) that the summary replaces
    summary_steps: int = 0
    stage_index: int = 0  # the stage pointer (0 = opening stage disclosed)
    stage_events: list[StageEvent] = field(default_factory=list)
    usage: list[UsageEvent] = field(default_factory=list)
    compactions: int = 0  # compactions made so far
    # agent_messages() of finished turns (they no longer change), by turn index
    _turn_messages: dict[int, list[dict[str, Any]]] = field(default_factory=dict, repr=False, compare=False)
    # the agent_messages() of the finished turns: (what the summary covers, turns in, messages)
    _finished: tuple[tuple[bool, int, int], int, list[dict[str, Any]]] | None = field(default=None, repr=False, compare=False)

    # ---------------------------------------------------------------- building
    def add(self, data: EventData) -> None:
        if isinstance(data, MessageEvent):
            if data.role == "user":
                self.turns.append(Turn(user=data.content, phase=data.phase))
            elif data.role == "assistant":
                if not self.turns:
                    self.turns.append(Turn(user=""))
                self.turns[-1].steps.append(Step(content=data.content, thinking=data.thinking, final=data.final))
        elif isinstance(data, ToolCallEvent):
            if self.turns and self.turns[-1].steps:
                self.turns[-1].steps[-1].calls.append(data)
        elif isinstance(data, ToolResultEvent):
            for step in reversed(self.turns[-1].steps if self.turns else []):
                if any(c.call_id == data.call_id for c in step.calls):
                    step.results[data.call_id] = data
                    break
        elif isinstance(data, CompactionEvent):
            self.compactions += 1
            if self.turns:
                self.turns[-1].log.append(data)
            self.summary = data.summary
            self.summary_upto = len(self.turns)
            self.summary_steps = len(self.turns[-1].steps) if self.turns else 0
        elif isinstance(data, StageEvent):
            self.stage_events.append(data)
            if not data.shadow:
                self.stage_index = data.stage_index
        elif isinstance(data, UsageEvent):
            self.usage.append(data)
            if self.turns:
                self.turns[-1].log.append(data)
        elif isinstance(data, NoteEvent):
            if self.turns:
                self.turns[-1].notes.append(data)
                self.turns[-1].log.append(data)

    @classmethod
    def from_events(cls, events: Iterable[StoredEvent | EventData]) -> "Conversation":
        convo = cls()
        for ev in events:
            convo.add(ev.data if isinstance(ev, StoredEvent) else ev)
        return convo

    # ---------------------------------------------------------------- views
    def dialogue(self, phase: str = "dialogue") -> list[dict[str, str]]:
        """The visible conversation: user messages and the assistant's replies to them."""
        out: list[dict[str, str]] = []
        for turn in self.turns:
            if turn.phase != phase:
                continue
            out.append({"role": "user", "content": turn.user})
            reply = turn.reply
            if reply is not None:
                out.append({"role": "assistant", "content": reply})
        return out

    def last_reply(self) -> str | None:
        for turn in reversed(self.turns):
            if turn.phase == "dialogue" and turn.reply is not None:
                return turn.reply
        return None

    def user_turns(self) -> int:
        return sum(1 for t in self.turns if t.phase == "dialogue")

    def agent_messages(
        self,
        summary_view: Callable[[str], list[dict[str, Any]]] | None = None,
        step_view: Callable[[Step], list[dict[str, Any]]] | None = None,
    ) -> list[dict[str, Any]]:
        """The agent's own working context as OpenAI-style chat messages (no system prompt).

        After a compaction, everything the summary replaced is left out and the summary stands
        in its place: as one user message, or as the messages ``summary_view(summary)`` gives.
        ``step_view``: how a step is written as messages (default ``step_messages``).
        """
        msgs: list[dict[str, Any]] = []
        if self.summary is not None and summary_view is not None:
            msgs.extend(summary_view(self.summary))
        elif self.summary is not None:
            msgs.append({"role": "user", "content": f"[Summary of the conversation and research so far]\n{self.summary}"})
        if step_view is not None:  # another agent's layout: written afresh (the caches hold ours)
            for ti in range(len(self.turns)):
                msgs.extend(self._turn_view(ti, step_view=step_view))
            return msgs
        last = len(self.turns) - 1
        msgs.extend(map(dict, self._finished_messages(last)))  # copies: callers may edit what they get
        if last >= 0:
            msgs.extend(self._turn_view(last))
        return msgs

    def _finished_messages(self, upto: int) -> list[dict[str, Any]]:
        """The messages of the turns before ``upto`` (finished: they no longer change), kept and
        extended as turns finish; built again when a compaction changes what is shown."""
        key = (self.summary is not None, self.summary_upto, self.summary_steps)
        cached = self._finished
        if cached is None or cached[0] != key or cached[1] > upto:
            cached = self._finished = (key, 0, [])
        _, done, msgs = cached
        for ti in range(done, upto):
            msgs.extend(self._turn_view(ti, finished=True))
        if upto > done:
            self._finished = (key, upto, msgs)
        return msgs

    def _turn_view(
        self, ti: int, *, finished: bool = False, step_view: Callable[[Step], list[dict[str, Any]]] | None = None
    ) -> list[dict[str, Any]]:
        """Turn ``ti`` as the agent sees it: nothing when the summary replaced it, only its steps
        after the summary when it replaced part of it, else the user message and every step."""
        turn = self.turns[ti]
        view = step_view or step_messages
        if self.summary is not None and ti < self.summary_upto - 1:
            return []
        if self.summary is not None and ti == self.summary_upto - 1:  # partially summarised
            return [m for step in turn.steps[self.summary_steps :] for m in view(step)]
        if step_view is not None:
            return [{"role": "user", "content": turn.user}, *(m for step in turn.steps for m in view(step))]
        cached = self._turn_messages.get(ti) if finished else None
        if cached is None:
            cached = [m for step in turn.steps for m in step_messages(step)]
            if finished:
                self._turn_messages[ti] = cached
        return [{"role": "user", "content": turn.user}, *cached]


def step_messages(step: Step) -> list[dict[str, Any]]:
    """A step as our agents send it back: the assistant message (null content when it only called
    tools) and one ``tool`` message per call, named."""
    msg: dict[str, Any] = {"role": "assistant", "content": step.content or None}
    if step.calls:
        msg["tool_calls"] = [
            {
                "id": c.call_id,
                "type": "function",
                "function": {
                    "name": c.tool,
                    "arguments": c.raw_arguments if c.raw_arguments is not None else json.dumps(c.arguments, ensure_ascii=False),
                },
            }
            for c in step.calls
        ]
    out = [msg]
    for c in step.calls:
        res = step.results.get(c.call_id)
        out.append(
            {
                "role": "tool",
                "tool_call_id": c.call_id,
                "name": c.tool,
                "content": res.content if res is not None else "Error: the tool call did not return (interrupted).",
            }
        )
    return out
