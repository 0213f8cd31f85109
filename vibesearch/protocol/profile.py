"""A run under its profile: the limits, sampling defaults and prompts that ``RunConfig.protocol``
selects, and the two counts the official profile steers by (model calls, last prompt size).

    config = profile_config(config)            # the official samplings filled in where unset
    limits = profile_limits(config)            # ProfileLimits of the run's profile
    prompts = prompts_for(config, settings)    # PromptSet under the official profile, else None

The session, ``make_agent`` and ``make_user`` all go through these, so a run, its agent and its
user agree on one profile.
"""

from __future__ import annotations

from ..config import Settings
from ..run.config import RunConfig, Sampling
from ..run.conversation import Conversation
from .prompts import PromptSet, load_prompts, resolve_harness
from .rules import AGENT_MAX_TOKENS, AGENT_TEMPERATURE, AGENT_TOP_P, OFFICIAL_LIMITS, ProfileLimits, limits_for
from .rules import Sampling as RuleSampling

# model calls that count against the official budget of a trajectory (general_agent.py counts the
# agent's calls and each compaction as one round)
BUDGET_PURPOSES = frozenset({"agent", "compaction"})
DISCARDED_EMPTY = "discarded_empty_reply"  # a note's data key: an empty agent reply the official loop dropped
# the calls whose reported prompt size decides the official compaction
_PROMPT_PURPOSES = frozenset({"agent", "compaction", "extraction"})

OFFICIAL_AGENT_SAMPLING = RuleSampling(temperature=AGENT_TEMPERATURE, top_p=AGENT_TOP_P, max_tokens=AGENT_MAX_TOKENS)


def _filled(given: Sampling, defaults: RuleSampling) -> Sampling:
    """``given`` with each unset value taken from ``defaults``."""
    values = given.model_dump()
    for name, default in (("temperature", defaults.temperature), ("top_p", defaults.top_p), ("max_tokens", defaults.max_tokens)):
        if values.get(name) is None and default is not None:
            values[name] = default
    return Sampling.model_validate(values)


def profile_config(config: RunConfig) -> RunConfig:
    """The config as its profile runs it: under the official profile, each role's sampling takes
    the official values wherever the run did not set its own (agent 1.0 / 0.95 / 16,384; simulator
    0.7 / 32,768; judge 0.7 / 32,768). Our profile's config is returned unchanged."""
    if config.protocol != "official":
        return config
    return config.model_copy(
        update={
            "agent": config.agent.model_copy(update={"sampling": _filled(config.agent.sampling, OFFICIAL_AGENT_SAMPLING)}),
            "user": config.user.model_copy(update={"sampling": _filled(config.user.sampling, OFFICIAL_LIMITS.simulator)}),
            "judge": config.judge.model_copy(update={"sampling": _filled(config.judge.sampling, OFFICIAL_LIMITS.judge)}),
        }
    )


def profile_limits(config: RunConfig) -> ProfileLimits:
    return limits_for(
        config.protocol,
        max_user_turns=config.limits.max_user_turns,
        max_steps_per_turn=config.limits.max_steps_per_turn,
    )


def prompts_for(config: RunConfig, settings: Settings) -> PromptSet | None:
    """The official profile's prompts (the configured checkout, or our own); None for ours.

    The checkout comes from the settings only (``--official-harness`` puts it there, the app uses
    the server's), never from the stored config."""
    if config.protocol != "official":
        return None
    return load_prompts(resolve_harness(None, settings))  # two small files parsed: no cache needed


def llm_calls_used(convo: Conversation) -> int:
    """Model calls of the trajectory so far that count against the official budget: agent calls
    and compactions, less the empty replies the official loop discarded (it takes those back)."""
    discarded = sum(1 for t in convo.turns for n in t.notes if n.data.get(DISCARDED_EMPTY))
    return sum(1 for u in convo.usage if u.purpose in BUDGET_PURPOSES) - discarded


def last_prompt_tokens(convo: Conversation) -> int:
    """The prompt size the provider reported for the agent's latest call (0 right after a
    compaction, or when the provider reported none): what the official agent compacts on."""
    for usage in reversed(convo.usage):
        if usage.purpose in _PROMPT_PURPOSES:
            return 0 if usage.purpose == "compaction" else usage.input_tokens or 0
    return 0
