"""Resuming interrupted runs: at every possible cut point in-process, and after a real SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from conftest import HERE, normalised
from vibesearch.agents import make_agent
from vibesearch.session import ResumeError, RunAlreadyEnded, resume_run, run_session
from vibesearch.store import Store
from vibesearch.store.events import MessageEvent, ToolCallEvent
from vibesearch.users import make_user

REPO = HERE.parent.parent


def copy_prefix(store: Store, run_id: str, k: int) -> str:
    """A new run holding the first ``k`` events of ``run_id``, as a killed process would leave it."""
    run = store.get_run(run_id)
    copy = store.create_run(
        run.task_id,
        task_json=json.loads(run.task_json),
        config=json.loads(run.config_json),
        meta=json.loads(run.meta_json),
        agent=run.agent,
        agent_model=run.agent_model,
        user=run.user,
        simulator_model=run.simulator_model,
        status="interrupted",
    )
    for ev in store.events(run_id)[:k]:
        store.append(copy.id, ev.data)
    return copy.id


def unrecoverable(prefix) -> str | None:
    """Cut points a resume cannot make identical: inside extraction, or a step cut before its calls."""
    data = [e.data for e in prefix]
    if any(isinstance(d, MessageEvent) and d.phase == "extraction" for d in data):
        return "extraction"
    steps = [i for i, d in enumerate(data) if isinstance(d, MessageEvent) and d.role == "assistant"]
    if steps:
        i = steps[-1]
        calls = sum(isinstance(d, ToolCallEvent) for d in data[i + 1 :])
        if calls < data[i].n_tool_calls:
            return "step without its calls"
    return None


async def test_resume_from_every_cut_point_equals_the_uninterrupted_run(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    s = settings.model_copy(update={"max_user_turns": 2})
    full = await run_session(
        task, make_agent("react", task, s, model="fake/agent"), make_user("simulator", task, s, model="fake/sim"), store, s
    )
    assert full.termination == "max_user_turns"
    events = store.events(full.run_id)
    want = normalised(events)
    kinds_seen = set()
    for k in range(len(events)):  # every cut: nothing stored ... everything but the end event
        rid = copy_prefix(store, full.run_id, k)
        prefix = store.events(rid)
        result = await resume_run(store, rid, settings)
        assert result.status == "finished", (k, result)
        got = store.events(rid)
        assert got[-1].kind == "end" and store.get_run(rid).status == "finished"
        why = unrecoverable(prefix)
        if why is None:
            assert normalised(got) == want, f"resumed after {k} events: {[e.kind for e in prefix[-3:]]}"
            kinds_seen.add(prefix[-1].kind if prefix else "nothing")
        else:
            assert any(e.kind == "graph" for e in got), (k, why)
    # the cuts covered mid-agent-turn, mid-user-turn and between turns
    assert {"nothing", "tool_call", "tool_result", "stage", "message"} <= kinds_seen


async def test_resume_runs_a_cut_off_tool_call_again(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    s = settings.model_copy(update={"max_user_turns": 2})
    full = await run_session(task, make_agent("react", task, s, model="fake/agent"), make_user("rules", task, s), store, s)
    events = store.events(full.run_id)
    k = next(i for i, e in enumerate(events) if e.kind == "tool_call") + 1
    rid = copy_prefix(store, full.run_id, k)
    await resume_run(store, rid, settings)
    got = store.events(rid)
    call_id = events[k - 1].data.call_id
    results = [e.data for e in got if e.kind == "tool_result" and e.data.call_id == call_id]
    assert len(results) == 1 and results[0].content == events[k].data.content  # run again, same output


async def test_only_interrupted_runs_resume(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    s = settings.model_copy(update={"max_user_turns": 1})
    done = await run_session(task, make_agent("react", task, s, model="fake/agent"), make_user("rules", task, s), store, s)
    with pytest.raises(ResumeError, match="finished"):
        await resume_run(store, done.run_id, settings)
    store.update_run(done.run_id, status="interrupted")
    with pytest.raises(RunAlreadyEnded):
        await resume_run(store, done.run_id, settings)


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(REPO), env.get("PYTHONPATH", "")])
    env["VIBESEARCH_FAKE_MODELS"] = "_session_fakes:register"
    env.update(extra)
    return env


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "vibesearch.cli.main", *args]


@pytest.mark.slow
async def test_sigkill_mid_run_loses_nothing_printed_and_resume_completes(fakes, persona_tasks, settings, tmp_path):
    task = persona_tasks[0]
    db = tmp_path / "killed.db"
    common = ["--agent", "react", "--model", "fake/agent", "--user", "simulator", "--simulator-model", "fake/sim", "--max-user-turns", "4"]
    proc = subprocess.Popen(
        _cli("run", "--tasks", task.id, *common, "--events", "--db", str(db)),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(VIBESEARCH_TEST_FAKE_DELAY="0.2"),
        cwd=tmp_path,
        text=True,
    )
    printed = []
    results = 0
    try:
        for line in proc.stdout:  # type: ignore[union-attr]
            printed.append(json.loads(line))
            results += printed[-1]["kind"] == "tool_result"
            if results == 5:  # mid-run: the agent's next model call is in flight
                break
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert results == 5, "the run ended before it could be killed"
    store = Store(db)
    run_id = printed[0]["run_id"]
    stored = {e.seq: e for e in store.events(run_id)}
    for line in printed:  # everything shown was stored first
        assert line["seq"] in stored
        assert stored[line["seq"]].data.model_dump(mode="json") == line["data"]
    assert store.get_run(run_id).status == "running"
    assert not any(e.kind == "end" for e in stored.values())

    done = subprocess.run(_cli("resume", run_id, "--json", "--db", str(db)), env=_env(), cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["run_id"] == run_id and summary["status"] == "finished"

    # the same configuration, never interrupted
    s = settings.model_copy(update={"max_user_turns": 4, "simulator_model": "fake/sim"})
    fresh_store = Store(tmp_path / "fresh.db")
    fresh = await run_session(
        task, make_agent("react", task, s, model="fake/agent"), make_user("simulator", task, s, model="fake/sim"), fresh_store, s
    )
    assert normalised(Store(db).events(run_id)) == normalised(fresh_store.events(fresh.run_id))
