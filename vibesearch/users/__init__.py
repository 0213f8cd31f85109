"""Whoever plays the persona: LLM simulator, paper-faithful simulator, rules, a person, scripts. Each
kind is one description in ``registry.py``, registered in the kind's own module."""

from __future__ import annotations

from ..config import USER_KINDS, Settings
from ..protocol import require_resolved
from ..run import RunConfig, User, UserState, UserTurn
from ..tasks.models import Task
from . import _llm_kinds  # noqa: F401 - registers the simulator and paper kinds
from ._replies import KIND_MEANING, KindHelp, auto_message, reply_kind_help
from ._stages import PERFUNCTORY, cues_for, derive_cues, finish_sentence, push_message, questions, trigger_fires
from .human import HumanUser
from .official import OfficialUser
from .paced import PacedUser
from .paper import PaperUser
from .rules import RuleUser
from .scripted import ScriptedUser
from .shadow import ShadowUser, shadow_agreement
from .simulator import SimulatorDecision, SimulatorUser
from .registry import UserKindInfo, find_user_kind, is_person, register_user_kind, user_kind, user_kind_names, user_kinds



def make_user(config: RunConfig, task: Task, settings: Settings) -> User:
    """Build the user ``config.user`` describes (a config resolved for its profile) with its kind's
    registered factory (``registry.py``). A simulated user waits ``config.pace_s`` before each
    turn (a person sets their own pace)."""
    require_resolved(config)
    info = user_kind(config.user.kind)
    user = info.factory(config, task, settings)
    if config.pace_s > 0 and not info.person:
        return PacedUser(user, config.pace_s)
    return user


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
    "UserKindInfo",
    "UserState",
    "UserTurn",
    "auto_message",
    "push_message",
    "find_user_kind",
    "is_person",
    "make_user",
    "register_user_kind",
    "reply_kind_help",
    "shadow_agreement",
    "user_kind",
    "user_kind_names",
    "user_kinds",
    "PERFUNCTORY",
    "cues_for",
    "derive_cues",
    "finish_sentence",
    "questions",
    "trigger_fires",
]
