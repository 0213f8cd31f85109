"""The run manager: live runs started from the app, each an asyncio task on one runner loop.

The app creates one ``RunManager`` inside ``build_app()``; the event handlers reach it through
closures. It holds only what cannot live in the database — the running task, its cancel event,
the object through which a person hands in their turns — keyed by run id, each with its owner
(``user:<login>`` or a digest of the browser's server-issued token, see ``_access``). Everything
shown is read back from the stored events, so a page refresh (or another tab) sees the same run;
only the owner (or an admin) may stop it or play its user. Every request is checked by
``_policy.check_request`` before anything is built.

Runs execute on a dedicated event loop in a background thread, so a slow run never stalls the web
server's own loop, and stopping a run sets the session's cancel event (the session writes the
``end`` event with termination ``cancelled``); a run that does not stop within a grace period
has its task cancelled, which the session records the same way.

Several app servers may share one database. Stop pressed on a server that does not drive the run
writes a stop request (``store.stops``); each server's runner loop polls, every
``STOP_POLL_S``, for requests naming the runs it drives, and cancels them as a local Stop does.
A run no process drives is ended there and then, as before.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..llm import scrub
from ..run import DECISIONS, Agent, RunConfig, RunResult, User, UserTurn
from ..run.events import Termination
from ..run.result import CONTINUABLE
from ..store import LeaseHeld, LeaseLost, Store
from ..tasks.models import Task
from ..users import HumanUser, ShadowUser
from ._failure import score_failure
from ._policy import RunRequest, check_message, check_request, form_request
from ._queued_start import QueuedStarts

if TYPE_CHECKING:
    from ..session.lifecycle import OpenedRun

log = logging.getLogger(__name__)

STOP_GRACE_S = 5.0
STOP_POLL_S = 0.5  # how often a server looks for stop requests other servers wrote for its runs
KEEP_FINISHED_S = 3600.0  # a finished run's live handle is dropped after this (its data is in the DB)
__all__ = ["DECISIONS", "LiveRun", "NotYourRun", "RunManager", "RunRequest", "form_request"]


class NotYourRun(PermissionError):
    pass


def _one_line(exc: BaseException) -> str:
    """An error in one line for the log (a database error's text spans several, with its SQL)."""
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first}"[:300]


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    """The runner thread: the loop until ``_end`` stops it, then closed."""
    try:
        loop.run_forever()
    finally:
        loop.close()


