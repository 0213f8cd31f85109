"""What every tool backend provides: a schema the model sees and an async ``call``.

A tool failure or timeout is returned as an error text (``ToolOutput.error = True``); it never
raises into the agent loop. Results over the size cap are cut with a marker saying how much.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass
class ToolOutput:
    content: str
    error: bool = False
    truncated_chars: int = 0


class Toolbox(Protocol):
    """The tools one agent can use during one run."""

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI function-calling schemas of the tools (search, visit, scholar_search, python)."""
        ...

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutput:
        """Run one tool; never raises (errors come back as ``ToolOutput(error=True)``)."""
        ...


def cap(text: str, limit: int) -> ToolOutput:
    """Cut ``text`` to ``limit`` characters with a marker that says how much was cut."""
    if len(text) <= limit:
        return ToolOutput(content=text)
    cut = len(text) - limit
    return ToolOutput(content=text[:limit] + f"\n[... {cut} characters cut ...]", truncated_chars=cut)
