"""Adding an agent kind is one module plus one registration (``toy_agent.py``): it shows in
``vibesearch run --help``, in the app's choices and in the pre-run credentials check."""

from __future__ import annotations

import pytest
import toy_agent
from typer.testing import CliRunner

from vibesearch.agents.registry import REGISTRY, agent_kind, agent_kind_names, register_agent_kind
from vibesearch.app import agent_choices, app_agents, study_agents
from vibesearch.cli.main import app
from vibesearch.config import Settings
from vibesearch.llm.credentials import MissingCredentials
from vibesearch.protocol import build_config
from vibesearch.session.preflight import check_config_credentials, run_models

REGISTRY.unregister("toy")  # its module registered it on import: each test below registers it again


@pytest.fixture
def toy():
    register_agent_kind(toy_agent.TOY)
    yield toy_agent.TOY
    REGISTRY.unregister("toy")


def test_a_registered_kind_shows_in_the_cli_help(toy):
    shown = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "400", "NO_COLOR": "1"})
    assert shown.exit_code == 0, shown.output
    assert "toy (a toy kind; needs --model)" in shown.output
    assert "react (an LLM with tools; needs --model)" in shown.output


def test_a_kind_left_out_shows_nowhere():
    shown = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "400", "NO_COLOR": "1"})
    assert shown.exit_code == 0 and "toy" not in shown.output
    assert "toy" not in agent_kind_names() and "toy" not in dict(agent_choices()).values()


def test_a_registered_kind_is_among_the_apps_choices(toy):
    assert ("Toy agent (a test's)", "toy") in agent_choices()
    assert "toy" in app_agents() and "toy" in study_agents()
    assert "endpoint" not in study_agents()  # a URL typed per run: never a study's agent
    assert [name for _, name in agent_choices()][:4] == ["baseline", "react", "endpoint", "openclaw"]


def test_a_registered_kinds_model_is_checked_before_a_run(toy, monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = Settings(db=tmp_path / "x.db", tasks="")
    built = build_config(settings, task_id="t", agent="react", agent_model="openai/gpt-4o-mini", user="rules")
    # a config naming the toy kind (not in the AgentKind Literal, so made by copy, not validated)
    config = built.model_copy(update={"agent": built.agent.model_copy(update={"kind": "toy"})})
    assert run_models(config, settings) == [("agent", "openai/gpt-4o-mini")]
    with pytest.raises(MissingCredentials, match="^agent model 'openai/gpt-4o-mini' needs OPENAI_API_KEY"):
        check_config_credentials(config, settings)


def test_the_registry_names_the_kind(toy):
    assert agent_kind("toy").factory is toy_agent.build_toy
    with pytest.raises(ValueError, match="unknown agent kind 'nope': expected one of baseline, react, endpoint, openclaw, toy"):
        agent_kind("nope")


def test_a_kind_is_registered_once(toy):
    from dataclasses import replace

    with pytest.raises(ValueError, match="registered twice"):
        register_agent_kind(replace(toy, label="another"))