def _end(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is still scheduled on the runner loop (litellm's logging worker among it), then
    stop it: a task left pending on a stopped loop raises "Event loop is closed" when collected."""

    async def cancel_the_rest() -> None:
        rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for t in rest:
            t.cancel()
        await asyncio.gather(*rest, return_exceptions=True)

    try:
        asyncio.run_coroutine_threadsafe(cancel_the_rest(), loop).result(timeout=STOP_GRACE_S)
    except Exception:  # noqa: BLE001 - shutting down: stop the loop whatever happened
        log.warning("tasks on the run loop did not end within %.0fs", STOP_GRACE_S)
    loop.call_soon_threadsafe(loop.stop)


@dataclass
class LiveRun:
    run_id: str
    owner: str
    task: Task
    request: RunRequest
    user: User
    cancel: asyncio.Event
    started: float = field(default_factory=time.time)
    ended: float | None = None
    future: Future[None] | None = None
    aio_task: asyncio.Task[None] | None = None
    result: RunResult | None = None
    opened: OpenedRun | None = None  # the run as opened (its lease), for the session to adopt
    error: str | None = None
    score_error: str | None = None
    scoring: bool = False
    finished: bool = False  # the session and the scoring are over

    @property
    def config(self) -> RunConfig:
        return self.request.config

    @property
    def human(self) -> HumanUser | None:
        """The object a person's turns go to (None unless the user is a person)."""
        if isinstance(self.user, ShadowUser):
            return self.user.human
        return self.user if isinstance(self.user, HumanUser) else None

    def pending(self) -> dict[str, Any] | None:
        h = self.human
        return h.pending_state() if h is not None else None

    def elapsed(self) -> float:
        return (self.ended or time.time()) - self.started


class RunManager:
    def __init__(self, store: Store, settings: Settings):
        self.store = store
        self.settings = settings
        self._runs: dict[str, LiveRun] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        # VIBESEARCH_APP_QUEUE: Start hands simulated runs to the queue workers (``_queued_start``)
        self.queued: QueuedStarts | None = (
            QueuedStarts(store, str(settings.db), self._ensure_loop, lambda run_id, judge: self.score(run_id, judge))
            if settings.app_queue else None
        )
        self.closed_at_start = self.close_orphaned()  # runs a dead server left "running"

    def close_orphaned(self) -> list[str]:
        """Mark runs left ``running`` by a process that died ``interrupted`` (each once)."""
        from ..runner import close_orphaned

        try:
            closed = close_orphaned(self.store, self.settings)
        except Exception as exc:  # noqa: BLE001 - the app starts anyway; the Runs tab still lists the runs
            log.warning("could not close the runs a stopped process left running (%s)", _one_line(exc))
            return []
        if closed:
            log.warning("closed %d run(s) left running by a stopped process as interrupted: %s", len(closed), ", ".join(closed))
        return closed

    # ------------------------------------------------------------------ the runner loop
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                t = threading.Thread(target=_serve, args=(loop,), name="vibesearch-runs", daemon=True)
                t.start()
                self._loop = loop
                asyncio.run_coroutine_threadsafe(self._watch_stops(), loop)
            return self._loop

    async def _watch_stops(self) -> None:
        """Cancel the runs this server drives that another server was asked to stop."""
        outage = False
        while True:
            await asyncio.sleep(STOP_POLL_S)
            with self._lock:
                ids = [r.run_id for r in self._runs.values() if not r.finished and r.ended is None and not r.cancel.is_set()]
            if not ids:
                continue
            try:
                asked = await asyncio.to_thread(self.store.pending_stops, ids)
                for req in asked:
                    live = self.get(req.run_id)
                    if live is not None:
                        log.warning("run %s: stopped on request from another app server (%s)", req.run_id, req.requested_by)
                        self._cancel(live)
                    await asyncio.to_thread(self.store.stop_done, req.run_id)
            except Exception as exc:  # noqa: BLE001 - a database hiccup: look again next time
                if not outage:  # one line per outage, not a traceback per look
                    log.warning("could not read the stop requests (%s); looking again every %.0f s", _one_line(exc), STOP_POLL_S)
                outage = True
            else:
                if outage:
                    log.warning("the stop requests can be read again")
                outage = False

    def _cancel(self, live: LiveRun) -> None:
        """On the runner loop: ask the session to stop; cancel its task after the grace period."""
        assert self._loop is not None
        live.cancel.set()
        self._loop.call_later(STOP_GRACE_S, self._hard_cancel, live)

    # ------------------------------------------------------------------ starting
    def start(self, req: RunRequest, task: Task, owner: str) -> LiveRun:
        """Build the agent and the user (errors surface here, before anything runs), open the
        run's row (so the id handed back can be read at once — by this browser, the API or another
        server) and start it."""
        from ..agents import make_agent
        from ..session.preflight import check_config_credentials
        from ..session.lifecycle import open_run
        from ..users import make_user

        if not owner:
            raise ValueError("a run needs an owner token (reload the page)")
        check_request(req, self.settings)
        config = req.config
        agent = make_agent(config, task, self.settings, endpoint_key=req.endpoint_key, web=self.store)
        user = make_user(config, task, self.settings)
        self._set_idle_timeout(user)
        human = user.human if isinstance(user, ShadowUser) else user
        if req.time_limit_s is not None and isinstance(human, HumanUser):
            human.deadline = time.time() + req.time_limit_s
        # a model without its key: a clear error now, not a failed run later
        check_config_credentials(config, self.settings, judge=True)
        opened = open_run(self.store, config, task, self.settings,
                          fields={"owner": owner, "source": "live", "meta": {"started_from": "app", **req.meta}})
        live = LiveRun(run_id=opened.run_id, owner=owner, task=task, request=req, user=user, cancel=asyncio.Event(), opened=opened)
        self._launch(live, agent)
        return live

    def _set_idle_timeout(self, user: User) -> None:
        """A person who lets their turn wait past ``human_idle_timeout_s`` abandons the run."""
        human = user.human if isinstance(user, ShadowUser) else user
        if isinstance(human, HumanUser):
            human.idle_timeout_s = float(self.settings.human_idle_timeout_s)

    def _launch(self, live: LiveRun, agent: Agent, *, resume: bool = False) -> LiveRun:
        with self._lock:
            cutoff = time.time() - KEEP_FINISHED_S
            for rid in [r.run_id for r in self._runs.values() if r.finished and (r.ended or 0) < cutoff]:
                del self._runs[rid]
            self._runs[live.run_id] = live
        if resume:
            self.store.clear_stop(live.run_id)  # a request carried out (or left) before: not for this drive
        loop = self._ensure_loop()
        live.future = asyncio.run_coroutine_threadsafe(self._drive(live, agent, resume=resume), loop)
        return live

    def resume(self, run_id: str, who_owner: str | None, *, admin: bool = False) -> LiveRun:
        """Continue a run no process drives (``interrupted``, ``abandoned``, or ``running`` with
        its driver gone) in this app; a person-played run is played by a person again. Only its
        owner or an admin may; the run keeps its owner."""
        from ..agents import make_agent
        from ..runner import config_of_run, is_orphaned
        from ..runner.resume import run_task
        from ..users import make_user

        run = self.store.get_run(run_id)
        if not admin and (not who_owner or run.owner != who_owner):
            raise NotYourRun(f"run {run_id} belongs to another browser session or login")
        if self.is_live(run_id):
            return self.owned(run_id, who_owner, admin=admin)
        if run.status not in CONTINUABLE and not is_orphaned(self.store, run_id):
            raise ValueError(f"run {run_id} is {run.status}; only an interrupted or abandoned run can be continued")
        task = run_task(run)
        config = config_of_run(run, self.settings)
        agent = make_agent(config, task, self.settings, web=self.store)
        user = make_user(config, task, self.settings)
        self._set_idle_timeout(user)
        req = RunRequest(config=config)
        live = LiveRun(run_id=run_id, owner=run.owner or who_owner or "", task=task, request=req, user=user, cancel=asyncio.Event())
        return self._launch(live, agent, resume=True)

    async def _drive(self, live: LiveRun, agent: Agent, *, resume: bool = False) -> None:
        from ..session import run_session
        from ..runner import resume_run

        live.aio_task = asyncio.current_task()
        try:
            if resume:
                live.result = await resume_run(self.store, live.run_id, self.settings, agent=agent, user=live.user, cancel=live.cancel)
            else:  # the run was opened by ``start``: the session adopts the lease it was opened under
                live.result = await run_session(
                    live.config, live.task, agent, live.user, self.store, self.settings,
                    run_id=live.run_id, cancel=live.cancel, opened=live.opened,
                )
            live.error = live.result.error
        except asyncio.CancelledError:
            self._ensure_closed(live, "cancelled", "the run was stopped from the app")
        except (LeaseHeld, LeaseLost) as exc:  # another process drives the run: leave it to that one
            live.error = str(exc)
        except Exception as exc:  # noqa: BLE001 - shown to the person, recorded in the run
            live.error = scrub(f"{type(exc).__name__}: {exc}")[:2000]
            log.exception("run %s failed", live.run_id)
            self._ensure_closed(live, "error", live.error)
        finally:
            live.ended = time.time()
        try:
            if not live.cancel.is_set() and self._scorable(live.run_id):
                live.scoring = True
                await asyncio.to_thread(self.score, live.run_id, live.config.judge.name)
        except Exception as exc:  # noqa: BLE001 - a failed score is shown beside the finished run, which stays
            live.score_error = score_failure(exc)  # nothing was stored
            log.exception("scoring run %s failed", live.run_id)
        finally:
            live.scoring = False
            live.finished = True

    def _scorable(self, run_id: str) -> bool:
        run = self.store.get_run(run_id)
        if run.kind == "table":
            return run.status == "finished"
        return self.store.latest_graph(run_id) is not None

    def score(self, run_id: str, judge: str = "offline", settings: Settings | None = None, *, asked_by: str | None = None):
        from ..scoring import score_run

        return score_run(self.store, run_id, judge=judge or "offline", settings=settings or self.settings, asked_by=asked_by)

    def _ensure_closed(self, live: LiveRun, termination: Termination, detail: str) -> None:
        """The session closes its run itself; this covers a failure before it could."""
        try:
            run = self.store.get_run(live.run_id)
        except KeyError:
            return
        if run.status != "running":
            return
        from ..session.lifecycle import close_run
        from ..store.leases import claim, new_owner, release, run_key

        # under the run's lease: the one it was opened under (its session may never have taken
        # it over), or a new one when the session let its own go
        key, owner = run_key(live.run_id), live.opened.lease_owner if live.opened is not None else new_owner()
        if claim(self.store, key, owner, self.settings.lease_ttl_s) is not None:
            return  # another process drives it now
        try:
            close_run(self.store, live.run_id, termination, detail, lease=owner)  # the status its termination gives
        finally:
            release(self.store, key, owner)

    # ------------------------------------------------------------------ access
    def get(self, run_id: str) -> LiveRun | None:
        with self._lock:
            return self._runs.get(run_id)

    def owned(self, run_id: str, owner: str | None, *, admin: bool = False) -> LiveRun:
        live = self.get(run_id)
        if live is None:
            raise KeyError(f"run {run_id} is not running in this app")
        if not admin and (not owner or live.owner != owner):
            raise NotYourRun(f"run {run_id} belongs to another browser session or login")
        return live

    def active_for(self, owner: str) -> list[LiveRun]:
        """This owner's runs still going, newest first."""
        with self._lock:
            runs = [r for r in self._runs.values() if r.owner == owner and not r.finished]
        return sorted(runs, key=lambda r: -r.started)

    def is_live(self, run_id: str) -> bool:
        live = self.get(run_id)
        return live is not None and not live.finished

    # ------------------------------------------------------------------ control
    def stop(self, run_id: str, owner: str | None, *, admin: bool = False) -> None:
        live = self.owned(run_id, owner, admin=admin)
        loop = self._ensure_loop()
        loop.call_soon_threadsafe(live.cancel.set)
        loop.call_soon_threadsafe(loop.call_later, STOP_GRACE_S, self._hard_cancel, live)

    def stop_any(self, run_id: str, who_owner: str | None, *, admin: bool = False) -> str:
        """Stop a run live in this app; ask the app server that drives it to stop it (a stop
        request); or end one no process drives (``interrupted``, ``abandoned``, orphaned
        ``running``) as ``cancelled``. Its owner or an admin only."""
        from ..runner import stop_idle_run

        if self.is_live(run_id):
            self.stop(run_id, who_owner, admin=admin)
            return f"Stopping run {run_id}…"
        run = self.store.get_run(run_id)
        if not admin and (not who_owner or run.owner != who_owner):
            raise NotYourRun(f"run {run_id} belongs to another browser session or login")
        try:
            stop_idle_run(self.store, run_id, self.settings)
        except LeaseHeld:
            if run.status != "running" or run.meta().get("started_from") != "app":
                raise  # driven by a command-line run: no app server watches its stop requests
            self.store.request_stop(run_id, who_owner or "?")
            return f"Stopping run {run_id}: the app server that drives it stops it within a second…"
        return f"Run {run_id} stopped (cancelled)."

    @staticmethod
    def _hard_cancel(live: LiveRun) -> None:
        if live.aio_task is not None and not live.aio_task.done() and live.ended is None:
            live.aio_task.cancel()

    def submit(self, run_id: str, owner: str | None, message: str, decision: str, *, admin: bool = False) -> None:
        """Hand a person's turn to the run they play."""
        live = self.owned(run_id, owner, admin=admin)
        message = check_message(message)
        human = live.human
        if human is None:
            raise ValueError(f"run {run_id} is not played by a person")
        if decision not in DECISIONS:
            raise ValueError(f"decision must be one of {', '.join(DECISIONS)}, got {decision!r}")
        if not human.waiting:
            raise ValueError("the agent has not replied yet; wait for your turn")
        reply_kind = next(d for d in DECISIONS if d == decision)  # the same word, as its type
        human.submit_nowait(UserTurn(message=message.strip(), reply_kind=reply_kind, decided_by="human"))

    def wait(self, run_id: str, timeout: float | None = None) -> None:
        """Block until a live run (and its scoring) is over (tests and the API use this)."""
        live = self.get(run_id)
        if live is None or live.future is None:
            return
        live.future.result(timeout=timeout)
        deadline = time.time() + (timeout or 3600)
        while not live.finished and time.time() < deadline:
            time.sleep(0.05)

    def shutdown(self) -> None:
        with self._lock:
            loop, self._loop = self._loop, None
            runs = list(self._runs.values())
        if loop is None:
            return
        for live in runs:
            if live.finished:
                continue
            if live.human is not None:
                # a person's run is not theirs to lose to a restart: the person "leaves", so the run
                # is marked interrupted (no end) and its owner continues it on the next server. An
                # agent step still going when the grace period ends is cancelled, as below.
                live.human.leave()
            else:
                loop.call_soon_threadsafe(live.cancel.set)
        deadline = time.time() + STOP_GRACE_S
        for live in runs:
            if live.future is not None and not live.finished:
                try:
                    live.future.result(timeout=max(0.1, deadline - time.time()))
                except Exception:  # noqa: BLE001 - shutting down: the run has recorded its own ending
                    pass
        _end(loop)
