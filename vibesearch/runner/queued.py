"""Queued batches: a batch planned into the shared PostgreSQL as jobs of the procrastinate job
engine, and driven by ``vibesearch worker`` processes on any number of hosts.

* ``queue_batch`` writes one job per planned run (task × run index). The job's arguments are its
  whole input: the run id chosen now, the batch id and run index, the resolved ``RunConfig`` and
  the task as it is now (each as JSON text: ``config_json``, ``task_json``), the batch's plan and
  its provider caps. Every job is deferred with
  ``lock=run_id`` (procrastinate never runs two jobs of one lock at once) and
  ``queueing_lock=run_id`` (one waiting job per run).
* ``serve`` is a worker: procrastinate claims jobs, ``slots`` at a time, in lanes of at most
  ``LANE_SLOTS`` (``_run_lanes``); each is driven by ``drive_job``. A run whose row does not exist yet is opened and driven with ``run_session``;
  one that exists and is resumable (the worker before it died) is continued by ``resume_run``
  from its stored events; one that ended is left as it is. The run's own lease still fences its
  writes: a job retried while the old driver's lease is live waits for it to expire.
* A job that raises (a task that does not validate, a model without its key, a database that
  went away) is retried by procrastinate ``RETRIES`` times, then marked ``failed``.
* A worker that dies stops sending heartbeats; every worker looks for the jobs of workers silent
  for ``stalled_after`` seconds and hands them back to the queue (``retry_job``), so another
  worker resumes the run.
* ``queued_batches.cancel_batch`` cancels the jobs still waiting and asks the drivers of the
  running ones to stop (``Store.request_stop``, the stop-request mechanism of the app servers); a
  worker polls for its runs' requests every ``STOP_POLL_S`` seconds. The batches' state (rows per
  run, counts, the newest batches) is read there too.
* Provider caps (``--provider-limit fake=2``) count RUNS, with PostgreSQL advisory locks: a run
  against provider P under cap C holds one of C session-level advisory locks
  ``(hash(P), 0..C-1)`` on a connection of its own while it is driven. The server releases the
  lock when the connection closes, so a killed worker never leaks a slot.
* A 429 backs its provider off for every worker: each worker's runs call through a shared pacer
  (``_pacing.SharedPacer``, ``llm.pacing``) that keeps the back-off in the database.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .._gc import settle
from ..agents.registry import agent_kind
from ..config import Settings
from ..llm.pacing import PACER, provider_of
from ..run import RunConfig
from ..run.result import RESUMABLE
from ..store import RunNotFound, Store, new_run_id
from ..store.leases import LeaseHeld
from ..tasks.models import Task
from ..session import RunFields, run_session
from ..session.lifecycle import open_run
from ..users.registry import RULES_SHADOW
from ._pacing import SharedPacer
from .batch import BatchSpec, build_parts
from .resume import resume_run

log = logging.getLogger(__name__)

TASK_NAME = "vibesearch.drive_run"
QUEUE = "vibesearch-runs"
RETRIES = 3  # a job that raises is tried again this many times (4 tries in all), then failed
RETRY_WAIT_S = 5  # the pause before each retry
DEFER_CHUNK = 50  # jobs written by one statement when a batch is queued
STOP_POLL_S = 0.5  # how often a worker looks for stop requests naming its runs
SLOT_POLL_S = 0.25  # how often a run waiting for a provider slot tries again
LANE_SLOTS = 25  # a worker's slots claim their jobs in lanes of at most this many (see _run_lanes)
DB_RETRY_MAX_S = 10.0  # the longest pause before a worker that lost the database starts again
_SLOT_SPACE = "vibesearch-provider:"


class QueueError(RuntimeError):
    """The queue cannot be used (one line for the user)."""


def conninfo(db: str) -> str:
    """The libpq address of a ``postgresql+psycopg://`` URL (what procrastinate's connector takes)."""
    from sqlalchemy.engine import make_url

    url = make_url(db)
    if url.get_backend_name() != "postgresql":
        raise QueueError("the job queue needs a PostgreSQL database (--db postgresql+psycopg://user@host:port/db); SQLite has none")
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


def parse_limits(text: str | None) -> dict[str, int]:
    """``openai=40,fake=2`` → {"openai": 40, "fake": 2}; ValueError naming the bad part."""
    limits: dict[str, int] = {}
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        name, eq, value = part.partition("=")
        name = name.strip()
        if not eq or not name or not value.strip().isdigit() or int(value) < 1:
            raise ValueError(f"--provider-limit {part!r}: write PROVIDER=N with N a whole number of 1 or more (e.g. openai=40,fake=2)")
        limits[name] = int(value)
    return limits


