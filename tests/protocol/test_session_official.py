"""The official profile in a running conversation: the session, the react agent and the official
simulator, driven through litellm by fake models, stored in a real SQLite store.

Each rule of docs/protocol.md rows 11-18 has a test here: 30 simulator replies after the opening,
``[DONE]`` neither shown to the agent nor counted, 200 model calls then ``max_rounds``, compaction
above 229,376 reported prompt tokens and on a 400 or a timeout, per-role sampling, what the
simulator sees, and the prompts (a stand-in checkout, or ours) recorded with the run. Row 19 (empty
replies, failing calls) and compaction with a checkout: test_session_official_recovery.py.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from vibesearch.agents import make_agent
from vibesearch.llm._litellm import _litellm
from vibesearch.protocol.rules import (
    AGENT_MAX_TOKENS,
    AGENT_TEMPERATURE,
    AGENT_TOP_P,
    MAX_LLM_CALLS,
    SCRIPT_USER_TURNS,
    SIMULATOR_MAX_TOKENS,
    SIMULATOR_TEMPERATURE,
    USER_REPLIES_AFTER_OPENING,
    official_compaction_threshold,
)
from vibesearch.protocol.prompts import OWN_GO_ON
from vibesearch.run.events import CompactionEvent, EndEvent, MessageEvent, NoteEvent, UsageEvent
from vibesearch.session import run_session
from vibesearch.users import OfficialUser, make_user
from vibesearch.protocol import build_config

from _official_session import HARNESS, TASK, _answer_agent, _build, _text, _user_messages, litellm_reply


# ------------------------------------------------------------------ user turns and [DONE]
@pytest.mark.parametrize("asked, replies", [(None, SCRIPT_USER_TURNS), (USER_REPLIES_AFTER_OPENING, 30)])
async def test_a_simulator_that_never_ends_gets_exactly_the_cap_of_replies_after_the_opening(fake, task, store, settings, asked, replies):
    # the cap counts simulator replies after the opening: 50 unless the run asks for another (run.py: 30)
    sim_calls = []

    def sim(req):
        sim_calls.append(req)
        return litellm_reply(f"Tell me more ({len(sim_calls)}).")

    fake.register("off-agent", _answer_agent)
    fake.register("off-sim", sim)
    result = await run_session(*_build(task, settings, agent_model="fake/off-agent", max_user_turns=asked), store, settings)
    # the official label after the turn cap and an extraction that answered
    assert result.termination == "answer" and result.status == "finished"
    assert store.get_run(result.run_id).meta()["conversation_ended"] == "max_user_turns"
    users = _user_messages(store, result.run_id)
    assert users[0] == task.persona.initial_query
    assert len(users) == 1 + replies
    assert len(sim_calls) == replies
    assert users[1:] == [f"Tell me more ({i})." for i in range(1, replies + 1)]  # verbatim
    assert f"{replies} simulator replies after the opening" in store.events(result.run_id, kinds=["end"])[-1].data.detail


async def test_the_vibesearch_profile_still_counts_the_opening(fake, task, store, settings):
    fake.register("off-agent", _answer_agent)
    fake.register("plain-sim", lambda req: litellm_reply(json.dumps({"trigger_met": False, "reply_kind": "push", "reply": "More, please."})))
    config = build_config(settings, task_id=task.id, agent="react", agent_model="fake/off-agent", user="simulator",
                                     simulator_model="fake/plain-sim", max_user_turns=5)
    result = await run_session(config, task, make_agent(config, task, settings), make_user(config, task, settings), store, settings)
    assert result.termination == "max_user_turns"
    assert len(_user_messages(store, result.run_id)) == 5
    assert not store.events(result.run_id, kinds=["note"])  # no profile note in our profile


async def test_done_ends_the_conversation_unseen_and_uncounted(fake, task, store, settings):
    agent_requests = []

    def agent(req):
        agent_requests.append(req)
        return _answer_agent(req)

    replies = iter(["First follow-up.", "Second follow-up.", "Thanks, that is all. [DONE]"])
    fake.register("off-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply(next(replies)))
    result = await run_session(*_build(task, settings, agent_model="fake/off-agent"), store, settings)
    assert result.termination == "answer" and store.get_run(result.run_id).meta()["conversation_ended"] == "done"
    users = _user_messages(store, result.run_id)
    assert users == [task.persona.initial_query, "First follow-up.", "Second follow-up."]
    assert result.user_turns == 3
    for req in agent_requests:  # the extraction request included: [DONE] never reached the agent
        assert all("[DONE]" not in _text(m.get("content")) for m in req.messages)
    notes = [e.data for e in store.events(result.run_id, kinds=["note"])]
    assert any(n.data.get("done") == "[DONE]" for n in notes)
    assert len(store.events(result.run_id, kinds=["graph"])) == 1


async def test_the_simulator_sees_replies_in_full_and_the_query_only_in_its_system_prompt(fake, task, store, settings):
    long_reply = "Matcha " + "x" * 40_000
    seen = []

    def agent(req):
        if not req.tools:
            return litellm_reply("[]")
        return litellm_reply(long_reply)

    def sim(req):
        seen.append(req)
        return litellm_reply("[DONE]" if len(seen) == 2 else "Go on.")

    fake.register("off-agent", agent)
    fake.register("off-sim", sim)
    settings = settings.model_copy(update={"official_harness": HARNESS})
    await run_session(*_build(task, settings, agent_model="fake/off-agent"), store, settings)
    first, second = seen
    assert [m["role"] for m in first.messages] == ["system", "user"]
    assert f"Goal: {task.persona.initial_query}" in first.system  # the stand-in simulator prompt, filled
    assert _text(first.messages[1]["content"]) == long_reply  # in full
    assert [m["role"] for m in second.messages] == ["system", "user", "assistant", "user"]
    assert _text(second.messages[2]["content"]) == "Go on."
    assert all(task.persona.initial_query not in _text(m["content"]) for m in second.messages[1:])
    assert second.sampling == {"temperature": SIMULATOR_TEMPERATURE, "top_p": 0.95, "max_tokens": SIMULATOR_MAX_TOKENS}


async def test_three_failed_simulator_calls_end_the_conversation_as_done(fake, task, store, settings):
    fake.register("off-agent", _answer_agent)
    fake.register("off-sim", lambda req: litellm_reply(""))  # answers nothing, every time
    result = await run_session(*_build(task, settings, agent_model="fake/off-agent"), store, settings)
    assert result.termination == "answer" and store.get_run(result.run_id).meta()["conversation_ended"] == "done"
    assert len(_user_messages(store, result.run_id)) == 1
    assert sum(1 for e in store.events(result.run_id, kinds=["usage"]) if e.data.purpose == "simulator") == 3


# ------------------------------------------------------------------ the budget of model calls
async def test_200_model_calls_end_the_trajectory_with_max_rounds(fake, task, store, settings):
    def busy(req):
        if not req.tools:
            return litellm_reply('[{"head": "a", "relation": "b", "tail": "c"}]')
        return litellm_reply("", tool_calls=[("no_such_tool", {"x": 1})])  # never replies

    fake.register("busy-agent", busy)
    fake.register("off-sim", lambda req: litellm_reply("More."))
    result = await run_session(*_build(task, settings, agent_model="fake/busy-agent"), store, settings)
    assert result.termination == "max_rounds" and result.status == "finished"
    usage = [e.data for e in store.events(result.run_id, kinds=["usage"])]
    assert sum(u.purpose == "agent" for u in usage) == MAX_LLM_CALLS == 200
    assert sum(u.purpose == "simulator" for u in usage) == 0  # the first turn spent the budget
    assert sum(u.purpose == "extraction" for u in usage) == 1  # extraction still runs
    assert store.events(result.run_id, kinds=["graph"])[0].data.triples == [{"head": "a", "relation": "b", "tail": "c"}]
    assert any(n.data.data.get("max_llm_calls") == 200 for n in store.events(result.run_id, kinds=["note"]))
    end = store.events(result.run_id, kinds=["end"])[-1].data
    assert isinstance(end, EndEvent) and end.termination == "max_rounds"


# ------------------------------------------------------------------ compaction
def _compaction_agent(prompt_tokens: int, calls: list):
    def agent(req):
        calls.append(req)
        if not req.tools:
            if "Here is the context to summarise" in req.last_user:
                return litellm_reply("SUMMARY of the research.")
            return litellm_reply("[]")
        # the first call reports a huge prompt; later ones a small one
        tokens = prompt_tokens if len([c for c in calls if c.tools]) == 1 else 100
        if len([c for c in calls if c.tools]) < 3:
            return litellm_reply("", tool_calls=[("no_such_tool", {})], input_tokens=tokens)
        return litellm_reply("Done researching.", input_tokens=100)

    return agent


THRESHOLD = official_compaction_threshold(256_000, max_tokens=AGENT_MAX_TOKENS)  # 245,760 with the defaults


@pytest.mark.parametrize("reported, compactions", [(THRESHOLD + 1, 1), (THRESHOLD, 0)])
async def test_compaction_when_the_reported_prompt_is_above_the_threshold(fake, task, store, settings, reported, compactions):
    calls: list = []
    fake.register("big-agent", _compaction_agent(reported, calls))
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    result = await run_session(*_build(task, settings, agent_model="fake/big-agent"), store, settings)
    assert result.termination == "answer"
    events = store.events(result.run_id)
    comp = [e.data for e in events if isinstance(e.data, CompactionEvent)]
    assert len(comp) == compactions
    if compactions:
        assert comp[0].tokens_before == reported and comp[0].threshold == THRESHOLD
        kinds = [(e.data.kind, getattr(e.data, "purpose", None)) for e in events if e.kind in ("usage", "compaction")]
        # agent call (huge prompt) → compaction call → compaction event → the next agent call
        i = kinds.index(("usage", "compaction"))
        assert kinds[i - 1] == ("usage", "agent") and kinds[i + 1] == ("compaction", None) and kinds[i + 2] == ("usage", "agent")
        after = [c for c in calls if c.tools][1]
        assert "SUMMARY of the research." in json.dumps(after.messages)
        # the official rebuild in our words: the question, the summary as the agent's, a request to go on
        assert [m["role"] for m in after.messages[:4]] == ["system", "user", "assistant", "user"]
        assert after.messages[1]["content"] == task.persona.initial_query
        assert after.messages[2]["content"].endswith("SUMMARY of the research.") and after.messages[3]["content"] == OWN_GO_ON


@pytest.mark.parametrize("error, compactions", [("context", 1), ("400", 1), ("timeout", 0)])
async def test_a_refused_call_compacts_and_a_timed_out_one_is_tried_again(fake, task, store, settings, error, compactions):
    # a 400 is never retried: the loop compacts; a timeout (the OpenAI SDK's, on the path the
    # official scripts use) is one failed attempt of the client's eight, never a compaction
    state = {"failures": 0}

    def agent(req):
        if not req.tools:
            if "Here is the context to summarise" in req.last_user:
                return litellm_reply("SUMMARY.")
            return litellm_reply("[]")
        if state["failures"] < (2 if error == "timeout" else 1):
            state["failures"] += 1
            if error == "context":
                raise _litellm().ContextWindowExceededError("prompt is too long", model="off", llm_provider="fake")
            return litellm_reply("", error=error)
        return litellm_reply("Answer after compaction.")

    fake.register("overflow-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    result = await run_session(*_build(task, settings, agent_model="fake/overflow-agent"), store, settings)
    assert result.status == "finished" and result.termination == "answer", result
    events = store.events(result.run_id)
    assert sum(isinstance(e.data, CompactionEvent) for e in events) == compactions
    replies = [e.data.content for e in events if isinstance(e.data, MessageEvent) and e.data.role == "assistant" and e.data.final and e.data.phase == "dialogue"]
    assert replies == ["Answer after compaction."]
    assert not [e for e in events if e.kind == "error" and e.data.fatal]


async def test_our_profile_still_ends_the_run_on_a_400(fake, task, store, settings):
    fake.register("bad-agent", lambda req: litellm_reply("", error="400"))
    config = build_config(settings, task_id=task.id, agent="react", agent_model="fake/bad-agent", user="rules")
    result = await run_session(config, task, make_agent(config, task, settings), make_user(config, task, settings), store, settings)
    assert result.status == "failed" and result.termination == "error"
    assert not store.events(result.run_id, kinds=["compaction"])


# ------------------------------------------------------------------ prompts, language, sampling, records
async def test_prompts_come_from_the_stand_in_checkout_and_the_run_records_them(fake, task, store, settings, tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_IMPORT_MARKER", str(tmp_path / "imported.txt"))
    requests = []

    def agent(req):
        requests.append(req)
        return _answer_agent(req)

    fake.register("off-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    settings = settings.model_copy(update={"official_harness": HARNESS})
    built = _build(task, settings, agent_model="fake/off-agent")
    assert isinstance(built[3], OfficialUser)
    result = await run_session(*built, store, settings)
    assert requests[0].system.startswith("STAND-IN agent prompt (en)")
    assert requests[0].sampling == {"temperature": AGENT_TEMPERATURE, "top_p": AGENT_TOP_P, "max_tokens": AGENT_MAX_TOKENS}
    assert _user_messages(store, result.run_id, "extraction") == ["STAND-IN extraction request (en): list every triple as JSON."]
    digest = hashlib.sha256((HARNESS / "agent" / "prompts.py").read_bytes()).hexdigest()
    run = store.get_run(result.run_id)
    meta = run.meta()
    assert meta["prompts"]["kind"] == "official" and meta["prompts"]["files"]["agent/prompts.py"] == digest
    assert meta["prompt_source"].startswith("official prompts (")
    first = store.events(result.run_id)[0].data
    assert isinstance(first, NoteEvent) and first.data["prompts"]["files"]["agent/prompts.py"] == digest
    assert first.text.startswith("official protocol, official prompts")
    stored = run.run_config()
    assert stored.protocol == "official" and stored.agent.sampling.top_p == AGENT_TOP_P
    assert stored.user.sampling.temperature == SIMULATOR_TEMPERATURE
    assert not (tmp_path / "imported.txt").exists()  # parsed, never executed


async def test_a_chinese_task_gets_the_chinese_prompts(fake, zh_task, store, settings):
    requests = []

    def agent(req):
        requests.append(req)
        return _answer_agent(req)

    fake.register("off-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    settings = settings.model_copy(update={"official_harness": HARNESS})
    result = await run_session(*_build(zh_task, settings, agent_model="fake/off-agent"), store, settings)
    assert requests[0].system.startswith("STAND-IN agent prompt (zh)")
    assert _user_messages(store, result.run_id, "extraction")[0].startswith("STAND-IN extraction request (zh)")


async def test_without_a_checkout_the_run_says_own_prompts(fake, zh_task, store, settings):
    from vibesearch.protocol import own_prompts

    requests = []

    def agent(req):
        requests.append(req)
        return _answer_agent(req)

    fake.register("off-agent", agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    result = await run_session(*_build(zh_task, settings, agent_model="fake/off-agent"), store, settings)
    assert requests[0].system == own_prompts().agent_system_prompt("zh")
    assert store.get_run(result.run_id).meta()["prompt_source"] == "own prompts"
    assert store.events(result.run_id)[0].data.text == "official protocol, own prompts"


def test_a_sampling_the_run_set_is_kept(settings):
    from vibesearch.protocol import resolve

    filled = build_config(settings.model_copy(update={"temperature": 0.2}), protocol="official")  # resolved when built
    assert filled.agent.sampling.temperature == 0.2 and filled.agent.sampling.top_p == AGENT_TOP_P
    assert filled.user.sampling.temperature == 0.2 and filled.user.sampling.max_tokens == SIMULATOR_MAX_TOKENS
    ours = build_config(settings)
    assert resolve(ours) == ours


# ------------------------------------------------------------------ the choice: app form and CLI
def test_the_app_form_takes_the_profile_name_only(settings):
    from vibesearch.app import form_request

    req = form_request(settings, task_id="t1", protocol="official")
    assert req.config.protocol == "official"
    assert form_request(settings, task_id="t1").config.protocol == "vibesearch"
    for bad in ("paper", str(HARNESS), {"protocol": "official"}):
        with pytest.raises(ValueError, match="protocol"):
            form_request(settings, task_id="t1", protocol=bad)


def test_the_cli_runs_the_official_profile_with_a_checkout(fake, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from vibesearch.cli.main import app
    from vibesearch.store import Store

    fake.register("off-agent", _answer_agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    task_file = tmp_path / "task.json"
    task_file.write_text(json.dumps(TASK), encoding="utf-8")
    db = tmp_path / "cli.db"
    monkeypatch.setenv("VIBESEARCH_TASKS", "")
    out = CliRunner().invoke(app, [
        "run", "--tasks", str(task_file), "--agent", "react", "--model", "fake/off-agent", "--user", "paper",
        "--simulator-model", "fake/off-sim", "--protocol", "official", "--official-harness", str(HARNESS),
        "--db", str(db), "--json",
    ])
    assert out.exit_code == 0, out.output
    runs = Store(db).list_runs()
    assert len(runs) == 1 and runs[0].run_config().protocol == "official"
    assert runs[0].meta()["prompts"]["kind"] == "official"
    bad = CliRunner().invoke(app, ["run", "--tasks", str(task_file), "--protocol", "paper", "--db", str(db)])
    assert bad.exit_code != 0 and "--protocol 'paper'" in bad.output


def test_usage_events_name_every_budgeted_purpose():
    # the budget counts agent calls and compactions; both are purposes the usage event knows
    from vibesearch.protocol.profiles import BUDGET_PURPOSES

    assert BUDGET_PURPOSES <= set(UsageEvent.model_fields["purpose"].annotation.__args__)


async def test_a_run_is_resumed_only_with_the_prompts_it_started_with(fake, task, store, settings, tmp_path):
    import shutil

    from vibesearch.runner import ResumeError, resume_run

    fake.register("off-agent", _answer_agent)
    fake.register("off-sim", lambda req: litellm_reply("[DONE]"))
    official = settings.model_copy(update={"official_harness": HARNESS})
    result = await run_session(*_build(task, official, agent_model="fake/off-agent"), store, official)
    store.update_run(result.run_id, status="interrupted")  # as if the process had stopped
    events_before = len(store.events(result.run_id))

    edited = tmp_path / "harness"
    shutil.copytree(HARNESS, edited)
    (edited / "agent" / "prompts.py").write_text((HARNESS / "agent" / "prompts.py").read_text() + "\n# edited\n")
    for other, now in ((settings.model_copy(update={"official_harness": None}), "own prompts"),
                       (settings.model_copy(update={"official_harness": edited}), r"official prompts \(")):
        with pytest.raises(ResumeError, match=rf"was started with official prompts \(.*but this process has {now}"):
            await resume_run(store, result.run_id, other)
    assert len(store.events(result.run_id)) == events_before and store.get_run(result.run_id).status == "interrupted"
    # the same checkout passes the check and the resume goes on to read the events (this run had
    # in fact ended, which is what stops it there)
    from vibesearch.session import RunAlreadyEnded

    with pytest.raises(RunAlreadyEnded):
        await resume_run(store, result.run_id, official)


async def test_the_simulator_inherits_a_deepseek_agents_reasoning_effort_on_the_agents_endpoint(fake, task, store, settings):
    # run_one_simulated calls the simulator with the agent's own client configuration when it has
    # no URL of its own: a DeepSeek agent's "max" effort goes with it, its thinking switch does not
    agent_requests, sim_requests = [], []

    def agent(req):
        agent_requests.append(req)
        return _answer_agent(req)

    def sim(req):
        sim_requests.append(req)
        return litellm_reply("Go on." if len(sim_requests) == 1 else "[DONE]")

    fake.register("deepseek-v4-agent", agent)
    fake.register("off-sim", sim)
    config, *parts = _build(task, settings, agent_model="fake/deepseek-v4-agent")
    assert config.user.sampling.reasoning_effort == "max"  # resolved once, stored with the run
    result = await run_session(config, *parts, store, settings)
    assert store.get_run(result.run_id).run_config().user.sampling.reasoning_effort == "max"
    assert len(sim_requests) == 2
    for req in sim_requests:
        assert req.body.get("reasoning_effort") == "max" and "thinking" not in req.body
        assert req.sampling == {"temperature": SIMULATOR_TEMPERATURE, "top_p": 0.95, "max_tokens": SIMULATOR_MAX_TOKENS}
    assert all(r.body.get("reasoning_effort") == "max" and r.body.get("thinking") == {"type": "enabled"} for r in agent_requests)

    # another family's agent on the same route: nothing to inherit, nothing sent
    sim_requests.clear()
    fake.register("glm-agent", _answer_agent)
    config, *parts = _build(task, settings, agent_model="fake/glm-agent")
    await run_session(config, *parts, store, settings)
    assert sim_requests and all("reasoning_effort" not in r.body for r in sim_requests)
