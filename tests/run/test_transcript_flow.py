"""The transcript view's ``flow``: each turn's shown parts in stored order, what the app's chat reads."""

from __future__ import annotations

from datetime import datetime, timezone

from vibesearch.app.render import chat_messages
from vibesearch.run import events as ev
from vibesearch.run.events import MessageEvent, ToolCallEvent, ToolResultEvent
from vibesearch.run.transcript import Decided, StepView, ToolCall, Transcript

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _stored(datas):
    return [ev.StoredEvent(run_id="flow", seq=n, ts=T0, data=d) for n, d in enumerate(datas, start=1)]


def test_flow_keeps_stored_order_and_shares_the_steps_calls():
    datas = [
        ev.StageEvent(stage_index=0, reply_kind="open", decided_by="rules"),
        MessageEvent(role="user", content="q"),
        MessageEvent(role="assistant", content="", n_tool_calls=2),
        ToolCallEvent(call_id="a", tool="search"),
        ev.ErrorEvent(source="tool", message="slow"),
        ToolCallEvent(call_id="b", tool="visit"),
        ToolResultEvent(call_id="b", tool="visit", content="page"),
        ToolResultEvent(call_id="zz", tool="search", content="no call"),
    ]
    view = Transcript.of(_stored(datas))
    kinds = [type(p).__name__ for p in view.parts()]
    assert kinds == ["Decided", "MessageEvent", "StepView", "ToolCall", "ErrorEvent", "ToolCall", "ToolResultEvent"]
    step = next(p for p in view.parts() if isinstance(p, StepView))
    calls = [p for p in view.parts() if isinstance(p, ToolCall)]
    assert step.calls == tuple(calls) and step.calls[0] is calls[0]  # one object in the step and in the flow
    assert calls[0].result is None and calls[1].result is not None and calls[1].result.content == "page"
    assert isinstance(view.turns[0].flow[0], Decided) and view.decisions[0] is view.turns[0].flow[0]


def test_two_waiting_calls_of_one_id_each_show_their_own_result():
    datas = [
        MessageEvent(role="user", content="q"),
        MessageEvent(role="assistant", content="", n_tool_calls=2),
        ToolCallEvent(call_id="c", tool="search"),
        ToolCallEvent(call_id="c", tool="visit"),
        ToolResultEvent(call_id="c", tool="search", content="first"),
        ToolResultEvent(call_id="c", tool="visit", content="second"),
    ]
    bubbles = [m for m in chat_messages(_stored(datas)) if m.metadata.get("title", "").startswith("⚙")]
    assert [(m.metadata["title"], m.content, m.metadata["status"]) for m in bubbles] == [
        ("⚙ search()", "first", "done"), ("⚙ visit()", "second", "done")]


def test_as_dict_is_the_flow_as_json_with_each_call_carrying_its_result():
    datas = [
        ev.StageEvent(stage_index=0, reply_kind="open", decided_by="rules"),
        MessageEvent(role="user", content="q"),
        MessageEvent(role="assistant", content="", n_tool_calls=1),
        ToolCallEvent(call_id="a", tool="search", arguments={"query": "x"}),
        ev.UsageEvent(purpose="agent", model="fake/m", input_tokens=3, output_tokens=2),
        ToolResultEvent(call_id="a", tool="search", content="found", elapsed_s=0.5),
        MessageEvent(role="assistant", content="answer", final=True),
        ev.EndEvent(termination="max_user_turns"),
    ]
    view = Transcript.of(_stored(datas))
    got = view.as_dict()
    assert [(p["kind"], p["turn_index"]) for p in got["parts"]] == [
        ("stage", 0), ("message", 1), ("message", 1), ("tool_call", 1), ("message", 1), ("end", 1)]
    assert got["parts"][0]["user_turn"] == 1
    call = got["parts"][3]
    assert call["arguments"] == {"query": "x"} and call["result"]["content"] == "found" and call["result"]["elapsed_s"] == 0.5
    assert got["counts"] == view.summary() and got["counts"]["tool_calls"] == 1
    import json

    assert json.loads(json.dumps(got)) == got  # plain JSON
