"""What every tool backend provides: a schema the model sees and an async ``call`` (the
``Toolbox`` protocol and ``ToolOutput`` belong to the run's model, ``vibesearch.run.tools``).

A tool failure or timeout is returned as an error text (``ToolOutput.error = True``); it never
raises into the agent loop. Results over the size cap are cut with a marker saying how much.
"""

from __future__ import annotations

from ..run.tools import Toolbox, ToolOutput

__all__ = ["Toolbox", "ToolOutput", "cap"]


def cap(text: str, limit: int) -> ToolOutput:
    """Cut ``text`` to ``limit`` characters with a marker that says how much was cut."""
    if len(text) <= limit:
        return ToolOutput(content=text)
    cut = len(text) - limit
    return ToolOutput(content=text[:limit] + f"\n[... {cut} characters cut ...]", truncated_chars=cut)
