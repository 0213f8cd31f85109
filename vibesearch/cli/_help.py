"""The ``--agent`` and ``--user`` options' help, read from the kinds' registries when the help is
shown (never at import: loading the agents takes seconds, and a kind registered later shows too)."""

from __future__ import annotations

from typing import Any

from typer.core import TyperCommand

# placeholders in an option's help, filled when the help is shown
AGENT_HELP = "{agent kinds}"
AGENT_NAMES = "{agent kind names}"
USER_HELP = "{batch user kinds}"


def agent_help() -> str:
    """``baseline (offline, no model) | react (an LLM with tools; needs --model) | ...``"""
    from ..agents.registry import agent_kinds

    return " | ".join(f"{k.name} ({k.help})" if k.help else k.name for k in agent_kinds())


def batch_user_help() -> str:
    """The users a batch may run (a person plays with ``vibesearch play``)."""
    from ..users.registry import user_kinds

    return " | ".join(f"{k.name} ({k.help})" if k.help else k.name for k in user_kinds() if k.in_batches)


def kinds_help(text: str) -> str:
    from ..agents.registry import agent_kind_names

    filled = text.replace(AGENT_HELP, agent_help()).replace(USER_HELP, batch_user_help())
    return filled.replace(AGENT_NAMES, " | ".join(agent_kind_names()))


class KindsHelp(TyperCommand):
    """A command whose options' help may name the registered kinds (the placeholders above)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        for param in self.params:
            text = getattr(param, "help", None)
            if isinstance(text, str) and any(p in text for p in (AGENT_HELP, AGENT_NAMES, USER_HELP)):
                param.help = kinds_help(text)  # type: ignore[attr-defined]  # options and typer's arguments carry help; click's Parameter does not declare it
        super().format_help(ctx, formatter)
