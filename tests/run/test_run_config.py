"""``RunConfig``: built from the settings, only what the chosen parts use, never a key, stored and
read back equal, and the behaviour it puts into the settings."""

from __future__ import annotations

import pytest
from pydantic import SecretStr, ValidationError

from vibesearch.run import RunConfig


def test_from_settings_takes_the_settings_defaults(settings):
    s = settings.model_copy(update={"agent": "react", "agent_model": "fake/a", "max_user_turns": 7, "temperature": 0.2, "judge_model": "fake/j"})
    config = RunConfig.from_settings(s, task_id="t1")
    assert (config.task_id, config.agent.kind, config.agent.model) == ("t1", "react", "fake/a")
    assert config.limits.max_user_turns == 7 and config.agent.sampling.temperature == 0.2
    assert config.judge.name == "fake/j" and config.protocol == "vibesearch" and config.seed is None


def test_only_what_the_chosen_kinds_use_is_kept(settings):
    s = settings.model_copy(update={"agent_model": "fake/a", "simulator_model": "fake/s", "endpoint_url": "http://127.0.0.1:9/v1"})
    plain = RunConfig.from_settings(s)  # baseline and rules: no model, no endpoint
    assert plain.agent.model is None and plain.agent.endpoint_url is None and plain.user.model is None
    endpoint = RunConfig.from_settings(s, agent="endpoint", user="human", shadow="rules")
    assert endpoint.agent.endpoint_url == "http://127.0.0.1:9/v1" and endpoint.agent.model is None
    assert endpoint.agent.shown_model == "agent" and endpoint.user.shadow == "rules"
    assert RunConfig.from_settings(s, user="simulator", shadow="rules").user.shadow is None  # a shadow only beside a person


def test_it_never_holds_a_key(settings):
    s = settings.model_copy(update={"endpoint_url": "http://127.0.0.1:9/v1", "endpoint_key": SecretStr("sk-secret-value-0001")})
    text = RunConfig.from_settings(s, agent="endpoint").model_dump_json()
    assert "sk-secret-value-0001" not in text and "key" not in text


def test_json_round_trip_and_overrides(settings):
    config = RunConfig.from_settings(settings, task_id="t", agent="react", agent_model="fake/a", protocol="official", seed=3, max_llm_calls=9)
    assert RunConfig.model_validate_json(config.model_dump_json()) == config
    changed = config.with_overrides(user="paper", simulator_model="fake/p", max_user_turns=None)
    assert (changed.user.kind, changed.user.model) == ("paper", "fake/p")
    assert changed.limits == config.limits and changed.protocol == "official" and changed.seed == 3


def test_bad_values_are_refused(settings):
    with pytest.raises(TypeError, match="unknown setting"):
        RunConfig.from_settings(settings, colour="blue")
    with pytest.raises(ValidationError):
        RunConfig.from_settings(settings, agent="gpt")
    with pytest.raises(ValidationError):
        RunConfig.from_settings(settings, protocol="mine")
    with pytest.raises(ValidationError):
        RunConfig.model_validate({"task_id": "t", "surprise": 1})


def test_settings_for_puts_the_runs_behaviour_in_but_never_the_endpoint(settings):
    configured = settings.model_copy(update={"endpoint_url": "http://127.0.0.1:9/v1", "endpoint_key": SecretStr("sk-k-00000001")})
    config = RunConfig.from_settings(
        configured, agent="endpoint", endpoint_url="http://elsewhere.example/v1", max_steps_per_turn=4, search_backend="ddgs", search_topn=3
    )
    run_settings = config.settings_for(configured)
    assert (run_settings.max_steps_per_turn, run_settings.search_backend, run_settings.search_topn) == (4, "ddgs", 3)
    assert run_settings.endpoint_url == "http://127.0.0.1:9/v1"  # the configured one, unchanged
    assert run_settings.endpoint_key_for("http://elsewhere.example/v1") is None
