"""The official loop's recovery in a running conversation (docs/protocol.md rows 13 and 19): empty
and blank replies asked again, failing calls up to ``error_loop``, unreadable tool arguments, and
compaction with a checkout's prompts and context rebuild. Driven through litellm by fake models,
stored in a real SQLite store."""

from __future__ import annotations

from _official_session import HARNESS, _build, litellm_reply
from vibesearch.protocol.rules import AGENT_MAX_TOKENS, CLIENT_ATTEMPTS, MAX_LLM_CALLS, official_compaction_threshold
from vibesearch.run.events import CompactionEvent
from vibesearch.session import run_session


# ------------------------------------------------------------------ empty replies and failing calls
def _dialogue_replies(store, run_id):
    return [e.data.content for e in store.events(run_id, kinds=["message"])
            if e.data.role == "assistant" and e.data.phase == "dialogue"]


def _notes(store, run_id, key):
    return [n.data.data[key] for n in store.events(run_id, kinds=["note"]) if key in n.data.data]


def _nth_call_agent(step):
    """An agent model answering the extraction with ``[]`` and its n-th dialogue call (from 1) with ``step(n)``."""
    calls = {"n": 0}

    def agent(req):
        if not req.tools:
            return litellm_reply("[]")
        calls["n"] += 1
        return step(calls["n"])

    return agent


async def test_empty_replies_are_dropped_asked_again_and_given_back_to_the_budget(fake, task, store, settings):
    def step(n):
        if n <= 2:
            return litellm_reply("", reasoning="Thinking it over.")  # reasoning but no text: dropped, asked again
        return litellm_reply("", tool_calls=[("no_such_tool", {"x": n})])  # never replies

    fake.register("empty-agent", _nth_call_agent(step))
    fake.register("off-sim", lambda req: litellm_reply("More."))
    result = await run_session(*_build(task, settings, agent_model="fake/empty-agent"), store, settings)
    assert result.termination == "max_rounds" and result.status == "finished"
    assert _notes(store, result.run_id, "discarded_empty_reply") == [1, 2]
    usage = [e.data.purpose for e in store.events(result.run_id, kinds=["usage"])]
    # the first turn ran its 200 tries (2 of them dropped replies, given back to the budget), so the
    # simulator spoke once more and the second turn spent the last 2 calls: 202 calls paid for
    assert usage.count("agent") == MAX_LLM_CALLS + 2 and usage.count("simulator") == 1
    assert _notes(store, result.run_id, "turn_tries_spent") == [True]
    assert _notes(store, result.run_id, "max_llm_calls") == [MAX_LLM_CALLS]


async def test_the_fifth_empty_reply_stays_ends_the_turn_and_the_conversation_goes_on(fake, task, store, settings):
    # official: four are rolled back; the fifth stays in the context (its reasoning too), counts as
    # a round and ends the loop as empty_response; only error_loop would end the dialogue
    seen_by_sim = []

    def step(n):
        if n == 1:
            return litellm_reply("Looking.", tool_calls=[("no_such_tool", {})])  # text on a tool step
        return litellm_reply("", reasoning="Hmm.") if n <= 6 else litellm_reply("A real answer.")

    def sim(req):
        seen_by_sim.append(req.messages[-1]["content"])
        return litellm_reply("More." if len(seen_by_sim) == 1 else "[DONE]")

    fake.register("mute-agent", _nth_call_agent(step))
    fake.register("off-sim", sim)
    result = await run_session(*_build(task, settings, agent_model="fake/mute-agent"), store, settings)
    assert result.termination == "answer" and result.status == "finished"
    assert _notes(store, result.run_id, "discarded_empty_reply") == [1, 2, 3, 4]
    assert _notes(store, result.run_id, "empty_response") == ["empty_response"]
    # the simulator was handed the agent's last text, as the official harness does
    assert seen_by_sim == ["Looking.", "A real answer."]
    assert _dialogue_replies(store, result.run_id) == ["Looking.", "", "A real answer."]


async def test_blank_answers_are_asked_again_as_the_official_client_does(fake, task, store, settings):
    def step(n):
        return litellm_reply("") if n <= 4 else litellm_reply("Answer after four blanks.")  # no text, calls or reasoning

    fake.register("blank-agent", _nth_call_agent(step))
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    result = await run_session(*_build(task, settings, agent_model="fake/blank-agent"), store, settings)
    assert result.termination == "answer"
    assert _dialogue_replies(store, result.run_id) == ["Answer after four blanks."]
    assert _notes(store, result.run_id, "discarded_empty_reply") == [1, 2, 3, 4]
    assert not [e for e in store.events(result.run_id, kinds=["error"]) if e.data.source == "agent"]  # four is not yet a failure


