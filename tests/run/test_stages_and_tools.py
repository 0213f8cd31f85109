"""The run's two shared rules: the stage pointer moves by at most one stage a turn, and a recorded
tool call is run (timed, never raising) into its result event in one place."""

from __future__ import annotations

import asyncio

from vibesearch.run import ToolCallEvent, ToolOutput, UsageEvent, WebEvent, execute_tool_call, stage_step


def test_the_pointer_moves_by_one_stage_only_when_a_turn_asks_and_one_is_left():
    assert stage_step(0, 3, "disclose", True).__dict__ == {"reply_kind": "disclose", "advanced": True, "stage_index": 1}
    assert stage_step(2, 3, "disclose", True).__dict__ == {"reply_kind": "push", "advanced": False, "stage_index": 2}  # none left
    assert stage_step(1, 3, "disclose", False).reply_kind == "push"  # a disclosure that does not advance is a push
    assert stage_step(1, 3, "open", False).reply_kind == "push"  # no second opening
    assert stage_step(1, 3, "perfunctory", False) == stage_step(1, 3, "perfunctory", False)
    assert stage_step(1, 3, "redirect", True).stage_index == 2  # a scripted turn may advance without "disclose"
    assert stage_step(2, 3, "done", False).__dict__ == {"reply_kind": "done", "advanced": False, "stage_index": 2}


class _Box:
    """A toolbox that records what it was handed."""

    def __init__(self, fail: Exception | None = None):
        self.fail = fail
        self.emits: list = []

    def schemas(self):
        return [{"type": "function", "function": {"name": "search"}}]

    async def call(self, name, arguments, emit=None):
        self.emits.append(emit)
        if self.fail:
            raise self.fail
        await asyncio.sleep(0.02)
        if emit is not None:
            emit(UsageEvent(purpose="summariser", model="m"))
            emit(WebEvent(op="search", backend="searxng", query=arguments["q"], topn=1, hits=[]))
        return ToolOutput(f"{name}: {arguments['q']}", truncated_chars=3)


async def test_a_tool_call_is_run_timed_and_given_the_runs_emit():
    box, seen = _Box(), []
    result = await execute_tool_call(box, ToolCallEvent(call_id="c1", tool="search", arguments={"q": "x"}), seen.append, known={"search"})
    assert (result.call_id, result.tool, result.content, result.error, result.truncated_chars) == ("c1", "search", "search: x", False, 3)
    assert result.elapsed_s is not None and result.elapsed_s >= 0.02
    assert len(box.emits) == 1 and [e.kind for e in seen] == ["usage", "web"]  # the tool recorded its spending in the run
    assert seen[1].call_id == "c1"  # and its exchange with the web, linked to the call that made it


async def test_every_failure_comes_back_as_an_error_result(monkeypatch):
    secret = "sk-test-abcdefghijklmnop9876"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    unknown = await execute_tool_call(_Box(), ToolCallEvent(call_id="c", tool="fly", arguments={}), known={"search"})
    assert unknown.error and "no tool named 'fly'" in unknown.content and "search" in unknown.content
    raw = await execute_tool_call(_Box(), ToolCallEvent(call_id="c", tool="search", raw_arguments="{oops"), known={"search"})
    assert raw.error and "not valid JSON" in raw.content
    boom = await execute_tool_call(_Box(RuntimeError(f"key {secret}")), ToolCallEvent(call_id="c", tool="search", arguments={"q": 1}))
    assert boom.error and "RuntimeError" in boom.content and secret not in boom.content
    gone = await execute_tool_call(None, ToolCallEvent(call_id="c", tool="search", arguments={}))
    assert gone.error and "interrupted" in gone.content
