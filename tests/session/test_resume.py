"""Resuming interrupted runs: at every possible cut point in-process, and after real SIGKILLs.

A resumed run continues inside the open turn, so its events (ids and times aside) and its
statistics equal those of the same run never interrupted.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess

import pytest

from _engines import sqlite_only
from _procs import LEASE_LINE, cli, env, read_events_until, wait_for
from _parts import parts
from _normalised import normalised
from vibesearch.scoring.stats import stats_from_events
from vibesearch.session import RunAlreadyEnded, run_session
from vibesearch.runner import ResumeError, resume_run
from vibesearch.store import Store
from vibesearch.run.events import MessageEvent, StageEvent, ToolCallEvent, UsageEvent


def copy_prefix(store: Store, run_id: str, k: int) -> str:
    """A new run holding the first ``k`` events of ``run_id``, as a killed process would leave it."""
    run = store.get_run(run_id)
    copy = store.create_run(
        run.task_id,
        task_json=json.loads(run.task_json),
        config=json.loads(run.config_json),
        meta=json.loads(run.meta_json),
        run_config=run.run_config(),
        agent=run.agent,
        agent_model=run.agent_model,
        user=run.user,
        simulator_model=run.simulator_model,
        status="interrupted",
    )
    for ev in store.events(run_id)[:k]:
        store.append(copy.id, ev.data)
    return copy.id


def stats(events) -> dict:
    """A run's statistics, wall time and id aside."""
    return stats_from_events("-", events, measure_wall_time=False).model_dump(exclude={"run_id", "wall_time_s"})


def inside_a_group(prefix) -> str | None:
    """Cut points no interruption can leave: the recorder writes these events with the ones after them."""
    if not prefix:
        return None
    last = prefix[-1].data
    if isinstance(last, UsageEvent):
        return "a model call's usage without its result"
    if isinstance(last, StageEvent):
        return "a stage decision without the user's message"
    if isinstance(last, MessageEvent) and last.role == "assistant" and last.phase == "extraction":
        return "the extraction answer without its graph"
    steps = [i for i, e in enumerate(prefix) if isinstance(e.data, MessageEvent) and e.data.role == "assistant"]
    if steps:
        i = steps[-1]
        if sum(isinstance(e.data, ToolCallEvent) for e in prefix[i + 1 :]) < prefix[i].data.n_tool_calls:
            return "a step without all its calls"
    return None


