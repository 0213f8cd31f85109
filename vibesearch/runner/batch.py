"""The batch runner: every (task × run index) pair of a configuration, K at a time.

Each run is an ordinary ``run_session`` (or ``resume_run``) with ``batch_id`` and ``run_index``
on its row and the batch's plan in its meta, so ``--resume`` can finish what an interrupted batch
left: runs still ``running``/``interrupted`` are resumed, pairs that never started are started,
and runs that ended are reported as they are.

A batch is run by one process at a time: ``run_batch`` holds the batch's lease while it runs
(``LeaseHeld`` when another live process runs it), and a run another process drives (e.g. a
``vibesearch resume``) is reported as ``skipped``, never taken over.

When the database goes away mid-batch (``_outage``) the runs it cut off are reported as
``interrupted`` with their ids (each new run's row is opened before it is driven, so its id is
known), the pairs not yet begun are not started (run id ``-``), and ``Job.cut_off`` says why:
what was stored stays, and ``--resume`` continues from there once the database is back.
"""

from __future__ import annotations

import asyncio
from functools import partial
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..config import Settings
from ..protocol import build_config
from ..run import Agent, Conversation, RunConfig, User
from ..run.events import ErrorEvent, MessageEvent, StoredEvent, ToolCallEvent
from ..run.result import RESUMABLE, STATUS_OF, RunResult, as_status
from ..run.web import WebArchive
from ..store import Store, TaskSnapshotError, new_run_id
from ..store.leases import LeaseHeld, LeaseLost, batch_key
from ..tasks.models import Task
from ..session import Driving, RunFields, database_unreachable, only, run_session
from ..session.lifecycle import open_run
from .resume import resume_run


@dataclass
class BatchSpec:
    """A batch: every task of ``tasks`` ``runs`` times, each run described by ``config`` (its
    ``task_id`` set per task)."""

    tasks: list[Task]
    config: RunConfig
    runs: int = 1
    concurrency: int = 4
    batch_id: str = field(default_factory=new_run_id)
    owner: str | None = None

    def plan(self) -> dict[str, Any]:
        """What is stored with each run of the batch, so ``--resume`` can finish it."""
        return {
            "batch_id": self.batch_id,
            "tasks": [t.id for t in self.tasks],
            "runs": self.runs,
            "config": self.config.model_dump(mode="json"),
        }

    def config_for(self, task: Task) -> RunConfig:
        return self.config.model_copy(update={"task_id": task.id})


def plan_config(plan: dict[str, Any], settings: Settings) -> RunConfig:
    """The ``RunConfig`` of a stored batch plan (a plan stored before configs were names the agent
    and user kinds and models only)."""
    if isinstance(plan.get("config"), dict):
        return RunConfig.model_validate(plan["config"])
    return build_config(
        settings, agent=plan.get("agent"), agent_model=plan.get("model"), user=plan.get("user"), simulator_model=plan.get("simulator_model")
    )


@dataclass
class Job:
    task: Task
    index: int
    run_id: str | None = None  # an existing run to resume
    done: RunResult | None = None  # an existing run that already ended
    cut_off: str | None = None  # the database's own words, when it went away before the run ended

    @property
    def key(self) -> str:
        return f"{self.task.id}#{self.index}"


Build = Callable[[RunConfig, Task, Settings], tuple[Agent, User]]
EventHook = Callable[[Job, StoredEvent], Any]
JobHook = Callable[[Job], Any]
ResultHook = Callable[[Job, RunResult], Any]


def result_from_store(store: Store, run_id: str, stages_total: int | None = None) -> RunResult:
    """A run's result read back from its stored events."""
    run = store.get_run(run_id)
    events = store.events(run_id)
    convo = Conversation.from_events(events)
    data = [e.data for e in events]
    steps = sum(1 for d in data if isinstance(d, MessageEvent) and d.role == "assistant" and d.phase == "dialogue")
    calls = sum(1 for d in data if isinstance(d, ToolCallEvent))
    fatal = [d.message for d in data if isinstance(d, ErrorEvent) and d.fatal]
    if stages_total is None:
        try:
            stages_total = run.task().stage_count()
        except TaskSnapshotError:  # no task to count the stages of
            stages_total = 0
    return RunResult(
        run_id=run_id,
        status=as_status(run.status),
        termination=run.termination,
        stages_reached=convo.stage_index + 1 if convo.stage_events else 0,
        stages_total=stages_total,
        user_turns=convo.user_turns(),
        assistant_steps=steps,
        tool_calls=calls,
        error=fatal[-1] if fatal else None,
    )


def plan_jobs(store: Store, spec: BatchSpec, *, resume: bool) -> list[Job]:
    jobs = [Job(task, i) for task in spec.tasks for i in range(spec.runs)]
    if not resume:
        return jobs
    existing = {(r.task_id, r.run_index): r for r in reversed(store.list_runs(batch_id=spec.batch_id))}
    for job in jobs:
        run = existing.get((job.task.id, job.index))
        if run is None:
            continue
        if run.status in RESUMABLE:
            job.run_id = run.id
        else:
            job.done = result_from_store(store, run.id, job.task.stage_count())
    return jobs


def batch_plan(store: Store, batch_id: str | None = None) -> dict[str, Any] | None:
    """The stored plan of a batch (the latest batch when no id is given)."""
    runs = [r for r in store.list_runs() if r.batch_id and (batch_id is None or r.batch_id == batch_id)]
    if not runs:
        return None
    latest = runs[0].batch_id
    for r in runs:
        if r.batch_id == latest:
            plan = r.meta().get("batch")
            if isinstance(plan, dict) and plan:
                return plan
    return {"batch_id": latest}


