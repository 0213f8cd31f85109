"""The two LLM-played user kinds, ``simulator`` and ``paper`` (``registry.py``): one factory for both,
since under a profile that plays the official simulator either is that one."""

from __future__ import annotations

from typing import Callable

from .._fields import MissingSetting
from ..config import Settings
from ..protocol import profile_of
from ..run.config import RunConfig
from ..run.protocols import User
from ..tasks.models import Task
from .official import OfficialUser
from .paper import PaperUser
from .registry import UserFactory, UserKindInfo, register_user_kind
from .simulator import SimulatorUser


def llm_played(cls: Callable[..., User]) -> UserFactory:
    """The factory of an LLM-played kind (``simulator``, ``paper``): a user of ``cls`` on the run's
    simulator model, or, when the run's profile plays the official simulator, that one
    (``OfficialUser``, with the profile's prompts) whichever LLM-played kind is named."""

    def build(config: RunConfig, task: Task, settings: Settings) -> User:
        spec = config.user
        if not spec.model:
            raise MissingSetting(f"user kind {spec.kind!r} needs a simulator model", "simulator_model")
        profile = profile_of(config.protocol)
        prompts = profile.prompts(settings) if profile.official_simulator else None
        if prompts is not None:
            return OfficialUser(
                task, settings, model=spec.model, prompts=prompts, sampling=spec.sampling, attempts=profile.simulator_attempts(config)
            )
        return cls(task, settings, model=spec.model, sampling=spec.sampling)

    return build


register_user_kind(UserKindInfo(
    name="simulator", label="LLM simulator", help="LLM, needs --simulator-model", factory=llm_played(SimulatorUser), needs_model=True,
))
register_user_kind(UserKindInfo(
    name="paper", label="Paper simulator (LLM, paper prompt)", help="the official prompt", factory=llm_played(PaperUser), needs_model=True,
))
