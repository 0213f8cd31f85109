"""Why a run failed, in one line for the status line and as a banner above the result.

The reason is the run's fatal error event (else the end event's detail), scrubbed of anything
that looks like a key (``_secrets.scrub``) before it is shown.
"""

from __future__ import annotations

import html
from typing import Iterable

from .._secrets import scrub
from ..run.events import EndEvent, ErrorEvent, StoredEvent
from ..judges.judge_failures import JudgeFailed

STATUS_CHARS = 240  # what the status line shows of the reason


def failure_reason(events: Iterable[StoredEvent]) -> str | None:
    """The first fatal error's ``source: message`` (else the end's detail), scrubbed; None when
    the events hold no reason."""
    detail = None
    for ev in events:
        d = ev.data
        if isinstance(d, ErrorEvent) and d.fatal:
            return scrub(f"{d.source}: {d.message}".strip())
        if isinstance(d, EndEvent) and d.detail:
            detail = d.detail
    return scrub(detail) if detail else None


def score_failure(exc: BaseException) -> str:
    """Why scoring a run failed, scrubbed: a failed judge's own line (``JudgeFailed``: the one
    ``vibesearch score`` prints), else the error's type and text."""
    return scrub(str(exc) if isinstance(exc, JudgeFailed) else f"{type(exc).__name__}: {exc}")[:2000]


def status_reason(reason: str) -> str:
    """The reason shortened for the status line (one line)."""
    line = " ".join(reason.split())
    return line if len(line) <= STATUS_CHARS else line[: STATUS_CHARS - 1] + "…"


def failure_html(reason: str, *, elem_id: str = "vs-play-error") -> str:
    """A visible error banner with the whole (scrubbed) reason."""
    return (f"<div class='vs-card vs-error vs-error-banner' id='{html.escape(elem_id)}' role='alert'>"
            f"<div class='vs-card-title'>✖ The run failed</div><div class='vs-error-text'>{html.escape(reason)}</div></div>")
