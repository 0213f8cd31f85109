"""The ReAct agent driven by scripted models through litellm's fake provider."""

from __future__ import annotations

from datetime import date

import pytest
from agents_testkit import agent_of

from vibesearch.agents.react import ReactAgent
from vibesearch.llm import LLMError
from vibesearch.run import ErrorEvent, MessageEvent, NoteEvent, ToolCallEvent, ToolResultEvent, UsageEvent

QUESTION = "Who taught Leonhard Euler, and where was he born?"


def _tool_steps(req) -> int:
    """How many assistant tool steps the model has already taken in this turn."""
    n = 0
    for m in reversed(req.messages):
        if m.get("role") == "user":
            break
        if m.get("role") == "assistant" and m.get("tool_calls"):
            n += 1
    return n


async def test_react_uses_every_tool_then_replies(fake, settings, small_task, recorder_for, toolbox_for):
    seen = []
    script = [
        fake.Reply(
            content="Let me look this up.",
            tool_calls=[("search", {"query": "Leonhard Euler teacher", "topn": 3}), ("scholar_search", {"query": "Euler number e"})],
            input_tokens=101,
            output_tokens=11,
        ),
        fake.Reply(tool_calls=[("visit", {"url": ["https://example.org/euler"], "goal": "teacher and birthplace"})], input_tokens=102, output_tokens=12),
        fake.Reply(tool_calls=[("python", {"code": "print(1707 + 76)"})], input_tokens=103, output_tokens=13),
        fake.Reply(
            content="Euler was born in Basel and studied under Johann Bernoulli (source: https://example.org/euler).",
            input_tokens=104,
            output_tokens=14,
        ),
    ]

    def handler(req):
        seen.append(req)
        return script[_tool_steps(req)]

    model = fake.register("react-all-tools", handler)
    agent = agent_of("react", small_task, settings, model=model, toolbox=toolbox_for(small_task, settings))
    rec = recorder_for(small_task)
    rec.user(QUESTION)
    reply = await agent.respond(rec.convo, rec.emit)

    assert reply.text.startswith("Euler was born in Basel")
    assert reply.final is True  # an answer, not a question
    assert rec.kinds() == [
        "message",  # user
        "usage", "message", "tool_call", "tool_call", "tool_result", "tool_result",
        "usage", "message", "tool_call", "tool_result",
        "usage", "message", "tool_call", "tool_result",
        "usage", "message",
    ]  # fmt: skip
    events = rec.events()
    steps = [e for e in events if isinstance(e, MessageEvent) and e.role == "assistant"]
    assert [s.n_tool_calls for s in steps] == [2, 1, 1, 0]
    assert [s.final for s in steps] == [False, False, False, True]
    assert steps[0].content == "Let me look this up."

    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    assert [(c.tool, c.arguments) for c in calls] == [
        ("search", {"query": "Leonhard Euler teacher", "topn": 3}),
        ("scholar_search", {"query": "Euler number e"}),
        ("visit", {"url": ["https://example.org/euler"], "goal": "teacher and birthplace"}),
        ("python", {"code": "print(1707 + 76)"}),
    ]
    results = {r.call_id: r for r in events if isinstance(r, ToolResultEvent)}
    by_tool = {c.tool: results[c.call_id] for c in calls}
    assert "https://example.org/euler" in by_tool["search"].content
    assert "Historia Mathematica" in by_tool["scholar_search"].content
    assert "Johann Bernoulli" in by_tool["visit"].content
    assert "1783" in by_tool["python"].content
    assert not any(r.error for r in results.values())
    assert all(r.elapsed_s is not None and r.elapsed_s >= 0 for r in results.values())

    usage = [e for e in events if isinstance(e, UsageEvent)]
    assert [(u.purpose, u.model, u.input_tokens, u.output_tokens) for u in usage] == [
        ("agent", model, 101 + i, 11 + i) for i in range(4)
    ]

    # the context of every call is rebuilt from the conversation: system prompt with today's
    # date, the user's question, and the previous steps with their tool results
    assert len(seen) == 4
    assert date.today().isoformat() in seen[0].system
    assert seen[0].messages[-1] == {"role": "user", "content": QUESTION}
    assert {t["function"]["name"] for t in seen[0].tools} == {"search", "visit", "scholar_search", "python"}
    tool_msgs = seen[3].tool_results()
    assert [m["tool_call_id"] for m in tool_msgs] == [c.call_id for c in calls]
    assert "1783" in tool_msgs[-1]["content"]


