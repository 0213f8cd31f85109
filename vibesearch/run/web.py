"""A run's web: recorded, replayed, or neither (``RunConfig.search.web``; docs/web.md).

* ``record`` (the default for a live backend): every search, scholar search and visit a tool
  makes is kept as a ``WebEvent`` of the run, its contents in the store once each;
* ``replay`` (``replay:SELECTION``: run ids, a batch id or a task id, comma-separated; none:
  everything recorded for the run's task): the tools are answered from a recording and never
  open a connection;
* ``live``: the web is used and nothing is kept.

What is kept never holds a secret: ``scrub_url`` removes credentials and key-like query values
from a URL, ``kept_headers`` keeps only headers that describe the content (no cookie, no
authorisation), and every text goes through ``_secrets.scrub``. ``WebArchive`` is what a replay
reads its recording from (the store implements it).
"""

from __future__ import annotations

import re
from typing import Literal, Mapping, Protocol, get_args
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .._secrets import scrub
from .events import ReplayOutcome, WebEvent, WebOp

WebMode = Literal["record", "replay", "live"]
WEB_MODES: tuple[WebMode, ...] = get_args(WebMode)
REPLAY_OUTCOMES: tuple[ReplayOutcome, ...] = get_args(ReplayOutcome)
# the outcomes of a replayed request that the recording did not hold as asked
REPLAY_MISSES: tuple[ReplayOutcome, ...] = ("fallback", "missing")

# the headers of a page worth keeping: what the content is and when it changed (never a cookie,
# an authorisation or anything a server sets for a session)
KEPT_HEADERS = ("content-type", "content-length", "content-language", "content-encoding", "last-modified", "etag", "date", "location")
# a query parameter whose name ends like one of these holds a credential (api_key, access_token,
# X-Amz-Signature, sessionid, oauth ...), or is exactly ``code`` (an OAuth code); ``keywords`` does not
_SECRET_NAME = re.compile(r"(?i)(key|token|secret|passw(or)?d|pwd|auth|session(id)?|sid|sig(nature)?|credentials?|cookie)$|^code$")
REDACTED = "[redacted]"


def parse_web_choice(text: str) -> tuple[WebMode, str | None]:
    """``record`` | ``replay`` | ``replay:SELECTION`` | ``live`` as (mode, selection); ValueError
    with a message that names the accepted forms."""
    mode, _, selection = text.strip().partition(":")
    mode = mode.strip().lower()
    if mode not in WEB_MODES:
        raise ValueError(f"{text!r} is not a web mode: record | replay[:SELECTION] | live")
    if selection.strip() and mode != "replay":
        raise ValueError(f"{text!r}: only replay takes a selection (replay:RUN,... | replay:BATCH | replay:TASK)")
    return mode, (selection.strip() or None)


def selection_items(selection: str | None) -> list[str]:
    """The ids a replay selection names (comma-separated; [] for none)."""
    return [item.strip() for item in (selection or "").split(",") if item.strip()]


def scrub_url(url: str) -> str:
    """``url`` without credentials: no user or password, and the value of every query parameter
    whose name looks like a key, token, signature or session replaced by ``[redacted]``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return scrub(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, REDACTED if _SECRET_NAME.search(k) else v) for k, v in pairs], safe="[]")
    return scrub(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)))


def kept_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The headers of ``KEPT_HEADERS`` (names lower-cased), their values scrubbed."""
    return {str(k).lower(): scrub(str(v)) for k, v in headers.items() if str(k).lower() in KEPT_HEADERS}


def search_key(op: WebOp, query: str, topn: int | None) -> tuple[str, str, int | None]:
    """The identity of a search request in a recording (the query as typed, spaces folded)."""
    return (op, " ".join(query.split()), topn)


class WebArchive(Protocol):
    """Where a replay reads its recording (the store: ``store.web``)."""

    def recorded_web(self, task_id: str, selection: str | None = None) -> list[WebEvent]:
        """The web events recorded (never replayed) by the runs ``selection`` names (default:
        every run of ``task_id``), in the order they were made, each with its text."""
        ...
