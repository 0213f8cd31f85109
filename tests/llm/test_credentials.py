"""Credentials preflight: a model whose provider variable is unset stops a run before it starts,
with one line naming the variable (never a value); models that need no key pass."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vibesearch.config import Settings
from vibesearch.llm.credentials import MissingCredentials, missing_variables
from vibesearch.session.preflight import check_config_credentials
from vibesearch.protocol import build_config

REPO = Path(__file__).resolve().parents[2]
PRESENT_KEY = "sk-present-openai-key-0123456789"


@pytest.fixture
def no_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GROQ_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_missing_variables_asks_litellm(no_keys, monkeypatch):
    assert missing_variables("openai/gpt-4o-mini") == ["OPENAI_API_KEY"]
    assert missing_variables("gpt-4o-mini") == ["OPENAI_API_KEY"]
    assert missing_variables("anthropic/claude-3-5-haiku-latest") == ["ANTHROPIC_API_KEY"]
    monkeypatch.setenv("OPENAI_API_KEY", PRESENT_KEY)
    assert missing_variables("openai/gpt-4o-mini") == []


@pytest.mark.parametrize(
    "model, kwargs",
    [
        ("fake/anything", {}),  # the project's scripted provider
        ("ollama_chat/qwen2.5", {}),  # a local server
        ("hosted_vllm/my-model", {}),
        ("openai/local-model", {"api_base": "http://127.0.0.1:8000/v1"}),  # a keyless OpenAI-compatible server
        ("openai/gpt-4o-mini", {"api_key": "given-explicitly"}),
        ("bedrock/anthropic.claude-v2", {}),  # AWS credentials may come from ~/.aws or a role
        ("", {}),
    ],
)
def test_models_that_need_no_variable_pass(no_keys, model, kwargs):
    assert missing_variables(model, **kwargs) == []


def check_run_credentials(settings: Settings, judge_model: str | None = None, **fields: str) -> None:
    """The run's models as a ``RunConfig`` the way the CLI and the app build one."""
    config = build_config(settings, task_id="t", judge=judge_model, **fields)
    check_config_credentials(config, settings, judge=judge_model is not None)


def test_one_line_names_every_model_and_variable_but_no_value(no_keys, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", PRESENT_KEY)
    settings = Settings(db=tmp_path / "x.db", tasks="")
    with pytest.raises(MissingCredentials) as info:
        check_run_credentials(
            settings, agent="react", agent_model="openai/gpt-4o-mini", user="simulator",
            simulator_model="anthropic/claude-3-5-haiku-latest", judge_model="gemini/gemini-1.5-flash",
        )
    message = str(info.value)
    assert "\n" not in message
    assert message == (
        "simulator model 'anthropic/claude-3-5-haiku-latest' needs ANTHROPIC_API_KEY (not set); "
        "judge model 'gemini/gemini-1.5-flash' needs GOOGLE_API_KEY or GEMINI_API_KEY (not set)"
    )
    assert PRESENT_KEY not in message and "OPENAI" not in message


def test_only_the_models_a_run_calls_are_checked(no_keys, tmp_path):
    settings = Settings(db=tmp_path / "x.db", tasks="", simulator_model="openai/gpt-4o-mini", judge_model="openai/gpt-4o-mini")
    # the rules user never calls the simulator; no judge given means the offline judge
    check_run_credentials(settings, agent="baseline", user="rules", judge_model="offline")
    check_run_credentials(settings, agent="react", agent_model="fake/x", user="human", shadow="rules")
    with pytest.raises(MissingCredentials, match="^shadow simulator model 'openai/gpt-4o-mini' needs OPENAI_API_KEY"):
        check_run_credentials(settings, agent="baseline", user="human", shadow="openai/gpt-4o-mini")
    with pytest.raises(MissingCredentials, match="^simulator model 'openai/gpt-4o-mini' needs OPENAI_API_KEY"):
        check_run_credentials(settings, agent="baseline", user="paper")  # the model from the settings


def test_an_api_base_means_a_keyless_local_server(no_keys, tmp_path):
    settings = Settings(db=tmp_path / "x.db", tasks="", api_base="http://127.0.0.1:8000/v1")
    check_run_credentials(settings, agent="react", agent_model="openai/local", user="simulator", simulator_model="openai/local")


def test_the_app_refuses_to_start_a_run_without_the_key(no_keys, bundled_tasks, store, settings):
    from vibesearch.app.live import RunManager, form_request

    task = next(t for t in bundled_tasks if t.corpus)
    manager = RunManager(store, settings)
    req = form_request(settings, task_id=task.id, agent="react", agent_model="openai/gpt-4o-mini", user="rules")
    with pytest.raises(MissingCredentials, match=r"^agent model 'openai/gpt-4o-mini' needs OPENAI_API_KEY \(not set\)$"):
        manager.start(req, task, "owner-token-1")
    assert store.list_runs() == []


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_") and not k.endswith("_API_KEY")}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    env["COLUMNS"] = "60"  # a narrow terminal must not wrap the message
    return subprocess.run(
        [sys.executable, "-c", "from vibesearch.cli.main import main; main()", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=240,
    )


def test_cli_run_stops_before_creating_the_database(tmp_path):
    db = tmp_path / "runs.db"
    done = _cli(["run", "--agent", "react", "--model", "openai/gpt-4o-mini", "--tasks", "daily-en-japan-heritage-trip", "--db", str(db)], tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == ["error: agent model 'openai/gpt-4o-mini' needs OPENAI_API_KEY (not set)"]
    assert "Traceback" not in done.stdout + done.stderr
    assert not db.exists()


def test_cli_run_names_the_simulator_variable(tmp_path):
    db = tmp_path / "runs.db"
    done = _cli(["run", "--user", "simulator", "--simulator-model", "anthropic/claude-3-5-haiku-latest", "--tasks", "daily-en-japan-heritage-trip", "--db", str(db)], tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == ["error: simulator model 'anthropic/claude-3-5-haiku-latest' needs ANTHROPIC_API_KEY (not set)"]
    assert not db.exists()


def test_the_openclaw_agents_model_is_checked(no_keys, tmp_path):
    """The openclaw agent calls its model as the react agent does (its kind's registration says so):
    a missing key stops the run before OpenClaw is started."""
    settings = Settings(db=tmp_path / "x.db", tasks="")
    with pytest.raises(MissingCredentials, match="^agent model 'openai/gpt-4o-mini' needs OPENAI_API_KEY"):
        check_run_credentials(settings, agent="openclaw", agent_model="openai/gpt-4o-mini", user="rules")
    check_run_credentials(settings, agent="openclaw", agent_model="fake/x", user="rules")
