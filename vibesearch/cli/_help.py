"""Options' help filled in when the help is shown (never at import: loading the agents takes
seconds, importing ``vibesearch.run`` a third of one, and a kind registered later shows too):

* the kinds, read from their registries (``--agent``, ``--user``);
* the description of the ``RunConfig`` field an option sets (``field_help("agent.model")``): one
  sentence says what a field means, and the option's help, docs/run-config.md and the code read
  it from the field (``vibesearch.run.reference.description_at``).
"""

from __future__ import annotations

import re
from typing import Any

from typer.core import TyperCommand

# placeholders in an option's help, filled when the help is shown
AGENT_HELP = "{agent kinds}"
AGENT_NAMES = "{agent kind names}"
USER_HELP = "{batch user kinds}"
_FIELD = re.compile(r"\{field:([\w.]+)\}")


def field_help(path: str, then: str = "") -> str:
    """The help of an option that sets ``RunConfig``'s field at ``path`` (``"limits.budget_usd"``):
    the field's description, then ``then`` after a colon (a list of the values, say)."""
    return "{field:" + path + "}" + (f": {then}" if then else "")


def field_path(text: str) -> str | None:
    """The field an option's help names (``field_help``), or None."""
    found = _FIELD.search(text)
    return found.group(1) if found else None


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


def shown_help(text: str) -> str:
    """An option's help with its placeholders filled."""
    if _FIELD.search(text):
        from ..run.reference import description_at

        text = _FIELD.sub(lambda m: description_at(m.group(1)), text)
    if any(p in text for p in (AGENT_HELP, AGENT_NAMES, USER_HELP)):
        text = kinds_help(text)
    return text


class LateHelp(TyperCommand):
    """A command whose options' help may hold the placeholders above."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        for param in self.params:
            text = getattr(param, "help", None)
            if isinstance(text, str):
                param.help = shown_help(text)  # type: ignore[attr-defined]  # options and typer's arguments carry help; click's Parameter does not declare it
        super().format_help(ctx, formatter)
