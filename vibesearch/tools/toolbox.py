"""``AgentToolbox``: the four tools of one run behind the ``Toolbox`` protocol.

``call`` checks the arguments, runs the tool under an overall deadline, turns any failure into an
error text (scrubbed of secrets) and cuts long results with a marker. It never raises, except
for cancellation of the run itself.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from ..config import Settings
from ..llm import scrub
from ..run.config import SearchSpec
from ..run.events import Emit
from .base import ToolOutput, cap
from .sandbox import PythonSandbox
from .schemas import TOOL_NAMES, ArgumentError, all_schemas, check_arguments


class SearchBackend(Protocol):
    """What a search backend provides (offline corpus or web)."""

    name: str

    async def search(self, query: str, topn: int, emit: Emit | None = None) -> ToolOutput:
        """``emit`` records the exchange with the web when the run records it (``run.web``)."""
        ...

    async def visit(self, urls: list[str], goal: str, emit: Emit | None = None) -> ToolOutput:
        """``emit`` records what reading the pages spends (a summariser's model calls) and the
        pages fetched when the run records its web."""
        ...

    async def scholar(self, query: str, emit: Emit | None = None) -> ToolOutput: ...


class AgentToolbox:
    """search / visit / scholar_search through a backend, python through the sandbox.

    ``emit``, given when the toolbox is built, records what the tools spend (a summariser's model
    calls) for a caller that uses the toolbox on its own; within a run the agent hands the run's
    emit to each ``call`` (``run.tools.execute_tool_call``), which then takes its place."""

    def __init__(
        self,
        backend: SearchBackend,
        sandbox: PythonSandbox,
        settings: Settings,
        *,
        search: SearchSpec | None = None,
        tools: tuple[str, ...] = TOOL_NAMES,
        emit: Emit | None = None,
    ):
        unknown = [t for t in tools if t not in TOOL_NAMES]
        if unknown:
            raise ValueError(f"tools: unknown tool(s) {unknown}; choose from {', '.join(TOOL_NAMES)}")
        self.backend = backend
        self.sandbox = sandbox
        self.settings = settings
        self.search = search or SearchSpec()
        self.tools = tuple(tools)
        self.emit = emit
        self.last_elapsed_s: float | None = None

    @property
    def backend_name(self) -> str:
        return getattr(self.backend, "name", type(self.backend).__name__)

    def schemas(self) -> list[dict[str, Any]]:
        return all_schemas(self.tools)

    def deadline(self, name: str) -> float:
        """The longest a call may take before it is abandoned as timed out (seconds)."""
        s = self.settings
        if name == "python":
            return s.python_timeout_s + 15
        if name == "visit":
            summary = s.llm_timeout_s * 2 if s.summariser_model else 0
            return s.http_timeout_s + 15 + summary
        return s.http_timeout_s * 2 + 10

    async def _run(self, name: str, args: dict[str, Any], emit: Emit | None) -> ToolOutput:
        if name == "search":
            return await self.backend.search(args["query"], args["topn"], emit)
        if name == "visit":
            return await self.backend.visit(args["url"], args["goal"], emit)
        if name == "scholar_search":
            return await self.backend.scholar(args["query"], emit)
        return await self.sandbox.run(args["code"])

    async def call(self, name: str, arguments: dict[str, Any], emit: Emit | None = None) -> ToolOutput:
        start = time.perf_counter()
        emit = emit if emit is not None else self.emit
        try:
            if name not in self.tools:
                raise ArgumentError(f"unknown tool {name!r}; the tools are {', '.join(self.tools)}")
            args = check_arguments(name, arguments, default_topn=self.search.topn)
            limit = self.deadline(name)
            try:
                out = await asyncio.wait_for(self._run(name, args, emit), timeout=limit)
            except asyncio.TimeoutError:
                return ToolOutput(f"{name}: no result within {limit:g} s; the call was abandoned (timed out)", error=True)
        except ArgumentError as exc:
            return ToolOutput(f"Invalid arguments: {exc}", error=True)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a tool failure must never end the run
            detail = scrub(f"{type(exc).__name__}: {exc}")[:1500]
            return ToolOutput(f"{name} failed: {detail}", error=True)
        finally:
            self.last_elapsed_s = round(time.perf_counter() - start, 4)
        result = cap(scrub(out.content) if out.error else out.content, self.search.tool_result_max_chars)
        result.error = out.error
        return result
