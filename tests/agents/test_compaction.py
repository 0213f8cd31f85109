"""Context compaction with a tiny window: it fires at the threshold and the next call fits."""

from __future__ import annotations

from vibesearch.agents.compaction import threshold_for, window_for
from vibesearch.agents.prompts import COMPACTION_PROMPT
from vibesearch.agents.react import ReactAgent
from vibesearch.run import Limits
from vibesearch.llm import count_tokens
from vibesearch.run import CompactionEvent, MessageEvent, UsageEvent

SUMMARY = "Summary: the user asks who taught Euler and where he was born. Found: Euler was born in Basel (https://example.org/euler)."
BIG_CODE = "print('Basel ' * 1500)"  # about 9,000 characters of output, well over 1,000 tokens


def _is_compaction(req) -> bool:
    return req.system.startswith(COMPACTION_PROMPT[:40])


async def test_compaction_fires_at_threshold_and_next_call_is_below(fake, settings, small_task, recorder_for, toolbox_for):
    limits = Limits(context_window=2000, compaction_threshold=0.5)
    calls: list[tuple[str, int]] = []  # (kind, tokens the model saw)

    def handler(req):
        tokens = count_tokens(req.messages, "fake/compaction", req.tools)
        if _is_compaction(req):
            calls.append(("compaction", tokens))
            return fake.Reply(content=SUMMARY)
        calls.append(("agent", tokens))
        steps = sum(1 for m in req.messages if m.get("role") == "assistant" and m.get("tool_calls"))
        if steps == 0 and "Summary:" not in str(req.messages):
            return fake.Reply(tool_calls=[("python", {"code": BIG_CODE})])
        return fake.Reply(content="Euler was born in Basel.")

    model = fake.register("compaction", handler)
    agent = ReactAgent(small_task, settings, model=model, toolbox=toolbox_for(small_task, settings), limits=limits)
    assert agent.compactor.threshold == 1000
    rec = recorder_for(small_task)
    rec.user("Who taught Leonhard Euler, and where was he born?")
    reply = await agent.respond(rec.convo, rec.emit)
    assert reply.text == "Euler was born in Basel."

    assert [kind for kind, _ in calls] == ["agent", "compaction", "agent"]
    events = rec.events()
    (comp,) = [e for e in events if isinstance(e, CompactionEvent)]
    assert comp.threshold == 1000
    assert comp.tokens_before > comp.threshold >= comp.tokens_after
    assert comp.summary == SUMMARY
    # the call after compaction is below the threshold, and matches what the event recorded
    assert calls[2][1] < 1000
    assert calls[2][1] == comp.tokens_after
    # the compaction call is recorded as such; the order is tool step, compaction, reply
    assert [e.purpose for e in events if isinstance(e, UsageEvent)] == ["agent", "compaction", "agent"]
    kinds = [e.kind for e in events]
    assert kinds.index("compaction") > kinds.index("tool_result")
    assert kinds.index("compaction") < max(i for i, e in enumerate(events) if isinstance(e, MessageEvent) and e.final)

    # the context continues from system prompt + summary
    assert agent.compactor.count(agent._messages(rec.convo)) < 1000
    msgs = rec.convo.agent_messages()
    assert SUMMARY in msgs[0]["content"]
    assert "Basel Basel Basel" not in str(msgs)


async def test_compaction_request_carries_the_research(fake, settings, small_task, recorder_for, toolbox_for):
    limits = Limits(context_window=2000, compaction_threshold=0.5)
    compaction_requests = []

    def handler(req):
        if _is_compaction(req):
            compaction_requests.append(req)
            return fake.Reply(content=SUMMARY)
        steps = sum(1 for m in req.messages if m.get("role") == "assistant" and m.get("tool_calls"))
        if steps == 0 and "Summary:" not in str(req.messages):
            return fake.Reply(tool_calls=[("python", {"code": BIG_CODE}), ("search", {"query": "Euler teacher"})])
        return fake.Reply(content="Done.")

    model = fake.register("compaction-content", handler)
    agent = ReactAgent(small_task, settings, model=model, toolbox=toolbox_for(small_task, settings), limits=limits)
    rec = recorder_for(small_task)
    rec.user("Who taught Leonhard Euler?")
    await agent.respond(rec.convo, rec.emit)

    (req,) = compaction_requests
    assert not req.tools
    body = req.messages[-1]["content"]
    # the request keeps the user's question and the search results (the long output is shortened to fit)
    assert "Who taught Leonhard Euler?" in body
    assert "https://example.org/euler" in body
    assert count_tokens(req.messages, "fake/x") <= 2000


async def test_compaction_before_extraction_keeps_the_instruction(fake, settings, small_task, recorder_for, toolbox_for):
    limits = Limits(context_window=2000, compaction_threshold=0.5)
    extraction_requests = []

    def handler(req):
        if _is_compaction(req):
            return fake.Reply(content=SUMMARY)
        if "JSON array" in req.last_user:
            extraction_requests.append(req)
            return fake.Reply(content='[{"head": "Leonhard Euler", "relation": "born in", "tail": "Basel"}]')
        return fake.Reply(content="Basel " * 1200)  # a long reply fills the context

    model = fake.register("compaction-extract", handler)
    agent = ReactAgent(small_task, settings, model=model, toolbox=toolbox_for(small_task, settings), limits=limits)
    rec = recorder_for(small_task)
    rec.user("Where was Euler born?")
    await agent.respond(rec.convo, rec.emit)
    graph = await agent.extract_graph(rec.convo, rec.emit)
    assert graph.triples == [{"head": "Leonhard Euler", "relation": "born in", "tail": "Basel"}]
    kinds = [e.kind for e in rec.events()]
    assert "compaction" in kinds
    (req,) = extraction_requests
    assert SUMMARY in str(req.messages)
    assert "JSON array" in req.messages[-1]["content"]


def test_configured_window_wins_when_smaller(settings):
    # gpt-4o has a 128k window in litellm's local map
    small = Limits(context_window=2000, compaction_threshold=0.8)
    assert window_for("gpt-4o", small) == 2000
    assert threshold_for("gpt-4o", small) == 1600
    large = Limits(context_window=10_000_000)
    assert window_for("gpt-4o", large) == 128_000
    # an unknown model falls back to the configured window
    assert window_for("fake/unknown", small) == 2000
