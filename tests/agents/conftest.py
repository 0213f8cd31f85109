"""Fixtures for the agent tests (helpers live in agents_testkit.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from agents_testkit import ChatServer, Recorder, write_task

from vibesearch.tasks import load_tasks


@pytest.fixture
def small_task(tmp_path: Path):
    path = write_task(tmp_path / "tasks")
    (task,) = load_tasks([path])
    return task


@pytest.fixture
def recorder_for(store):
    def make(task) -> Recorder:
        return Recorder(store, task)

    return make


@pytest.fixture
def chat_server():
    servers: list[ChatServer] = []

    def start(respond) -> ChatServer:
        srv = ChatServer(respond)
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        srv.close()


@pytest.fixture
def toolbox_for():
    """The real toolbox for a task (``vibesearch.tools.make_toolbox``, offline backend)."""
    from vibesearch.tools import make_toolbox

    def make(task, settings):
        return make_toolbox(task, settings)  # the default search: the offline corpus

    return make
