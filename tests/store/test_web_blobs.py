"""The recorded web in the store (``store.web``, migration 0013), on SQLite and on PostgreSQL: a
content fetched by several runs is stored once, compressed; a replay selection (run ids, a batch,
a task) reads back the recorded exchanges with their texts and never a replay's own account; an
unknown selection is refused by name."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from vibesearch.run import WebEvent
from vibesearch.store import Store
from vibesearch.store.web import UnknownSelection

PAGE = ("The stone bridge of Valdoria was completed in 1742. " * 200).encode()


def _visit(url: str, body: bytes, *, replayed: str | None = None) -> WebEvent:
    event = WebEvent(op="visit", backend="web", url=url, final_url=url, status=200, title="Bridge", replayed=replayed)  # type: ignore[arg-type]
    event.text_sha256 = event.attach(body.decode().strip().encode())
    event.body_sha256 = event.attach(b"<html>" + body + b"</html>")
    return event


def test_contents_are_stored_once_and_read_back_by_selection(db_url):
    store = Store(db_url)
    a = store.create_run("task-a", batch_id="b1")
    b = store.create_run("task-a", batch_id="b2")
    c = store.create_run("task-c")
    store.append(a.id, WebEvent(op="search", backend="searxng", query="valdoria bridge", topn=3, hits=[{"title": "B", "url": "https://v.example/b"}]))
    store.append(a.id, _visit("https://v.example/b", PAGE))
    store.append(b.id, _visit("https://v.example/b", PAGE))  # the same page in another run
    store.append(b.id, _visit("https://v.example/b", PAGE, replayed="exact"))  # a replay's account
    store.append(c.id, _visit("https://v.example/other", b"another page"))

    with store.engine.connect() as conn:
        sizes = conn.execute(text("SELECT size, data FROM web_blobs")).all()
    assert len(sizes) == 4  # the bridge's text and body once each, the other page's two
    stored, raw = sum(len(bytes(d)) for _, d in sizes), sum(s for s, _ in sizes)
    assert raw > 10 * stored  # compressed (a repetitive page: well over ten times)
    assert store.web_storage()["blobs"] == 4

    recorded = store.recorded_web("task-a")  # default: every run of the task
    assert [e.op for e in recorded] == ["search", "visit", "visit"] and all(e.replayed is None for e in recorded)
    assert recorded[1].text() == PAGE.decode().strip() and recorded[0].hits == [{"title": "B", "url": "https://v.example/b"}]
    assert [e.op for e in store.recorded_web("task-a", f"{a.id}")] == ["search", "visit"]
    assert len(store.recorded_web("task-a", "b2")) == 1  # a batch
    assert [e.url for e in store.recorded_web("task-a", "task-c")] == ["https://v.example/other"]  # another task's web
    assert store.web_blob(recorded[1].body_sha256 or "") == b"<html>" + PAGE + b"</html>"
    with pytest.raises(UnknownSelection, match="'nothing-here' is no run, batch or task"):
        store.recorded_web("task-a", "nothing-here")
