"""The official profile's numbers and limits (pure rules; the session applies them)."""

from __future__ import annotations

from vibesearch.config import Settings
from vibesearch.protocol import build_config, profile_of
from vibesearch.protocol.rules import (
    OFFICIAL_COMPACTION_TOKENS,
    official_compaction_threshold,
)
from vibesearch.run import Limits

OFFICIAL = profile_of("official")
OURS = profile_of("vibesearch")


def _official_limits() -> Limits:
    return build_config(Settings(), protocol="official").limits


def _our_limits(**given) -> Limits:
    return build_config(Settings(), **given).limits


def test_compaction_threshold_is_the_capped_context():
    assert OFFICIAL_COMPACTION_TOKENS == 229_376 == min(256_000, 262_144 - 32_768)
    assert official_compaction_threshold(256_000, 262_144, 16_384) == 245_760
    assert official_compaction_threshold(120_000) == 120_000


def test_compaction_threshold_follows_the_context_and_the_answer_budget():
    from vibesearch.agents.compaction import threshold_for

    # the official agent's threshold: min(max_context_tokens, 262,144 - max_tokens); with the
    # inference script's 256,000 and 16,384-token answers, 245,760 ...
    assert threshold_for("fake/any", _official_limits()) == 245_760
    assert threshold_for("fake/any", build_config(Settings(context_window=240_000), protocol="official").limits) == 240_000  # run.py's own default
    # ... ours at the run's own threshold (context window x fraction)
    assert threshold_for("fake/any", _our_limits(context_window=256_000, compaction_threshold=0.8)) == 204_800
    assert _our_limits().compaction_tokens is None


def test_the_turn_cap_counts_simulator_replies_after_the_opening():
    # user messages so far, the opening query included; 50 by default (what every official script passes)
    limits = _official_limits()
    assert limits.max_user_turns == 50
    assert OFFICIAL.user_turns_left(limits, 1) == 50
    assert OFFICIAL.user_turns_left(limits, 50) == 1
    assert OFFICIAL.user_turns_left(limits, 51) == 0
    thirty = build_config(Settings(), protocol="official", max_user_turns=30).limits  # run.py's default, when asked for
    assert OFFICIAL.user_turns_left(thirty, 31) == 0
    ours = _our_limits(max_user_turns=30)
    assert OURS.user_turns_left(ours, 1) == 29  # ours counts the opening
    assert OURS.user_turns_left(ours, 30) == 0


def test_two_hundred_llm_calls_per_trajectory():
    from vibesearch.run import Conversation, UsageEvent

    limits = _official_limits()
    convo = Conversation()
    assert OFFICIAL.rounds_left(limits, convo) == 200
    for _ in range(199):
        convo.add(UsageEvent(purpose="agent", model="fake/a"))
    assert OFFICIAL.rounds_left(limits, convo) == 1
    convo.add(UsageEvent(purpose="compaction", model="fake/a"))  # a compaction call is not a round ...
    assert OFFICIAL.rounds_left(limits, convo) == 1
    from vibesearch.run import CompactionEvent

    convo.add(CompactionEvent(tokens_before=10, tokens_after=1, threshold=5, summary="s"))  # ... a compaction that summarised is
    assert OFFICIAL.rounds_left(limits, convo) == 0
    assert limits.max_steps_per_turn is None
    assert OURS.rounds_left(_our_limits(), convo) is None


def test_per_role_sampling():
    official = build_config(Settings(), protocol="official")
    assert official.judge.sampling.params() == {}  # the offline judge samples nothing
    assert build_config(Settings(), protocol="official", judge="openai/j").judge.sampling.params() == {"temperature": 0.7, "max_tokens": 32_768}
    gemini = build_config(Settings(), protocol="official", judge="gemini/g").judge.sampling.params()
    assert gemini == {"temperature": 0.8, "top_p": 0.6, "max_tokens": 64_000}  # the official Gemini grader
    assert official.user.sampling.params() == {"temperature": 0.7, "top_p": 0.95, "max_tokens": 32_768}  # the client's top_p
    assert build_config(Settings()).judge.sampling.params() == {}
