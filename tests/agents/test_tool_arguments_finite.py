"""A model's tool call whose arguments hold NaN, Infinity or a number too large for a float (issue
item 13) comes back as a clear error result naming the argument; the call is recorded with the
model's own text (not with the number silently turned into null), the tool never runs with it,
and the turn goes on."""

from __future__ import annotations

import math

from agents_testkit import agent_of

from vibesearch.run import ToolCallEvent, ToolResultEvent, execute_tool_call


async def test_non_finite_arguments_become_error_results(fake, settings, small_task, recorder_for, toolbox_for):
    raw = ['{"query": "Euler", "topn": NaN}', '{"query": "Euler", "topn": 1e999}', '{"code": "print(1)", "timeout": -Infinity}',
           '{"query": "Euler", "topn": 2}']

    def handler(req):
        if not any(m.get("role") == "tool" for m in req.messages):
            return fake.Reply(tool_calls=[("search", {}), ("search", {}), ("python", {}), ("search", {})], raw_arguments=raw)
        return fake.Reply(content="My tools failed on two numbers; what else can I check?")

    model = fake.register("react-non-finite", handler)
    agent = agent_of("react", small_task, settings, model=model, toolbox=toolbox_for(small_task, settings))
    rec = recorder_for(small_task)
    rec.user("Who taught Euler?")
    reply = await agent.respond(rec.convo, rec.emit)
    assert reply.text.startswith("My tools failed")

    calls = [e for e in rec.events() if isinstance(e, ToolCallEvent)]
    results = {e.call_id: e for e in rec.events() if isinstance(e, ToolResultEvent)}
    assert [c.raw_arguments for c in calls[:3]] == raw[:3]  # stored as the model wrote them
    assert all(c.arguments == {} for c in calls[:3]) and calls[3].arguments == {"query": "Euler", "topn": 2}
    said = [results[c.call_id] for c in calls]
    assert all(r.error for r in said[:3]) and not said[3].error
    assert "the argument 'topn' of this search call is not a finite number" in said[0].content
    assert "the argument 'topn' of this search call is not a finite number" in said[1].content
    assert "the argument 'timeout' of this python call is not a finite number" in said[2].content


async def test_a_call_given_as_an_object_with_nan_is_refused_before_the_tool_runs(settings, small_task, toolbox_for):
    """Calls read from text tags (the qwen rule) or from an imported transcript reach the run as
    objects: the same rule holds there."""
    box = toolbox_for(small_task, settings)
    for args, name in (({"query": "Euler", "topn": math.nan}, "topn"), ({"code": "1", "env": {"x": [1, math.inf]}}, "env.x[1]")):
        tool = "python" if "code" in args else "search"
        out = await execute_tool_call(box, ToolCallEvent(call_id="c", tool=tool, arguments=args), known={"search", "python"})
        assert out.error and f"the argument '{name}' of this {tool} call is not a finite number" in out.content
    fine = await execute_tool_call(box, ToolCallEvent(call_id="c", tool="search", arguments={"query": "Euler", "topn": 1.0}))
    assert not fine.error
