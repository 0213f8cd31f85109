"""Whoever plays the persona: LLM simulator, paper-faithful simulator, rules, a person, scripts."""

from __future__ import annotations

from ..config import Settings, get_settings
from ..tasks.models import Task
from .base import User, UserState, UserTurn
from .human import HumanUser
from .paper import PaperUser
from .rules import RuleUser
from .scripted import ScriptedUser
from .shadow import ShadowUser, shadow_agreement
from .simulator import SimulatorDecision, SimulatorUser

USER_KINDS = ("rules", "simulator", "paper", "human", "direct", "staged")


def make_user(
    kind: str,
    task: Task,
    settings: Settings | None = None,
    *,
    model: str | None = None,
    shadow_model: str | None = None,
) -> User:
    """Build a user. ``model`` is the simulator model (default: settings.simulator_model).

    For ``human``, ``shadow_model`` adds a simulator in the shadow: a model string for the LLM
    simulator, or ``"rules"`` for the rule-based one.
    """
    settings = settings or get_settings()
    if kind == "rules":
        return RuleUser(task)
    if kind in ("simulator", "paper"):
        sim_model = model or settings.simulator_model
        if not sim_model:
            raise ValueError(f"user kind {kind!r} needs a simulator model: pass --simulator-model or set VIBESEARCH_SIMULATOR_MODEL")
        cls = SimulatorUser if kind == "simulator" else PaperUser
        return cls(task, settings, model=sim_model)
    if kind == "human":
        human = HumanUser(task)
        if not shadow_model:
            return human
        shadow: User = RuleUser(task) if shadow_model == "rules" else SimulatorUser(task, settings, model=shadow_model)
        return ShadowUser(human, shadow)
    if kind in ("direct", "staged"):
        return ScriptedUser(task, kind)
    raise ValueError(f"unknown user kind {kind!r}; choose one of {', '.join(USER_KINDS)}")


__all__ = [
    "HumanUser",
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
    "make_user",
    "shadow_agreement",
]
