"""The official profile, exact to the official loop (issue rows 1-14, 18): for each rule a scripted
scenario whose requests (messages, tools, sampling, body) and outcomes are derived by hand from the
official ``agent/general_agent.py`` (``_run_loop``, ``_chat_with_retry``, ``_request_triple``,
``_compact_context``, ``_msg_for_api``) and asserted exactly. Fake models through the llm client,
a real SQLite store; no network, no key."""

from __future__ import annotations

import pytest

from _official_session import _build, _user_messages, litellm_reply
from vibesearch.protocol import own_prompts
from vibesearch.protocol.rules import AGENT_MAX_TOKENS, CLIENT_ATTEMPTS, EXTRACTION_MIN_ROUNDS, official_compaction_threshold
from vibesearch.run.events import CompactionEvent, MessageEvent, ToolCallEvent, ToolResultEvent
from vibesearch.session import run_session
from vibesearch.tasks.models import Task

THRESHOLD = official_compaction_threshold(256_000, max_tokens=AGENT_MAX_TOKENS)
TRIPLES = '[{"head": "Uji", "relation": "located in", "tail": "Kyoto Prefecture"}]'


def _is_extraction(req) -> bool:
    return req.last_user == own_prompts().extraction_prompt("en")


def _is_compaction(req) -> bool:
    return "summar" in req.system.lower() and not req.tools and not _is_extraction(req)


async def _run(task, store, settings, **flat):
    return await run_session(*_build(task, settings, **flat), store, settings)


