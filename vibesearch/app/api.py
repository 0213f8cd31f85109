"""Endpoints for ``gradio_client``: start a run, read its events and status, stop it, play a turn.

    from gradio_client import Client
    c = Client("http://127.0.0.1:7860/")
    run_id = c.predict("pro-en-analysis-history", "baseline", "rules", api_name="/start_run")
    events = c.predict(run_id, 0, api_name="/run_events")

Runs started here belong to the ``owner`` token passed in (default ``"api"``); only that token
can stop them or hand in a person's turn.
"""

# no ``from __future__ import annotations``: gradio reads these signatures to describe the API

import json
from typing import Any

import gradio as gr

from ..store import RunNotFound
from .context import AppContext
from .live import NotYourRun, RunRequest
from .panels import latest_scores

API_OWNER = "api"


def register(ctx: AppContext) -> None:
    """Define the API-only endpoints (call inside the Blocks context)."""

    def start_run(
        task_id: str,
        agent: str = "baseline",
        user: str = "rules",
        agent_model: str = "",
        simulator_model: str = "",
        judge: str = "",
        search_backend: str = "offline",
        max_user_turns: int = 0,
        owner: str = API_OWNER,
    ) -> str:
        """Start a run; returns its id at once (the run goes on in the server)."""
        try:
            task = ctx.catalog.get(task_id)
            req = RunRequest(
                task_id=task_id, agent=agent, user=user, agent_model=agent_model or None, simulator_model=simulator_model or None,
                judge=judge or None, search_backend=search_backend or "offline", max_user_turns=int(max_user_turns or 0) or None,
            )
            live = ctx.manager.start(req, task, owner or API_OWNER)
        except (KeyError, ValueError) as exc:
            raise gr.Error(str(exc).strip("'\"")) from None
        return live.run_id

    def run_events(run_id: str, after: int = 0) -> list[dict[str, Any]]:
        """The run's stored events after sequence number ``after``, as JSON objects."""
        try:
            ctx.store.get_run(run_id)
        except RunNotFound as exc:
            raise gr.Error(str(exc)) from None
        return [
            {"seq": ev.seq, "ts": ev.ts.isoformat(), **json.loads(ev.data.model_dump_json())}
            for ev in ctx.store.events(run_id, after=int(after or 0))
        ]

    def run_status(run_id: str) -> dict[str, Any]:
        """Status, termination, whether scoring is still going, the scores, and a person's pending turn."""
        try:
            run = ctx.store.get_run(run_id)
        except RunNotFound as exc:
            raise gr.Error(str(exc)) from None
        live = ctx.manager.get(run_id)
        return {
            "run_id": run.id,
            "task_id": run.task_id,
            "status": run.status,
            "termination": run.termination,
            "agent": run.agent,
            "user": run.user,
            "live": bool(live and not live.finished),
            "scoring": bool(live and live.scoring),
            "score_error": live.score_error if live else None,
            "waiting_for_person": bool(live and live.pending()),
            "scores": [
                {"judge": s.judge, "precision": s.precision, "recall": s.recall, "f1": s.f1, "n_gt": s.n_gt, "n_pred": s.n_pred}
                for s in latest_scores(ctx.store, run_id)
            ],
        }

    def stop_run(run_id: str, owner: str = API_OWNER) -> str:
        """Cancel a live run (it ends with termination 'cancelled')."""
        try:
            ctx.manager.stop(run_id, owner or API_OWNER)
        except (NotYourRun, KeyError) as exc:
            raise gr.Error(str(exc).strip("'\"")) from None
        return "stopping"

    def submit_turn(run_id: str, message: str, decision: str = "push", owner: str = API_OWNER) -> str:
        """Hand in a person's turn for a run played by a person (decision: disclose, push, perfunctory, redirect, done)."""
        try:
            ctx.manager.submit(run_id, owner or API_OWNER, message, decision)
        except (NotYourRun, KeyError, ValueError) as exc:
            raise gr.Error(str(exc).strip("'\"")) from None
        return "sent"

    def list_tasks() -> list[dict[str, Any]]:
        """The tasks this app offers."""
        return [
            {"id": t.id, "title": t.title, "subset": t.subset, "language": t.language, "stages": t.stage_count(),
             "kind": t.extra.get("kind", "persona"), "has_corpus": bool(t.corpus)}
            for t in ctx.catalog.tasks.values()
        ]

    for fn in (start_run, run_events, run_status, stop_run, submit_turn, list_tasks):
        gr.api(fn, api_name=fn.__name__, concurrency_limit=None)
