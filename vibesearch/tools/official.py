"""The official profile's tools: ``search``, ``visit``, ``scholar_search`` and ``python`` with the
behaviour of the official harness's toolkit, run over our own backends.

    toolbox = make_official_toolbox(task, settings, search=config.search, prompts=prompts, model=agent_model)
    toolbox.schemas()                       # the PromptSet's tool schemas (the checkout's, or ours)
    await toolbox.call("search", {"query": "..."}, emit)

What differs from ``AgentToolbox`` (the vibesearch profile):

* the schemas are the ``PromptSet``'s: ``TOOLS_CUSTOM`` read from the user's checkout, or our
  schemas of the same shape; arguments are taken as they come (no checking, no defaults of ours);
* results are laid out as the official toolkit writes them (the "A Google search for ..." text,
  hits numbered from 0) and are never cut;
* ``search`` takes ``source`` and ignores it, as the official code does (news goes to the same
  search); a list of queries is searched query by query and the texts joined with ``=======``;
* ``visit`` sends each readable page (its first 150,000 characters) to one extractor call: the
  ``PromptSet``'s extractor prompt as one user message, temperature 0.7, 4,096 tokens, a single
  attempt, with the summariser model (``settings.summariser_model``, else the agent's model);
* ``python`` runs with a 120 s limit and answers in the official ``stdout:``/``stderr:`` layout;
* an unknown tool and a tool that fails answer with the official texts.

The backends give the raw material (``hits``: ranked hits, ``page_texts``: page text or None),
the offline corpus or the web alike.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any, Protocol

from ..config import Settings
from ..llm import complete, scrub
from ..protocol.prompts import PromptSet
from ..run.config import SearchSpec
from ..run.events import Emit
from ..run.web import WebArchive
from ..tasks.models import Task
from ._format import Hit
from .base import ToolOutput
from ._backend import make_backend
from .sandbox import PythonSandbox

OFFICIAL_TOOLS = ("search", "visit", "scholar_search", "python")
DEFAULT_TOPN = 10  # a search that names no topn
# the official scholar request names no number of results, so the search service's default applies
SCHOLAR_TOPN = 10
PART_SEPARATOR = "\n=======\n"  # between the texts of several queries or several pages

PAGE_CHARS = 150_000  # the part of a page the extractor reads
MIN_PAGE_CHARS = 20  # a page with less text than this is not worth an extractor call
PAGE_FAILED = "The webpage could not be accessed."
EXTRACTOR_SAMPLING: dict[str, float | int] = {"temperature": 0.7, "max_tokens": 4096}

PYTHON_RUN_S = 120
# the official sandbox service is also given 60 s to compile; ours runs the source directly
PYTHON_COMPILE_S = 60
# not a cut of the result: the most a program may print before the sandbox stops it (a runaway
# print loop must not fill the memory); the operator's own limit wins when it is higher
PYTHON_OUTPUT_GUARD_CHARS = 1_000_000
PYTHON_TIMED_OUT = "[Python Interpreter Error] TimeoutError: Execution timed out."


class OfficialBackend(Protocol):
    """What the official tools need from a search backend (``OfflineBackend``, ``WebBackend``)."""

    name: str

    async def hits(self, query: str, topn: int, *, scholarly: bool = False, emit: Emit | None = None) -> list[Hit]: ...

    async def page_texts(self, urls: list[str], emit: Emit | None = None) -> list[str | None]: ...


# ---------------------------------------------------------------- result texts

_RELATIVE_DATE = re.compile(r"(\d+)\s+(hour|day|week|month|year)s?\s+ago", re.IGNORECASE)
_STEPS = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(weeks=1)}


def absolute_date(text: str, now: datetime | None = None) -> str:
    """A date such as "3 days ago" written as a calendar date, as the official search does
    ("Mar 04, 2025"; months: "Feb, 2025", taking a month as 30 days; years: "2023"); any
    other text is kept."""
    found = _RELATIVE_DATE.match((text or "").strip())
    if not found:
        return text
    count, unit = int(found.group(1)), found.group(2).lower()
    now = now or datetime.now()
    if unit == "year":
        return str(now.year - count)
    if unit == "month":
        return (now - timedelta(days=30 * count)).strftime("%b, %Y")
    return (now - count * _STEPS[unit]).strftime("%b %d, %Y")


def hits_text(query: str, hits: list[Hit], *, scholarly: bool = False, now: datetime | None = None) -> str:
    """The official layout of one query's hits (web search: relative dates made absolute)."""
    if not hits:
        return f"No scholar results for '{query}'" if scholarly else f"No results for '{query}'"
    engine, section = ("Google Scholar", "Scholar Results") if scholarly else ("Google", "Web Results")
    blocks = [f"A {engine} search for '{query}' found {len(hits)} results:\n\n## {section}"]
    for number, hit in enumerate(hits):
        date = hit.date or ""
        if not scholarly:
            date = absolute_date(date, now)
        block = f"{number}. [{hit.title or ''}]({hit.url or ''})"
        if date:
            block += f"\nDate published: {date}"
        if hit.source:
            block += f"\nSource: {hit.source}"
        if hit.snippet:
            block += f"\n{hit.snippet}"
        blocks.append(block)
    return "\n\n".join(blocks)


