"""``vibesearch corpus fetch``: the pages a task's ground truth cites, fetched into the recorded
web (docs/web.md "Fetch").

The addresses are ``Task.cited_urls`` (its ``sources``, an official record's ``source_urls``).
Each is fetched by the visit tool's own code (``tools.web.WebBackend``: public addresses only
unless ``VIBESEARCH_WEB_ALLOW_PRIVATE``, the download cap, redirects followed and checked) with
the web recorded, so every page — or its failure — is a ``web`` event, its text and body stored
once in ``web_blobs``. The events belong to a run of the task made for them (``source`` "fetched",
status "cancelled": it is never scored and is left out of every score), so a replay of the task
(``--web replay``) and ``corpus freeze --task`` find the pages with the ones its runs visited.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ..config import Settings
from ..protocol import build_config
from ..run.events import WebEvent
from ..tasks.models import Task

FETCH_SOURCE = "fetched"
AT_ONCE = 8  # pages fetched at the same time


@dataclass
class FetchReport:
    run_id: str
    asked: int
    fetched: int  # pages with text
    failed: list[tuple[str, str]]  # (address, why), as recorded


def fetch_cited(task: Task, settings: Settings, store: Any, urls: list[str] | None = None) -> FetchReport:
    """Fetch ``urls`` (default: the ones the task cites) into a new fetched run of ``task`` in
    ``store``; ValueError when there is nothing to fetch."""
    from ..tools.web import WebBackend

    wanted = task.cited_urls() if urls is None else urls
    if not wanted:
        raise ValueError(f"task {task.id} cites no web address (its sources, or source_urls in an official record)")
    config = build_config(settings, task_id=task.id, search_backend="ddgs", web="record")
    backend = WebBackend(settings, search=config.search)
    events: list[WebEvent] = []

    def keep(event: Any) -> None:
        if isinstance(event, WebEvent):
            events.append(event)

    async def all_pages() -> None:
        for i in range(0, len(wanted), AT_ONCE):
            await backend.page_texts(wanted[i : i + AT_ONCE], emit=keep)

    asyncio.run(all_pages())
    run = store.create_run(
        task.id, task_json=task.model_dump(mode="json"), config=settings.snapshot(), run_config=config,
        meta={"fetched": {"cited": len(wanted)}}, kind=task.kind, agent=FETCH_SOURCE, user=FETCH_SOURCE,
        search_backend="web", source=FETCH_SOURCE, status="cancelled",
    )
    if events:
        store.append_many(run.id, list(events))
    visits = [e for e in events if e.op == "visit"]
    failed = [(e.url or "", e.error or "") for e in visits if e.error is not None or not e.text_sha256]
    return FetchReport(run_id=run.id, asked=len(wanted), fetched=len(visits) - len(failed), failed=failed)
