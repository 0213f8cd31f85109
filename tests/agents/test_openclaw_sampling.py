"""OpenClaw's own model calls, as the bridge hands them to vibesearch's model client: under the
official profile the run sets no sampling (the official driver sets none), so each call goes out
with what OpenClaw itself asked for; a value the run sets is sent instead. Built by ``make_agent``
from the resolved config, the path a run takes; the call goes to a fake model that records it."""

from __future__ import annotations

import os

import pytest

from vibesearch.agents import make_agent
from vibesearch.agents.openclaw import OpenclawMissing, find_openclaw
from vibesearch.config import Settings
from vibesearch.protocol import build_config


@pytest.fixture
def needs_openclaw():
    try:
        find_openclaw(Settings())
    except OpenclawMissing as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must have OpenClaw: {exc}")
        pytest.skip(str(exc))


@pytest.mark.parametrize("protocol", ["official", "vibesearch"])
async def test_openclaws_own_sampling_goes_out_unless_the_run_sets_one(fake, settings, bundled_tasks, needs_openclaw, protocol):
    seen = []

    def model(req):
        seen.append(req)
        return fake.Reply(content="ok")

    fake.register("claw-model", model)
    task = bundled_tasks[0]
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.6, "top_p": 0.8, "max_completion_tokens": 2048}
    config = build_config(settings, task_id=task.id, agent="openclaw", agent_model="fake/claw-model", user="direct", protocol=protocol)
    agent = make_agent(config, task, settings)
    answer = await agent._model_call(body)  # what the bridge calls for each of OpenClaw's requests
    assert answer["choices"][0]["message"]["content"] == "ok"
    assert seen[-1].sampling == {"temperature": 0.6, "top_p": 0.8, "max_tokens": 2048}  # nothing of the react agent's 1.0 / 0.95

    given = build_config(settings, task_id=task.id, agent="openclaw", agent_model="fake/claw-model", user="direct", protocol=protocol,
                         agent_sampling={"temperature": 0.2})
    await make_agent(given, task, settings)._model_call(body)
    assert seen[-1].sampling == {"temperature": 0.2, "top_p": 0.8, "max_tokens": 2048}