def _page_head(url: str, goal: str) -> str:
    return f"The useful information in {url} for user goal {goal} as follows:\n\n"


def extracted_text(url: str, goal: str, reply: str) -> str:
    """The ``visit`` text of one page from the extractor's reply (fences dropped, read as JSON
    with ``evidence`` and ``summary``; a reply that is not JSON is the summary as it stands)."""
    cleaned = reply.replace("```json", "").replace("```", "").strip()
    try:
        parsed = json.loads(cleaned)
    except ValueError:
        return _page_head(url, goal) + f"Summary:\n{reply}\n"
    if not isinstance(parsed, dict):
        # the official code reads the keys of whatever the JSON held: for anything but an object
        # that fails, and the failure's message is all the agent gets for this page
        return f"'{type(parsed).__name__}' object has no attribute 'get'"
    evidence, summary = str(parsed.get("evidence", "")), str(parsed.get("summary", ""))
    out = _page_head(url, goal)
    if evidence:
        out += f"Evidence in page:\n{evidence}\n\n"
    return out + f"Summary:\n{summary}\n"


def _queries(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(q) for q in value]
    return [str(value)]


def _urls(value: Any) -> list[str]:
    """``url`` as a list: a list as it is, a string holding a JSON list read as one, any other
    string as the only URL."""
    if isinstance(value, str):
        if value.strip().startswith("["):
            try:
                value = json.loads(value)
            except ValueError:
                return [value]
        else:
            return [value]
    if isinstance(value, list):
        return [str(u) for u in value]
    return [str(value)]


def _topn(value: Any) -> int:
    if value is None:
        return DEFAULT_TOPN
    if isinstance(value, bool):
        raise ValueError(f"topn must be a whole number, not {value!r}")
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        raise ValueError(f"topn must be a whole number, not {value!r}") from None


def _joined(parts: list[Any]) -> str:
    """Texts of several queries or pages; one that failed stands as its error's message."""
    out = []
    for part in parts:
        if isinstance(part, BaseException):
            if not isinstance(part, Exception):  # cancellation and the like go on up
                raise part
            out.append(scrub(str(part)))
        else:
            out.append(str(part))
    return PART_SEPARATOR.join(out)


# ---------------------------------------------------------------- the toolbox


