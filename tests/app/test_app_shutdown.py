"""Shutting the run manager down leaves nothing behind: its loop is closed with no task pending on
it, so nothing raises "Event loop is closed" later, when the garbage collector gets to it.

litellm queues a logging coroutine on a worker task of the loop that made a model call; a loop
stopped with that task still pending used to end a test session with a
``PytestUnraisableExceptionWarning`` traceback, wherever the collection happened to run.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import time

import pytest

from vibesearch.app import form_request
from vibesearch.app.catalog import TaskCatalog
from vibesearch.app.live import RunManager
from vibesearch.llm import complete


@pytest.fixture
def unraisable():
    """What Python reports as "Exception ignored in ..." while the test runs (and a collection at its end)."""
    seen: list[str] = []
    previous = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(f"{u.exc_type.__name__}: {u.exc_value} in {u.object!r}")
    try:
        yield seen
        gc.collect()
    finally:
        sys.unraisablehook = previous


def test_shutdown_closes_the_run_loop_after_a_model_call(store, settings, fake, unraisable):
    calls = []

    def agent_model(req):
        calls.append(req)
        return fake.Reply(content="Here is what I found. Anything else?")

    fake.register("shutdown-agent", agent_model)
    cat = TaskCatalog.load(settings)
    task = cat.get(cat.default_id())
    manager = RunManager(store, settings)
    req = form_request(settings, task_id=task.id, agent="react", agent_model="fake/shutdown-agent", max_user_turns=2)
    live = manager.start(req, task, "owner-a")
    manager.wait(live.run_id, timeout=60)
    assert calls, "the run made no model call, so the check below would prove nothing"
    loop = manager._loop
    manager.shutdown()
    deadline = time.monotonic() + 10
    while not loop.is_closed() and time.monotonic() < deadline:  # the runner thread closes it
        time.sleep(0.02)
    closed = loop.is_closed()
    del loop, live, manager
    # the next model call, on another loop, lets go of whatever litellm kept of the old one
    asyncio.run(complete([{"role": "user", "content": "hello"}], model="fake/shutdown-agent", purpose="agent", settings=settings))
    gc.collect()
    assert unraisable == []
    assert closed
