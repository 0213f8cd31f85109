"""Endpoints for ``gradio_client``: start a run, read its events and status, stop it, play a turn.

    from gradio_client import Client
    c = Client("http://127.0.0.1:7860/")            # with a login on: Client(url, auth=("ann", "pw"))
    me = c.predict(api_name="/new_owner_token")     # without a login: who you are to this server
    run_id = c.predict("pro-en-analysis-history", "baseline", "rules", owner=me, api_name="/start_run")
    events = c.predict(run_id, 0, api_name="/run_events")

A run belongs to the login that started it, or (without a login) to the owner token passed in,
which must be one this server issued (``/new_owner_token``); only its owner or an admin
(``VIBESEARCH_ADMINS``) can stop it or hand in a person's turn. A run started without a login and
without a token can be read but not stopped. With ``VIBESEARCH_READ_RUNS=own`` and a login on, a
person reads only their own runs (``run_events`` / ``run_status`` answer as for an unknown id).
"""

# no ``from __future__ import annotations``: gradio reads these signatures to describe the API

import json
from typing import Any

import gradio as gr

from .._fields import for_surface
from .._secrets import scrub
from ..store import LeaseHeld, Run, RunNotFound
from ..users.registry import is_person
from ._access import AGENT_HIDDEN, Who, agent_hidden
from ._policy import MAX_ID, form_request
from ._refusals import one_line
from .context import AppContext
from .live import NotYourRun
from .panels import latest_scores


