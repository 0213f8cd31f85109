"""The official profile's numbers and limits (pure rules; the session applies them)."""

from __future__ import annotations

from vibesearch.protocol import OFFICIAL_LIMITS, limits_for
from vibesearch.protocol.rules import (
    OFFICIAL_COMPACTION_TOKENS,
    official_compaction_threshold,
)


def test_compaction_threshold_is_the_capped_context():
    assert OFFICIAL_COMPACTION_TOKENS == 229_376 == min(256_000, 262_144 - 32_768)
    assert official_compaction_threshold(256_000, 262_144, 16_384) == 245_760
    assert official_compaction_threshold(120_000) == 120_000


def test_compaction_only_strictly_above_the_threshold():
    assert not OFFICIAL_LIMITS.should_compact(229_376, default_threshold=10)
    assert OFFICIAL_LIMITS.should_compact(229_377, default_threshold=10)
    assert OFFICIAL_LIMITS.compact_on_context_overflow
    ours = limits_for("vibesearch")
    assert ours.should_compact(205_000, default_threshold=204_800)  # ours: the run's own threshold
    assert not ours.compact_on_context_overflow


def test_thirty_simulator_replies_after_the_opening():
    # user messages so far, the opening query included
    assert OFFICIAL_LIMITS.user_turns_left(1) == 30
    assert OFFICIAL_LIMITS.user_turns_left(30) == 1
    assert OFFICIAL_LIMITS.user_turns_left(31) == 0
    ours = limits_for("vibesearch", max_user_turns=30)
    assert ours.user_turns_left(1) == 29  # ours counts the opening
    assert ours.user_turns_left(30) == 0


def test_two_hundred_llm_calls_per_trajectory():
    assert OFFICIAL_LIMITS.llm_calls_left(0) == 200
    assert OFFICIAL_LIMITS.llm_calls_left(199) == 1
    assert OFFICIAL_LIMITS.llm_calls_left(200) == 0
    assert OFFICIAL_LIMITS.max_steps_per_turn is None
    assert limits_for("vibesearch").llm_calls_left(10_000) is None


def test_per_role_sampling():
    assert OFFICIAL_LIMITS.judge.params() == {"temperature": 0.7, "max_tokens": 32_768}
    assert OFFICIAL_LIMITS.simulator.params() == {"temperature": 0.7, "max_tokens": 32_768}
    assert limits_for("vibesearch").judge.params() == {}
