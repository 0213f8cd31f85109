"""Building a run's parts the way the product does: a ``RunConfig`` from the settings, then
``make_agent``/``make_user`` of it."""

from __future__ import annotations

from typing import Any

from vibesearch.agents import make_agent
from vibesearch.run import Agent, RunConfig, User
from vibesearch.users import make_user
from vibesearch.protocol import build_config


def parts(task, settings, **flat: Any) -> tuple[RunConfig, Any, Agent, User]:
    """``(config, task, agent, user)``: the first four arguments of ``run_session``.
    ``flat``: ``RunConfig.from_settings`` keywords (``agent``, ``agent_model``, ``user``, ...)."""
    config = build_config(settings, task_id=task.id, **flat)
    return config, task, make_agent(config, task, settings), make_user(config, task, settings)