async def test_an_agent_that_only_answers_blank_ends_in_error_loop_after_eighty_calls(fake, task, store, settings):
    fake.register("void-agent", _nth_call_agent(lambda n: litellm_reply("")))
    fake.register("off-sim", lambda req: litellm_reply("More."))
    result = await run_session(*_build(task, settings, agent_model="fake/void-agent"), store, settings)
    assert result.termination == "error_loop" and result.status == "finished"
    usage = [e.data.purpose for e in store.events(result.run_id, kinds=["usage"])]
    # 10 failures of the client's 8 blank answers each (run.py's --max-retries)
    assert usage.count("agent") == 10 * CLIENT_ATTEMPTS == 80 and usage.count("simulator") == 0
    errors = [e.data for e in store.events(result.run_id, kinds=["error"]) if e.data.source == "agent"]
    assert [e.attempt for e in errors] == list(range(1, 11)) and "answered nothing 8 times" in errors[0].message


async def test_ten_failed_agent_calls_in_a_row_end_the_conversation_as_error_loop(fake, task, store, settings):
    def agent(req):
        if not req.tools:
            return litellm_reply('[{"head": "a", "relation": "b", "tail": "c"}]')
        return litellm_reply("", error="500")

    fake.register("down-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply("More."))
    settings = settings.model_copy(update={"llm_retries": 0})
    result = await run_session(*_build(task, settings, agent_model="fake/down-agent"), store, settings)
    assert result.termination == "error_loop" and result.status == "finished", result
    errors = [e.data for e in store.events(result.run_id, kinds=["error"]) if e.data.source == "agent"]
    assert [e.attempt for e in errors] == list(range(1, 11)) and not any(e.fatal for e in errors)
    assert store.events(result.run_id, kinds=["graph"])[0].data.triples == [{"head": "a", "relation": "b", "tail": "c"}]
    end = store.events(result.run_id, kinds=["end"])[-1].data
    assert end.termination == "error_loop" and "in a row" in end.detail


async def test_a_step_with_unreadable_arguments_is_dropped_and_a_good_step_resets_the_count(fake, task, store, settings):
    def step(n):
        if n in (1, 2):
            return litellm_reply("", tool_calls=[("search", {})], raw_arguments=["[1, 2]"])  # a list, not an object
        if n == 3:
            return litellm_reply("", tool_calls=[("search", {"query": "uji tea"})], raw_arguments=['{"query": "uji tea"'])  # repairable
        return litellm_reply("Found it.")

    fake.register("sloppy-agent", _nth_call_agent(step))
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    result = await run_session(*_build(task, settings, agent_model="fake/sloppy-agent"), store, settings)
    assert result.termination == "answer"
    calls_made = [e.data for e in store.events(result.run_id, kinds=["tool_call"])]
    assert [(c.tool, c.arguments) for c in calls_made] == [("search", {"query": "uji tea"})]
    errors = [e.data for e in store.events(result.run_id, kinds=["error"]) if e.data.source == "agent"]
    assert [e.attempt for e in errors] == [1, 2] and all("unreadable arguments for search" in e.message for e in errors)
    assert _dialogue_replies(store, result.run_id)[-1] == "Found it."


async def test_with_a_checkout_compaction_asks_with_its_prompts_over_the_official_transcript(fake, task, store, settings):
    compactions = []

    def step(n):
        tokens = official_compaction_threshold(256_000, max_tokens=AGENT_MAX_TOKENS) + 1 if n == 1 else 100  # over the threshold
        if n <= 2:
            return litellm_reply("Checking.", tool_calls=[("no_such_tool", {})], input_tokens=tokens)
        return litellm_reply("Done researching.")

    inner = _nth_call_agent(step)

    agent_calls = []

    def agent(req):
        if req.system.startswith("STAND-IN compaction system"):
            compactions.append(req)
            return litellm_reply("" if len(compactions) < 3 else "SUMMARY from the third try.")  # asked until not empty
        if req.tools:
            agent_calls.append(req)
        return inner(req)

    fake.register("big-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    settings = settings.model_copy(update={"official_harness": HARNESS})
    result = await run_session(*_build(task, settings, agent_model="fake/big-agent"), store, settings)
    assert result.termination == "answer"
    assert len(compactions) == 3 and all(not c.tools for c in compactions)
    request = compactions[0].last_user
    assert request.startswith("STAND-IN compaction request. The research so far:\n") and request.endswith("\nEnd of research.")
    transcript = request.split("The research so far:\n", 1)[1].rsplit("\nEnd of research.", 1)[0]
    lines = transcript.split("\n")
    assert lines[0] == f"[user]: {task.persona.initial_query}"
    assert lines[1] == "[assistant]: Checking. [tool_calls: no_such_tool]"
    assert lines[2].startswith("[tool]: ")
    # afterwards the context is the official rebuild: system, question, summary, the request to go on
    after = agent_calls[-1].messages
    assert [m["role"] for m in after[:4]] == ["system", "user", "assistant", "user"]
    assert after[1]["content"] == task.persona.initial_query
    assert after[2]["content"] == "STAND-IN summary lead:\n\nSUMMARY from the third try."
    assert after[3]["content"] == "STAND-IN: go on."
    events = store.events(result.run_id)
    comp = [e.data for e in events if isinstance(e.data, CompactionEvent)]
    assert [c.summary for c in comp] == ["SUMMARY from the third try."]
    assert [e.data.purpose for e in events if e.kind == "usage"].count("compaction") == 3
