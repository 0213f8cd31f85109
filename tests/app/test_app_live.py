"""The run manager: runs on their own loop, scored at the end, stopped for real, owned by one browser."""

from __future__ import annotations

import time

import pytest
from app_harness import wait_until

from vibesearch.app.catalog import TaskCatalog
from vibesearch.app.live import NotYourRun, RunManager, form_request
from vibesearch.run import StageEvent


def _wait(pred, timeout=30.0, what="condition"):
    wait_until(pred, what, timeout)


@pytest.fixture
def manager(store, settings):
    m = RunManager(store, settings.model_copy(update={"max_user_turns": 4}))
    yield m
    m.shutdown()


@pytest.fixture
def task(settings):
    cat = TaskCatalog.load(settings)
    return cat.get(cat.default_id())


def test_offline_run_finishes_and_is_scored_by_the_offline_judge(manager, store, task):
    live = manager.start(form_request(manager.settings, task_id=task.id), task, "owner-a")
    manager.wait(live.run_id, timeout=60)
    run = store.get_run(live.run_id)
    assert run.status == "finished" and run.owner == "owner-a"
    assert run.agent == "baseline" and run.user == "rules"
    scores = store.scores(live.run_id)
    assert [s.judge for s in scores] == ["offline"]
    assert scores[0].n_gt == len(task.graph) and scores[0].n_pred > 0
    kinds = [e.kind for e in store.events(live.run_id)]
    assert kinds[0] == "stage" and kinds[-1] == "end" and "tool_call" in kinds


def test_stop_cancels_the_run_on_the_server(manager, store, task):
    live = manager.start(form_request(manager.settings, task_id=task.id, user="human"), task, "owner-a")
    _wait(lambda: live.pending() is not None, what="the person's turn")
    with pytest.raises(NotYourRun):
        manager.stop(live.run_id, "owner-b")
    manager.stop(live.run_id, "owner-a")
    manager.wait(live.run_id, timeout=15)
    run = store.get_run(live.run_id)
    assert (run.status, run.termination) == ("cancelled", "cancelled")
    assert store.events(live.run_id)[-1].data.termination == "cancelled"
    assert store.scores(live.run_id) == []  # a stopped run is not scored


def test_a_person_plays_the_persona_with_a_shadow(manager, store, task, fake):
    def shadow_model(req):  # an opinion that always disagrees with disclosing
        return fake.Reply(content='{"trigger_met": false, "reply_kind": "push", "reply": "Go on.", "rationale": "not yet"}')

    fake.register("live-shadow", shadow_model)
    req = form_request(manager.settings, task_id=task.id, user="human", shadow=True, simulator_model="fake/live-shadow")
    live = manager.start(req, task, "owner-a")
    _wait(lambda: live.pending() is not None, what="the person's turn")
    assert live.pending()["next_line"] == task.stages[1].line
    with pytest.raises(NotYourRun):
        manager.submit(live.run_id, "owner-b", "hi", "push")
    with pytest.raises(ValueError, match="decision must be one of"):
        manager.submit(live.run_id, "owner-a", "hi", "shout")
    manager.submit(live.run_id, "owner-a", "", "disclose")
    _wait(lambda: live.pending() is not None and live.pending()["stage_index"] == 1, what="the second turn")
    stages = [e.data for e in store.events(live.run_id, kinds=["stage"])]
    human = [s for s in stages if s.decided_by == "human"]
    shadow = [s for s in stages if s.shadow]
    assert human[-1].advanced and human[-1].stage_index == 1 and human[-1].reply_kind == "disclose"
    assert shadow and shadow[-1].reply_kind == "push" and not shadow[-1].advanced
    user_msgs = [e.data.content for e in store.events(live.run_id, kinds=["message"]) if e.data.role == "user"]
    assert user_msgs[-1] == task.stages[1].line  # an empty disclose says the stage's line
    manager.submit(live.run_id, "owner-a", "", "done")
    manager.wait(live.run_id, timeout=30)
    run = store.get_run(live.run_id)
    assert (run.status, run.termination) == ("finished", "done")
    assert store.scores(live.run_id)


def test_bad_requests_fail_before_anything_runs(manager, store, task):
    with pytest.raises(ValueError, match="needs a model"):
        manager.start(form_request(manager.settings, task_id=task.id, agent="react"), task, "owner-a")
    with pytest.raises(ValueError, match="owner"):
        manager.start(form_request(manager.settings, task_id=task.id), task, "")
    assert store.list_runs() == []


def test_pace_slows_simulated_turns_and_is_recorded(manager, store, task):
    live = manager.start(form_request(manager.settings, task_id=task.id, pace_s=0.3, max_user_turns=3), task, "owner-a")
    manager.wait(live.run_id, timeout=60)
    events = store.events(live.run_id)
    turns = [e for e in events if isinstance(e.data, StageEvent) and e.data.reply_kind != "open"]
    assert len(turns) == 2  # max 3 user turns: the opening and two answers
    assert (events[-1].ts - events[0].ts).total_seconds() >= 0.55
    assert store.get_run(live.run_id).run_config().pace_s == 0.3  # recorded with the run's config


def test_a_started_run_can_be_read_as_soon_as_its_id_is_handed_back(manager, store, task):
    # a busy run loop (another run's blocking moment) delays the session's first write; the id
    # handed back must still name a stored run at once (the API's next call reads it)
    import asyncio

    loop = manager._ensure_loop()
    asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop).result(timeout=10)  # the loop is up
    loop.call_soon_threadsafe(time.sleep, 0.5)  # then held for half a second
    live = manager.start(form_request(manager.settings, task_id=task.id), task, "owner-a")
    assert store.get_run(live.run_id).owner == "owner-a"  # (without the wait for the row: RunNotFound)
    manager.wait(live.run_id, timeout=60)
