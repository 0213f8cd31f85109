"""CLI commands: ``worker`` (drive queued runs) and the ``batch`` group (``status``, ``cancel``).

A queued batch (``vibesearch run --queue``) lives in PostgreSQL as procrastinate jobs; any number
of ``vibesearch worker`` processes, on any hosts, drive its runs (``runner.queued``; the whole
story: docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import Any, Optional

import typer

from ._common import JsonOption, console, db_shown, err_console, fail, print_json

batch_app = typer.Typer(help="Queued batches (`vibesearch run --queue`): watch one, or cancel it.", no_args_is_help=True)
_DB_HELP = "the PostgreSQL database of the queue (postgresql+psycopg://user@host:port/db); default: VIBESEARCH_DB"


def _queue_settings(db: Optional[str]) -> Any:
    from ..runner.queued import QueueError, conninfo
    from .run import _settings

    settings = _settings(db)
    try:
        conninfo(str(settings.db))
    except QueueError as exc:
        fail(f"{exc}; got {db_shown(settings.db)}")
    except Exception:  # noqa: BLE001 - a path, not a URL
        fail(f"the job queue needs a PostgreSQL database; got {db_shown(settings.db)}")
    return settings


def worker_cmd(
    db: Optional[str] = typer.Option(None, "--db", help=_DB_HELP),
    slots: int = typer.Option(4, "--slots", min=1, help="runs this process drives at once"),
    heartbeat: float = typer.Option(10.0, "--heartbeat", min=0.1, help="seconds between this worker's heartbeats"),
    stalled_after: float = typer.Option(30.0, "--stalled-after", min=0.5, help="a worker silent this many seconds is taken for dead: its runs go to another worker"),
    poll: float = typer.Option(2.0, "--poll", min=0.05, help="the longest wait, in seconds, before looking for new jobs"),
    retry_wait: float = typer.Option(5.0, "--retry-wait", min=0, help="seconds before a job that raised is tried again"),
    wait_db: float = typer.Option(60.0, "--wait-db", min=0, help="at start, how long to keep trying a database that does not answer (restarting, not up yet) before giving up"),
) -> None:
    """Drive the runs of queued batches, --slots at a time, until SIGINT/SIGTERM."""
    from ._logs import plain_logs
    from .run import _start_fakes

    _start_fakes()
    from ..runner.queued import RETRIES, WorkerOptions, serve, worker_name
    from ..store import SchemaError, StoreOpenError

    settings = _queue_settings(db)
    try:
        store = _open_when_up(settings.db, wait_db)
    except (SchemaError, StoreOpenError) as exc:
        fail(str(exc))
    options = WorkerOptions(slots=slots, heartbeat_s=heartbeat, stalled_after_s=stalled_after, poll_s=poll, retry_wait_s=retry_wait)
    console.print(
        f"worker {worker_name()}: {slots} slot(s) on {db_shown(settings.db)}; a failing job is retried {RETRIES} times",
        highlight=False, soft_wrap=True,
    )
    with plain_logs():
        logging.getLogger("vibesearch").setLevel(min(logging.getLogger("vibesearch").getEffectiveLevel(), logging.WARNING))
        if os.environ.get("VIBESEARCH_DEBUG", "").strip().lower() not in ("1", "true", "yes"):
            # procrastinate logs a failed job with its whole arguments (the task, the config): our own
            # warning line says which run failed and why
            logging.getLogger("procrastinate").setLevel(logging.CRITICAL)
        try:
            asyncio.run(serve(store, settings, str(settings.db), options))
        except KeyboardInterrupt:
            sys.exit(130)


def _open_when_up(db: Any, wait_s: float) -> Any:
    """The worker's store, once its database answers: a worker started while PostgreSQL restarts
    (or before it is up) keeps trying, each pause twice the one before, for ``wait_s`` seconds."""
    import time

    from ..store import DatabaseUnreachable, open_db

    give_up, pause = time.monotonic() + wait_s, 0.5
    while True:
        try:
            return open_db(db)
        except DatabaseUnreachable as exc:
            left = give_up - time.monotonic()
            if left <= 0:
                raise
            pause = min(pause, left)
            err_console.print(f"{exc}; trying again in {pause:.1f} s", highlight=False, soft_wrap=True, markup=False)
            time.sleep(pause)
            pause = min(2 * pause, 10.0)


@batch_app.command("status")
def batch_status(
    batch_id: str = typer.Argument(..., help="the batch id `vibesearch run --queue` printed"),
    json_out: bool = JsonOption,
    db: Optional[str] = typer.Option(None, "--db", help=_DB_HELP),
) -> None:
    """Counts (planned, running, finished, failed, cancelled) and one row per run."""
    from ..runner.queued_batches import batch_rows, counts
    from ..store import open_db

    settings = _queue_settings(db)
    store = open_db(settings.db)
    rows = batch_rows(store, batch_id)
    if not rows:
        fail(f"no queued batch {batch_id!r} in {db_shown(settings.db)}")
    totals = counts(rows)
    if json_out:
        print_json({"batch_id": batch_id, "counts": totals, "runs": [r.to_dict() for r in rows]})
        return
    from rich import box
    from rich.table import Table

    table = Table(title=f"batch {batch_id}", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("run", "task", "state", "run status", "tries", "worker"):
        table.add_column(col)
    for r in rows:
        table.add_row(r.run_id, "?" if r.problem else f"{r.task_id}#{r.run_index}", r.state, r.run_status or "-", str(r.attempts + (r.state == "running")), r.worker or "-")
    console.print(table)
    console.print(" · ".join(f"{k} {v}" for k, v in totals.items() if k != "bad" or v), highlight=False, soft_wrap=True)
    for r in rows:
        if r.problem:  # a job row that cannot be read: said in one line each (the others are shown above)
            err_console.print(f"warning: bad job row: {r.problem}", highlight=False, soft_wrap=True, markup=False)


@batch_app.command("cancel")
def batch_cancel(
    batch_id: str = typer.Argument(..., help="the batch to cancel"),
    db: Optional[str] = typer.Option(None, "--db", help=_DB_HELP),
) -> None:
    """Cancel the batch's waiting runs and ask its running runs to stop."""
    from ..runner.queued import worker_name
    from ..runner.queued_batches import batch_rows, cancel_batch
    from ..store import open_db

    settings = _queue_settings(db)
    store = open_db(settings.db)
    if not batch_rows(store, batch_id):
        fail(f"no queued batch {batch_id!r} in {db_shown(settings.db)}")
    cancelled, stopping = asyncio.run(cancel_batch(store, str(settings.db), batch_id, f"batch-cancel:{worker_name()}"))
    console.print(f"batch {batch_id}: {cancelled} waiting run(s) cancelled, {stopping} running run(s) asked to stop", highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command("worker")(worker_cmd)
    app.add_typer(batch_app, name="batch")
