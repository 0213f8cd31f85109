"""The session's bookkeeping: the run row it creates, the emitter, the counters, the result."""

from __future__ import annotations

import asyncio
import logging
import zlib
from collections import deque
from concurrent.futures import Future
from typing import Any, Callable, Iterable, TypedDict

from ..config import Settings
from ..run import Conversation, Limits, RunConfig
from ..run.events import EventData, MessageEvent, StageEvent, StoredEvent, ToolCallEvent, UsageEvent
from ..run.result import RunResult
from ..run.transcript import Tally
from ..store import Store, build_run
from ..store.tables import Run
from ..tasks.models import Task
from ._event_writer import WRITERS, groups_of
from ._lease import Driving

log = logging.getLogger(__name__)

Listener = Callable[[StoredEvent], object]


class _Only:
    """A listener told only of the events of some kinds (``only``)."""

    def __init__(self, kinds: Iterable[str], listener: Listener):
        self.kinds, self.listener = frozenset(kinds), listener

    def __call__(self, ev: StoredEvent) -> object:
        return self.listener(ev) if ev.kind in self.kinds else None


def only(kinds: Iterable[str] | None, listener: Listener) -> Listener:
    """``listener``, told only of events of ``kinds`` (None: of every event). When every listener
    of a run says which kinds it wants, the writer hands back to the loop only those: a batch's
    progress rows want a run's ``stage`` events, not the 20 others each stage brings."""
    return listener if kinds is None else _Only(kinds, listener)


def _kinds_told(listeners: list[Listener]) -> frozenset[str] | None:
    """The kinds of event any of ``listeners`` is told of (None: every kind)."""
    if not listeners or not all(isinstance(listener, _Only) for listener in listeners):
        return None
    return frozenset().union(*(listener.kinds for listener in listeners if isinstance(listener, _Only)))


RUN_COLUMNS = {"batch_id", "run_index", "owner", "source"}
__all__ = ["Listener", "Recorder", "RunFields", "RunResult", "is_table_task", "only", "run_row"]

class RunFields(TypedDict, total=False):
    """What a caller adds to a new run's row: the columns tables filter on, and facts for its meta."""

    batch_id: str
    run_index: int
    owner: str | None
    source: str  # "live" | "imported"
    meta: dict[str, object]


def is_table_task(task: Task) -> bool:
    return task.kind == "table"


def run_row(config: RunConfig, task: Task, settings: Settings, run_id: str | None, run_fields: RunFields | None) -> Run:
    """A new run's row, not yet stored (``lifecycle.open_run`` is the one caller): its
    ``RunConfig`` (one JSON column), the task as it is now, the settings snapshot, and the
    columns the tables filter on (read off the config)."""
    fields: dict[str, object] = dict(run_fields or {})
    extra_meta = fields.pop("meta", None) or {}
    assert isinstance(extra_meta, dict)
    columns: dict[str, Any] = {
        "kind": "table" if is_table_task(task) else "persona",
        "agent": config.agent.kind,
        "agent_model": config.agent.shown_model,
        "user": config.user.kind,
        "simulator_model": config.user.model or config.user.shadow,
        "search_backend": config.search.backend,
    }
    meta: dict[str, Any] = {"task_file": task.source_file}
    for key, value in fields.items():
        if key in RUN_COLUMNS:
            columns[key] = value
        else:
            meta[key] = value
    meta.update(extra_meta)
    return build_run(
        task.id,
        task_json=task.model_dump(mode="json"),
        config=settings.snapshot(),
        meta=meta,
        run_id=run_id,
        run_config=config,
        **columns,
    )


