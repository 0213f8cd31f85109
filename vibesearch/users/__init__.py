"""Whoever plays the persona: LLM simulator, paper-faithful simulator, rules, a person, scripts."""

from __future__ import annotations

from .._fields import MissingSetting
from ..config import USER_KINDS, Settings
from ..protocol import profile_of, require_resolved
from ..run import RunConfig, User, UserState, UserTurn
from ..tasks.models import Task
from ._replies import KIND_MEANING, KindHelp, auto_message, reply_kind_help
from ._stages import push_message
from .human import HumanUser
from .official import OfficialUser
from .paced import PacedUser
from .paper import PaperUser
from .rules import RuleUser
from .scripted import ScriptedUser
from .shadow import ShadowUser, shadow_agreement
from .simulator import SimulatorDecision, SimulatorUser



def make_user(config: RunConfig, task: Task, settings: Settings) -> User:
    """Build the user ``config.user`` describes (a config resolved for its profile). ``simulator``
    and ``paper`` need a model; beside a person (``human``), ``config.user.shadow`` adds a
    simulator in the shadow: a model string for the LLM simulator, or ``"rules"`` for the
    rule-based one. When the run's profile plays the official simulator, an LLM-played user
    (``simulator`` or ``paper``) is that one (``OfficialUser``, with the profile's prompts). A
    simulated user waits ``config.pace_s`` before each turn (a person sets their own pace)."""
    require_resolved(config)
    user = _unpaced(config, task, settings)
    if config.pace_s > 0 and config.user.kind != "human":
        return PacedUser(user, config.pace_s)
    return user


def _unpaced(config: RunConfig, task: Task, settings: Settings) -> User:
    spec = config.user
    if spec.kind == "rules":
        return RuleUser(task)
    if spec.kind in ("simulator", "paper"):
        if not spec.model:
            raise MissingSetting(f"user kind {spec.kind!r} needs a simulator model", "simulator_model")
        profile = profile_of(config.protocol)
        prompts = profile.prompts(settings) if profile.official_simulator else None
        if prompts is not None:  # the official simulator, whichever LLM-played kind
            return OfficialUser(
                task, settings, model=spec.model, prompts=prompts, sampling=spec.sampling, attempts=profile.simulator_attempts(config)
            )
        cls = SimulatorUser if spec.kind == "simulator" else PaperUser
        return cls(task, settings, model=spec.model, sampling=spec.sampling)
    if spec.kind == "human":
        human = HumanUser(task)
        if not spec.shadow:
            return human
        shadow: User = (
            RuleUser(task) if spec.shadow == "rules" else SimulatorUser(task, settings, model=spec.shadow, sampling=spec.sampling)
        )
        return ShadowUser(human, shadow)
    if spec.kind in ("direct", "staged"):
        return ScriptedUser(task, spec.kind)
    raise ValueError(f"unknown user kind {spec.kind!r}; choose one of {', '.join(USER_KINDS)}")


__all__ = [
    "KIND_MEANING",
    "HumanUser",
    "KindHelp",
    "OfficialUser",
    "PacedUser",
    "PaperUser",
    "RuleUser",
    "ScriptedUser",
    "ShadowUser",
    "SimulatorDecision",
    "SimulatorUser",
    "USER_KINDS",
    "User",
    "UserState",
    "UserTurn",
    "auto_message",
    "push_message",
    "make_user",
    "reply_kind_help",
    "shadow_agreement",
]
