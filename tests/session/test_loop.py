"""The session loop end to end: real agents and users, fake models through litellm, a real SQLite store."""

from __future__ import annotations

import socket

import pytest

from _parts import parts

from vibesearch.run import RunConfig
from vibesearch.run.events import EndEvent, GraphEvent, MessageEvent, StageEvent
from vibesearch.session import run_session, stream_session


def kinds(events):
    return [e.kind for e in events]


def primary_stages(store, run_id):
    return [e.data for e in store.events(run_id, kinds=["stage"]) if not e.data.shadow]


def check_order(events):
    """The documented order: open stage + user message; every later user message right after its stage event(s)."""
    data = [e.data for e in events]
    assert isinstance(data[0], StageEvent) and data[0].reply_kind == "open"
    assert isinstance(data[1], MessageEvent) and data[1].role == "user"
    for i, d in enumerate(data):
        if isinstance(d, MessageEvent) and d.role == "user" and d.phase == "dialogue" and i > 1:
            prev = data[i - 1]
            assert isinstance(prev, StageEvent), f"user message at {i} is not preceded by its stage event"
    assert isinstance(data[-1], EndEvent)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))


async def test_react_agent_and_llm_simulator_reach_done_on_every_task(fakes, persona_tasks, store, settings):
    for task in persona_tasks:
        seen = []
        result = await run_session(
            *parts(task, settings, agent="react", agent_model="fake/agent", user="simulator", simulator_model="fake/sim"),
            store, settings, listeners=[seen.append],
        )
        assert result.status == "finished" and result.termination == "done", (task.id, result)
        assert result.stages_reached == result.stages_total == task.stage_count()
        events = store.events(result.run_id)
        assert [e.seq for e in seen] == [e.seq for e in events]  # listeners saw every stored event, in order
        check_order(events)
        stages = primary_stages(store, result.run_id)
        # one stage per turn, in order, then the completion signal
        assert [s.stage_index for s in stages] == list(range(task.stage_count())) + [task.stage_count() - 1]
        assert all(s.decided_by == "simulator" for s in stages[1:])
        assert stages[-1].reply_kind == "done"
        assert sum(isinstance(e.data, GraphEvent) for e in events) == 1
        assert result.tool_calls > 0 and result.assistant_steps >= 3 * (task.stage_count() - 1)
        run = store.get_run(result.run_id)
        assert (run.agent, run.agent_model, run.user, run.simulator_model) == ("react", "fake/agent", "simulator", "fake/sim")
        assert run.status == "finished" and run.termination == "done"


