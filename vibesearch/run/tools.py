"""What a run needs to know about tools: the ``Toolbox`` an agent calls, what a call gives back,
and ``execute_tool_call`` — the one way a recorded tool call is run and its result recorded.

The tools themselves (search, visit, scholar_search, python; offline and web backends, the
sandbox) live in ``vibesearch.tools``; they implement this protocol.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Protocol

from .._files import first_non_finite
from .._secrets import scrub
from .events import Emit, EventData, ToolCallEvent, ToolResultEvent, WebEvent


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

    async def call(self, name: str, arguments: dict[str, Any], emit: Emit | None = None) -> ToolOutput:
        """Run one tool; never raises (errors come back as ``ToolOutput(error=True)``).

        ``emit`` is the run's: a tool that spends something of its own (a summariser's model
        call while visiting a page) records it there."""
        ...


def tool_names(toolbox: Toolbox) -> set[str]:
    """The names of the tools a toolbox offers."""
    return {str(s.get("function", {}).get("name")) for s in toolbox.schemas() if s.get("function", {}).get("name")}


async def execute_tool_call(
    toolbox: Toolbox | None, call: ToolCallEvent, emit: Emit | None = None, *, known: Collection[str] | None = None
) -> ToolResultEvent:
    """Run one recorded tool call and give the event that records its result (not yet emitted).

    Timed from start to end; never raises but for cancellation: an unknown tool (when ``known``
    names the offered ones), arguments that were not valid JSON or hold a number that is not
    finite (NaN, Infinity: no tool is handed one), a toolbox that raised anyway
    and a call with no toolbox to run it (``toolbox`` None: the agent's tools are out of reach,
    e.g. a call an interrupted run left behind) all come back as error results.
    """
    start = time.perf_counter()
    if toolbox is None:
        out = ToolOutput("Error: the tool call was interrupted and did not return.", error=True)
    elif known is not None and call.tool not in known:
        names = ", ".join(sorted(known))
        out = ToolOutput(f"Error: there is no tool named {call.tool!r}. Available tools: {names}.", error=True)
    elif call.raw_arguments is not None:
        out = ToolOutput(_unreadable_arguments(call.tool, call.raw_arguments), error=True)
    elif (where := first_non_finite(call.arguments)) is not None:  # a call read from tags or given as an object
        out = ToolOutput(_non_finite(call.tool, where), error=True)
    else:
        try:
            out = await toolbox.call(call.tool, call.arguments, _linked(emit, call.call_id))
        except Exception as exc:  # noqa: BLE001 - a toolbox must not raise, but never crash the run
            out = ToolOutput(scrub(f"Error: {call.tool} failed: {type(exc).__name__}: {exc}")[:2000], error=True)
    return ToolResultEvent(
        call_id=call.call_id,
        tool=call.tool,
        content=out.content,
        error=out.error,
        truncated_chars=out.truncated_chars,
        elapsed_s=round(time.perf_counter() - start, 4),
    )


def _linked(emit: Emit | None, call_id: str) -> Emit | None:
    """``emit`` with the call's id put on each web exchange the call records (its link to the
    run's tool events)."""
    if emit is None:
        return None
    inner = emit

    def linked(data: EventData) -> object:
        if isinstance(data, WebEvent) and data.call_id is None:
            data.call_id = call_id
        return inner(data)

    return linked


def _non_finite(tool: str, where: str) -> str:
    return (f"Error: the argument {where!r} of this {tool} call is not a finite number (NaN, Infinity or too large "
            "for a float; JSON allows none of them). Call it again with a finite number.")


def _unreadable_arguments(tool: str, raw: str) -> str:
    """The error result of a call whose arguments the client could not take as a JSON object."""
    import json

    try:
        value = json.loads(raw)  # Python's reader takes NaN and Infinity (and 1e309 as infinity)
    except (ValueError, RecursionError):
        value = None
    where = first_non_finite(value) if isinstance(value, dict) else None
    if where is not None:
        return _non_finite(tool, where)
    return f"Error: the arguments of this {tool} call are not valid JSON ({raw[:300]!r}). Call it again with a JSON object."