# ------------------------------------------------------------------ rows 1 and 11: the context sent back
async def test_the_extraction_request_is_the_native_history_plus_one_user_message_without_tools(fake, task, store, settings):
    requests = []

    def agent(req):
        requests.append(req)
        if _is_extraction(req):
            return litellm_reply(TRIPLES)
        n = sum(1 for r in requests if not _is_extraction(r))
        if n == 1:  # a step with reasoning, no text, two tool calls
            return litellm_reply("", reasoning="Let me look.", tool_calls=[("no_such_tool", {"q": "uji"}), ("python", {"code": "print(1)"})],
                                 raw_arguments=['{"q":"uji"}', '{"code":"print(1)"}'])
        return litellm_reply("Uji is in Kyoto Prefecture.", reasoning="Done.")

    fake.register("ctx-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    result = await _run(task, store, settings, agent_model="fake/ctx-agent")
    assert result.termination == "answer"
    last_dialogue, extraction = requests[-2], requests[-1]
    assert _is_extraction(extraction) and extraction.tools is None and "tool_choice" not in extraction.body
    # the same native history, the final reply, then the request as a message of its own
    assert extraction.messages[:-2] == last_dialogue.messages
    assert extraction.messages[-2] == {"role": "assistant", "content": "Uji is in Kyoto Prefecture.", "reasoning_content": "Done."}
    assert extraction.messages[-1] == {"role": "user", "content": own_prompts().extraction_prompt("en")}
    step = last_dialogue.messages[2]
    calls = [e.data for e in store.events(result.run_id) if isinstance(e.data, ToolCallEvent)]
    results = [e.data for e in store.events(result.run_id) if isinstance(e.data, ToolResultEvent)]
    # content "" (never null), the reasoning sent back, the arguments written out again as JSON
    assert step == {
        "role": "assistant", "content": "", "reasoning_content": "Let me look.",
        "tool_calls": [
            {"id": calls[0].call_id, "type": "function", "function": {"name": "no_such_tool", "arguments": '{"q": "uji"}'}},
            {"id": calls[1].call_id, "type": "function", "function": {"name": "python", "arguments": '{"code": "print(1)"}'}},
        ],
    }
    # one tool message per call: its id and the result, no name
    assert last_dialogue.messages[3:5] == [{"role": "tool", "tool_call_id": r.call_id, "content": r.content} for r in results]


# ------------------------------------------------------------------ row 2: no compaction before a turn's first call
async def test_a_turn_starts_uncompacted_whatever_the_last_turn_reported(fake, task, store, settings):
    requests = []

    def agent(req):
        requests.append(req)
        if _is_extraction(req):
            return litellm_reply(TRIPLES, input_tokens=100)
        if _is_compaction(req):
            return litellm_reply("SUMMARY.")
        return litellm_reply("An answer.", input_tokens=THRESHOLD + 10)  # every answer reports a prompt over the threshold

    replies = iter(["A follow-up.", "[DONE]"])
    fake.register("turns-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply(next(replies)))
    result = await _run(task, store, settings, agent_model="fake/turns-agent")
    # each turn answers at its first call, so no round ever follows an oversized report inside a
    # loop: never a compaction in the dialogue; before the extraction (above 0.85 x) one
    kinds = ["compaction" if _is_compaction(r) else "extraction" if _is_extraction(r) else "agent" for r in requests]
    assert kinds == ["agent", "agent", "compaction", "extraction"]
    assert sum(isinstance(e.data, CompactionEvent) for e in store.events(result.run_id)) == 1
    # after that compaction the extraction request is the official rebuild, then the request
    ext = requests[-1].messages
    assert [m["role"] for m in ext] == ["system", "user", "assistant", "user", "user"]
    assert ext[1]["content"] == task.persona.initial_query and ext[2]["content"].endswith("SUMMARY.")


# ------------------------------------------------------------------ rows 4 and 9: the client's eight attempts, a failing extraction
async def test_each_failure_is_eight_attempts_and_a_failing_extraction_gets_five_rounds(fake, task, store, settings):
    counts = {"agent": 0, "extraction": 0}

    def agent(req):
        kind = "extraction" if _is_extraction(req) else "agent"
        counts[kind] += 1
        return litellm_reply("", error="500")

    fake.register("down-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply("More."))
    result = await _run(task, store, settings, agent_model="fake/down-agent")
    # the dialogue: 10 failures in a row of 8 attempts each, then error_loop ends it; the
    # extraction: max(remaining, 5) = 200 rounds, failing 10 times in a row: error_loop again
    assert counts["agent"] == 10 * CLIENT_ATTEMPTS
    assert counts["extraction"] == 10 * CLIENT_ATTEMPTS
    assert result.termination == "error_loop"
    assert _user_messages(store, result.run_id) == [task.persona.initial_query]


async def test_with_the_budget_spent_the_extraction_still_gets_five_rounds(fake, task, store, settings):
    counts = {"extraction": 0}

    def agent(req):
        if _is_extraction(req):
            counts["extraction"] += 1
            return litellm_reply("", error="500")
        return litellm_reply("", tool_calls=[("no_such_tool", {})])  # never replies: spends the 200 rounds

    fake.register("spent-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply("More."))
    result = await _run(task, store, settings, agent_model="fake/spent-agent")
    # 5 rounds x 8 attempts, none answering: the extraction loop ends on its rounds (max_rounds),
    # never reaching 10 failures in a row
    assert counts["extraction"] == EXTRACTION_MIN_ROUNDS * CLIENT_ATTEMPTS == 40
    assert result.termination == "max_rounds"


# ------------------------------------------------------------------ rows 5, 6: an empty text is not a blank answer
async def test_an_empty_text_is_a_dropped_reply_not_a_retried_call(fake, task, store, settings):
    calls = {"n": 0}

    def agent(req):
        if _is_extraction(req):
            return litellm_reply(TRIPLES)
        calls["n"] += 1
        # an empty string (not null): the loop drops it; null would be the client's retry
        return litellm_reply("", raw_content="") if calls["n"] == 1 else litellm_reply("Now an answer.")

    fake.register("empty-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    result = await _run(task, store, settings, agent_model="fake/empty-agent")
    notes = [e.data.data for e in store.events(result.run_id, kinds=["note"])]
    assert [n.get("discarded_empty_reply") for n in notes if "discarded_empty_reply" in n] == [1]
    assert not any(n.get("blank") for n in notes)


async def test_five_empty_extraction_replies_give_the_run_its_label(fake, task, store, settings):
    def agent(req):
        if _is_extraction(req):
            return litellm_reply("", raw_content="   ")  # whitespace: no answer
        return litellm_reply("An answer.")

    fake.register("mute-extractor", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    result = await _run(task, store, settings, agent_model="fake/mute-extractor")
    assert result.termination == "empty_response" and result.status == "finished"
    assert store.get_run(result.run_id).meta()["conversation_ended"] == "done"
    graph = store.events(result.run_id, kinds=["graph"])[-1].data
    assert graph.triples == [] and graph.outcome == "empty_response"


# ------------------------------------------------------------------ row 7: the extraction always runs
async def test_the_extraction_runs_even_when_the_agent_never_replied(fake, task, store, settings):
    asked = []

    def agent(req):
        if _is_extraction(req):
            asked.append(req)
            return litellm_reply(TRIPLES)
        return litellm_reply("", error="500")

    fake.register("silent-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    result = await _run(task, store, settings, agent_model="fake/silent-agent")
    assert len(asked) == 1 and result.termination == "error_loop"
    assert store.events(result.run_id, kinds=["graph"])[-1].data.triples == [{"head": "Uji", "relation": "located in", "tail": "Kyoto Prefecture"}]


# ------------------------------------------------------------------ row 10: a failed compaction
async def test_a_failed_compaction_ends_the_turn_and_leaves_the_context(fake, task, store, settings):
    requests = []
    seen_by_sim = []

    def agent(req):
        requests.append(req)
        if _is_extraction(req):
            return litellm_reply(TRIPLES)
        if _is_compaction(req):
            return litellm_reply("", raw_content="")  # an empty summary, three times: the compaction failed
        n = sum(1 for r in requests if r.tools)
        if n == 1:
            return litellm_reply("Still looking.", tool_calls=[("no_such_tool", {})], input_tokens=THRESHOLD + 1)
        return litellm_reply("The answer.", input_tokens=100)

    def sim(req):
        seen_by_sim.append(req.messages[-1]["content"])
        return litellm_reply("Go on." if len(seen_by_sim) == 1 else "[DONE]")

    fake.register("nosummary-agent", agent)
    fake.register("off-sim", sim)
    result = await _run(task, store, settings, agent_model="fake/nosummary-agent")
    assert sum(1 for r in requests if _is_compaction(r)) == 3
    assert not [e for e in store.events(result.run_id) if isinstance(e.data, CompactionEvent)]
    assert seen_by_sim[0] == "Still looking."  # the turn ended; the last text went to the simulator
    turn2 = next(r for r in requests if r.tools and r.last_user == "Go on.")
    assert [m["role"] for m in turn2.messages][:2] == ["system", "user"] and turn2.messages[1]["content"] == task.persona.initial_query
    assert result.termination == "answer"


# ------------------------------------------------------------------ row 11: model rules
async def test_deepseek_sends_thinking_and_reasoning_back(fake, task, store, settings):
    requests = []

    def agent(req):
        requests.append(req)
        if _is_extraction(req):
            return litellm_reply(TRIPLES)
        if len(requests) == 1:
            return litellm_reply("", tool_calls=[("no_such_tool", {})])  # no reasoning
        return litellm_reply("Done.")

    fake.register("deepseek-v4", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    await _run(task, store, settings, agent_model="fake/deepseek-v4")
    second = requests[1]
    assert second.body.get("thinking") == {"type": "enabled"} and second.body.get("reasoning_effort") == "max"
    assert second.messages[2]["reasoning_content"] == ""  # required on every assistant message


async def test_kimi_asks_thinking_through_the_chat_template(fake, task, store, settings):
    requests = []

    def agent(req):
        requests.append(req)
        return litellm_reply(TRIPLES if _is_extraction(req) else "Done.")

    fake.register("kimi-k2", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    await _run(task, store, settings, agent_model="fake/kimi-k2")
    assert requests[0].body.get("chat_template_kwargs") == {"thinking": True, "reasoning_effort": "max"}
    assert "reasoning_effort" not in requests[0].body


async def test_qwen_tool_calls_written_as_tags_are_run(fake, task, store, settings):
    requests = []
    tagged = "<tool_call>\n<function=python>\n<parameter=code>\nprint(40 + 2)\n</parameter>\n</function>\n</tool_call>"

    def agent(req):
        requests.append(req)
        if _is_extraction(req):
            return litellm_reply(TRIPLES)
        return litellm_reply(tagged) if len(requests) == 1 else litellm_reply("It is 42.")

    fake.register("qwen3-test", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    result = await _run(task, store, settings, agent_model="fake/qwen3-test")
    calls = [e.data for e in store.events(result.run_id) if isinstance(e.data, ToolCallEvent)]
    assert [(c.tool, c.arguments) for c in calls] == [("python", {"code": "print(40 + 2)"})]
    assert calls[0].call_id.startswith("recovered_")
    step = requests[1].messages[2]
    assert step["content"] == "" and step["tool_calls"][0]["id"] == calls[0].call_id


# ------------------------------------------------------------------ row 14: only exactly "zh" is Chinese
@pytest.mark.parametrize("written, chinese", [("zh", True), ("zh-CN", False)])
async def test_the_chinese_prompts_only_for_zh_as_written(fake, task, store, settings, written, chinese):
    requests = []

    def agent(req):
        requests.append(req)
        return litellm_reply(TRIPLES if req.tools is None else "Done.")

    zh = Task.model_validate({**task.model_dump(), "language": "zh", "extra": {"language_as_written": written} if written != "zh" else {}})
    fake.register("lang-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    await _run(zh, store, settings, agent_model="fake/lang-agent")
    lang = "zh" if chinese else "en"
    assert requests[0].system == own_prompts().agent_system_prompt(lang)
    assert requests[-1].last_user == own_prompts().extraction_prompt(lang)


async def test_a_message_with_only_spaces_is_what_the_simulator_is_handed(fake, task, store, settings):
    seen = []

    def agent(req):
        return litellm_reply(TRIPLES if req.tools is None else "", raw_content=None if req.tools is None else "  ")

    def sim(req):
        seen.append(req.messages[-1]["content"])
        return litellm_reply("[DONE]")

    fake.register("spaces-agent", agent)
    fake.register("off-sim", sim)
    await _run(task, store, settings, agent_model="fake/spaces-agent")
    assert seen == ["  "]  # the fifth reply of spaces stays, and the official text reader takes it (truthy)


async def test_the_official_tools_are_offered_and_answer_in_the_official_layout(fake, task, store, settings):
    requests = []

    def agent(req):
        requests.append(req)
        if req.tools is None:
            return litellm_reply(TRIPLES)
        if len(requests) == 1:
            return litellm_reply("", tool_calls=[("search", {"query": "uji tea", "source": "news"}), ("no_such_tool", {})])
        return litellm_reply("Done.")

    fake.register("tools-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    result = await _run(task, store, settings, agent_model="fake/tools-agent")
    assert requests[0].tools == own_prompts().tool_schemas()
    results = [e.data for e in store.events(result.run_id) if isinstance(e.data, ToolResultEvent)]
    assert results[0].content == "No results for 'uji tea'"  # the official text (this task has no corpus to find it in)
    assert results[1].content == "Unknown tool: no_such_tool"


def test_the_turn_cap_is_stored_as_used(settings, task):
    config = _build(task, settings, agent_model="fake/x")[0]
    assert config.limits.max_user_turns == 50 and config.limits.compaction_threshold is None
    assert config.limits.compaction_tokens == THRESHOLD


def test_message_events_keep_their_phase(settings):
    assert MessageEvent(role="assistant", content="", phase="extraction").phase == "extraction"


def test_the_loader_keeps_the_language_as_written_for_the_official_rule(tmp_path):
    import json
    from pathlib import Path

    from vibesearch.protocol.profiles import official_language
    from vibesearch.tasks.loader import parse_task_file

    fuzz = Path(__file__).resolve().parents[1] / "data" / "fuzz" / "valid" / "official_klingon.json"
    for written, ours, official in (("zh-CN", "zh", "en"), ("zh", "zh", "zh"), ("en", "en", "en")):
        path = tmp_path / f"{written}.json"
        path.write_text(json.dumps({**json.loads(fuzz.read_text(encoding="utf-8")), "language": written}), encoding="utf-8")
        (task,), _ = parse_task_file(path)
        assert (task.language, official_language(task)) == (ours, official)