async def test_unknown_tool_and_broken_arguments_become_error_results(fake, settings, small_task, recorder_for, toolbox_for):
    def handler(req):
        if _tool_steps(req) == 0:
            return fake.Reply(
                tool_calls=[("browse", {"page": 1}), ("search", {"query": "x"})],
                raw_arguments=['{"page": 1}', '{query: "Euler" topn=3'],
            )
        return fake.Reply(content="Sorry, my tools failed; could you rephrase?")

    model = fake.register("react-broken", handler)
    agent = agent_of("react", small_task, settings, model=model, toolbox=toolbox_for(small_task, settings))
    rec = recorder_for(small_task)
    rec.user(QUESTION)
    reply = await agent.respond(rec.convo, rec.emit)
    assert reply.final is False  # it ends with a question

    calls = [e for e in rec.events() if isinstance(e, ToolCallEvent)]
    results = [e for e in rec.events() if isinstance(e, ToolResultEvent)]
    assert [c.tool for c in calls] == ["browse", "search"]
    assert calls[1].raw_arguments == '{query: "Euler" topn=3'
    assert all(r.error for r in results)
    assert "no tool named 'browse'" in results[0].content and "search" in results[0].content
    assert "not valid JSON" in results[1].content


async def test_step_limit_forces_a_reply_without_tools(fake, settings, small_task, recorder_for, toolbox_for):
    settings = settings.model_copy(update={"max_steps_per_turn": 2})
    seen = []

    def handler(req):
        seen.append(req)
        if req.tools:
            return fake.Reply(tool_calls=[("search", {"query": f"Euler {len(seen)}"})])
        return fake.Reply(content="Here is what I have so far: Euler was born in Basel.")

    model = fake.register("react-limit", handler)
    agent = agent_of("react", small_task, settings, model=model, toolbox=toolbox_for(small_task, settings))
    rec = recorder_for(small_task)
    rec.user(QUESTION)
    reply = await agent.respond(rec.convo, rec.emit)

    assert reply.text.startswith("Here is what I have so far")
    steps = [e for e in rec.events() if isinstance(e, MessageEvent) and e.role == "assistant"]
    assert [(s.n_tool_calls, s.final) for s in steps] == [(1, False), (1, False), (0, True)]
    assert any(isinstance(e, NoteEvent) and "step limit" in e.text for e in rec.events())
    assert len(seen) == 3
    last = seen[-1]
    assert not last.tools
    # the forced call carries the earlier tool results as plain text, no tool messages
    assert all(m["role"] in ("system", "user", "assistant") for m in last.messages)
    assert "example.org" in " ".join(m["content"] for m in last.messages if m["role"] == "user")
    assert "no longer available" in last.messages[-1]["content"]


