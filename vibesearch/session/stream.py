"""``async for event in stream_session(...)``: a run's stored events as they happen."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator

from ..config import Settings
from ..run import Agent, RunConfig, StoredEvent, User
from ..run.result import RunResult
from ..store import Store
from ..tasks.models import Task
from .loop import run_session


class SessionStream:
    """The run goes on as its own task; ``result`` holds its ``RunResult`` once the stream ends.
    Leaving the loop early cancels the run (recorded as cancelled)."""

    def __init__(self, config: RunConfig, task: Task, agent: Agent, user: User, store: Store, settings: Settings, **kwargs: Any):
        self._args = (config, task, agent, user, store, settings)
        self._kwargs = kwargs
        self.result: RunResult | None = None
        self.run_id: str | None = None

    async def __aiter__(self) -> AsyncIterator[StoredEvent]:
        queue: asyncio.Queue[StoredEvent | None] = asyncio.Queue()
        listeners = (*self._kwargs.pop("listeners", ()), queue.put_nowait)
        task = asyncio.ensure_future(run_session(*self._args, listeners=listeners, **self._kwargs))
        task.add_done_callback(lambda _t: queue.put_nowait(None))
        try:
            while True:
                item = await queue.get()
                if item is None:
                    break
                self.run_id = item.run_id
                yield item
            self.result = task.result()
        finally:
            if not task.done():
                task.cancel()
                try:
                    await task
                except BaseException:  # noqa: BLE001 - the consumer left: the cancelled run's ending is of no interest
                    pass


def stream_session(config: RunConfig, task: Task, agent: Agent, user: User, store: Store, settings: Settings, **kwargs: Any) -> SessionStream:
    return SessionStream(config, task, agent, user, store, settings, **kwargs)
