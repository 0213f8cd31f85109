"""Queued batches in the app: the batches ``vibesearch run --queue`` planned into the shared
PostgreSQL, how far each has gone and which workers (host:pid) drive its runs now
(``runner.queued``). The Runs tab lists them in a table; the Leaderboard's summary says which
are still going, because their runs are not in its numbers yet.

Under the read policy (``VIBESEARCH_READ_RUNS=own``) a person sees only the batches queued under
their own owner (an admin: all). A database without the job queue (SQLite, or PostgreSQL before
``vibesearch db upgrade``) has no queued batches, and the table stays hidden.
"""

from __future__ import annotations

from typing import Any

from ..runner.queued_batches import BatchSummary, has_queue, queued_batches
from ._access import Who
from ._words import Lang, zh_text
from .context import AppContext
from .render import plain_md

QUEUED_HEADERS = ["batch", "queued (UTC)", "planned", "running", "finished", "failed", "cancelled", "workers"]


def readable_batches(ctx: AppContext, who: Who | None) -> list[BatchSummary]:
    """The newest queued batches ``who`` may read (``who`` None: a view the same for everyone)."""
    try:
        found = queued_batches(ctx.store)
    except Exception:  # noqa: BLE001 - the queue cannot be read now: nothing to show, never an error page
        return []
    if who is None:
        return found if not ctx.access.read_own else []
    return [b for b in found if ctx.access.may_read(who, b.owner)]


def queued_rows(ctx: AppContext, who: Who | None) -> list[list[Any]]:
    rows = []
    for b in readable_batches(ctx, who):
        since = b.since.strftime("%Y-%m-%d %H:%M:%S") if b.since is not None else "–"
        c = b.counts
        rows.append([b.batch_id, since, c["planned"], c["running"], c["finished"], c["failed"], c["cancelled"],
                     ", ".join(b.workers) or "–"])
    return rows


def queued_line(ctx: AppContext, who: Who | None, lang: Lang = "en") -> str:
    """One Markdown line naming the queued batches still going (empty when none is), in ``lang``."""
    going = [b for b in readable_batches(ctx, who) if not b.settled]
    if not going:
        return ""
    parts = []
    for b in going[:5]:
        c = b.counts
        where = zh_text(" on {workers}", lang).format(workers=", ".join(b.workers)) if b.workers else ""
        parts.append(zh_text("{batch}: {running} running{where}, {planned} waiting, {finished} finished", lang).format(
            batch=plain_md(b.batch_id), running=c["running"], where=plain_md(where), planned=c["planned"], finished=c["finished"]))
    more = zh_text(" (and {n} more)", lang).format(n=len(going) - 5) if len(going) > 5 else ""
    return zh_text("Queued batches still going, not yet all in these numbers: ", lang) + "; ".join(parts) + more + ("。" if lang == "zh" else ".")


def shows_queue(ctx: AppContext) -> bool:
    """Whether this server's database has a job queue (the Runs tab shows the table then)."""
    try:
        return has_queue(ctx.store)
    except Exception:  # noqa: BLE001 - a database that cannot be read now
        return False
