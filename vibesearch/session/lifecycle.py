"""One run lifecycle: how a run's row is opened, closed and marked interrupted — by the session, the
app, orphan handling and ``vibesearch agent ask`` alike.

    opened = open_run(store, config, task, settings, fields={"owner": ...})   # the row, before any driving
    await run_session(config, task, agent, user, store, settings, run_id=opened.run_id, opened=opened)
    reopen_run(store, run_id, status, lease=owner)      # a stored run taken up again by its driver
    close_run(store, run_id, "cancelled", "stopped from the Runs tab", lease=owner)
    mark_interrupted(store, run_id, note="...", lease=owner)

A run's row exists before a session drives it (so an id handed back can be read at once, here or
on another server). ``open_run`` stores the resolved config, the task as it is now, the settings
snapshot, the columns tables filter on and what the run's profile records first (its opening
note), all under the run's lease: the caller's, or one it claims and hands to the driver that
takes over (``opened``), so no sweep takes a run for orphaned between its opening and its
first step; the claim, the row and the note are one transaction (``Store.open_run``).
``reopen_run`` takes a stored run up again (``running`` once more; an abandoned run's end set
aside). ``close_run`` writes the one ``end`` event (``end_event`` is the only place one is made;
an importer uses it too) and the status its termination gives (``close_run_async``: the same
close for a session on an event loop, sharing its rule, its lease let go with the status);
``mark_interrupted`` leaves a run to be continued.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, Protocol

from ..config import Settings
from ..protocol import profile_of, require_resolved
from ..run import RunConfig
from ..run.events import EndEvent, EventData, NoteEvent, StoredEvent, Termination
from ..run.result import RunStatus, status_after
from ..store import Store, new_run_id
from ..store.leases import new_owner
from ..tasks.models import Task
from ._lease import Driving
from ._record import RunFields, run_row


class Writer(Protocol):
    """What writes a driven run's events (the session's ``Recorder``): in order, then drained."""

    def emit(self, data: EventData) -> object: ...

    def drain(self) -> None: ...

    async def adrain(self) -> None: ...


@dataclass(frozen=True)
class OpenedRun:
    run_id: str
    lease_owner: str  # the lease the run was opened under; the driver that takes over adopts it
    claimed_at: float | None = None  # time.time() when open_run claimed it (None: the caller's lease)
    events: tuple[StoredEvent, ...] = ()  # what open_run stored: the run's events when the driver adopts it at once


def open_run(
    store: Store,
    config: RunConfig,
    task: Task,
    settings: Settings,
    *,
    run_id: str | None = None,
    fields: RunFields | None = None,
    lease: str | None = None,
) -> OpenedRun:
    """Store a new run (status ``running``) and what its profile records first.

    ``lease``: the owner id of the run's lease the caller holds; without one a lease is claimed
    here (``LeaseHeld`` if another process holds that id's) and handed back for the driver."""
    require_resolved(config)
    run_id = run_id or new_run_id()
    claim_ttl, claimed_at = None, None
    if lease is None:
        lease, claim_ttl, claimed_at = new_owner(), float(settings.lease_ttl_s), time.time()
    opening = profile_of(config.protocol).opening(settings)
    meta_fields: RunFields = fields.copy() if fields else {}
    if opening is not None:
        meta_fields["meta"] = {**(meta_fields.get("meta") or {}), **opening.meta}
    row = run_row(config, task, settings, run_id, meta_fields)
    # the lease, the row and the opening note in one transaction (LeaseHeld: none of them)
    events = store.open_run(row, lease=lease, claim_ttl=claim_ttl, events=[opening.note] if opening is not None else None)
    return OpenedRun(run_id=run_id, lease_owner=lease, claimed_at=claimed_at, events=tuple(events))


def end_event(termination: Termination | str, detail: str = "") -> EndEvent:
    """The event that ends a run (the only place one is made)."""
    return EndEvent.model_validate({"termination": termination, "detail": detail})


def reopen_run(store: Store, run_id: str, status: str, *, lease: str | None = None) -> bool:
    """Take a stored run (its row's ``status``) up again for the driver holding ``lease``: its row
    says ``running`` again. An ``abandoned`` run continued by its owner has its end set aside (the
    termination cleared; its ``end`` event stays as history); True when that was so."""
    set_aside = status == "abandoned"
    if set_aside or status != "running":  # a row opened for this driver says "running" already
        fields: dict[str, Any] = {"status": "running", **({"termination": None} if set_aside else {})}
        store.update_run(run_id, lease=lease, **fields)
    return set_aside


def close_run(
    store: Store,
    run_id: str,
    termination: Termination | str,
    detail: str = "",
    *,
    failed: bool = False,
    writer: Writer | None = None,
    lease: str | None = None,
) -> RunStatus:
    """End the run: its ``end`` event (through ``writer`` when a session drives it, else appended
    under ``lease``), then on its row the status the termination gives (``failed``: a fatal error
    was recorded) once the end is stored."""
    event = end_event(termination, detail)
    if writer is not None:
        writer.emit(event)
        writer.drain()  # the end is stored before the run's row says so
    else:
        store.append(run_id, event, lease=lease)
    return _mark_ended(store, run_id, event, failed=failed, lease=lease)


async def close_run_async(
    store: Store,
    run_id: str,
    termination: Termination | str,
    detail: str = "",
    *,
    failed: bool = False,
    writer: Writer,
    lease: str | None = None,
    driving: Driving | None = None,
) -> RunStatus:
    """``close_run`` for a session on an event loop: the same end and the same status, written
    without holding up the other runs on the loop (the writes are awaited, the row's update runs
    in a thread). ``driving``: the run's lease, let go in the row's update (one transaction,
    one thread hand-off: at 200 runs ending at once, each hand-off waits its turn)."""
    event = end_event(termination, detail)
    writer.emit(event)
    await writer.adrain()  # the end is stored before the run's row says so
    if driving is None:
        return await asyncio.to_thread(_mark_ended, store, run_id, event, failed=failed, lease=lease)
    owner = driving.owner
    return await driving.let_go_with_last_write(lambda release: _mark_ended(store, run_id, event, failed=failed, lease=owner, release=release))


def _mark_ended(store: Store, run_id: str, event: EndEvent, *, failed: bool, lease: str | None, release: bool = False) -> RunStatus:
    """(the one rule of both closes) The row of a run whose ``end`` is stored: the status its
    termination gives, and the termination (``release``: the lease let go with it)."""
    final = status_after(event.termination, failed=failed)
    store.update_run(run_id, status=final, termination=event.termination, lease=lease, release=release)
    return final


def mark_interrupted(
    store: Store, run_id: str, *, note: str | None = None, writer: Writer | None = None, lease: str | None = None, **data: Any
) -> None:
    """Leave the run to be continued: no end, status ``interrupted`` (``note``: said in its events)."""
    if note is not None:
        event = NoteEvent(text=note, data={"closed": "interrupted", **data})
        if writer is not None:
            writer.emit(event)
        else:
            store.append(run_id, event, lease=lease)
    if writer is not None:
        writer.drain()
    store.update_run(run_id, status="interrupted", lease=lease)
