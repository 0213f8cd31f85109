"""The event writers of a process: the event groups of every run on an event loop, handed to a
few writer threads together and committed together.

A run's ``Recorder`` hands each finished group (``Recorder.flush``) to its loop's ``LoopGroups``.
The groups every run on the loop flushed within ``delay`` seconds go to the writer threads as
one job per thread: one thread hand-off, and one transaction per database
(``Store.append_groups``), for each thread's share. At 200 runs on one loop that is a few
hand-offs and commits per moment instead of one per run, and the writers work while the runs
wait for their models. A writer still on its last job is given the next one when it is done:
groups pile up into bigger jobs rather than into a queue. A run always goes to the same thread
(``Recorder.shard``), which writes its jobs in order, so a run's groups stay in order (several
threads, not one: each statement's round trip waits for the interpreter's lock, and one thread
alone spent most of a 200-run batch waiting). A run whose group was refused (``LeaseLost``)
gets nothing more written (its recorder raises the error at its next ``emit`` or ``drain``), and
the other runs of the job are written as if it were not there. Listeners are told on the loop's
thread once the job is committed, once for the whole job.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from collections import deque
from typing import Protocol

from ..run.events import EventData, StoredEvent
from ..store import Store


class Recorder(Protocol):
    """What the writer needs of a run's ``_record.Recorder`` (named here, not imported: that
    module imports this one)."""

    store: Store
    run_id: str
    shard: int
    listeners: list
    _failure: BaseException | None
    _stored: deque[list[StoredEvent]]
    _inflight: Future[None] | None

    @property
    def lease_owner(self) -> str | None: ...

    def _deliver(self) -> None: ...

    def to_tell(self, stored: list[StoredEvent]) -> list[StoredEvent]: ...

WRITERS = 4  # the process's event writer threads; a run's groups always go to the same one
_threads: list[ThreadPoolExecutor] = []
_threads_made = threading.Lock()
_per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopGroups] = weakref.WeakKeyDictionary()


def _writer(shard: int) -> ThreadPoolExecutor:
    if not _threads:
        with _threads_made:
            if not _threads:
                _threads.extend(ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"event-writer-{i}") for i in range(WRITERS))
    return _threads[shard]


def groups_of(loop: asyncio.AbstractEventLoop) -> LoopGroups:
    """The collector of ``loop`` (made on first use, gone with the loop)."""
    held = _per_loop.get(loop)
    if held is None:
        held = _per_loop[loop] = LoopGroups(loop)
    return held


class LoopGroups:
    """(the loop's thread only) The groups flushed on one event loop, not yet handed over, by
    writer thread (``shard``)."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self._waiting: dict[int, list[tuple[Recorder, list[EventData]]]] = {}
        self._writing: dict[int, Future[None]] = {}  # each writer's last job from this loop
        self._called: dict[int, Future[None]] = {}  # the job whose end hands the groups waiting behind it over
        self._next_job: dict[int, Future[None]] = {}  # done once the groups waiting for a writer are written
        self._hand: asyncio.Handle | None = None

    def add(self, rec: Recorder, items: list[EventData], delay: float) -> None:
        """Take ``rec``'s group; handed over with the others within ``delay`` seconds (0: at the
        loop's next turn), or once its writer has finished the job it is on. The recorder waits
        for that job from now on (``_inflight``), handed over or not."""
        self._waiting.setdefault(rec.shard, []).append((rec, items))
        rec._inflight = self._next_job.get(rec.shard) or self._next_job.setdefault(rec.shard, Future())
        if self._hand is None:
            loop = self.loop
            self._hand = loop.call_later(delay, self.hand_over) if delay > 0 else loop.call_soon(self.hand_over)

    def hand_over(self, *, now_for: int | None = None) -> None:
        """Give each writer thread the groups waiting for it as one job; a writer still on its
        previous job gets them when it is done (so a slow moment makes the next job bigger, not
        the queue longer), except the writer ``now_for`` (a thread that waits for its writes
        and cannot let the loop run: queued behind that job). A run on the loop that waits for
        its writes (``adrain``) hands over without ``now_for``: at 200 runs ending at once, one
        job per run queued behind the busy one was 200 transactions in a row."""
        if self._hand is not None:
            self._hand.cancel()
            self._hand = None
        for shard in list(self._waiting):
            busy = self._writing.get(shard)
            if busy is not None and not busy.done() and shard != now_for:
                if self._called.get(shard) is not busy:  # handed over by ``_done`` below, once that job is written
                    self._called[shard] = busy
                    busy.add_done_callback(self._done)
                continue
            job = self._waiting.pop(shard)
            written = self._next_job.pop(shard)
            self._writing[shard] = _writer(shard).submit(_write, job, self.loop, written)

    def _done(self, _job: Future[None]) -> None:
        """(a writer thread) A job that groups waited behind is written: they go next (the loop is
        woken only then, not after every job)."""
        try:
            self.loop.call_soon_threadsafe(self._next)
        except RuntimeError:  # the loop has closed: each ``drain`` hands its own over
            pass

    def _next(self) -> None:
        if self._waiting and self._hand is None:
            self.hand_over()


def _write(job: list[tuple[Recorder, list[EventData]]], loop: asyncio.AbstractEventLoop, written: Future[None]) -> None:
    """(the writer thread) Write a job, then say so (``written``: what its recorders wait for;
    an error of the writer itself, not of a group, is raised to them)."""
    try:
        _write_job(job, loop)
    except BaseException as exc:  # noqa: BLE001 - handed to whoever waits (drain), as the job's own
        written.set_exception(exc)
        raise
    written.set_result(None)


def _write_job(job: list[tuple[Recorder, list[EventData]]], loop: asyncio.AbstractEventLoop) -> None:
    """Write a job: one ``append_groups`` per database, in order; a refused group is its
    recorder's failure, and nothing of that run after it is written."""
    by_store: dict[int, list[tuple[Recorder, list[EventData]]]] = {}
    for rec, items in job:
        by_store.setdefault(id(rec.store), []).append((rec, items))
    told: list[Recorder] = []
    for entries in by_store.values():
        entries = [(rec, items) for rec, items in entries if rec._failure is None]  # nothing after a failed write
        if not entries:
            continue
        store = entries[0][0].store
        try:
            results = store.append_groups([(rec.run_id, items, rec.lease_owner) for rec, items in entries])
        except BaseException as exc:  # noqa: BLE001 - every run of the job learns it (next emit / drain)
            for rec, _items in entries:
                rec._failure = rec._failure or exc
            continue
        for (rec, _items), result in zip(entries, results):
            if isinstance(result, Exception):
                rec._failure = rec._failure or result
            elif rec._failure is None and (tell := rec.to_tell(result)):  # nobody to tell: the loop is not woken
                rec._stored.append(tell)
                if rec not in told:
                    told.append(rec)
    if told:
        try:
            loop.call_soon_threadsafe(_deliver_all, told)
        except RuntimeError:  # the loop has closed: each ``drain`` delivers
            pass


def _deliver_all(recs: list[Recorder]) -> None:
    for rec in recs:
        rec._deliver()