async def test_resume_from_every_cut_point_equals_the_uninterrupted_run(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    s = settings.model_copy(update={"max_user_turns": 2})
    full = await run_session(
        *parts(task, s, agent="react", agent_model="fake/agent", user="simulator", simulator_model="fake/sim"), store, s
    )
    assert full.termination == "max_user_turns"
    events = store.events(full.run_id)
    want, want_stats = normalised(events), stats(events)
    kinds_seen = set()
    for k in range(len(events)):  # every cut: nothing stored ... everything but the end event
        rid = copy_prefix(store, full.run_id, k)
        prefix = store.events(rid)
        result = await resume_run(store, rid, settings)
        assert result.status == "finished", (k, result)
        got = store.events(rid)
        assert got[-1].kind == "end" and store.get_run(rid).status == "finished"
        assert [e.kind for e in got].count("end") == 1 and [e.kind for e in got].count("graph") == 1
        why = inside_a_group(prefix)
        if why is None:  # a cut an interruption can leave: nothing is done twice
            assert normalised(got) == want, f"resumed after {k} events: {[e.kind for e in prefix[-3:]]}"
            assert stats(got) == want_stats, f"resumed after {k} events: {[e.kind for e in prefix[-3:]]}"
            kinds_seen.add(prefix[-1].kind if prefix else "nothing")
            if prefix and prefix[-1].kind == "message" and prefix[-1].data.phase == "extraction":
                kinds_seen.add("extraction instruction")
        elif why != "a step without all its calls":  # older runs cut inside a group still come out right
            assert normalised(got) == want, (k, why)
    # the cuts covered mid-agent-turn, mid-user-turn, between turns and inside extraction
    assert {"nothing", "tool_call", "tool_result", "message", "extraction instruction"} <= kinds_seen


async def test_baseline_resumes_at_every_cut_point_without_redoing_anything(persona_tasks, store, settings):
    """The offline baseline and the rules user are deterministic: every cut resumes to the same run."""
    task = persona_tasks[0]
    s = settings.model_copy(update={"max_user_turns": 3})
    full = await run_session(*parts(task, s, agent="baseline", user="rules"), store, s)
    events = store.events(full.run_id)
    assert [e.kind for e in events].count("tool_call") == 6
    want, want_stats = normalised(events), stats(events)
    for k in range(len(events)):
        rid = copy_prefix(store, full.run_id, k)
        prefix = store.events(rid)
        result = await resume_run(store, rid, settings)
        got = store.events(rid)
        where = f"resumed after {k} events ({[e.kind for e in prefix[-3:]]})"
        assert normalised(got) == want, where
        assert stats(got) == want_stats, where
        # the stored tool calls were not made again: the same ids, each answered once
        ids = [e.data.call_id for e in got if e.kind == "tool_call"]
        assert ids[: sum(e.kind == "tool_call" for e in prefix)] == [e.data.call_id for e in prefix if e.kind == "tool_call"]
        assert sorted(ids) == sorted(e.data.call_id for e in got if e.kind == "tool_result"), where
        assert result.tool_calls == full.tool_calls and result.assistant_steps == full.assistant_steps


async def test_events_that_belong_together_are_stored_together(fakes, persona_tasks, store, settings):
    """When a viewer sees a usage record, a stage decision, a step or an extraction answer, what
    completes it is already stored: no interruption can fall between them."""
    task = persona_tasks[0]
    s = settings.model_copy(update={"max_user_turns": 2})
    stored_when_seen: dict[int, int] = {}

    def viewer(ev) -> None:
        stored_when_seen[ev.seq] = store.last_seq(ev.run_id)

    full = await run_session(
        *parts(task, s, agent="react", agent_model="fake/agent", user="simulator", simulator_model="fake/sim"), store, s, listeners=[viewer]
    )
    events = store.events(full.run_id)
    assert sorted(stored_when_seen) == [e.seq for e in events]
    for i, ev in enumerate(events):
        if inside_a_group(events[: i + 1]):
            assert stored_when_seen[ev.seq] > ev.seq, f"{ev.kind} #{ev.seq} was stored alone"
    assert {"usage", "stage", "tool_call"} <= {e.kind for e in events}


async def test_resume_runs_a_cut_off_tool_call_again(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    s = settings.model_copy(update={"max_user_turns": 2})
    full = await run_session(*parts(task, s, agent="react", agent_model="fake/agent", user="rules"), store, s)
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
    done = await run_session(*parts(task, s, agent="react", agent_model="fake/agent", user="rules"), store, s)
    with pytest.raises(ResumeError, match="finished"):
        await resume_run(store, done.run_id, settings)
    store.update_run(done.run_id, status="interrupted")
    with pytest.raises(RunAlreadyEnded):
        await resume_run(store, done.run_id, settings)


@sqlite_only("slow (four CLI runs); its databases are files of its own. Killed drivers on PostgreSQL: test_abandon.py")
@pytest.mark.slow
async def test_sigkill_at_several_points_then_resume_equals_the_uninterrupted_run(fakes, persona_tasks, settings, tmp_path):
    task = persona_tasks[0]
    common = ["--agent", "react", "--model", "fake/agent", "--user", "simulator", "--simulator-model", "fake/sim", "--max-user-turns", "4"]
    # the same configuration, never interrupted
    s = settings.model_copy(update={"max_user_turns": 4, "simulator_model": "fake/sim"})
    fresh_store = Store(tmp_path / "fresh.db")
    fresh = await run_session(
        *parts(task, s, agent="react", agent_model="fake/agent", user="simulator", simulator_model="fake/sim"), fresh_store, s
    )
    reference = fresh_store.events(fresh.run_id)
    assert len(reference) > 40

    # kill three real runs at different points (a short lease, so a resume may take over soon)
    points = {"early": 4, "middle": len(reference) // 2, "late": len(reference) - 8}
    killed = {}
    for name, point in points.items():  # one at a time: each is read as it runs
        proc = subprocess.Popen(
            cli("run", "--tasks", task.id, *common, "--events", "--db", str(tmp_path / f"{name}.db")),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env(VIBESEARCH_TEST_FAKE_DELAY="0.15", VIBESEARCH_LEASE_TTL_S="2"),
            cwd=tmp_path,
            text=True,
        )
        try:
            killed[name] = read_events_until(proc, lambda lines, n=point: len(lines) >= n)
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=60)

    for name, printed in killed.items():
        db = tmp_path / f"{name}.db"
        assert len(printed) >= points[name], f"{name}: the run ended before it could be killed"
        store = Store(db)
        run_id = printed[0]["run_id"]
        stored = store.events(run_id)
        by_seq = {e.seq: e for e in stored}
        for line in printed:  # everything shown was stored first
            assert by_seq[line["seq"]].data.model_dump(mode="json") == line["data"]
        assert store.get_run(run_id).status == "running" and stored[-1].kind != "end"
        assert inside_a_group(stored) is None, f"{name}: killed inside a group ({[e.kind for e in stored[-3:]]})"

        def resumed(db=db, run_id=run_id):  # refused while the dead process' lease lasts
            done = subprocess.run(cli("resume", run_id, "--json", "--db", str(db)), env=env(), cwd=tmp_path, capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                assert re.match(LEASE_LINE, done.stderr.strip()), done.stderr
                return None
            return json.loads(done.stdout)

        summary = wait_for(f"{name}: resume to take over", resumed, timeout=240, every=0.2)
        assert summary["run_id"] == run_id and summary["status"] == "finished"
        got = Store(db).events(run_id)
        assert normalised(got) == normalised(reference), name
        assert stats(got) == stats(reference), name
