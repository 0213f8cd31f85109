"""The recorded web of ``Store`` (docs/web.md): persistence only.

A run that records its web has a ``web`` event for each search, scholar search and visit its tools
made (``run.events.WebEvent``). The event row holds the exchange; the contents it names by sha256
(a page's extracted text, its raw body) are written once each to ``web_blobs``, zlib-compressed,
in the same transaction as the event (``write_web_blobs``, called by ``Store.append_many``): the
same page fetched by twenty runs is stored once. ``recorded_web`` reads a replay selection back
(``run.web.WebArchive``); ``web_blob`` one content. Mixed into ``Store`` (``store.db``).
"""

from __future__ import annotations

import time
import zlib
from contextlib import AbstractContextManager
from typing import Any, Iterable

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session, col, select

from ..run.events import WebEvent, parse_event
from ..run.web import selection_items
from .tables import EventRow, Run, WebBlobRow

CODEC = "zlib"
_INSERT_BLOB = text(
    "INSERT INTO web_blobs (sha256, size, codec, data, created_at) VALUES (:sha256, :size, :codec, :data, :created_at) "
    "ON CONFLICT (sha256) DO NOTHING"
)
_CHUNK = 500


class UnknownSelection(ValueError):
    """A replay selection names something the database does not hold."""


def write_web_blobs(conn: Connection, event: WebEvent) -> None:
    """Store the contents ``event`` carries, each once (one already stored is left as it is)."""
    now = time.time()
    for digest, content in event.blobs.items():
        conn.execute(_INSERT_BLOB, {"sha256": digest, "size": len(content), "codec": CODEC,
                                    "data": zlib.compress(content, 6), "created_at": now})


def _inflate(codec: str, data: bytes) -> bytes:
    if codec != CODEC:
        raise ValueError(f"web_blobs: unknown codec {codec!r}")
    return zlib.decompress(data)


class WebMixin:
    """Needs the ``Store``'s ``engine`` and ``_lock``."""

    engine: Engine
    _lock: AbstractContextManager[Any]

    def web_run_ids(self, task_id: str | None, selection: str | None = None) -> list[str]:
        """The runs a replay or freeze selection names, oldest first: each item a run id, a batch
        id or a task id (comma-separated); none: the runs of ``task_id``. ``UnknownSelection``
        for an item that is none of them."""
        items = selection_items(selection) or ([task_id] if task_id else [])
        found: list[str] = []
        with Session(self.engine) as s:
            for item in items:
                rows = s.exec(select(Run.id).where(Run.id == item)).all()
                if not rows:
                    q = select(Run.id).where((Run.batch_id == item) | (Run.task_id == item))
                    rows = s.exec(q.order_by(col(Run.created_at))).all()
                if not rows and selection_items(selection):
                    raise UnknownSelection(f"{item!r} is no run, batch or task in the database")
                found.extend(r for r in rows if r not in found)
        return found

    def web_events(self, run_ids: Iterable[str], *, with_text: bool = True) -> list[WebEvent]:
        """The ``web`` events of those runs in the order they were made (run by run), each with
        its extracted text (``with_text``)."""
        ids = list(run_ids)
        events: list[WebEvent] = []
        with Session(self.engine) as s:
            for i in range(0, len(ids), _CHUNK):
                q = select(EventRow).where(col(EventRow.run_id).in_(ids[i : i + _CHUNK]), EventRow.kind == "web")
                rows = s.exec(q.order_by(col(EventRow.id))).all()
                events.extend(ev for ev in (parse_event(r.data_json) for r in rows) if isinstance(ev, WebEvent))
        if with_text:
            texts = self.web_blobs({ev.text_sha256 for ev in events if ev.text_sha256})
            for ev in events:
                if ev.text_sha256 in texts:
                    ev.blobs[ev.text_sha256] = texts[ev.text_sha256]
        return events

    def recorded_web(self, task_id: str, selection: str | None = None) -> list[WebEvent]:
        """``run.web.WebArchive``: what the selection's runs fetched from the web (never what a
        replay served), with the pages' texts."""
        return [ev for ev in self.web_events(self.web_run_ids(task_id, selection)) if ev.replayed is None]

    def web_blobs(self, digests: Iterable[str]) -> dict[str, bytes]:
        """The stored contents of those sha256s (the ones stored; inflated)."""
        wanted = sorted(set(digests))
        out: dict[str, bytes] = {}
        with Session(self.engine) as s:
            for i in range(0, len(wanted), _CHUNK):
                q = select(WebBlobRow).where(col(WebBlobRow.sha256).in_(wanted[i : i + _CHUNK]))
                for row in s.exec(q):
                    out[row.sha256] = _inflate(row.codec, row.data)
        return out

    def web_blob(self, digest: str) -> bytes | None:
        """One stored content (a page's text or raw body), or None."""
        return self.web_blobs([digest]).get(digest)

    def web_storage(self) -> dict[str, int]:
        """What the recorded web takes: contents stored, their bytes as fetched and as stored."""
        with Session(self.engine) as s:
            rows = s.exec(select(WebBlobRow.size, WebBlobRow.data)).all()
        return {"blobs": len(rows), "bytes": sum(size for size, _ in rows), "stored_bytes": sum(len(data) for _, data in rows)}
