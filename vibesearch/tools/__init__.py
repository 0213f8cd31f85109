"""The agent's tools: ``search``, ``visit``, ``scholar_search`` and ``python``.

``make_toolbox(task, settings, search=config.search)`` gives the toolbox of one run: the backend
the run's ``SearchSpec`` names (the offline corpus by default, a web backend otherwise), its number
of results and its cap on a result's length, and the python sandbox in every case. ``settings``
gives only process facts (timeouts, the sandbox's limits, the summariser model, provider URLs).
``make_official_toolbox`` gives the official profile's tools instead (``tools.official``).
"""

from __future__ import annotations

from ..config import Settings
from ..run.config import SearchSpec
from ..run.events import Emit
from ..tasks.models import Task
from ..run.web import WebArchive
from ._backend import make_backend
from .base import Toolbox, ToolOutput, cap
from .offline import OfflineBackend, OfflineCorpus, corpus_for_task
from .official import OfficialToolbox, make_official_toolbox
from .sandbox import PythonSandbox, detect_isolation, isolation_works
from .schemas import SCHEMAS, TOOL_NAMES, ArgumentError, all_schemas, check_arguments
from ._format import Hit
from ._sandbox_uids import UidPool
from ._text import SentenceIndex, best_sentences, idf_weights, rank_texts, sentence_index, sentences, tokenize
from .toolbox import AgentToolbox, SearchBackend


def make_toolbox(
    task: Task,
    settings: Settings,
    *,
    search: SearchSpec | None = None,
    emit: Emit | None = None,
    backend: str | SearchBackend | None = None,
    web: WebArchive | None = None,
) -> AgentToolbox:
    """The tools of one run of ``task`` (``search``: the run's ``RunConfig.search``; default the
    offline corpus, 10 results, results cut at 20,000 characters).

    ``backend`` may be a backend name (``"offline"``, ``"ddgs"``, ``"serper"``, ``"tavily"``,
    ``"searxng"``) overriding the one ``search`` names, or a ready backend object (anything with
    async ``search``/``visit``/``scholar``). ``emit`` receives the summariser's usage events of
    calls made without an emit of their own. ``web`` is where a replay reads its recording (the
    store), needed when ``search.web`` is ``replay``.
    """
    search = search or SearchSpec()
    chosen: SearchBackend = backend if backend is not None and not isinstance(backend, str) else \
        make_backend(task, settings, search=search, kind=backend, web=web)
    return AgentToolbox(chosen, PythonSandbox(settings), settings, search=search, emit=emit)


__all__ = [
    "rank_texts",
    "sentence_index",
    "SentenceIndex",
    "sentences",
    "AgentToolbox",
    "ArgumentError",
    "OfflineBackend",
    "OfflineCorpus",
    "OfficialToolbox",
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
    "isolation_works",
    "make_backend",
    "make_official_toolbox",
    "make_toolbox",
    "Hit",
    "UidPool",
    "best_sentences",
    "idf_weights",
    "tokenize",
]
