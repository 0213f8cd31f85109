"""The one rule choosing a run's search backend (the agent tools' and the official tools'): the
task's corpus, a web provider, or — when the run replays its web — the recording."""

from __future__ import annotations

from typing import Any

from ..config import Settings
from ..run.config import SearchSpec
from ..run.web import WebArchive
from ..tasks.models import Task


def make_backend(
    task: Task, settings: Settings, *, search: SearchSpec | None = None, kind: str | None = None, web: WebArchive | None = None
) -> Any:
    """The search backend named by ``kind`` (default: the one ``search`` names); a replay of the
    recording ``search.web_from`` selects (default: the task's) when ``search.web`` is ``replay``,
    read from ``web``. (Typed ``Any``: it is the toolbox's ``SearchBackend`` and the official
    tools' ``OfficialBackend`` at once.)"""
    search = search or SearchSpec()
    kind = kind or search.backend
    if search.web == "replay":
        from .web_replay import Recording, ReplayBackend

        if web is None:
            raise ValueError("search.web: a replay reads its recording from the store, and none was given")
        events = web.recorded_web(task.id, search.web_from)
        if not events:
            where = f"the runs {search.web_from!r} name" if search.web_from else f"the runs of task {task.id}"
            raise ValueError(f"web replay: nothing is recorded for {where} (record a run with a web backend first)")
        return ReplayBackend(Recording(events, task.language), settings, search=search)
    if kind == "offline":
        from .offline import OfflineBackend, corpus_for_task

        return OfflineBackend(corpus_for_task(task), settings, search=search)
    from .web import WEB_PROVIDERS, WebBackend

    if kind not in WEB_PROVIDERS:
        raise ValueError(f"search_backend: unknown backend {kind!r}; choose offline, {', '.join(WEB_PROVIDERS)}")
    return WebBackend(settings, provider=kind, search=search)