def providers_of(config: RunConfig) -> set[str]:
    """The providers a run's models are called on (the agent's, the simulated user's, a shadow's)."""
    found = set()
    own = agent_kind(config.agent.kind).own_provider
    if own:
        found.add(own)
    elif config.agent.model:
        found.add(provider_of(config.agent.model))
    for model in (config.user.model, config.user.shadow):
        if model and model != RULES_SHADOW:
            found.add(provider_of(model))
    return found


def job_app(db: str, retry_wait_s: float = RETRY_WAIT_S) -> Any:
    """The procrastinate app of the database ``db`` and the retry strategy of its jobs."""
    import procrastinate

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=conninfo(db)))
    return app, procrastinate.RetryStrategy(max_attempts=RETRIES, wait=int(retry_wait_s))


# --------------------------------------------------------------------------- planning


async def queue_batch(db: str, spec: BatchSpec, provider_limits: dict[str, int]) -> list[str]:
    """Write the batch's runs as jobs; their run ids (in plan order)."""
    app, retry = job_app(db)
    plan = {**spec.plan(), "queued": True, "provider_limits": provider_limits}
    task = app.task(name=TASK_NAME, queue=QUEUE, retry=retry)(_never_here)
    ids: list[str] = []
    jobs: list[Any] = []
    for t in spec.tasks:
        # JSON text, not objects: procrastinate copies a job's arguments into its log context
        # several times per job, and every job of a task carries the same text (parsed once per worker)
        config = _dumps(spec.config_for(t).model_dump(mode="json"))
        task_json = _dumps(t.model_dump(mode="json"))
        for index in range(spec.runs):
            run_id = new_run_id()
            jobs.append(task.configure(lock=run_id, queueing_lock=run_id).make_new_job(
                run_id=run_id, batch_id=spec.batch_id, run_index=index, owner=spec.owner,
                task_json=task_json, task_file=t.source_file, config_json=config, plan=plan, provider_limits=provider_limits,
            ))
            ids.append(run_id)
    async with app.open_async():
        for start in range(0, len(jobs), DEFER_CHUNK):  # a statement per chunk, not per job
            await app.job_manager.batch_defer_jobs_async(jobs=jobs[start:start + DEFER_CHUNK])
    return ids


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


async def _never_here(**_kwargs: Any) -> None:  # pragma: no cover - the planner only defers
    raise RuntimeError("jobs are driven by `vibesearch worker`")


# --------------------------------------------------------------------------- the worker


class ProviderSlots:
    """The provider caps of one run, held as PostgreSQL advisory locks on a connection of its own."""

    def __init__(self, db: str, wanted: dict[str, int]):
        self.db, self.wanted = db, wanted
        self.conn: Any = None

    async def __aenter__(self) -> "ProviderSlots":
        if not self.wanted:
            return self
        import psycopg

        self.conn = await psycopg.AsyncConnection.connect(conninfo(self.db), autocommit=True)
        try:
            for provider, cap in sorted(self.wanted.items()):  # one order everywhere: no two runs wait on each other
                space = zlib.crc32((_SLOT_SPACE + provider).encode()) & 0x7FFFFFFF
                while True:
                    if await self._take(space, cap):
                        break
                    await asyncio.sleep(SLOT_POLL_S)
        except BaseException:
            await self.conn.close()
            raise
        return self

    async def _take(self, space: int, cap: int) -> bool:
        for slot in range(cap):
            cur = await self.conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (space, slot))
            row = await cur.fetchone()
            if row and row[0]:
                return True
        return False

    async def __aexit__(self, *exc: object) -> None:
        if self.conn is not None:
            await self.conn.close()  # the server drops the connection's advisory locks with it


@dataclass
class WorkerOptions:
    slots: int = 4
    heartbeat_s: float = 10.0  # procrastinate's worker heartbeat
    stalled_after_s: float = 30.0  # a worker silent this long is dead: its jobs go back to the queue
    poll_s: float = 2.0  # the longest wait for a new job (notifications usually come first)
    retry_wait_s: float = RETRY_WAIT_S


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


class StopWatch:
    """The stop requests of one worker's runs, read for all of them in one query every
    ``STOP_POLL_S`` seconds (not one query per run: at 100 runs that was 200 queries a second)."""

    def __init__(self, store: Store):
        self.store = store
        self.watched: dict[str, asyncio.Event] = {}
        self._task: asyncio.Future[None] | None = None

    def watch(self, run_id: str, cancel: asyncio.Event) -> None:
        self.watched[run_id] = cancel
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._poll())

    def forget(self, run_id: str) -> None:
        self.watched.pop(run_id, None)

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(STOP_POLL_S)
            ids = list(self.watched)
            if not ids:
                continue
            try:
                asked = await asyncio.to_thread(self.store.pending_stops, ids)
            except Exception:  # noqa: BLE001 - a database hiccup: look again at the next turn
                log.debug("could not read the stop requests", exc_info=True)
                continue
            for request in asked:
                cancel = self.watched.pop(request.run_id, None)
                if cancel is not None:
                    log.warning("run %s: stopping on request (%s)", request.run_id, request.requested_by)
                    cancel.set()
                    try:
                        await asyncio.to_thread(self.store.stop_done, request.run_id)
                    except Exception:  # noqa: BLE001 - the run stops all the same; the request stays pending
                        log.debug("could not mark the stop of run %s done", request.run_id, exc_info=True)


