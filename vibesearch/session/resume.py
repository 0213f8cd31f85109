"""Continuing an interrupted run from its stored events.

``resume_run`` reads the run's task snapshot and configuration, rebuilds the agent and the user
as they were (agent kind and model, user kind and simulator model), restores the conversation,
the stage pointer and the counters from the events, and lets ``run_session`` carry on from where
the events stop (see ``_restore.locate``). Only runs whose status is ``running`` or
``interrupted`` are resumed; runs that ended say so. The run's lease is claimed before anything
is read (``LeaseHeld`` when another process drives it), so of several resumers only one drives.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Iterable

from ..config import Settings
from ..store import Store
from ..store.leases import run_key
from ..tasks.models import Task
from ._lease import Driving
from ._record import Listener, RunResult
from .loop import run_session

RESUMABLE = ("running", "interrupted")
# settings that shape how a run behaves: a resumed run keeps the values it started with
BEHAVIOUR_KEYS = (
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
    "endpoint_url",
    "endpoint_model",
)


class ResumeError(RuntimeError):
    pass


def run_settings(settings: Settings, snapshot: dict[str, Any]) -> Settings:
    """This process' settings with the run's own behaviour settings put back."""
    update = {k: snapshot[k] for k in BEHAVIOUR_KEYS if k in snapshot}
    return settings.model_copy(update=update)


def run_task(run: Any) -> Task:
    """The task exactly as the run saw it (its snapshot), pointed back at its file for the corpus."""
    try:
        task = Task.model_validate(json.loads(run.task_json or "{}"))
    except Exception as exc:  # noqa: BLE001
        raise ResumeError(f"run {run.id}: its task snapshot cannot be read ({exc})") from None
    meta = json.loads(run.meta_json or "{}")
    file = meta.get("task_file")
    if file and Path(file).exists():
        task._file = file
    return task


def rebuild_agent(kind: str, cfg: dict[str, Any], task: Task, settings: Settings) -> Any:
    from ..agents import make_agent

    kwargs: dict[str, Any] = {"model": cfg.get("model")}
    if kind == "endpoint":
        kwargs.update(
            endpoint_url=cfg.get("endpoint_url") or settings.endpoint_url,
            endpoint_model=cfg.get("endpoint_model") or settings.endpoint_model,
        )
    return make_agent(kind, task, settings, **kwargs)


def rebuild_user(kind: str, cfg: dict[str, Any], task: Task, settings: Settings) -> Any:
    from ..users import make_user

    if kind == "human":
        raise ResumeError("a run played by a person can only be resumed where that person is (the app or `vibesearch play`)")
    return make_user(kind, task, settings, model=cfg.get("model"), shadow_model=cfg.get("shadow_model"))


async def resume_run(
    store: Store,
    run_id: str,
    settings: Settings,
    *,
    agent: Any = None,
    user: Any = None,
    listeners: Iterable[Listener] = (),
    cancel: asyncio.Event | None = None,
) -> RunResult:
    """Continue run ``run_id``; ``agent``/``user`` override the rebuilt ones (e.g. a person).

    Raises ``LeaseHeld`` when another process drives the run (see ``run_session``).
    """
    _check_resumable(store.get_run(run_id))
    async with Driving(store, run_key(run_id), f"run {run_id}", settings) as lease:
        run = store.get_run(run_id)  # again, under the lease: another resumer may have finished it
        _check_resumable(run)
        return await _resume(store, run, settings, agent, user, listeners, cancel, lease)


def _check_resumable(run: Any) -> None:
    if run.status not in RESUMABLE:
        raise ResumeError(f"run {run.id} is {run.status} (termination: {run.termination}); only running or interrupted runs can be resumed")


async def _resume(store: Store, run: Any, settings: Settings, agent: Any, user: Any, listeners: Iterable[Listener], cancel: Any, lease: Driving) -> RunResult:
    run_id = run.id
    task = run_task(run)
    settings = run_settings(settings, json.loads(run.config_json or "{}"))
    meta = json.loads(run.meta_json or "{}")
    if agent is None:
        agent = rebuild_agent(run.agent, meta.get("agent_config") or {"model": run.agent_model}, task, settings)
    if user is None:
        user = rebuild_user(run.user, meta.get("user_config") or {"model": run.simulator_model}, task, settings)
    meta["resumed"] = int(meta.get("resumed", 0)) + 1
    store.update_run(run_id, meta=meta)
    return await run_session(task, agent, user, store, settings, run_id=run_id, listeners=listeners, cancel=cancel, lease=lease)
