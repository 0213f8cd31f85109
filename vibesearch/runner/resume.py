"""Continuing an interrupted run from its stored events.

``resume_run`` reads the run's task snapshot and its ``RunConfig`` (``config_of_run``: the one
stored with it, resolved for its profile; a database from before configs were stored got one for
every run when it was upgraded), builds the agent and the user from it as they were, restores
the conversation, the stage pointer and the counters from the events, and lets ``run_session``
carry on from where the events stop (see ``_restore.locate``). Only runs whose status is
``running``, ``interrupted`` or ``abandoned`` are resumed; runs that ended say so. The run's lease is claimed
before anything is read (``LeaseHeld`` when another process drives it), so of several resumers
only one drives.
"""

from __future__ import annotations

import asyncio
from typing import Iterable

from ..config import Settings
from ..protocol import profile_of
from ..run import Agent, RunConfig, User
from ..run.result import RESUMABLE, RUN_STATUSES, RunResult, RunStatus
from ..store import Run, Store, TaskSnapshotError
from ..store.leases import run_key
from ..tasks.models import Task
from ..session import Driving, Listener, run_session

class ResumeError(RuntimeError):
    pass


def run_task(run: Run) -> Task:
    """The task exactly as the run saw it (``Run.task()``: its snapshot, pointed back at its file
    for the corpus); an unreadable snapshot is a ``ResumeError``."""
    try:
        return run.task()
    except TaskSnapshotError as exc:
        raise ResumeError(str(exc)) from None


def config_of_run(run: Run, settings: Settings | None = None) -> RunConfig:
    """The run's ``RunConfig``, as it was stored (resolved for its profile when the run began).
    ``settings`` is not read: a run is continued as it was described, whatever this process' defaults."""
    config = run.run_config()
    if config is None:
        raise ResumeError(
            f"run {run.id} has no stored configuration: its database was written by an older release; "
            "upgrade it (`vibesearch db upgrade`, or open it writable once) and try again"
        )
    return config


async def resume_run(
    store: Store,
    run_id: str,
    settings: Settings,
    *,
    agent: Agent | None = None,
    user: User | None = None,
    listeners: Iterable[Listener] = (),
    cancel: asyncio.Event | None = None,
) -> RunResult:
    """Continue run ``run_id``; ``agent``/``user`` stand in for the ones its config describes
    (e.g. a person).

    Raises ``LeaseHeld`` when another process drives the run (see ``run_session``).
    """
    _check_resumable(store.get_run(run_id))
    async with Driving(store, run_key(run_id), f"run {run_id}", settings) as lease:
        run = store.get_run(run_id)  # again, under the lease: another resumer may have finished it
        _check_resumable(run)
        return await _resume(store, run, settings, agent, user, listeners, cancel, lease)


def _check_resumable(run: Run) -> None:
    if run.status not in RESUMABLE:
        raise ResumeError(f"run {run.id} is {run.status} (termination: {run.termination}); only {_listed(RESUMABLE)} runs can be resumed")


async def _resume(
    store: Store,
    run: Run,
    settings: Settings,
    agent: Agent | None,
    user: User | None,
    listeners: Iterable[Listener],
    cancel: asyncio.Event | None,
    lease: Driving,
) -> RunResult:
    from ..agents import make_agent
    from ..users import is_person, make_user

    task = run_task(run)
    config = config_of_run(run, settings)
    if user is None and is_person(config.user.kind):
        raise ResumeError("a run played by a person can only be resumed where that person is (the app or `vibesearch play`)")
    _check_same_prompts(run, config, settings)
    agent = agent or make_agent(config, task, settings, web=store)
    user = user or make_user(config, task, settings)
    meta = run.meta()
    meta["resumed"] = int(meta.get("resumed", 0)) + 1
    store.update_run(run.id, meta=meta)
    return await run_session(config, task, agent, user, store, settings, run_id=run.id, listeners=listeners, cancel=cancel, lease=lease)


def _check_same_prompts(run: Run, config: RunConfig, settings: Settings) -> None:
    """A run whose profile has prompts (official) goes on only with the prompts it was started with
    (the same kind and the same files by sha256): half a trajectory under other prompts would be
    neither run."""
    prompts = profile_of(config.protocol).prompts(settings)
    stored = run.meta().get("prompts")
    if prompts is None or not isinstance(stored, dict):
        return  # our profile, or a run from before the prompts were recorded
    now = prompts.source.record()
    if (stored.get("kind"), stored.get("files") or {}) != (now["kind"], now["files"] or {}):
        was = str(run.meta().get("prompt_source") or stored.get("kind"))
        raise ResumeError(
            f"run {run.id} was started with {was}, but this process has {prompts.source.label()}: "
            "continue it with the same official harness checkout (--official-harness or VIBESEARCH_OFFICIAL_HARNESS)"
        )


def _listed(statuses: frozenset[RunStatus]) -> str:
    names = [s for s in RUN_STATUSES if s in statuses]
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]
