"""The run manager and runs a person abandons: the idle timeout ends a "me" run as ``abandoned``,
its owner (or an admin) continues it or stops it, and a run a dead server left ``running`` is
closed as ``interrupted`` when the next manager starts."""

from __future__ import annotations


import pytest
from app_harness import wait_until

from vibesearch.app.catalog import TaskCatalog
from vibesearch.app.live import NotYourRun, RunManager, form_request
from vibesearch.run import EndEvent, NoteEvent


def _wait(pred, timeout=30.0, what="condition"):
    wait_until(pred, what, timeout)


@pytest.fixture
def manager(store, settings):
    m = RunManager(store, settings.model_copy(update={"max_user_turns": 4, "human_idle_timeout_s": 0.5}))
    yield m
    m.shutdown()


@pytest.fixture
def task(settings):
    cat = TaskCatalog.load(settings)
    return cat.get(cat.default_id())


def test_an_idle_me_run_is_abandoned_then_continued_by_its_owner_only(manager, store, task):
    live = manager.start(form_request(manager.settings, task_id=task.id, user="human"), task, "user:alice")
    manager.wait(live.run_id, timeout=30)
    run = store.get_run(live.run_id)
    assert (run.status, run.termination) == ("abandoned", "abandoned")
    assert store.events(live.run_id)[-1].data.termination == "abandoned"
    assert store.scores(live.run_id) == []  # nothing to score: no graph
    assert not manager.is_live(live.run_id)

    with pytest.raises(NotYourRun):
        manager.resume(live.run_id, "user:bob")
    again = manager.resume(live.run_id, "user:alice")
    assert again.run_id == live.run_id and again.owner == "user:alice" and again.human is not None
    _wait(lambda: again.pending() is not None, what="the person's turn again")
    assert store.get_run(live.run_id).status == "running"
    manager.submit(live.run_id, "user:alice", "", "done")
    manager.wait(live.run_id, timeout=30)
    run = store.get_run(live.run_id)
    assert (run.status, run.termination) == ("finished", "done")
    ends = [e.data.termination for e in store.events(live.run_id) if isinstance(e.data, EndEvent)]
    assert ends == ["abandoned", "done"]
    with pytest.raises(ValueError, match="finished"):
        manager.resume(live.run_id, "user:alice")


def test_an_admin_stops_an_abandoned_run(manager, store, task):
    live = manager.start(form_request(manager.settings, task_id=task.id, user="human"), task, "user:alice")
    manager.wait(live.run_id, timeout=30)
    with pytest.raises(NotYourRun):
        manager.stop_any(live.run_id, "user:bob")
    manager.stop_any(live.run_id, "user:root", admin=True)
    run = store.get_run(live.run_id)
    assert (run.status, run.termination) == ("cancelled", "cancelled")


def test_the_next_manager_closes_runs_left_running_without_a_driver(store, settings, task):
    from vibesearch.protocol import build_config
    from vibesearch.store.leases import claim, new_owner, run_key

    # what a killed server leaves: a "running" row and a lease nobody renews (expired at once here)
    run = store.create_run(task.id, task_json=task.model_dump(mode="json"), status="running", owner="user:alice", agent="baseline", user="human",
                           meta={"task_file": task.source_file}, run_config=build_config(settings, task_id=task.id, user="human"))
    assert claim(store, run_key(run.id), new_owner(), 0.0) is None
    busy = RunManager(store, settings)  # the next server: it closes the run at its start
    try:
        assert busy.closed_at_start == [run.id]
        assert store.get_run(run.id).status == "interrupted"
        going = busy.start(form_request(settings, task_id=task.id, user="human"), task, "user:carol")
        _wait(lambda: going.pending() is not None, what="the live run's person's turn")
        second = RunManager(store, settings)
        try:
            assert second.closed_at_start == []  # exactly once; a run a live process drives is left alone
            assert store.get_run(going.run_id).status == "running"
            notes = [e for e in store.events(run.id) if isinstance(e.data, NoteEvent) and e.data.data.get("closed")]
            assert len(notes) == 1
            # offered for continuing: its owner plays it from the opening on
            again = second.resume(run.id, "user:alice")
            _wait(lambda: again.pending() is not None, what="the continued run's person's turn")
            second.stop(run.id, "user:alice")
            second.wait(run.id, timeout=15)
            assert store.get_run(run.id).status == "cancelled"
        finally:
            second.shutdown()
    finally:
        busy.shutdown()
