"""``vibesearch run --queue``: the checks of a queued batch and the writing of its jobs
(``runner.queued``; the workers that drive them: ``cli/worker.py``, docs/deploy.md)."""

from __future__ import annotations

import asyncio
import shlex
from typing import Any, Optional

import typer

from ._common import console, db_shown, fail, one_line, print_json
from ._logs import database_errors, plain_logs


def queue_limits(settings: Any, queue: bool, provider_limit: Optional[str], *, resume: bool, events: bool) -> dict[str, int]:
    """The provider caps of a queued batch; one line and exit 1 for what --queue cannot do."""
    from ..runner.queued import parse_limits
    from ..store._url import db_target

    if not queue:
        if provider_limit is not None:
            fail("--provider-limit: only with --queue (a batch run here is capped by --concurrency)")
        return {}
    try:
        on_sqlite = db_target(str(settings.db)).is_sqlite
    except ValueError as exc:
        fail(f"--db: {one_line(exc)}")
    if on_sqlite:
        fail(f"--queue: the job queue lives in PostgreSQL; {db_shown(settings.db)} is SQLite (give --db postgresql+psycopg://user@host:port/db)")
    if resume:
        fail("--queue: a queued batch needs no --resume (workers continue its runs themselves; see `vibesearch batch status`)")
    if events:
        fail("--queue: --events is for a batch run here; the workers' runs are watched with `vibesearch batch status`")
    try:
        return parse_limits(provider_limit)
    except ValueError as exc:
        fail(str(exc))


def queue_and_exit(settings: Any, spec: Any, limits: dict[str, int], json_out: bool) -> None:
    """Write the batch's jobs, say how to watch it and exit 0."""
    from ..runner.queued import QueueError, queue_batch
    from ..store import open_db

    with plain_logs(), database_errors(f"batch {spec.batch_id} was not queued"):
        open_db(settings.db)  # the schema is checked (a database `vibesearch db upgrade` has not brought up is refused)
        try:
            run_ids = asyncio.run(queue_batch(str(settings.db), spec, limits))
        except QueueError as exc:
            fail(str(exc))
        except Exception as exc:  # noqa: BLE001 - e.g. the job tables are missing: one line
            if "procrastinate" in str(exc):
                fail(f"--queue: the job queue tables are missing; run `vibesearch db upgrade --db {db_shown(settings.db)}` first")
            raise
    watch = " ".join(shlex.quote(w) for w in ("vibesearch", "batch", "status", spec.batch_id, "--db", db_shown(settings.db)))
    if json_out:
        print_json({"batch_id": spec.batch_id, "runs": run_ids, "provider_limits": limits, "watch": watch})
    else:
        console.print(f"batch {spec.batch_id}: {len(run_ids)} run(s) queued for `vibesearch worker`", highlight=False, soft_wrap=True)
        console.print(f"watch it with: {watch}", highlight=False, soft_wrap=True, markup=False)
    raise typer.Exit(0)