async def test_a_greedy_simulator_still_advances_one_stage_per_turn(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    built = parts(task, settings, agent="react", agent_model="fake/agent", user="simulator", simulator_model="fake/sim-greedy")
    result = await run_session(*built, store, settings)
    assert result.termination == "done"
    stages = primary_stages(store, result.run_id)
    steps = [b.stage_index - a.stage_index for a, b in zip(stages, stages[1:])]
    assert set(steps) <= {0, 1} and steps.count(1) == task.stage_count() - 1
    lines = {s.line for s in task.stages}
    for m in store.events(result.run_id, kinds=["message"]):
        if m.data.role == "user" and m.data.phase == "dialogue":
            assert sum(line in m.data.content for line in lines) <= 1


async def test_offline_defaults_run_every_bundled_task_without_network(persona_tasks, store, settings, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("the offline defaults touched the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    ran = 0
    for task in persona_tasks:
        if not task.corpus:
            continue
        ran += 1
        result = await run_session(*parts(task, settings), store, settings)  # baseline and rules
        assert result.status == "finished", (task.id, result.error)
        stages = primary_stages(store, result.run_id)
        assert max(s.stage_index for s in stages) >= 2, task.id  # progress past stage 1
        assert all(s.decided_by == "rules" for s in stages)
        assert store.latest_graph(result.run_id) is not None
    assert ran == sum(1 for t in persona_tasks if t.corpus) and ran > 0


async def test_max_user_turns(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    s = settings.model_copy(update={"max_user_turns": 3})
    result = await run_session(*parts(task, s, agent="react", agent_model="fake/agent-quiet", user="rules"), store, s)
    assert result.termination == "max_user_turns" and result.status == "finished"
    assert result.user_turns == 3 and result.stages_reached == 1
    assert store.latest_graph(result.run_id) is not None  # the graph is still extracted


async def test_stop_on_final_answer(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    s = settings.model_copy(update={"stop_on_final_answer": True})
    result = await run_session(*parts(task, s, agent="react", agent_model="fake/agent-quiet", user="rules"), store, s)
    assert result.termination == "answer" and result.user_turns == 1


async def test_token_budget(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    s = settings.model_copy(update={"budget_tokens": 3000})
    built = parts(task, s, agent="react", agent_model="fake/agent", user="simulator", simulator_model="fake/sim")
    result = await run_session(*built, store, s)
    assert result.termination == "budget" and result.status == "finished"
    end = store.events(result.run_id, kinds=["end"])[-1].data
    assert "budget 3000" in end.detail
    assert result.stages_reached < task.stage_count()


async def test_cost_budget(fake, fakes, persona_tasks, store, settings):
    import litellm

    litellm.register_model({"fake/pricey": {"input_cost_per_token": 1e-4, "output_cost_per_token": 2e-4, "litellm_provider": "fake", "mode": "chat"}})
    fake.register("pricey", fakes.agent_handler)
    task = persona_tasks[0]
    s = settings.model_copy(update={"budget_usd": 0.5})
    result = await run_session(*parts(task, s, agent="react", agent_model="fake/pricey", user="rules"), store, s)
    assert result.termination == "budget"
    cost = sum(e.data.cost_usd or 0 for e in store.events(result.run_id, kinds=["usage"]) if e.data.purpose == "agent")
    assert cost >= 0.5


async def test_fatal_agent_error_is_recorded_and_fails_the_run(fake, persona_tasks, store, settings):
    fake.register("broken", lambda r: fake.Reply(error="400"))
    task = persona_tasks[0]
    result = await run_session(*parts(task, settings, agent="react", agent_model="fake/broken", user="rules"), store, settings)
    assert result.status == "failed" and result.termination == "error" and "agent" in result.error
    errors = [e.data for e in store.events(result.run_id, kinds=["error"])]
    assert errors and errors[-1].fatal and errors[-1].source == "agent"
    assert not store.events(result.run_id, kinds=["graph"])  # no reply: nothing to extract
    assert store.get_run(result.run_id).status == "failed"


class ExplodingUser:
    kind = "rules"
    model = None

    def __init__(self, task, secret):
        self.task, self.secret = task, secret

    async def opening(self, state):
        from vibesearch.users import UserTurn

        return UserTurn(self.task.persona.initial_query, "open", decided_by="rules")

    async def next_turn(self, convo, state):
        raise RuntimeError(f"simulator crashed with key {self.secret}")


async def test_fatal_user_error_is_scrubbed_and_the_graph_still_extracted(fakes, persona_tasks, store, settings, monkeypatch):
    secret = "sk-test-abcdefghijklmnop1234"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    task = persona_tasks[0]
    config, _, agent, _ = parts(task, settings, agent="react", agent_model="fake/agent", user="rules")
    result = await run_session(config, task, agent, ExplodingUser(task, secret), store, settings)
    assert result.status == "failed" and result.termination == "error"
    err = [e.data for e in store.events(result.run_id, kinds=["error"]) if e.data.fatal][-1]
    assert err.source == "user" and secret not in err.message and "[redacted]" in err.message
    assert secret not in (result.error or "")
    assert store.events(result.run_id, kinds=["graph"])  # the agent had replied: its graph is kept
    assert store.events(result.run_id)[-1].data.termination == "error"


async def test_cancel_event_while_a_person_is_thinking(fakes, persona_tasks, store, settings):
    import asyncio

    task = persona_tasks[0]
    cancel = asyncio.Event()
    config, _, agent, user = parts(task, settings, agent="react", agent_model="fake/agent", user="human")
    run = asyncio.create_task(run_session(config, task, agent, user, store, settings, cancel=cancel))
    await asyncio.wait_for(user.wait_pending(), 10)
    cancel.set()
    result = await asyncio.wait_for(run, 10)
    assert result.status == "cancelled" and result.termination == "cancelled"
    assert store.events(result.run_id)[-1].data.termination == "cancelled"
    assert store.get_run(result.run_id).status == "cancelled"


async def test_task_cancellation_is_written_before_it_propagates(fakes, persona_tasks, store, settings):
    import asyncio

    task = persona_tasks[0]
    built = parts(task, settings, agent="react", agent_model="fake/agent", user="human")
    user = built[3]
    seen = []
    run = asyncio.create_task(run_session(*built, store, settings, listeners=[seen.append]))
    await asyncio.wait_for(user.wait_pending(), 10)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    run_id = seen[0].run_id
    assert store.get_run(run_id).status == "cancelled"
    assert store.events(run_id)[-1].data.termination == "cancelled"


async def test_stream_session_yields_stored_events(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    s = settings.model_copy(update={"max_user_turns": 2})
    stream = stream_session(*parts(task, s, agent="react", agent_model="fake/agent-quiet", user="rules"), store, s)
    got = [ev async for ev in stream]
    assert stream.result is not None and stream.result.termination == "max_user_turns"
    assert [e.seq for e in got] == [e.seq for e in store.events(stream.run_id)]
    assert got[-1].kind == "end"


async def test_table_tasks_skip_graph_extraction(fakes, persona_tasks, store, settings):
    from vibesearch.tables import get_table_task

    task = persona_tasks[0].model_copy(deep=True, update={"kind": "table", "table": get_table_task("galilean-moons")})
    s = settings.model_copy(update={"max_user_turns": 2})
    result = await run_session(*parts(task, s, agent="react", agent_model="fake/agent-quiet", user="rules"), store, s)
    assert result.status == "finished"
    assert not store.events(result.run_id, kinds=["graph"])
    assert store.get_run(result.run_id).kind == "table"


async def test_run_fields_and_snapshots(fakes, persona_tasks, store, settings):
    import json

    task = persona_tasks[0]
    s = settings.model_copy(update={"max_user_turns": 1})
    built = parts(task, s, agent="react", agent_model="fake/agent", user="rules")
    result = await run_session(*built, store, s, run_fields={"batch_id": "b1", "run_index": 2, "owner": "alice", "meta": {"note": "x"}})
    run = store.get_run(result.run_id)
    assert (run.batch_id, run.run_index, run.owner) == ("b1", 2, "alice")
    assert json.loads(run.task_json) == task.model_dump(mode="json")
    snapshot = json.loads(run.config_json)
    assert snapshot["max_user_turns"] == 1 and "endpoint_key" not in snapshot
    assert json.loads(run.meta_json)["note"] == "x"
    # the run's config is stored as one JSON column and reads back equal
    assert run.run_config() == built[0] and RunConfig.model_validate_json(run.run_config_json) == built[0]
    assert "agent_config" not in json.loads(run.meta_json)


async def test_a_model_call_limit_ends_the_run(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    built = parts(task, settings, agent="react", agent_model="fake/agent", user="rules", max_llm_calls=2)
    result = await run_session(*built, store, settings)
    assert result.termination == "budget" and result.status == "finished"
    agent_calls = [e for e in store.events(result.run_id, kinds=["usage"]) if e.data.purpose == "agent"]
    assert len(agent_calls) == 2
    assert "2 agent model calls (limit 2)" in store.events(result.run_id, kinds=["end"])[-1].data.detail


async def test_the_configs_sampling_reaches_the_agents_model(fake, persona_tasks, store, settings):
    seen = []

    def model(req):
        seen.append(req.sampling)
        return fake.Reply(content="Here is what I found.")

    fake.register("sampled", model)
    task = persona_tasks[0]
    sampling = {"temperature": 0.1, "top_p": 0.5, "max_tokens": 64}
    built = parts(task, settings, agent="react", agent_model="fake/sampled", user="rules", max_user_turns=1, agent_sampling=sampling)
    result = await run_session(*built, store, settings)
    assert result.status == "finished"
    assert len(seen) >= 2 and all(s == sampling for s in seen)  # the reply and the extraction
    assert store.get_run(result.run_id).run_config().agent.sampling.params() == sampling
