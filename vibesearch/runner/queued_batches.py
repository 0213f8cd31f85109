"""The state of queued batches (``runner.queued``): one row per planned run (planned, running on
which worker, finished, failed, cancelled), the counts, the newest batches for the app, and
cancelling a batch. Read from procrastinate's job table and our runs; used by ``vibesearch batch``
and the app.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable

from ..run.result import RESUMABLE
from ..store import RunNotFound, Store
from ..store.leases import holder, run_key
from .queued import TASK_NAME, job_app

@dataclass
class BatchRow:
    run_id: str
    task_id: str
    run_index: int
    state: str  # planned | running | finished | failed | cancelled | bad (a job row that cannot be read)
    job_status: str
    run_status: str | None
    attempts: int  # the tries that ended (procrastinate's count; a try under way is not in it)
    worker: str | None  # host:pid of the run's driver while it runs
    problem: str | None = None  # a job row this code cannot read (state "bad"): what is wrong with it

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


STATES = ("planned", "running", "finished", "failed", "cancelled", "bad")
_JOBS_SQL = (
    "SELECT id, status::text, attempts, args FROM procrastinate_jobs "
    "WHERE task_name = :task AND args->>'batch_id' = :batch ORDER BY id"
)
_BATCHES_SQL = (
    "SELECT b.batch, b.owner, (SELECT min(e.at) FROM procrastinate_events e WHERE e.job_id = b.first) AS since "
    "FROM (SELECT args->>'batch_id' AS batch, args->>'owner' AS owner, min(id) AS first FROM procrastinate_jobs "
    "WHERE task_name = :task GROUP BY 1, 2) b ORDER BY b.first DESC LIMIT :limit"
)


def has_queue(store: Store) -> bool:
    """The database holds the job engine's tables (PostgreSQL brought up by ``db upgrade``)."""
    if store.dialect != "postgresql":
        return False
    from sqlalchemy import inspect

    return "procrastinate_jobs" in set(inspect(store.engine).get_table_names())


def _jobs(store: Store, batch_id: str) -> list[tuple[int, str, int, Any]]:
    """The batch's job rows: (job id, job status, attempts, args as stored: normally an object)."""
    from sqlalchemy import text

    with store.engine.connect() as conn:
        rows = conn.execute(text(_JOBS_SQL), {"task": TASK_NAME, "batch": batch_id}).all()
    return [(int(r[0]), str(r[1]), int(r[2]), r[3]) for r in rows]


class _BadJob(ValueError):
    """A job row whose arguments this code cannot read (written by hand, or by another version)."""


@lru_cache(maxsize=64)
def _task_id_of(task_json: str) -> str:
    try:
        task = json.loads(task_json)
    except ValueError as exc:
        raise _BadJob(f"task_json is not JSON ({exc})") from None
    if not isinstance(task, dict) or not isinstance(task.get("id"), str):
        raise _BadJob("task_json has no task id")
    return str(task["id"])


def _job_fields(args: Any) -> tuple[str, str, int]:
    """(run id, task id, run index) from a job's arguments; ``_BadJob`` naming the field when not."""
    if not isinstance(args, dict):
        raise _BadJob(f"args is a JSON {type(args).__name__}, not an object")
    run_id, index = args.get("run_id"), args.get("run_index")
    if not isinstance(run_id, str) or not run_id:
        raise _BadJob("args.run_id is missing or not a string")
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        raise _BadJob("args.run_index is missing or not a whole number >= 0")
    if isinstance(args.get("task_json"), str):
        return run_id, _task_id_of(args["task_json"]), index
    task = args.get("task")  # a job queued before the task was sent as text
    if isinstance(task, dict) and isinstance(task.get("id"), str):
        return run_id, str(task["id"]), index
    raise _BadJob("args.task_json is missing or not text")


def _state(job_status: str, run_status: str | None) -> str:
    if job_status in ("cancelled", "aborted") or run_status == "cancelled":
        return "cancelled"
    if job_status == "failed" or run_status == "failed":
        return "failed"
    if job_status == "succeeded":
        return "finished"
    if job_status == "doing":
        return "running"
    return "planned"  # todo: waiting (or waiting for a retry)


def batch_rows(store: Store, batch_id: str) -> list[BatchRow]:
    """One row per planned run of the batch (empty: no such queued batch). A job row whose
    arguments cannot be read is a row of state ``bad`` saying what is wrong; the others are shown."""
    runs = {r.id: r for r in store.list_runs(batch_id=batch_id)}
    rows = []
    for job_id, status, attempts, args in _jobs(store, batch_id):
        try:
            run_id, task_id, run_index = _job_fields(args)
        except _BadJob as exc:
            rows.append(BatchRow(run_id=f"job {job_id}", task_id="?", run_index=0, state="bad", job_status=status,
                                 run_status=None, attempts=attempts, worker=None, problem=f"job {job_id}: {exc}"))
            continue
        run = runs.get(run_id)
        state = _state(status, run.status if run is not None else None)
        lease = holder(store, run_key(run_id)) if state == "running" else None
        rows.append(BatchRow(
            run_id=run_id, task_id=task_id, run_index=run_index,
            state=state, job_status=status, run_status=run.status if run is not None else None, attempts=attempts,
            worker=f"{lease.host}:{lease.pid}" if lease is not None else None,
        ))
    return rows


def counts(rows: Iterable[BatchRow]) -> dict[str, int]:
    out = dict.fromkeys(STATES, 0)
    for r in rows:
        out[r.state] += 1
    return out


@dataclass
class BatchSummary:
    batch_id: str
    owner: str | None
    since: Any  # when its first job was queued (or scheduled)
    counts: dict[str, int]
    workers: list[str]  # host:pid of the workers driving its runs now

    @property
    def settled(self) -> bool:
        return self.counts["planned"] == self.counts["running"] == 0


def queued_batches(store: Store, limit: int = 20) -> list[BatchSummary]:
    """The newest queued batches (``limit``), with their counts and the workers driving them;
    empty when the database has no job queue."""
    if not has_queue(store):
        return []
    from sqlalchemy import text

    with store.engine.connect() as conn:
        found = conn.execute(text(_BATCHES_SQL), {"task": TASK_NAME, "limit": limit}).all()
    out = []
    for batch_id, owner, since in found:
        rows = batch_rows(store, str(batch_id))
        workers = sorted({r.worker for r in rows if r.worker})
        out.append(BatchSummary(batch_id=str(batch_id), owner=owner, since=since, counts=counts(rows), workers=workers))
    return out


async def cancel_batch(store: Store, db: str, batch_id: str, by: str) -> tuple[int, int]:
    """Cancel the batch's waiting jobs and ask its running runs to stop; (cancelled, asked to stop)."""
    app, _retry = job_app(db)
    cancelled = stopping = 0
    async with app.open_async():
        for job_id, status, _attempts, args in _jobs(store, batch_id):
            if status == "todo" and await app.job_manager.cancel_job_by_id_async(job_id):
                cancelled += 1
                continue
            if status in ("todo", "doing"):  # it started meanwhile, or is running: its driver stops it
                if not isinstance(args, dict) or not isinstance(args.get("run_id"), str):
                    continue  # a job row that cannot be read (``bad``): no run to stop
                run_id = args["run_id"]
                try:
                    if store.get_run(run_id).status not in RESUMABLE:
                        continue
                except RunNotFound:
                    pass  # not opened yet: the request waits for it (the run stops at its first look)
                store.request_stop(run_id, by)
                stopping += 1
    return cancelled, stopping
