"""The session's bookkeeping: the run row it creates, the emitter, the counters, the result."""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable

from ..config import Settings
from ..store import Conversation, Store
from ..store.events import EventData, MessageEvent, StageEvent, StoredEvent, ToolCallEvent, UsageEvent
from ..tasks.models import Task

log = logging.getLogger(__name__)

Listener = Callable[[StoredEvent], Any]
RUN_COLUMNS = {"agent", "agent_model", "user", "simulator_model", "search_backend", "batch_id", "run_index", "owner", "source", "kind"}
STATUS_OF = {
    "done": "finished",
    "answer": "finished",
    "max_user_turns": "finished",
    "budget": "finished",
    "context_length": "finished",
    "error": "failed",
    "cancelled": "cancelled",
}


@dataclass
class RunResult:
    run_id: str
    status: str
    termination: str | None
    stages_reached: int
    stages_total: int
    user_turns: int
    assistant_steps: int
    tool_calls: int
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def is_table_task(task: Task) -> bool:
    return isinstance(task.extra, dict) and task.extra.get("kind") == "table"


def agent_config(agent: Any) -> dict[str, Any]:
    """What it takes to build the same agent again (never a key)."""
    name = str(getattr(agent, "name", "") or "")
    kind = getattr(agent, "kind", None)
    if not isinstance(kind, str) or not kind:
        module = type(agent).__module__.rsplit(".", 1)[-1]
        kind = module if module in ("baseline", "react", "endpoint") else (name.split(":", 1)[0].split(" ", 1)[0] or "custom")
    cfg: dict[str, Any] = {"kind": kind, "name": name, "model": getattr(agent, "model", None)}
    url = getattr(agent, "endpoint_url", None) or getattr(agent, "base_url", None)
    if kind == "endpoint" and isinstance(url, str):
        cfg["endpoint_url"] = url
        cfg["endpoint_model"] = getattr(agent, "model", None)
    if not isinstance(cfg["model"], str):
        cfg["model"] = None
    return cfg


def user_config(user: Any) -> dict[str, Any]:
    return {
        "kind": getattr(user, "kind", "custom"),
        "model": getattr(user, "model", None),
        "shadow_model": getattr(user, "shadow_model", None),
    }


def create_run(store: Store, task: Task, agent: Any, user: Any, settings: Settings, run_id: str | None, run_fields: dict | None) -> str:
    fields = dict(run_fields or {})
    extra_meta = fields.pop("meta", None) or {}
    a, u = agent_config(agent), user_config(user)
    columns: dict[str, Any] = {
        "kind": "table" if is_table_task(task) else "persona",
        "agent": a["kind"],
        "agent_model": a.get("model"),
        "user": u["kind"],
        "simulator_model": u.get("model") or u.get("shadow_model"),
        "search_backend": settings.search_backend,
    }
    meta: dict[str, Any] = {"agent_config": a, "user_config": u, "task_file": task.source_file}
    for key, value in fields.items():
        if key in RUN_COLUMNS:
            columns[key] = value
        else:
            meta[key] = value
    meta.update(extra_meta)
    run = store.create_run(
        task.id,
        task_json=task.model_dump(mode="json"),
        config=settings.snapshot(),
        meta=meta,
        run_id=run_id,
        **columns,
    )
    return run.id


class Recorder:
    """The one emitter of a run: the live conversation, then the store, then the listeners.

    Events that only make sense with the ones after them are written together with those, in
    one transaction, so an interrupted process never leaves half of such a group behind and a
    resumed run never has to redo part of it (see ``_waits``): a model call's ``usage`` with what
    the call produced, a user's stage decision(s) with the user's message, an assistant step with
    all its tool calls, and the extraction answer with the graph. The conversation sees every
    event at once; listeners see it once it is stored.

    With a lease (``_lease.Driving``) every write checks that this process still drives the run.
    """

    def __init__(self, store: Store, run_id: str, listeners: Iterable[Listener], settings: Settings, lease: Any = None):
        self.store = store
        self.run_id = run_id
        self.listeners = list(listeners)
        self.settings = settings
        self.lease = lease
        self.convo = Conversation()
        self.assistant_steps = 0
        self.tool_calls = 0
        self.tokens = 0
        self.cost = 0.0
        self.on_budget: Callable[[], None] | None = None
        self._pending: list[EventData] = []

    def replay(self, events: list[StoredEvent]) -> None:
        """Take in events already stored (a resumed run); listeners are not called."""
        for ev in events:
            self.convo.add(ev.data)
            self._count(ev.data)

    def emit(self, data: EventData) -> StoredEvent | None:
        """Record one event; returns it as stored, or None while it waits for the rest of its group."""
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
        """Write what waits (one transaction) and tell the listeners."""
        if not self._pending:
            return []
        items, self._pending = self._pending, []
        owner = self.lease.owner if self.lease is not None else None
        stored = self.store.append_many(self.run_id, items, lease=owner)
        for ev in stored:
            for listener in self.listeners:
                try:
                    listener(ev)
                except Exception:  # a broken viewer never breaks the run
                    log.exception("event listener failed")
        return stored

    def _count(self, data: EventData) -> None:
        if isinstance(data, MessageEvent):
            if data.role == "assistant" and data.phase == "dialogue":
                self.assistant_steps += 1
        elif isinstance(data, ToolCallEvent):
            self.tool_calls += 1
        elif isinstance(data, UsageEvent):
            self.tokens += (data.input_tokens or 0) + (data.output_tokens or 0)
            self.cost += data.cost_usd or 0.0
            if self.over_budget() and self.on_budget is not None:
                self.on_budget()

    def over_budget(self) -> str | None:
        s = self.settings
        if s.budget_tokens is not None and self.tokens >= s.budget_tokens:
            return f"{self.tokens} tokens used (budget {s.budget_tokens})"
        if s.budget_usd is not None and self.cost >= s.budget_usd:
            return f"${self.cost:.4f} spent (budget ${s.budget_usd})"
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