class Recorder:
    """The one emitter of a run: the live conversation, then the store, then the listeners.

    Events that only make sense with the ones after them are written together with those, in
    one transaction, so an interrupted process never leaves half of such a group behind and a
    resumed run never has to redo part of it (see ``_waits``): a model call's ``usage`` with what
    the call produced, a user's stage decision(s) with the user's message, an assistant step with
    all its tool calls, and the extraction answer with the graph. The conversation sees every
    event at once; listeners see it once it is stored.

    With a lease (``_lease.Driving``) every write checks that this process still drives the run.

    Inside an event loop the writes are made by the process's event writer thread
    (``_event_writer``), in order, while the run goes on (the next model call usually): the
    harness does not wait for the database. The groups every run on the loop flushed within
    ``hand_over_s`` are handed to it together, as one job committed in one transaction: the writer
    is woken once for them (and the loop once when they are committed, only when there are
    listeners), and it works while the runs wait for their models instead of competing with the
    harness or a tool. Listeners still see an event only once it is committed (what a person is
    shown is stored first). A write that failed (``LeaseLost``) is raised by the next ``emit``;
    ``drain`` waits for the writes and raises it, and is called before the run's row is updated
    and when the run ends.
    """

    write_behind = True  # False: every group is written on the run's thread (a benchmark compares)
    # groups flushed within this long (by any run on the loop) go to the writer together (0: at
    # the loop's next turn): it then writes while the runs wait for their models
    hand_over_s = 0.02

    def __init__(self, store: Store, run_id: str, listeners: Iterable[Listener], limits: Limits, lease: Driving | None = None):
        self.store = store
        self.run_id = run_id
        self.listeners = list(listeners)
        self._kinds_told = _kinds_told(self.listeners)
        self.limits = limits
        self.lease = lease
        self.convo = Conversation()
        self.tally = Tally()  # the counting rule of every view (``run.transcript``), kept as the run goes
        self.on_budget: Callable[[], None] | None = None
        self._pending: list[EventData] = []
        self._inflight: Future[None] | None = None  # the writer's job holding this run's last group handed over
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop whose groups hold this run's unwritten ones
        self.shard = zlib.crc32(run_id.encode()) % WRITERS  # its writer thread, always the same one (in order)
        self._failure: BaseException | None = None
        self._stored: deque[list[StoredEvent]] = deque()  # committed, listeners not yet told

    def replay(self, events: list[StoredEvent]) -> None:
        """Take in events already stored (a resumed run); listeners are not called."""
        for ev in events:
            self.convo.add(ev.data)
            self._count(ev.data)

    def emit(self, data: EventData) -> StoredEvent | None:
        """Record one event; returns it as stored when written at once, else None (it waits for
        the rest of its group, or for the writer thread)."""
        if self._failure is not None:
            raise self._failure
        if self.lease is not None:
            self.lease.check()
        self.convo.add(data)
        self._count(data)
        self._pending.append(data)
        if _waits(self._pending):
            return None
        stored = self.flush()
        return stored[-1] if stored else None

    def flush(self) -> list[StoredEvent]:
        """Write what waits (one transaction) and tell the listeners once it is committed.

        Returns the events as stored when written here; inside an event loop they are handed to
        the writer thread (within ``hand_over_s``) and [] is returned (``drain`` waits for them)."""
        if not self._pending:
            return []
        items, self._pending = self._pending, []
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or not self.write_behind:
            self.drain()
            stored = self._write(items)
            self._stored.append(self.to_tell(stored))
            self._deliver()
            return stored
        self._loop = loop
        groups_of(loop).add(self, items, self.hand_over_s)
        return []

    @property
    def lease_owner(self) -> str | None:
        """The owner id the writes are made under (None: nobody else may hold a live lease)."""
        return self.lease.owner if self.lease is not None else None

    def to_tell(self, stored: list[StoredEvent]) -> list[StoredEvent]:
        """Of events just stored, those a listener of this run is told of."""
        if not self.listeners:
            return []
        kinds = self._kinds_told
        return stored if kinds is None else [ev for ev in stored if ev.kind in kinds]

    def _write(self, items: list[EventData]) -> list[StoredEvent]:
        return self.store.append_many(self.run_id, items, lease=self.lease_owner)

    def _deliver(self) -> None:
        """Tell the listeners about committed events, in order (on the run's thread)."""
        while self._stored:
            for ev in self._stored.popleft():
                for listener in self.listeners:
                    try:
                        listener(ev)
                    except Exception:  # a broken viewer never breaks the run
                        log.exception("event listener failed")

    def drain(self, *, raise_failure: bool = True) -> None:
        """Wait for the writes handed to the writer thread, tell the listeners, and raise the
        failure of a write (if any; with ``raise_failure``)."""
        if self._loop is not None:
            groups_of(self._loop).hand_over(now_for=self.shard)
        inflight, self._inflight = self._inflight, None
        if inflight is not None:
            inflight.result()
        self._deliver()
        if raise_failure and self._failure is not None:
            raise self._failure

    async def adrain(self, *, raise_failure: bool = True) -> None:
        """``drain`` for the run's event loop: the writes are awaited, so the loop goes on with
        the other runs on it meanwhile (a busy writer takes this run's groups with the others
        waiting for it, once it is done)."""
        if self._loop is not None:
            groups_of(self._loop).hand_over()
        inflight, self._inflight = self._inflight, None
        if inflight is not None:
            await asyncio.wrap_future(inflight)
        self._deliver()
        if raise_failure and self._failure is not None:
            raise self._failure

    def close(self) -> None:
        """Wait for the writes (the run is over; never raises). A group still incomplete is not
        written, as when the process stops. The writer thread is the process's: it stays."""
        self.drain(raise_failure=False)

    def _count(self, data: EventData) -> None:
        self.tally.add(data)
        if isinstance(data, UsageEvent) and self.over_budget() and self.on_budget is not None:
            self.on_budget()

    @property
    def assistant_steps(self) -> int:
        return self.tally.n_asst

    @property
    def tool_calls(self) -> int:
        return sum(self.tally.tools.values())

    @property
    def user_turns(self) -> int:
        return self.tally.n_user

    def over_budget(self) -> str | None:
        lim, tally = self.limits, self.tally
        tokens, cost, agent_calls = tally.tokens, tally.cost_known, tally.agent_calls  # an unknown price counts as 0 here
        if lim.budget_tokens is not None and tokens >= lim.budget_tokens:
            return f"{tokens} tokens used (budget {lim.budget_tokens})"
        if lim.budget_usd is not None and cost >= lim.budget_usd:
            return f"${cost:.4f} spent (budget ${lim.budget_usd})"
        if lim.max_llm_calls is not None and agent_calls >= lim.max_llm_calls:
            return f"{agent_calls} agent model calls (limit {lim.max_llm_calls})"
        return None

    def replied(self) -> bool:
        return self.convo.last_reply() is not None


def _waits(pending: list[EventData]) -> bool:
    """Does the last pending event need the events after it to be written with it?"""
    last = pending[-1]
    if isinstance(last, (UsageEvent, StageEvent)):
        return True  # a call's usage waits for its result; a decision for the user's message
    if isinstance(last, MessageEvent) and last.role == "assistant" and last.phase == "extraction":
        return True  # the extraction answer waits for the graph
    calls = 0
    for data in reversed(pending):
        if isinstance(data, ToolCallEvent):
            calls += 1
            continue
        # an assistant step waits for all its tool calls
        return isinstance(data, MessageEvent) and data.role == "assistant" and calls < data.n_tool_calls
    return False
