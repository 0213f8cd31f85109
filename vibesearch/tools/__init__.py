"""The agent's tools: ``search``, ``visit``, ``scholar_search`` and ``python``.

``make_toolbox(task, settings)`` gives the toolbox of one run: the offline corpus backend by
default (``settings.search_backend == "offline"``), a web backend otherwise, and the python
sandbox in every case.
"""

from __future__ import annotations

from ..config import Settings
from ..run.events import Emit
from ..tasks.models import Task
from .base import Toolbox, ToolOutput, cap
from .offline import OfflineBackend, OfflineCorpus, corpus_for_task
from .sandbox import PythonSandbox, detect_isolation
from .schemas import SCHEMAS, TOOL_NAMES, ArgumentError, all_schemas, check_arguments
from ._text import rank_texts, sentences
from .toolbox import AgentToolbox, SearchBackend


def make_backend(task: Task, settings: Settings, *, kind: str | None = None) -> SearchBackend:
    """The search backend named by ``kind`` (default ``settings.search_backend``)."""
    kind = kind or settings.search_backend
    if kind == "offline":
        return OfflineBackend(corpus_for_task(task), settings)
    from .web import WEB_PROVIDERS, WebBackend

    if kind not in WEB_PROVIDERS:
        raise ValueError(f"search_backend: unknown backend {kind!r}; choose offline, {', '.join(WEB_PROVIDERS)}")
    return WebBackend(settings, provider=kind)


def make_toolbox(task: Task, settings: Settings, *, emit: Emit | None = None, backend: str | SearchBackend | None = None) -> AgentToolbox:
    """The tools of one run of ``task``.

    ``backend`` may be a backend name (``"offline"``, ``"ddgs"``, ``"serper"``, ``"tavily"``,
    ``"searxng"``) overriding the setting, or a ready backend object (anything with async
    ``search``/``visit``/``scholar``). ``emit`` receives the summariser's usage events of calls
    made without an emit of their own.
    """
    if backend is None or isinstance(backend, str):
        backend = make_backend(task, settings, kind=backend)
    return AgentToolbox(backend, PythonSandbox(settings), settings, emit=emit)


__all__ = [
    "rank_texts",
    "sentences",
    "AgentToolbox",
    "ArgumentError",
    "OfflineBackend",
    "OfflineCorpus",
    "PythonSandbox",
    "SCHEMAS",
    "SearchBackend",
    "TOOL_NAMES",
    "Toolbox",
    "ToolOutput",
    "all_schemas",
    "cap",
    "check_arguments",
    "corpus_for_task",
    "detect_isolation",
    "make_backend",
    "make_toolbox",
]
