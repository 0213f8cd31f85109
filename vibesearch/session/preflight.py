"""The pre-run credentials check of a run: every litellm model it will call, as the registries of
its agent and user kinds say (``agents/registry.py``, ``users/registry.py``), checked by
``vibesearch.llm.credentials`` (which sits below the agents and users and so is handed the list)."""

from __future__ import annotations

from ..agents.registry import agent_kind
from ..config import Settings
from ..llm.credentials import check_credentials
from ..run.config import RunConfig, is_offline_judge
from ..users.registry import user_kind


def run_models(config: RunConfig, settings: Settings, *, judge: bool = False) -> list[tuple[str, str]]:
    """(role, model) of every litellm model the run a ``RunConfig`` describes will call (its judge
    too with ``judge``: a run that is scored as soon as it ends)."""
    models = agent_kind(config.agent.kind).models(config.agent, settings) + user_kind(config.user.kind).models(config.user)
    if judge and config.judge.name and not is_offline_judge(config.judge.name):
        models.append(("judge", config.judge.name))
    return models


def check_config_credentials(config: RunConfig, settings: Settings, *, judge: bool = False) -> None:
    """``check_credentials`` over ``run_models``: the one call a run's builder makes (raises
    ``vibesearch.llm.credentials.MissingCredentials``)."""
    check_credentials(run_models(config, settings, judge=judge), settings)
