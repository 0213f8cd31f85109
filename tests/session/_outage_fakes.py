"""The session fakes (``_session_fakes``) plus a gate, for CLI subprocesses that a test must catch
in the middle of a run (``VIBESEARCH_FAKE_MODELS=_outage_fakes:register``).

While the file named by ``VIBESEARCH_TEST_GATE`` exists, every model call of a run of the task
``VIBESEARCH_TEST_GATE_TASK`` waits (asynchronously: the process' event loop, its event writer
and its lease renewals go on). The test removes the file to let the run go on. Calls of other
tasks are never held.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import _session_fakes

from vibesearch.llm import fake


def _held(body: dict[str, Any]) -> bool:
    gate = os.environ.get("VIBESEARCH_TEST_GATE", "")
    if not gate or not os.path.exists(gate):
        return False
    users = [m.get("content") for m in body.get("messages") or [] if m.get("role") == "user"]
    first = users[0] if users and isinstance(users[0], str) else ""
    task = _session_fakes.task_for(first)
    return task is not None and task.id == os.environ.get("VIBESEARCH_TEST_GATE_TASK")


def register() -> None:
    import httpx

    _session_fakes.register()
    plain = fake.transport

    class Gated(httpx.AsyncBaseTransport):
        """The fake endpoint, with the gate in front of it."""

        def __init__(self) -> None:
            self.inner = plain()

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            body = json.loads(await request.aread())
            while _held(body):
                await asyncio.sleep(0.02)
            return await self.inner.handle_async_request(request)

    # ``complete()``'s direct path looks the transport up when it makes its client
    fake.transport = Gated  # type: ignore[assignment]