def register(ctx: AppContext) -> None:
    """Define the API-only endpoints (call inside the Blocks context)."""

    def caller(request: gr.Request | None, owner: str) -> Who:
        owner = owner if isinstance(owner, str) else ""
        if owner and not ctx.access.login_on and not ctx.access.valid(owner):
            raise gr.Error("owner must be a token this server issued: get one from /new_owner_token")
        return ctx.who(request, owner)

    def checked_id(run_id: Any) -> str:
        if not isinstance(run_id, str) or len(run_id) > MAX_ID:
            raise gr.Error("run_id must be a run id")
        return run_id

    def readable_run(request: gr.Request | None, run_id: str) -> Run:
        """The run, if it exists and this caller may read it (else the same error as for no run)."""
        checked_id(run_id)
        try:
            run = ctx.store.get_run(run_id)
        except RunNotFound as exc:
            raise gr.Error(str(exc)) from None
        if not ctx.readable(ctx.who(request), run):
            raise gr.Error(str(RunNotFound(run_id)))
        return run

    def new_owner_token() -> str:
        """A token that names you as the owner of the runs you start (pass it as ``owner``); not needed with a login."""
        return ctx.access.issue()

    def start_run(
        task_id: str,
        agent: str = "baseline",
        user: str = "rules",
        agent_model: str = "",
        simulator_model: str = "",
        judge: str = "",
        search_backend: str = "offline",
        max_user_turns: int = 0,
        owner: str = "",
        protocol: str = "vibesearch",
        shadow: bool = True,
        request: gr.Request | None = None,
    ) -> str:
        """Start a run; returns its id as soon as the run is stored (it goes on in the server). ``protocol`` is the
        profile ("vibesearch" or "official"); the official prompts come only from the server's
        configured checkout. A run played by a person has a shadow simulator deciding beside them
        unless ``shadow`` is false (the simulator model given, else the server's, else the rules):
        its decisions are what the fidelity study compares with the person's."""
        who = caller(request, owner)
        owner_id = who.owner
        try:
            if owner_id is None:
                if is_person(user):
                    raise ValueError("a run played by a person needs an owner: pass owner=<a token from /new_owner_token>")
                owner_id = ctx.access.token_owner(ctx.access.issue())  # a run nobody can drive
            if not isinstance(task_id, str) or len(task_id) > MAX_ID:
                raise ValueError("task_id must be a task id (see /list_tasks)")
            task = ctx.catalog.get(task_id)
            req = form_request(
                ctx.settings, task_id=task_id, agent=agent, user=user, agent_model=agent_model or None,
                simulator_model=simulator_model or None, judge=judge or None, search_backend=search_backend or "offline",
                max_user_turns=max_user_turns, protocol=protocol or "vibesearch", shadow=bool(shadow),
            )
            live = ctx.manager.start(req, task, owner_id)
        except (KeyError, ValueError, TypeError) as exc:
            raise gr.Error(for_surface(exc, "api")) from None
        return live.run_id

    def run_events(run_id: str, after: int = 0, request: gr.Request | None = None) -> list[dict[str, Any]]:
        """The run's stored events after sequence number ``after``, as JSON objects."""
        readable_run(request, run_id)
        try:
            after = max(0, int(after or 0))
        except (TypeError, ValueError):
            raise gr.Error("after must be a whole number") from None
        return [
            {"seq": ev.seq, "ts": ev.ts.isoformat(), **json.loads(ev.data.model_dump_json())}
            for ev in ctx.store.events(run_id, after=after)
        ]

    def run_status(run_id: str, request: gr.Request | None = None) -> dict[str, Any]:
        """Status, termination, whether scoring is still going, the scores, and a person's pending turn."""
        run = readable_run(request, run_id)
        live = ctx.manager.get(run_id)
        return {
            "run_id": run.id,
            "task_id": run.task_id,
            "status": run.status,
            "termination": run.termination,
            "agent": AGENT_HIDDEN if agent_hidden(ctx.who(request), run) else run.agent,
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

    def stop_run(run_id: str, owner: str = "", request: gr.Request | None = None) -> str:
        """Cancel a run (it ends with termination 'cancelled'): a live one (on this server or on
        another app server of the same database, which stops it within a second), or one that is
        interrupted or abandoned; only its owner or an admin may. "stopping" or "stopped"."""
        who = caller(request, owner)
        readable_run(request, run_id)  # another's run one may not read answers as no run at all
        try:
            ctx.manager.stop_any(checked_id(run_id), who.owner, admin=who.admin)
            ended = ctx.store.get_run(run_id).status == "cancelled"
        except (NotYourRun, KeyError, ValueError, LeaseHeld) as exc:
            raise gr.Error(str(exc).strip("'\"")) from None
        return "stopped" if ended else "stopping"

    def continue_run(run_id: str, owner: str = "", request: gr.Request | None = None) -> str:
        """Continue an interrupted or abandoned run (a person-played one waits for ``submit_turn``
        again); only its owner (the login, or the owner token it was started with) or an admin may."""
        who = caller(request, owner)
        readable_run(request, run_id)
        try:
            ctx.manager.resume(checked_id(run_id), who.owner, admin=who.admin)
        except Exception as exc:  # noqa: BLE001 - the reason, to the caller, scrubbed of anything secret
            raise gr.Error(scrub(str(exc).strip("'\""))) from None
        return "continuing"

    def submit_turn(run_id: str, message: str, decision: str = "push", owner: str = "", request: gr.Request | None = None) -> str:
        """Hand in a person's turn for a run played by a person (decision: disclose, push, perfunctory, redirect, done)."""
        who = caller(request, owner)
        readable_run(request, run_id)
        try:
            ctx.manager.submit(checked_id(run_id), who.owner, message if isinstance(message, str) else "", decision, admin=who.admin)
        except (NotYourRun, KeyError, ValueError) as exc:
            raise gr.Error(str(exc).strip("'\"")) from None
        return "sent"

    def list_tasks() -> list[dict[str, Any]]:
        """The tasks this app offers."""
        return [
            {"id": t.id, "title": t.title, "subset": t.subset, "language": t.language, "stages": t.stage_count(),
             "kind": t.kind, "has_corpus": bool(t.corpus)}
            for t in ctx.catalog.tasks.values()
        ]

    for fn in (new_owner_token, start_run, run_events, run_status, stop_run, continue_run, submit_turn, list_tasks):
        gr.api(one_line(fn), api_name=fn.__name__, concurrency_limit=None)
