"""Building a run's ``RunConfig``, resolved for its profile: the one way the CLI, the batch runner,
the app, the API and resume get the description a run is driven by.

    config = build_config(settings, task_id=..., agent="react", agent_model=..., protocol="official")
    config = rebuild_config(config, user="paper")  # a stored config with changes, resolved again
    require_resolved(config)                         # what make_agent, make_user and the session check

A config is resolved once, here; the parts of a run read it as it is.
"""

from __future__ import annotations

from typing import Any

from ..config import Settings
from ..run.config import PROFILE_LIMITS, RunConfig
from .profiles import profile_of


def resolve(config: RunConfig) -> RunConfig:
    """``config`` as the profile it names runs it (marked resolved)."""
    return profile_of(config.protocol).resolve(config).as_resolved()


def build_config(settings: Settings, **overrides: Any) -> RunConfig:
    """The run the settings describe with ``overrides`` (the flat names of ``RunConfig.draft``),
    resolved for its profile."""
    return resolve(RunConfig.draft(settings, **overrides))


def rebuild_config(config: RunConfig, **overrides: Any) -> RunConfig:
    """A resolved config with ``overrides`` on top, resolved again. Its profile stays: values one
    profile filled in are not another's, so a different ``protocol`` is refused."""
    wanted = overrides.get("protocol")
    if wanted is not None and wanted != config.protocol:
        raise ValueError(f"protocol: this configuration runs under the {config.protocol} profile; start a new batch for {wanted}")
    draft = config.draft_with(**overrides)
    # what the profile derives is derived again from the changed config
    draft = draft.model_copy(update={"limits": draft.limits.model_copy(update={name: None for name in PROFILE_LIMITS})})
    return resolve(draft)


def require_resolved(config: RunConfig) -> None:
    """Refuse a config its profile did not resolve (one built by hand, not by ``build_config``,
    nor read back from a stored run)."""
    if not config.resolved:
        raise ValueError(
            f"this RunConfig is not resolved for the {config.protocol} profile: build it with "
            "vibesearch.protocol.build_config (or resolve it with vibesearch.protocol.resolve)"
        )
