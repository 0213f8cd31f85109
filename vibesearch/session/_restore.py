"""Where a run stands, read off its stored events (used to continue an interrupted run).

The session writes events in a fixed order (see docs/architecture.md), so the last events tell
what was happening when the process stopped:

* nothing stored yet → start with the opening;
* a user stage decision without the user message after it → that message is still owed;
* the last user message not yet answered by a final assistant step → the agent's turn is open;
  the agent continues it from its stored steps (tool calls with a stored result are not made
  again; those without one are owed a result);
* answered → the session decides on the reply as the live run did, then the user's turn;
* an ``end`` whose termination is ``abandoned`` is passed over (the owner continues such a run);
* extraction begun, or a termination recorded on the run → only extraction and the end remain
  (an extraction whose instruction is stored continues from there; a stored graph is not made again).

Since the recorder writes each group of events that belong together in one transaction (a
model call's usage with its result, a stage decision with the user's message, a step with all its
tool calls, the extraction answer with the graph), a killed process leaves one of these positions
and the resumed run's events equal those of a run never interrupted. Runs written before that
may also stop inside a group; they resume too, as best they can.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..run.conversation import Conversation
from ..run.events import EndEvent, GraphEvent, MessageEvent, StageEvent, StoredEvent, ToolCallEvent, ToolResultEvent

Phase = Literal["open", "open_message", "user_message", "agent", "user", "finish"]


class RunAlreadyEnded(RuntimeError):
    pass


@dataclass
class Position:
    phase: Phase
    termination: str | None = None
    # the stage decision whose user message was not written (phase "user_message"/"open_message")
    dangling: StageEvent | None = None
    # the stage pointer before that decision
    pointer_before: int = 0
    # tool calls of the open agent turn that never got a result
    unanswered: list[ToolCallEvent] = field(default_factory=list)
    # the graph is stored already: only the end remains
    graph_stored: bool = False


def locate(events: list[StoredEvent], termination: str | None = None) -> Position:
    # a run a person abandoned (an ``end`` with termination "abandoned") may be continued: that
    # end is history, the run goes on from the events before it
    events = [e for e in events if not (isinstance(e.data, EndEvent) and e.data.termination == "abandoned")]
    data = [e.data for e in events]
    if any(isinstance(d, EndEvent) for d in data):
        raise RunAlreadyEnded("the run has already ended")
    if not data:
        return Position("open")
    if termination or any(isinstance(d, MessageEvent) and d.phase == "extraction" for d in data):
        return Position("finish", termination=termination, graph_stored=any(isinstance(d, GraphEvent) for d in data))

    last_user = max((i for i, d in enumerate(data) if isinstance(d, MessageEvent) and d.role == "user"), default=-1)
    primary = [(i, d) for i, d in enumerate(data) if isinstance(d, StageEvent) and not d.shadow]
    if primary and primary[-1][0] > last_user:
        i, stage = primary[-1]
        before = primary[-2][1].stage_index if len(primary) >= 2 else 0
        phase: Phase = "open_message" if stage.reply_kind == "open" else "user_message"
        return Position(phase, dangling=stage, pointer_before=before)
    if last_user < 0:  # events but no opening decision (cannot happen with our writer)
        return Position("open")
    if primary and primary[-1][1].reply_kind == "done":
        return Position("finish", termination="done")

    convo = Conversation.from_events(events)
    turn = convo.turns[-1]
    if turn.reply is None:
        answered = {cid for step in turn.steps for cid in step.results}
        results = {d.call_id for d in data[last_user:] if isinstance(d, ToolResultEvent)}
        unanswered = [
            c for step in turn.steps for c in step.calls if c.call_id not in answered and c.call_id not in results
        ]
        return Position("agent", unanswered=unanswered)
    return Position("user")