async def test_second_turn_sees_the_first_turn_work(fake, settings, small_task, recorder_for, toolbox_for):
    seen = []

    def handler(req):
        seen.append(req)
        if _tool_steps(req) == 0 and len([m for m in req.messages if m["role"] == "user"]) == 1:
            return fake.Reply(tool_calls=[("search", {"query": "Euler"})])
        return fake.Reply(content=f"Answer {len(seen)}")

    model = fake.register("react-two-turns", handler)
    agent = agent_of("react", small_task, settings, model=model, toolbox=toolbox_for(small_task, settings))
    rec = recorder_for(small_task)
    rec.user(QUESTION)
    await agent.respond(rec.convo, rec.emit)
    rec.user("And who taught Gauss?")
    reply = await agent.respond(rec.convo, rec.emit)
    assert reply.text == "Answer 3"
    roles = [m["role"] for m in seen[-1].messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert seen[-1].messages[-2] == {"role": "assistant", "content": "Answer 2"}


async def test_llm_error_propagates_after_retries(fake, settings, small_task, recorder_for, toolbox_for):
    settings = settings.model_copy(update={"llm_retries": 1})
    model = fake.register("react-down", lambda req: fake.Reply(error="500"))
    agent = agent_of("react", small_task, settings, model=model, toolbox=toolbox_for(small_task, settings))
    rec = recorder_for(small_task)
    rec.user(QUESTION)
    with pytest.raises(LLMError):
        await agent.respond(rec.convo, rec.emit)
    errors = [e for e in rec.events() if isinstance(e, ErrorEvent)]
    assert len(errors) == 2 and all(e.source == "llm:agent" for e in errors)
    assert not any(isinstance(e, MessageEvent) and e.role == "assistant" for e in rec.events())


async def test_react_extraction(fake, settings, small_task, recorder_for, toolbox_for):
    seen = []

    def handler(req):
        seen.append(req)
        if "knowledge graph" in req.last_user:
            return fake.Reply(content='```json\n[{"head": "Leonhard Euler", "relation": "born in", "tail": "Basel"},]\n```')
        if _tool_steps(req) == 0:
            return fake.Reply(tool_calls=[("search", {"query": "Euler birthplace"})])
        return fake.Reply(content="Euler was born in Basel.")

    model = fake.register("react-extract", handler)
    agent = agent_of("react", small_task, settings, model=model, toolbox=toolbox_for(small_task, settings))
    rec = recorder_for(small_task)
    rec.user(QUESTION)
    await agent.respond(rec.convo, rec.emit)
    n_before = len(rec.events())
    graph = await agent.extract_graph(rec.convo, rec.emit)

    assert graph.triples == [{"head": "Leonhard Euler", "relation": "born in", "tail": "Basel"}]
    assert "removed code fence" in graph.repaired and "json repaired" in graph.repaired
    tail = rec.events()[n_before:]
    assert [e.kind for e in tail] == ["message", "usage", "message"]
    assert tail[0].role == "user" and tail[0].phase == "extraction" and "JSON array" in tail[0].content
    assert tail[1].purpose == "extraction"
    assert tail[2].role == "assistant" and tail[2].phase == "extraction" and tail[2].final
    assert not any(e.kind == "graph" for e in rec.events())  # the session records the graph
    last = seen[-1]
    assert not last.tools
    # the whole dialogue, tool results included (as text), comes before the instruction
    text = "\n".join(m["content"] for m in last.messages)
    assert QUESTION in text and "example.org/euler" in text and "Euler was born in Basel." in text


async def test_chinese_task_gets_chinese_extraction_instruction(fake, settings, small_task, recorder_for, toolbox_for):
    zh_task = small_task.model_copy(update={"language": "zh"})
    zh_task._file = small_task.source_file
    model = fake.register("react-zh", lambda req: fake.Reply(content="[]"))
    agent = ReactAgent(zh_task, settings, model=model, toolbox=toolbox_for(zh_task, settings))
    rec = recorder_for(zh_task)
    rec.user("欧拉的老师是谁？")
    await agent.respond(rec.convo, rec.emit)
    graph = await agent.extract_graph(rec.convo, rec.emit)
    assert graph.triples == []
    instruction = [e for e in rec.events() if isinstance(e, MessageEvent) and e.phase == "extraction"][0]
    assert "只输出一个 JSON 数组" in instruction.content


def test_make_agent_errors_are_clear(settings, small_task):
    with pytest.raises(ValueError, match="react agent needs a model"):
        agent_of("react", small_task, settings)
    with pytest.raises(ValueError, match="endpoint-url"):
        agent_of("endpoint", small_task, settings)
    with pytest.raises(ValueError, match="'baseline', 'react', 'endpoint' or 'openclaw'"):
        agent_of("gpt", small_task, settings)
    no_corpus = small_task.model_copy(update={"corpus": None})
    with pytest.raises(ValueError, match="has none"):
        agent_of("baseline", no_corpus, settings)


async def test_visit_summariser_usage_is_recorded_in_the_run(fake, settings, small_task, recorder_for, toolbox_for):
    summariser = fake.register("react-summariser", lambda req: fake.Reply(content="Euler: born in Basel; teacher Johann Bernoulli."))
    settings = settings.model_copy(update={"summariser_model": summariser})

    def handler(req):
        if _tool_steps(req) == 0:
            return fake.Reply(tool_calls=[("visit", {"url": ["https://example.org/euler"], "goal": "birthplace"})])
        return fake.Reply(content="Basel.")

    model = fake.register("react-with-summariser", handler)
    # the toolbox is built without an emit; the agent hands it the run's emit
    agent = agent_of("react", small_task, settings, model=model, toolbox=toolbox_for(small_task, settings))
    rec = recorder_for(small_task)
    rec.user("Where was Euler born?")
    await agent.respond(rec.convo, rec.emit)
    usage = [(e.purpose, e.model) for e in rec.events() if isinstance(e, UsageEvent)]
    assert usage == [("agent", model), ("summariser", summariser), ("agent", model)]
    result = [e for e in rec.events() if isinstance(e, ToolResultEvent)][0]
    assert "teacher Johann Bernoulli" in result.content
