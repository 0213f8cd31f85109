"""The official protocol's numbers, and the limits of each profile, in one place.

Every number here was read off the public official harness (``VibeBench/VibeSearchBench``:
``run.py``, ``agent/general_agent.py``, ``eval/evaluator.py``, ``eval/grader.py``,
``scripts/run_inference.sh``); the comment beside each says where it comes from. Nothing in this
module calls a model or touches a run: the session and the scoring read these values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Protocol = Literal["vibesearch", "official"]
PROTOCOLS: tuple[Protocol, ...] = ("vibesearch", "official")

# ------------------------------------------------------------------ judge (eval/evaluator.py, eval/grader.py)
JUDGE_MAX_BATCHES = 5  # ground-truth triples go in at most this many near-equal batches
JUDGE_ATTEMPTS = 3  # answers asked per batch until every index of the batch is present
JUDGE_TEMPERATURE = 0.7  # OpenAI-compatible grader
JUDGE_MAX_TOKENS = 32_768
GEMINI_JUDGE_TEMPERATURE = 0.8  # the Gemini grader's sampling (not used through litellm here)
GEMINI_JUDGE_TOP_P = 0.6
GEMINI_JUDGE_MAX_TOKENS = 64_000

# ------------------------------------------------------------------ conversation (run.py, general_agent.py)
USER_REPLIES_AFTER_OPENING = 30  # run.py's default --max-user-turns (the inference script passes 50)
MAX_LLM_CALLS = 200  # --max-rounds: agent calls plus compaction calls, per trajectory
EXTRACTION_MIN_CALLS = 5  # the extraction request always gets at least this many calls
SIMULATOR_TEMPERATURE = 0.7
SIMULATOR_MAX_TOKENS = 32_768
SIMULATOR_ATTEMPTS = 3  # after three failed simulator calls the conversation ends as if "[DONE]"
DONE_MARKER = "[DONE]"  # anywhere in the simulator's reply ends the conversation
AGENT_TEMPERATURE = 1.0  # run.py / run_inference.sh defaults
AGENT_TOP_P = 0.95
AGENT_MAX_TOKENS = 16_384
PRE_EXTRACTION_COMPACT_FRACTION = 0.85  # compact once more before the extraction request above this
MAX_CONSECUTIVE_ERRORS = 10  # failed agent calls in a row before "error_loop"
CLIENT_ATTEMPTS = 5  # the official client's attempts per call (a blank answer, no text/calls/reasoning, is one that failed)
MAX_EMPTY_REPLIES = 5  # empty agent replies discarded in one user turn before the turn ends without one
COMPACT_MAX_CHARS = 300_000  # the transcript a compaction summarises is cut to its first this many characters
COMPACT_ATTEMPTS = 3  # compaction calls until the summary is not empty


def official_compaction_threshold(
    max_context_tokens: int = 256_000, model_context_limit: int = 262_144, max_tokens: int = 32_768
) -> int:
    """Prompt tokens above which the official agent compacts: the requested limit, capped so that
    the prompt plus one answer fits the model (``general_agent.py``). With the inference script's
    256,000 and a 32,768-token answer budget this is 229,376."""
    return min(max_context_tokens, model_context_limit - max_tokens)


OFFICIAL_COMPACTION_TOKENS = official_compaction_threshold()  # 229,376


@dataclass(frozen=True)
class Sampling:
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None

    def params(self) -> dict[str, float | int]:
        """Keyword arguments for ``vibesearch.llm.complete`` (only the values that are set)."""
        out: dict[str, float | int] = {}
        if self.temperature is not None:
            out["temperature"] = self.temperature
        if self.top_p is not None:
            out["top_p"] = self.top_p
        if self.max_tokens is not None:
            out["max_tokens"] = self.max_tokens
        return out


@dataclass(frozen=True)
class ProfileLimits:
    """What ends or reshapes a conversation under one profile.

    ``user_turn_limit`` counts simulator replies after the opening query when
    ``opening_counts_as_turn`` is False (official), all user messages otherwise (ours).
    ``max_llm_calls`` None: no cap on the whole trajectory. ``compaction_tokens`` None: use the
    run's own threshold (context window x fraction)."""

    protocol: Protocol
    user_turn_limit: int
    opening_counts_as_turn: bool
    max_llm_calls: int | None
    max_steps_per_turn: int | None
    compaction_tokens: int | None
    compact_on_context_overflow: bool  # a provider's 400 "context too long" or a timeout compacts
    simulator: Sampling
    judge: Sampling
    strip_think_from_judge: bool

    def user_turns_left(self, user_messages: int) -> int:
        """Simulator replies still allowed, given the user messages so far (the opening included)."""
        used = user_messages - (0 if self.opening_counts_as_turn else 1)
        return max(0, self.user_turn_limit - max(0, used))

    def llm_calls_left(self, calls: int) -> int | None:
        return None if self.max_llm_calls is None else max(0, self.max_llm_calls - calls)

    def should_compact(self, prompt_tokens: int, default_threshold: int) -> bool:
        """Compact before the next call? Strictly above the threshold, as the official agent does."""
        limit = self.compaction_tokens if self.compaction_tokens is not None else default_threshold
        return prompt_tokens > limit


OFFICIAL_LIMITS = ProfileLimits(
    protocol="official",
    user_turn_limit=USER_REPLIES_AFTER_OPENING,
    opening_counts_as_turn=False,
    max_llm_calls=MAX_LLM_CALLS,
    max_steps_per_turn=None,
    compaction_tokens=OFFICIAL_COMPACTION_TOKENS,
    compact_on_context_overflow=True,
    simulator=Sampling(temperature=SIMULATOR_TEMPERATURE, max_tokens=SIMULATOR_MAX_TOKENS),
    judge=Sampling(temperature=JUDGE_TEMPERATURE, max_tokens=JUDGE_MAX_TOKENS),
    strip_think_from_judge=True,
)


def vibesearch_limits(max_user_turns: int = 30, max_steps_per_turn: int = 30) -> ProfileLimits:
    """Our profile (values from ``Settings``: ``max_user_turns``, ``max_steps_per_turn``)."""
    return ProfileLimits(
        protocol="vibesearch",
        user_turn_limit=max_user_turns,
        opening_counts_as_turn=True,
        max_llm_calls=None,
        max_steps_per_turn=max_steps_per_turn,
        compaction_tokens=None,
        compact_on_context_overflow=False,
        simulator=Sampling(),
        judge=Sampling(),
        strip_think_from_judge=False,
    )


def limits_for(protocol: Protocol, *, max_user_turns: int = 30, max_steps_per_turn: int = 30) -> ProfileLimits:
    if protocol == "official":
        return OFFICIAL_LIMITS
    return vibesearch_limits(max_user_turns, max_steps_per_turn)
