"""The one run lifecycle (``session.lifecycle``): a run's status comes from its termination alone,
and a stored run taken up again says ``running`` (an abandoned one with its end set aside)."""

from __future__ import annotations

import pytest

from vibesearch.protocol import build_config
from vibesearch.run import EndEvent
from vibesearch.run.result import STATUS_OF
from vibesearch.session.lifecycle import close_run, open_run, reopen_run
from vibesearch.store.leases import release, run_key


def _opened(store, settings, task):
    opened = open_run(store, build_config(settings, task_id=task.id, agent="baseline", user="rules"), task, settings)
    return opened.run_id, opened.lease_owner


@pytest.mark.parametrize("termination", ["done", "error", "cancelled", "abandoned", "budget"])
def test_a_closed_run_has_the_status_its_termination_gives(termination, persona_tasks, store, settings):
    run_id, owner = _opened(store, settings, persona_tasks[0])
    try:
        assert close_run(store, run_id, termination, "why", lease=owner) == STATUS_OF[termination]
    finally:
        release(store, run_key(run_id), owner)
    run = store.get_run(run_id)
    assert (run.status, run.termination) == (STATUS_OF[termination], termination)
    ends = [e.data for e in store.events(run_id) if isinstance(e.data, EndEvent)]
    assert [(e.termination, e.detail) for e in ends] == [(termination, "why")]


def test_a_fatal_error_fails_the_run_whatever_its_termination(persona_tasks, store, settings):
    run_id, owner = _opened(store, settings, persona_tasks[0])
    assert close_run(store, run_id, "done", failed=True, lease=owner) == "failed"
    assert store.get_run(run_id).status == "failed"


def test_reopening_sets_an_abandonment_aside_and_keeps_other_ends(persona_tasks, store, settings):
    abandoned, owner = _opened(store, settings, persona_tasks[0])
    close_run(store, abandoned, "abandoned", lease=owner)
    assert reopen_run(store, abandoned, "abandoned", lease=owner) is True
    assert (store.get_run(abandoned).status, store.get_run(abandoned).termination) == ("running", None)

    interrupted, owner2 = _opened(store, settings, persona_tasks[0])
    store.update_run(interrupted, status="interrupted", lease=owner2)
    assert reopen_run(store, interrupted, "interrupted", lease=owner2) is False
    assert store.get_run(interrupted).status == "running"
