"""The two protocol profiles: ``vibesearch`` (ours) and ``official`` (the paper's harness, exactly).

``rules`` holds the official numbers and each profile's limits; ``prompts`` finds the official
profile's prompts (a user's checkout, parsed without running it, or our own texts). The official
judge layout, metrics, strict answer parsing and result export live in ``vibesearch.scoring``
(``official_judge``, ``official_metrics``, ``official_parse``, ``official_export``).
"""

from ._harness_ast import HarnessError
from .prompts import (
    JudgeTemplate,
    PromptSet,
    PromptSource,
    load_prompts,
    own_prompts,
    resolve_harness,
)
from .rules import (
    OFFICIAL_LIMITS,
    PROTOCOLS,
    ProfileLimits,
    Protocol,
    Sampling,
    limits_for,
    vibesearch_limits,
)

__all__ = [
    "OFFICIAL_LIMITS",
    "PROTOCOLS",
    "HarnessError",
    "JudgeTemplate",
    "ProfileLimits",
    "PromptSet",
    "PromptSource",
    "Protocol",
    "Sampling",
    "limits_for",
    "load_prompts",
    "own_prompts",
    "resolve_harness",
    "vibesearch_limits",
]