class OfficialToolbox:
    """The official tools of one run (the ``Toolbox`` protocol of ``vibesearch.run.tools``).

    ``call`` never raises but for cancellation: a tool that fails answers
    ``Error executing '<name>': <error>`` (scrubbed of secrets), an unknown one
    ``Unknown tool: <name>``. ``emit``, given here, records the extractor's model calls for a
    caller that uses the toolbox on its own; the run's emit handed to ``call`` takes its place."""

    def __init__(
        self,
        backend: OfficialBackend,
        sandbox: PythonSandbox,
        settings: Settings,
        *,
        prompts: PromptSet,
        model: str,
        emit: Emit | None = None,
    ):
        self.backend = backend
        self.sandbox = sandbox
        self.settings = settings
        self.prompts = prompts
        self.extractor_model = settings.summariser_model or model
        # the official extractor call is made once: no retry on failure
        self.settings = settings
        self.emit = emit
        self._tools: dict[str, Callable[[dict[str, Any], Emit | None], Awaitable[ToolOutput]]] = {
            "search": self._search,
            "visit": self._visit,
            "scholar_search": self._scholar_search,
            "python": self._python,
        }

    @property
    def backend_name(self) -> str:
        return getattr(self.backend, "name", type(self.backend).__name__)

    def schemas(self) -> list[dict[str, Any]]:
        return self.prompts.tool_schemas()

    async def call(self, name: str, arguments: dict[str, Any], emit: Emit | None = None) -> ToolOutput:
        tool = self._tools.get(name)
        if tool is None:
            return ToolOutput(f"Unknown tool: {name}", error=True)
        try:
            return await tool(arguments, emit if emit is not None else self.emit)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a tool failure must never end the run
            return ToolOutput(scrub(f"Error executing '{name}': {exc}"), error=True)

    # ---- search / scholar_search

    async def _hits_text(self, query: str, topn: int, scholarly: bool, emit: Emit | None) -> str:
        return hits_text(query, await self.backend.hits(query, topn, scholarly=scholarly, emit=emit), scholarly=scholarly)

    async def _search(self, args: dict[str, Any], emit: Emit | None) -> ToolOutput:
        # ``source`` (web or news) is accepted and, as in the official toolkit, changes nothing
        queries, topn = _queries(args.get("query", "")), _topn(args.get("topn", DEFAULT_TOPN))
        parts = await asyncio.gather(*(self._hits_text(q, topn, False, emit) for q in queries), return_exceptions=True)
        return ToolOutput(_joined(parts))

    async def _scholar_search(self, args: dict[str, Any], emit: Emit | None) -> ToolOutput:
        queries = _queries(args.get("query", ""))
        parts = await asyncio.gather(*(self._hits_text(q, SCHOLAR_TOPN, True, emit) for q in queries), return_exceptions=True)
        return ToolOutput(_joined(parts))

    # ---- visit

    async def _visit(self, args: dict[str, Any], emit: Emit | None) -> ToolOutput:
        urls, goal = _urls(args.get("url", [])), str(args.get("goal", ""))
        texts = await self.backend.page_texts(urls, emit)
        parts = await asyncio.gather(*(self._read(url, text, goal, emit) for url, text in zip(urls, texts)), return_exceptions=True)
        return ToolOutput(_joined(parts))

    async def _read(self, url: str, text: str | None, goal: str, emit: Emit | None) -> str:
        stripped = (text or "").strip()
        if len(stripped) < MIN_PAGE_CHARS or stripped == PAGE_FAILED:
            return _page_head(url, goal) + f"Summary:\n{PAGE_FAILED}\n"
        assert text is not None  # a None page has no stripped text
        request = self.prompts.extractor_prompt(text[:PAGE_CHARS], goal)
        try:
            result = await complete(
                [{"role": "user", "content": request}],
                model=self.extractor_model,
                purpose="summariser",
                emit=emit,
                sampling=EXTRACTOR_SAMPLING,
                settings=self.settings,
                retries=0,  # one attempt, as the official toolkit makes
            )
            reply = result.content.strip()
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - as in the official toolkit, a failed call reads as an empty reply
            reply = ""
        return extracted_text(url, goal, reply)

    # ---- python

    async def _python(self, args: dict[str, Any], emit: Emit | None) -> ToolOutput:
        """Run the code in our sandbox with a 120 s limit. The official sandbox service is given
        60 s to compile and 120 s to run; ours has no compile step, so only the run limit
        applies."""
        try:
            res = await self.sandbox.execute(str(args.get("code", "")))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - reported as the official interpreter error
            return ToolOutput(scrub(f"[Python Interpreter Error]: {exc}"), error=True)
        parts = []
        if res.stdout:
            parts.append(f"stdout:\n{res.stdout}")
        if res.stderr:
            parts.append(f"stderr:\n{res.stderr}")
        if res.timed_out:
            parts.append(PYTHON_TIMED_OUT)
        return ToolOutput("\n".join(parts).strip() or "(no output)")


def official_sandbox(settings: Settings) -> PythonSandbox:
    """The sandbox with the official run limit (wall clock and CPU time 120 s), everything else
    as the process's settings say."""
    return PythonSandbox(
        settings.model_copy(
            update={
                "python_timeout_s": float(PYTHON_RUN_S),
                "python_cpu_s": max(int(settings.python_cpu_s), PYTHON_RUN_S),
                "python_output_chars": max(int(settings.python_output_chars), PYTHON_OUTPUT_GUARD_CHARS),
            }
        )
    )


def make_official_toolbox(
    task: Task,
    settings: Settings,
    *,
    search: SearchSpec,
    prompts: PromptSet,
    model: str,
    emit: Emit | None = None,
    backend: str | OfficialBackend | None = None,
    web: WebArchive | None = None,
) -> OfficialToolbox:
    """The official tools of one run of ``task``: the backend ``search`` names (or ``backend``: a
    name or a ready backend with ``hits``/``page_texts``), the sandbox with the official limits,
    the schemas and extractor prompt of ``prompts``, and ``model`` (the agent's) for the
    extractor when ``settings.summariser_model`` is not set."""
    chosen: OfficialBackend = backend if backend is not None and not isinstance(backend, str) else \
        make_backend(task, settings, search=search, kind=backend or search.backend, web=web)
    return OfficialToolbox(chosen, official_sandbox(settings), settings, prompts=prompts, model=model, emit=emit)
