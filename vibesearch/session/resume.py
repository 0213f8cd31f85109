"""Continuing an interrupted run from its stored events.

``resume_run`` reads the run's task snapshot and its ``RunConfig`` (``config_of_run``: the one
stored with it, or for a run stored before configs were, one derived from its settings snapshot
and the agent and user it recorded), builds the agent and the user from it as they were, restores
the conversation, the stage pointer and the counters from the events, and lets ``run_session``
carry on from where the events stop (see ``_restore.locate``). Only runs whose status is
``running``, ``interrupted`` or ``abandoned`` are resumed; runs that ended say so. The run's lease is claimed
before anything is read (``LeaseHeld`` when another process drives it), so of several resumers
only one drives.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Iterable

from pydantic import ValidationError

from ..config import Settings
from ..run import Agent, RunConfig, User
from ..run.result import RunResult
from ..store import Run, Store
from ..store.leases import run_key
from ..tasks.models import Task
from ._lease import Driving
from ._record import Listener
from .loop import run_session

RESUMABLE = ("running", "interrupted", "abandoned")  # abandoned: a person let it wait; its owner goes on
# the settings that shaped a run stored before its RunConfig was (read off its settings snapshot)
_SNAPSHOT_LIMITS = (
    "max_user_turns",
    "max_steps_per_turn",
    "stop_on_final_answer",
    "budget_tokens",
    "budget_usd",
    "context_window",
    "compaction_threshold",
    "search_backend",
    "search_topn",
    "tool_result_max_chars",
    "temperature",
)


class ResumeError(RuntimeError):
    pass


def run_task(run: Run) -> Task:
    """The task exactly as the run saw it (its snapshot), pointed back at its file for the corpus."""
    try:
        task = Task.model_validate(run.task_snapshot())
    except Exception as exc:  # noqa: BLE001 - any unreadable snapshot becomes one ResumeError
        raise ResumeError(f"run {run.id}: its task snapshot cannot be read ({exc})") from None
    file = run.meta().get("task_file")
    if isinstance(file, str) and file and Path(file).exists():
        task._file = file
    return task


def config_of_run(run: Run, settings: Settings) -> RunConfig:
    """The run's ``RunConfig``: the stored one, else (a run stored before configs were) the one its
    settings snapshot and recorded agent and user describe, on top of this process' ``settings``."""
    stored = run.run_config()
    if stored is not None:
        return stored
    snapshot, meta = run.settings_snapshot(), run.meta()
    base = settings.model_copy(update={k: snapshot[k] for k in _SNAPSHOT_LIMITS if k in snapshot})
    agent: dict[str, Any] = meta.get("agent_config") or {}
    user: dict[str, Any] = meta.get("user_config") or {}
    try:
        return RunConfig.from_settings(
            base,
            task_id=run.task_id,
            agent=agent.get("kind") or run.agent,
            agent_model=agent.get("model") or run.agent_model,
            endpoint_url=agent.get("endpoint_url") or snapshot.get("endpoint_url"),
            endpoint_model=agent.get("endpoint_model") or snapshot.get("endpoint_model"),
            user=user.get("kind") or run.user,
            simulator_model=user.get("model") or run.simulator_model,
            shadow=user.get("shadow_model"),
            judge=meta.get("judge"),
            pace_s=meta.get("pace_s"),
        )
    except ValidationError as exc:
        raise ResumeError(f"run {run.id}: its configuration cannot be read ({exc.errors()[0].get('msg', exc)})") from None


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
        raise ResumeError(f"run {run.id} is {run.status} (termination: {run.termination}); only running, interrupted or abandoned runs can be resumed")


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
    from ..users import make_user

    task = run_task(run)
    config = config_of_run(run, settings)
    if user is None and config.user.kind == "human":
        raise ResumeError("a run played by a person can only be resumed where that person is (the app or `vibesearch play`)")
    _check_same_prompts(run, config, settings)
    agent = agent or make_agent(config, task, settings)
    user = user or make_user(config, task, settings)
    meta = run.meta()
    meta["resumed"] = int(meta.get("resumed", 0)) + 1
    store.update_run(run.id, meta=meta)
    return await run_session(config, task, agent, user, store, settings, run_id=run.id, listeners=listeners, cancel=cancel, lease=lease)


def _check_same_prompts(run: Run, config: RunConfig, settings: Settings) -> None:
    """An official-profile run goes on only with the prompts it was started with (the same kind
    and the same files by sha256): half a trajectory under other prompts would be neither run."""
    from ..protocol.profile import prompts_for

    prompts = prompts_for(config, settings)
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
