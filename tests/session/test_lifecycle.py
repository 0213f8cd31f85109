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


def test_opening_is_one_transaction_claim_row_and_first_events(persona_tasks, store, settings):
    """``open_run`` claims the lease, stores the row and its first events together: a refused
    lease stores no row, and a row that cannot be stored leaves no lease behind."""
    from sqlalchemy.exc import IntegrityError

    from vibesearch.store import RunNotFound
    from vibesearch.store.leases import LeaseHeld, claim, holder

    task = persona_tasks[0]
    config = build_config(settings, task_id=task.id, agent="baseline", user="rules")

    assert claim(store, run_key("held-elsewhere"), "otherhost:4242:abc", 60) is None
    with pytest.raises(LeaseHeld, match="pid 4242"):
        open_run(store, config, task, settings, run_id="held-elsewhere")
    with pytest.raises(RunNotFound):
        store.get_run("held-elsewhere")
    assert holder(store, run_key("held-elsewhere")).owner == "otherhost:4242:abc"

    run_id, owner = _opened(store, settings, task)
    assert holder(store, run_key(run_id)).owner == owner  # the driver that takes over adopts it
    release(store, run_key(run_id), owner)
    with pytest.raises(IntegrityError):  # the id is taken: the claim made before the row is undone
        open_run(store, config, task, settings, run_id=run_id)
    assert holder(store, run_key(run_id)) is None


async def test_a_driven_runs_end_lets_its_lease_go_in_the_same_transaction(persona_tasks, store, settings):
    """The end of a run driven under ``Driving``: its status and its lease's release are one
    transaction (one thread hand-off), and leaving the block releases nothing more."""
    from sqlalchemy import event

    from vibesearch.run import Limits
    from vibesearch.session import Driving, Recorder
    from vibesearch.session.lifecycle import close_run_async
    from vibesearch.store.leases import holder

    run_id, owner = _opened(store, settings, persona_tasks[0])
    said: list[str] = []

    def statement(conn, cursor, sql, params, context, many):  # noqa: ANN001 - SQLAlchemy's hook
        said.append(" ".join(sql.split()[:3]).upper())

    def commit(conn):  # noqa: ANN001 - SQLAlchemy's hook
        said.append("COMMIT")

    event.listen(store.engine, "before_cursor_execute", statement)
    event.listen(store.engine, "commit", commit)
    try:
        async with Driving(store, run_key(run_id), f"run {run_id}", settings, owner=owner) as held:
            rec = Recorder(store, run_id, [], Limits(), held)
            assert await close_run_async(store, run_id, "done", writer=rec, lease=owner, driving=held) == "finished"
            rec.close()
            assert holder(store, run_key(run_id), live_only=False) is None
            at_end = len(said)
    finally:
        event.remove(store.engine, "before_cursor_execute", statement)
        event.remove(store.engine, "commit", commit)
    update = next(i for i, s in enumerate(said) if s.startswith("UPDATE RUNS SET"))
    delete = next(i for i, s in enumerate(said) if s.startswith("DELETE FROM LEASES"))
    assert update < delete and "COMMIT" not in said[update:delete], said
    assert not any(s.startswith("DELETE FROM LEASES") for s in said[delete + 1:]), said[at_end:]
    assert store.get_run(run_id).status == "finished"
