"""The two protocol profiles: ``vibesearch`` (ours) and ``official`` (the paper's harness, exactly).

``profiles`` holds them as objects (``Profile``: every decision that differs between them);
``build`` resolves a run's ``RunConfig`` for its profile (``build_config``); ``rules`` holds the
official numbers; ``prompts`` finds the official profile's prompts (a user's checkout, parsed
without running it, or our own texts). The official judge layout, metrics, strict answer parsing
and result export live in ``vibesearch.scoring`` (``official_judge``, ``official_metrics``,
``official_parse``, ``official_export``).
"""

from ..run.config import PROTOCOLS, ProtocolProfile
from ._harness_ast import HarnessError, Slot
from .build import build_config, rebuild_config, require_resolved, resolve
from .profiles import OfficialProfile, Opening, Profile, VibesearchProfile, as_profile, profile_named, profile_of
from .prompts import (
    JudgeTemplate,
    PromptSet,
    PromptSource,
    load_prompts,
    own_prompts,
    resolve_harness,
)

__all__ = [
    "PROTOCOLS",
    "HarnessError",
    "JudgeTemplate",
    "OfficialProfile",
    "Opening",
    "Profile",
    "PromptSet",
    "PromptSource",
    "ProtocolProfile",
    "VibesearchProfile",
    "as_profile",
    "build_config",
    "load_prompts",
    "own_prompts",
    "profile_named",
    "profile_of",
    "rebuild_config",
    "require_resolved",
    "resolve",
    "resolve_harness",
    "Slot",
]