async def run_batch(
    store: Store,
    settings: Settings,
    spec: BatchSpec,
    *,
    resume: bool = False,
    build: Build | None = None,
    on_event: EventHook | None = None,
    event_kinds: Iterable[str] | None = None,
    on_start: JobHook | None = None,
    on_result: ResultHook | None = None,
) -> list[tuple[Job, RunResult]]:
    """Run the batch; ``build(config, task, settings)`` gives a fresh ``(agent, user)`` for a new run
    (default: ``make_agent`` and ``make_user`` of the run's config). ``on_event`` is told of each
    stored event of a run (``event_kinds``: only of events of those kinds).

    Raises ``LeaseHeld`` when another process is running this batch.
    """
    async with Driving(store, batch_key(spec.batch_id), f"batch {spec.batch_id}", settings, cancel_on_loss=False, doing="run") as lease:
        kinds = frozenset(event_kinds) if event_kinds is not None else None
        return await _run_jobs(store, settings, spec, resume, build, on_event, kinds, on_start, on_result, lease)


async def _run_jobs(
    store: Store,
    settings: Settings,
    spec: BatchSpec,
    resume: bool,
    build: Build | None,
    on_event: EventHook | None,
    event_kinds: frozenset[str] | None,
    on_start: JobHook | None,
    on_result: ResultHook | None,
    lease: Driving,
) -> list[tuple[Job, RunResult]]:
    jobs = plan_jobs(store, spec, resume=resume)
    sem = asyncio.Semaphore(max(1, spec.concurrency))
    plan = spec.plan()
    outage: list[str] = []  # once the database went away nothing more is started

    async def one(job: Job) -> RunResult:
        if job.done is not None:
            result = job.done
        else:
            async with sem:
                result = cut_off(job, job.run_id, outage[0]) if outage else await drive(job)
        if on_result:
            on_result(job, result)
        return result

    async def drive(job: Job) -> RunResult:
        if on_start:
            on_start(job)
        listeners = [only(event_kinds, partial(on_event, job))] if on_event else []
        run_id = job.run_id  # known from the moment the run's row exists
        try:
            if not await lease.still_held():  # the batch was taken over: start nothing more
                raise LeaseLost(f"batch {spec.batch_id}")
            if job.run_id is not None:
                return await resume_run(store, job.run_id, settings, listeners=listeners)
            config = spec.config_for(job.task)
            agent, user = build(config, job.task, settings) if build is not None else build_parts(config, job.task, settings, store)
            fields: RunFields = {"batch_id": spec.batch_id, "run_index": job.index, "owner": spec.owner, "meta": {"batch": plan}}
            # the row (and its id) first, in a worker thread: the other runs on the loop go on meanwhile
            opened = await asyncio.to_thread(open_run, store, config, job.task, settings, fields=fields)
            run_id = opened.run_id
            return await run_session(config, job.task, agent, user, store, settings, run_id=run_id, opened=opened, listeners=listeners)
        except asyncio.CancelledError:
            raise
        except (LeaseHeld, LeaseLost) as exc:  # another process drives it: not ours to report on
            return skipped(job, str(exc))
        except Exception as exc:  # noqa: BLE001 - a run that could not even start is a failed run
            from ..llm import scrub

            why = database_unreachable(exc)
            if why is not None:  # stored as far as it got: continued later, not failed
                outage.append(why)
                return cut_off(job, run_id, why)
            return RunResult(
                run_id=run_id or "-",
                status="failed",
                termination="error",
                stages_reached=0,
                stages_total=job.task.stage_count(),
                user_turns=0,
                assistant_steps=0,
                tool_calls=0,
                error=scrub(f"{type(exc).__name__}: {exc}"),
            )

    results = await asyncio.gather(*(one(j) for j in jobs))
    return list(zip(jobs, results))


def build_parts(config: RunConfig, task: Task, settings: Settings, web: WebArchive | None = None) -> tuple[Agent, User]:
    """The agent and the user a run's config describes (``web``: the store a replayed web is read from)."""
    from ..agents import make_agent
    from ..users import make_user

    return make_agent(config, task, settings, web=web), make_user(config, task, settings)


def _unreached(job: Job, run_id: str | None, status: Any, error: str) -> RunResult:
    """A result whose counts this process does not know (they are in the run's stored events)."""
    return RunResult(run_id=run_id or "-", status=status, termination=None, stages_reached=0,
                     stages_total=job.task.stage_count(), user_turns=0, assistant_steps=0, tool_calls=0, error=error)


def cut_off(job: Job, run_id: str | None, why: str) -> RunResult:
    """The result of a run the database went away under (``run_id`` None: it never began); the
    job keeps ``why``."""
    job.cut_off = why
    return _unreached(job, run_id, "interrupted", f"the database could not be reached: {why}")


def skipped(job: Job, why: str) -> RunResult:
    """The result of a run left to the process that drives it."""
    return _unreached(job, job.run_id, "skipped", why)


def failed(results: list[tuple[Job, RunResult]]) -> list[tuple[Job, RunResult]]:
    return [(j, r) for j, r in results if r.status == "failed" or any(r.termination == t and STATUS_OF[t] == "failed" for t in STATUS_OF)]
