"""The recorded web of a site's runs, published with ``site build --with-web`` (docs/site.md).

    OUT/web/<sha256>.txt    the text the visit tool extracted from a page a published run saw, as
                            recorded (UTF-8), named by its sha256 — the ``text_sha256`` of the
                            run's ``web`` events in its bundled events

``results.json`` lists the files (``web_files``) only when the build was asked for them; without it
the site holds no page text. Raw bodies are not published: the text is what the tools showed the
agent and what a frozen corpus holds. ``check_web`` is what ``site verify`` runs: every listed
name is ``web/<64 hex>.txt``, its content has that sha256, and the names are exactly the pages
the bundled events name (none missing, none extra).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

WEB_DIR = "web"
WEB_KEY = "web_files"
_NAME = re.compile(r"^web/([0-9a-f]{64})\.txt$")


class MissingPage(ValueError):
    """A run's recorded page whose text the database does not hold."""


def page_digests(events: Iterable[Mapping[str, Any]]) -> set[str]:
    """The sha256 of every page text a run's bundled events name (its ``web`` events)."""
    out = set()
    for ev in events:
        data = ev.get("data") if isinstance(ev, Mapping) else None
        if isinstance(data, Mapping) and data.get("kind") == "web" and isinstance(data.get("text_sha256"), str):
            out.add(data["text_sha256"])
    return out


def web_name(digest: str) -> str:
    return f"{WEB_DIR}/{digest}.txt"


def write_web(store: Any, events_of_runs: Iterable[list[dict[str, Any]]], stage: Path) -> list[str]:
    """Write the page texts the runs' events name into ``stage/web/``; their names, sorted.
    ``MissingPage`` when one is not in the store's ``web_blobs``."""
    digests: set[str] = set()
    for events in events_of_runs:
        digests |= page_digests(events)
    texts = store.web_blobs(digests)
    missing = sorted(digests - set(texts))
    if missing:
        raise MissingPage(f"the page text {missing[0][:16]}… a run recorded is not in the database's web_blobs")
    if digests:
        (stage / WEB_DIR).mkdir(exist_ok=True)
    for digest in sorted(digests):
        (stage / web_name(digest)).write_bytes(texts[digest])
    return [web_name(d) for d in sorted(digests)]


def check_web(out: Path, listed: Any, events_of: Mapping[str, list[dict[str, Any]]], read: Any) -> str | None:
    """The first problem of a site's published web (None: it holds). ``listed``: results.json's
    ``web_files``; ``read(rel)``: a bundled file's bytes, read as ``site verify`` reads one."""
    if not isinstance(listed, list) or not all(isinstance(x, str) for x in listed):
        return f"results.json: {WEB_KEY} is not a list of file names"
    named: set[str] = set()
    for events in events_of.values():
        named |= page_digests(events)
    for rel in listed:
        found = _NAME.match(rel)
        if found is None:
            return f"{rel}: not a file of the published web (web/<sha256>.txt)"
        digest = found.group(1)
        if digest not in named:
            return f"{rel}: no bundled run's events name this page"
        actual = hashlib.sha256(read(rel)).hexdigest()
        if actual != digest:
            return f"{rel}: its content's sha256 is {actual[:16]}…, not the one its name and the runs' events give"
    published = {rel[len(WEB_DIR) + 1 : -len(".txt")] for rel in listed}
    extra = sorted(named - published)
    if extra:
        return f"{web_name(extra[0])}: a bundled run's events name this page and the site does not publish it"
    return None