async def drive_job(store: Store, settings: Settings, db: str, args: dict[str, Any], stops: StopWatch | None = None) -> str:
    """Drive one job's run to its end (or continue it); what became of it, in a word."""
    run_id = str(args["run_id"])
    run = await asyncio.to_thread(_run_or_none, store, run_id)  # off the loop every run shares
    if run is not None and run.status not in RESUMABLE:
        return f"already {run.status}"
    config = _config_of(args)  # resolved when it was queued
    task = _task_of(args)
    limits = {p: int(n) for p, n in (args.get("provider_limits") or {}).items()}
    wanted = {p: limits[p] for p in providers_of(config) if p in limits}
    cancel = asyncio.Event()
    async with ProviderSlots(db, wanted):
        own_watch = stops is None
        stops = stops or StopWatch(store)
        stops.watch(run_id, cancel)
        try:
            if run is None:
                from ..session.preflight import check_config_credentials

                check_config_credentials(config, settings)  # a worker without the key: the job fails (and is retried)
                agent, user = build_parts(config, task, settings, store)
                fields: RunFields = {"batch_id": args["batch_id"], "run_index": int(args["run_index"]), "owner": args.get("owner"),
                          "meta": {"batch": args.get("plan") or {}}}
                opened = await asyncio.to_thread(open_run, store, config, task, settings, run_id=run_id, fields=fields)
                result = await run_session(config, task, agent, user, store, settings, run_id=run_id,
                                           opened=opened, cancel=cancel)
            else:
                result = await _resume_when_free(store, settings, run_id, cancel)
                if result is None:
                    return "ended by another driver"
        finally:
            stops.forget(run_id)
            if own_watch:
                stops.close()
    return result.status


def _run_or_none(store: Store, run_id: str) -> Any:
    try:
        return store.run_state(run_id)
    except RunNotFound:
        return None


# A worker's jobs mostly share a few tasks and configs (a batch's runs): each text is parsed once
# (the parsed objects are shared, as the runs of one batch in one process share theirs).
@lru_cache(maxsize=64)
def _parsed_config(text: str) -> RunConfig:
    return RunConfig.model_validate_json(text).as_resolved()


@lru_cache(maxsize=64)
def _parsed_task(text: str, source: str | None) -> Task:
    return Task.from_snapshot(json.loads(text), source_file=source)


def _config_of(args: dict[str, Any]) -> RunConfig:
    """The job's resolved RunConfig (``config_json``; ``config``, an object, in jobs queued before it)."""
    text = args.get("config_json")
    if text is None:
        return RunConfig.model_validate(args["config"]).as_resolved()
    return _parsed_config(text).model_copy()  # a run's own copy, as the one-process batch gives each run


def _task_of(args: dict[str, Any]) -> Task:
    """The job's task, pointed at the file it was read from (where its corpus is: the same path on every host)."""
    task_file = args.get("task_file")
    source = task_file if task_file and os.path.exists(task_file) else None
    text = args.get("task_json")
    if text is None:  # a job queued before the task was sent as text
        return Task.from_snapshot(args["task"], source_file=source)
    return _parsed_task(text, source)


async def _resume_when_free(store: Store, settings: Settings, run_id: str, cancel: asyncio.Event) -> Any:
    """``resume_run``, once the lease of the driver before (a worker that died) has expired."""
    waited = 0.0
    while True:
        try:
            return await resume_run(store, run_id, settings, cancel=cancel)
        except LeaseHeld as exc:
            left = exc.holder.expires_in() if exc.holder is not None else 0.2
            if waited > 10 * float(settings.lease_ttl_s):
                raise
            pause = min(max(0.1, left + 0.1), float(settings.lease_ttl_s))
            waited += pause
            await asyncio.sleep(pause)
        if store.run_state(run_id).status not in RESUMABLE:
            return None


