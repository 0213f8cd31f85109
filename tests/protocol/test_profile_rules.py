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


def test_the_official_simulator_inherits_the_agents_reasoning_effort_only_on_the_agents_route():
    def sim(agent_model, simulator_model, protocol="official"):
        config = build_config(Settings(), protocol=protocol, agent="react", agent_model=agent_model, user="paper",
                              simulator_model=simulator_model)
        return config.user.sampling.reasoning_effort

    assert sim("deepseek/deepseek-reasoner", "deepseek/deepseek-chat") == "max"  # another model, the same endpoint
    assert sim("openai/DeepSeek-V4-Pro", "openai/doubao-seed") == "max"  # the simulator's own family does not matter
    assert sim("deepseek/deepseek-reasoner", "openai/gpt-4o-mini") is None  # an endpoint of its own
    assert sim("openai/glm-5.1", "openai/glm-5.1") is None  # no effort to inherit
    assert sim("deepseek-reasoner", "gpt-4o-mini") == "max"  # bare names are both litellm's OpenAI route
    assert sim("openai/deepseek-v4", "openai/x", protocol="vibesearch") is None  # ours sends none
    # the OpenClaw driver's simulator has its own client: nothing is inherited
    claw = build_config(Settings(), protocol="official", agent="openclaw", agent_model="openai/deepseek-v4", user="paper",
                        simulator_model="openai/deepseek-v4")
    assert claw.user.sampling.reasoning_effort is None


def test_openclaws_own_model_calls_get_no_sampling_under_the_official_profile():
    # the official driver sets none: OpenClaw asks with its own; the general agent keeps run.py's defaults
    claw = build_config(Settings(), protocol="official", agent="openclaw", agent_model="openai/m")
    assert claw.agent.sampling.params() == {}
    react = build_config(Settings(), protocol="official", agent="react", agent_model="openai/m")
    assert claw.limits.compaction_tokens == react.limits.compaction_tokens  # with the default answer budget
    assert react.agent.sampling.params() == {"temperature": 1.0, "top_p": 0.95, "max_tokens": 16_384}
    given = build_config(Settings(), protocol="official", agent="openclaw", agent_model="openai/m", agent_sampling={"temperature": 0.3})
    assert given.agent.sampling.params() == {"temperature": 0.3}  # what a run asks for itself is kept
