"""An option of ``vibesearch run`` (or ``play``) that sets a ``RunConfig`` field shows that field's
description as its help (one sentence, said once: ``Field(description=...)``); every other option
says it keeps its own help."""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from vibesearch.cli import field_help, field_path, shown_help
from vibesearch.cli.main import app
from vibesearch.run.reference import description_at

# the option -> the RunConfig field it sets (what ``run_cmd`` / ``play_cmd`` hand ``build_config``)
SETS_A_FIELD = {
    "run": {
        "--agent": "agent.kind", "--model": "agent.model", "--user": "user.kind", "--simulator-model": "user.model",
        "--max-user-turns": "limits.max_user_turns", "--budget-usd": "limits.budget_usd", "--budget-tokens": "limits.budget_tokens",
        "--stop-on-answer": "limits.stop_on_final_answer", "--search": "search.backend",
        "--endpoint-url": "agent.endpoint_url", "--endpoint-model": "agent.endpoint_model",
        "--openclaw-subagents": "agent.openclaw.subagents", "--openclaw-memory": "agent.openclaw.memory",
        "--openclaw-long-term-memory": "agent.openclaw.long_term_memory", "--openclaw-idle-s": "agent.openclaw.idle_s",
        "--openclaw-max-nudges": "agent.openclaw.max_nudges", "--protocol": "protocol", "--web": "search.web",
    },
    "play": {"--agent": "agent.kind", "--model": "agent.model", "--shadow-model": "user.shadow", "--protocol": "protocol", "--web": "search.web"},
}
# the options that set no RunConfig field (the tasks, the batch, the process, the output)
OWN_HELP = {
    "run": {"more", "--tasks", "--runs", "--concurrency", "--official-harness", "--resume", "--batch", "--events", "--queue",
            "--provider-limit", "--json", "--db"},
    "play": {"--task", "--official-harness", "--tasks", "--resume", "--db"},
}


def _params(command: str) -> dict[str, Any]:
    """The command's options by their first flag (an argument by its name), their help unfilled
    (a command made afresh: ``--help`` fills the placeholders of the one it shows)."""
    group: Any = typer.main.get_command(app)
    params = group.commands[command].params
    return {p.name if p.param_type_name == "argument" else p.opts[0]: p for p in params if p.name != "help"}


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("│", " "))


@pytest.mark.parametrize("command", sorted(SETS_A_FIELD))
def test_every_option_sets_a_field_or_keeps_its_own_help(command):
    assert set(_params(command)) == set(SETS_A_FIELD[command]) | OWN_HELP[command]
    assert not set(SETS_A_FIELD[command]) & OWN_HELP[command]


@pytest.mark.parametrize("command", sorted(SETS_A_FIELD))
def test_an_option_that_sets_a_field_shows_the_fields_description(command):
    params = _params(command)
    shown = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "400", "NO_COLOR": "1"})
    assert shown.exit_code == 0, shown.output
    page = _flat(shown.output)
    for flag, path in SETS_A_FIELD[command].items():
        help_text = getattr(params[flag], "help", None) or ""
        assert field_path(help_text) == path, f"{command} {flag}: its help says {help_text!r}, not field {path}'s description"
        description = description_at(path)  # KeyError: the option claims a field RunConfig does not have
        assert shown_help(help_text).startswith(description)
        assert _flat(shown_help(help_text)) in page, f"{command} {flag}: shown as something else than {description!r}"
    for flag in OWN_HELP[command]:
        assert field_path(getattr(params[flag], "help", None) or "") is None, f"{command} {flag} names a field: add it to SETS_A_FIELD"


def test_the_help_of_a_field_is_its_description_then_its_values():
    assert shown_help(field_help("limits.budget_usd")) == description_at("limits.budget_usd")
    assert shown_help(field_help("search.backend", "offline | ddgs")) == description_at("search.backend") + ": offline | ddgs"


def test_an_option_claiming_a_field_runconfig_lacks_fails():
    with pytest.raises(KeyError, match="agent.nope"):
        shown_help(field_help("agent.nope"))
    with pytest.raises(KeyError, match="limits.budget_usd.x"):
        description_at("limits.budget_usd.x")
    assert description_at("agent.openclaw.idle_s").startswith("seconds without a reply")