async def serve(store: Store, settings: Settings, db: str, options: WorkerOptions) -> None:
    """Run a worker until it is told to stop (SIGINT / SIGTERM: the runs it drives finish first)."""
    app, retry = job_app(db, options.retry_wait_s)
    stops = StopWatch(store)
    pacer = SharedPacer(store)  # a 429 one run meets backs its provider off for every worker

    async def drive_run(**args: Any) -> str:
        paced = PACER.set(pacer)
        try:
            outcome = await drive_job(store, settings, db, args, stops)
        except Exception as exc:
            from ..llm import scrub

            log.warning("run %s: %s (procrastinate retries a job %d times)", args.get("run_id"), scrub(f"{type(exc).__name__}: {exc}"), RETRIES)
            log.debug("run %s failed", args.get("run_id"), exc_info=True)
            raise
        finally:
            PACER.reset(paced)
        log.info("run %s: %s", args.get("run_id"), outcome)
        return outcome

    app.task(name=TASK_NAME, queue=QUEUE, retry=retry)(drive_run)
    async with app.open_async():
        settle()  # what the worker was started with lives as long as it does (``_gc``)
        sweeper = asyncio.ensure_future(_requeue_stalled(app, options))
        try:
            pause = 0.0
            while True:
                try:
                    await _run_lanes(app, options)
                    return  # asked to stop (SIGINT / SIGTERM)
                except Exception as exc:
                    if not _lost_database(exc):
                        raise
                    # procrastinate's worker stops when it loses the database (after its runs end);
                    # a new one starts once the database answers again. Jobs the old one could not
                    # mark done are handed back by the stalled-job sweep and resumed.
                    pause = min(max(2 * pause, 0.5), DB_RETRY_MAX_S)
                    log.warning("worker %s lost the database (%s); starting again in %.1f s", worker_name(), _short(exc), pause)
                    await asyncio.sleep(pause)
        finally:
            sweeper.cancel()
            stops.close()


def lane_slots(slots: int) -> list[int]:
    """The worker's slots split into lanes of at most ``LANE_SLOTS``, as evenly as they go."""
    slots = max(1, slots)
    n = -(-slots // LANE_SLOTS)
    return [slots // n + (1 if i < slots % n else 0) for i in range(n)]


async def _run_lanes(app: Any, options: WorkerOptions) -> None:
    """procrastinate workers in this process, one a lane, until a signal stops them all.

    A procrastinate worker claims its jobs one at a time, each claim a round trip awaited on the
    event loop that also drives every run: at 200 slots the claims fell behind the runs ending
    (a freed slot waited 3.5 s for its next job). Lanes claim side by side. A lane that fails
    (the database went away) stops the others; their runs end first, as one worker's would."""
    from procrastinate import signals
    from procrastinate.worker import Worker

    split = lane_slots(options.slots)
    workers = [
        Worker(app=app, queues=[QUEUE], concurrency=slots, name=worker_name() + (f"/{i + 1}" if len(split) > 1 else ""),
               install_signal_handlers=False, update_heartbeat_interval=options.heartbeat_s,
               stalled_worker_timeout=options.stalled_after_s, fetch_job_polling_interval=options.poll_s,
               abort_job_polling_interval=options.poll_s)
        for i, slots in enumerate(split)
    ]

    def stop_all() -> None:
        for worker in workers:
            worker.stop()

    with signals.on_stop(stop_all):
        lanes = [asyncio.ensure_future(w.run()) for w in workers]
        try:
            await asyncio.wait(lanes, return_when=asyncio.FIRST_COMPLETED)
            stop_all()  # one lane ended (stopped, or lost the database): so do the others
            ended = await asyncio.gather(*lanes, return_exceptions=True)
        except asyncio.CancelledError:
            for lane in lanes:
                lane.cancel()
            raise
    failed = [e for e in ended if isinstance(e, BaseException)]
    if failed:
        raise failed[0]


def _lost_database(exc: BaseException) -> bool:
    """An error that means the database went away (not a bug to stop for)."""
    import procrastinate.exceptions as pexc
    import psycopg

    return isinstance(exc, (pexc.ConnectorException, psycopg.OperationalError, OSError))


def _short(exc: BaseException) -> str:
    cause = exc.__cause__ or exc
    return f"{type(cause).__name__}: {str(cause).strip().splitlines()[0] if str(cause).strip() else ''}"


async def _requeue_stalled(app: Any, options: WorkerOptions) -> None:
    """Hand the jobs of dead workers (no heartbeat for ``stalled_after_s``) back to the queue."""
    every = max(0.2, options.stalled_after_s / 3)
    while True:
        await asyncio.sleep(every)
        try:
            stalled = await app.job_manager.get_stalled_jobs(task_name=TASK_NAME, seconds_since_heartbeat=options.stalled_after_s)
        except Exception:  # noqa: BLE001 - try again at the next look
            log.debug("could not list stalled jobs", exc_info=True)
            continue
        for job in stalled:
            try:
                await app.job_manager.retry_job(job)
                log.warning("job %s (run %s): its worker stopped sending heartbeats; queued again", job.id, job.task_kwargs.get("run_id"))
            except Exception:  # noqa: BLE001 - another worker handed it back first
                log.debug("could not requeue job %s", job.id, exc_info=True)
