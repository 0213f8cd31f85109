"""A "me" run nobody answers becomes ``abandoned`` (an end event), is left out of the numbers, and
its owner can continue it; a run left ``running`` by a killed process is closed as
``interrupted`` by the next sweep (the app's start), exactly once."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess

from _parts import parts
from _procs import cli, env, read_events_until, wait_for

from vibesearch.run import EndEvent, NoteEvent
from vibesearch.scoring.aggregate import collect_runs, left_out_runs
from vibesearch.session import run_session
from vibesearch.runner import close_orphaned, resume_run, stop_idle_run
from vibesearch.store import Store
from vibesearch.users import HumanUser, UserTurn


async def test_an_idle_human_run_is_abandoned_then_continued(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    config, _, agent, user = parts(task, settings, agent="react", agent_model="fake/agent", user="human")
    assert isinstance(user, HumanUser)
    user.idle_timeout_s = 0.3
    result = await asyncio.wait_for(run_session(config, task, agent, user, store, settings), 30)
    assert result.status == "abandoned" and result.termination == "abandoned"
    run = store.get_run(result.run_id)
    assert (run.status, run.termination) == ("abandoned", "abandoned")
    ends = [e.data for e in store.events(result.run_id) if isinstance(e.data, EndEvent)]
    assert len(ends) == 1 and ends[0].termination == "abandoned" and "0.3 s" in ends[0].detail
    assert store.latest_graph(result.run_id) is None  # no extraction: nothing to score

    # not a sample: left out, with the reason
    records, _ = collect_runs(store)
    out = left_out_runs(records)
    assert [(o["run_id"], o["reason"]) for o in out] == [(result.run_id, "abandoned by a person, no graph")]

    # its owner continues it with a person again, from where it stopped
    person = HumanUser(task)
    going = asyncio.create_task(resume_run(store, result.run_id, settings, user=person))
    await asyncio.wait_for(person.wait_pending(), 20)
    assert store.get_run(result.run_id).status == "running" and store.get_run(result.run_id).termination is None
    await person.submit(UserTurn(message="", reply_kind="done", decided_by="human"))
    done = await asyncio.wait_for(going, 30)
    assert done.status == "finished" and done.termination == "done"
    ends = [e.data.termination for e in store.events(result.run_id) if isinstance(e.data, EndEvent)]
    assert ends == ["abandoned", "done"]
    assert store.latest_graph(result.run_id) is not None


async def test_an_abandoned_run_can_be_stopped_for_good(fakes, persona_tasks, store, settings):
    task = persona_tasks[0]
    config, _, agent, user = parts(task, settings, agent="react", agent_model="fake/agent", user="human")
    user.idle_timeout_s = 0.2
    result = await asyncio.wait_for(run_session(config, task, agent, user, store, settings), 30)
    stop_idle_run(store, result.run_id, settings)
    run = store.get_run(result.run_id)
    assert (run.status, run.termination) == ("cancelled", "cancelled")
    assert store.events(result.run_id)[-1].data == EndEvent(termination="cancelled", detail="stopped from the Runs tab")


def test_a_run_left_running_by_a_killed_process_is_closed_once(fakes, persona_tasks, settings, tmp_path):
    task = persona_tasks[0]
    db = settings.db  # the test's database on either engine: the CLI gets its path or URL
    proc = subprocess.Popen(
        cli("run", "--tasks", task.id, "--agent", "react", "--model", "fake/agent", "--user", "simulator",
            "--simulator-model", "fake/sim", "--max-user-turns", "6", "--events", "--db", str(db)),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env(VIBESEARCH_TEST_FAKE_DELAY="0.15", VIBESEARCH_LEASE_TTL_S="1"),
        cwd=tmp_path,
        text=True,
    )
    try:
        printed = read_events_until(proc, lambda lines: len(lines) >= 6)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)
    run_id = printed[0]["run_id"]
    store = Store(db)
    assert store.get_run(run_id).status == "running"
    s = settings.model_copy(update={"lease_ttl_s": 1.0})
    # while the dead process' lease lasts nothing is touched; once it has expired, one sweep closes it
    closed = wait_for("the dead driver's lease to expire", lambda: close_orphaned(store, s), timeout=30)
    assert closed == [run_id]
    assert store.get_run(run_id).status == "interrupted"
    assert close_orphaned(store, s) == []  # exactly once
    notes = [e.data for e in store.events(run_id) if isinstance(e.data, NoteEvent) and e.data.data.get("closed")]
    assert len(notes) == 1 and "interrupted" in notes[0].text
    assert not any(isinstance(e.data, EndEvent) for e in store.events(run_id))
