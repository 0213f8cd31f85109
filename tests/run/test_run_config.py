"""``RunConfig``: built from the settings and resolved for its profile, only what the chosen parts
use, never a key, stored and read back equal; the limits a profile sets are never a flag's."""

from __future__ import annotations

import pytest
from pydantic import SecretStr, ValidationError

from vibesearch.run import RunConfig
from vibesearch.protocol import build_config, rebuild_config, require_resolved, resolve


def test_from_settings_takes_the_settings_defaults(settings):
    s = settings.model_copy(update={"agent": "react", "agent_model": "fake/a", "max_user_turns": 7, "temperature": 0.2, "judge_model": "fake/j"})
    config = build_config(s, task_id="t1")
    assert (config.task_id, config.agent.kind, config.agent.model) == ("t1", "react", "fake/a")
    assert config.limits.max_user_turns == 7 and config.agent.sampling.temperature == 0.2
    assert config.judge.name == "fake/j" and config.protocol == "vibesearch" and config.seed is None


def test_only_what_the_chosen_kinds_use_is_kept(settings):
    s = settings.model_copy(update={"agent_model": "fake/a", "simulator_model": "fake/s", "endpoint_url": "http://127.0.0.1:9/v1"})
    plain = build_config(s)  # baseline and rules: no model, no endpoint
    assert plain.agent.model is None and plain.agent.endpoint_url is None and plain.user.model is None
    endpoint = build_config(s, agent="endpoint", user="human", shadow="rules")
    assert endpoint.agent.endpoint_url == "http://127.0.0.1:9/v1" and endpoint.agent.model is None
    assert endpoint.agent.shown_model == "agent" and endpoint.user.shadow == "rules"
    assert build_config(s, user="simulator", shadow="rules").user.shadow is None  # a shadow only beside a person


def test_it_never_holds_a_key(settings):
    s = settings.model_copy(update={"endpoint_url": "http://127.0.0.1:9/v1", "endpoint_key": SecretStr("sk-secret-value-0001")})
    text = build_config(s, agent="endpoint").model_dump_json()
    assert "sk-secret-value-0001" not in text and "key" not in text


def test_json_round_trip_and_overrides(settings):
    config = build_config(settings, task_id="t", agent="react", agent_model="fake/a", protocol="official", seed=3, max_llm_calls=9)
    assert RunConfig.model_validate_json(config.model_dump_json()) == config
    assert not RunConfig.model_validate_json(config.model_dump_json()).resolved  # only its profile (or the store) says so
    changed = rebuild_config(config, user="paper", simulator_model="fake/p", max_user_turns=None)
    assert (changed.user.kind, changed.user.model) == ("paper", "fake/p")
    assert changed.limits == config.limits and changed.protocol == "official" and changed.seed == 3
    with pytest.raises(ValueError, match="official profile"):
        rebuild_config(config, protocol="vibesearch")  # the official values filled in are not ours


def test_bad_values_are_refused(settings):
    with pytest.raises(TypeError, match="unknown setting"):
        build_config(settings, colour="blue")
    with pytest.raises(ValidationError):
        build_config(settings, agent="gpt")
    with pytest.raises(ValidationError):
        build_config(settings, protocol="mine")
    with pytest.raises(ValidationError):
        RunConfig.model_validate({"task_id": "t", "surprise": 1})


def test_a_config_is_resolved_once_for_its_profile(settings):
    ours = build_config(settings, agent="react", agent_model="fake/a", max_steps_per_turn=4, search_backend="ddgs", search_topn=3)
    assert (ours.limits.max_steps_per_turn, ours.search.backend, ours.search.topn) == (4, "ddgs", 3)
    assert ours.limits.max_rounds is None and ours.limits.compaction_tokens is None
    official = build_config(settings, agent="react", agent_model="fake/a", protocol="official", max_user_turns=12)
    # the official profile: the turns asked for, no step cap, 200 rounds, compaction above
    # min(256,000, 262,144 - the agent's max_tokens 16,384) = 245,760; the window fraction unused
    assert official.limits.max_user_turns == 12 and official.limits.max_steps_per_turn is None
    assert (official.limits.max_rounds, official.limits.compaction_tokens, official.limits.compaction_threshold) == (200, 245_760, None)
    assert build_config(settings, protocol="official").limits.max_user_turns == 50  # what the official scripts pass
    assert build_config(settings).limits.max_user_turns == 30  # ours
    big = build_config(settings, agent="react", agent_model="fake/a", protocol="official",
                       agent_sampling=build_config(settings).agent.sampling.model_copy(update={"max_tokens": 32_768}))
    assert big.limits.compaction_tokens == 229_376  # with the model profiles' 32,768-token answers
    assert official.agent.sampling.params() == {"temperature": 1.0, "top_p": 0.95, "max_tokens": 16_384}
    assert build_config(settings, protocol="official", judge="fake/j").judge.sampling.params() == {"temperature": 0.7, "max_tokens": 32_768}
    assert resolve(official) == official and resolve(ours) == ours  # resolving again changes nothing
    with pytest.raises(TypeError, match="unknown setting"):
        build_config(settings, max_rounds=5)  # a limit only a profile sets


def test_a_config_not_resolved_is_refused_by_the_parts(settings):
    from vibesearch.agents import make_agent
    from vibesearch.tasks import get_task

    tea_task = get_task("daily-en-japan-heritage-trip")
    draft = RunConfig.draft(settings, agent="react", agent_model="fake/a", protocol="official")
    with pytest.raises(ValueError, match="not resolved for the official profile"):
        require_resolved(draft)
    with pytest.raises(ValueError, match="not resolved"):
        make_agent(draft, tea_task, settings)
    require_resolved(build_config(settings, protocol="official"))
