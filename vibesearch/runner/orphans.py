"""Runs whose driver is gone, and stopping a run that no process drives.

A run is driven under its lease (``_lease.Driving``), renewed every third of
``settings.lease_ttl_s``. A run still ``running`` whose lease has expired (or that has none) was
left by a process that died: ``close_orphaned`` marks it ``interrupted`` and writes a note saying
so, so the Runs tab offers it for continuing. Each run is taken under its lease before it is
changed, and only while it is still ``running``: of several servers starting at once exactly one
closes it, and a second sweep finds nothing to do.

``stop_idle_run`` ends a run no process drives (``interrupted``, ``abandoned`` or an orphaned
``running``) as ``cancelled``, under its lease the same way.
"""

from __future__ import annotations

from ..config import Settings
from ..run.result import STOPPABLE
from ..store import Store
from ..store.leases import LeaseHeld, claim, holder, new_owner, release, run_key
from ..session.lifecycle import close_run, mark_interrupted

ORPHAN_NOTE = "the process driving this run stopped before it ended; the run was closed as interrupted and can be continued"


def is_orphaned(store: Store, run_id: str) -> bool:
    """True when the run is ``running`` but no process holds its lease."""
    try:
        run = store.get_run(run_id)
    except KeyError:
        return False
    return run.status == "running" and holder(store, run_key(run_id)) is None


def close_orphaned(store: Store, settings: Settings) -> list[str]:
    """Mark every run left ``running`` by a dead driver ``interrupted``; the ids closed."""
    closed: list[str] = []
    for run in store.list_runs(status="running"):
        key, me = run_key(run.id), new_owner()
        if claim(store, key, me, settings.lease_ttl_s) is not None:
            continue  # a live driver holds it
        try:
            if store.get_run(run.id).status != "running":
                continue  # another sweep (or a resume) was first
            mark_interrupted(store, run.id, note=ORPHAN_NOTE, lease=me)
            closed.append(run.id)
        finally:
            release(store, key, me)
    return closed


def stop_idle_run(store: Store, run_id: str, settings: Settings, detail: str = "stopped from the Runs tab") -> None:
    """End a run that no process drives as ``cancelled`` (``LeaseHeld`` when one does;
    ``ValueError`` when the run has already ended)."""
    key, me = run_key(run_id), new_owner()
    taken = claim(store, key, me, settings.lease_ttl_s)
    if taken is not None:
        raise LeaseHeld(f"run {run_id}", taken)
    try:
        run = store.get_run(run_id)
        if run.status not in STOPPABLE:
            raise ValueError(f"run {run_id} has already ended ({run.status})")
        close_run(store, run_id, "cancelled", detail, lease=me)
    finally:
        release(store, key, me)
