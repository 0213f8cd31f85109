"""The one loop of the product: agent ↔ user until the run ends, every event stored as it happens.

``run_session`` opens (stage 0 + the opening message), then alternates the agent's turn and the
user's turn. The session owns the stage pointer: a user turn advances it by at most one stage.
A run ends on (SPEC 3.3) the completion signal, the agent's final answer (when
``settings.stop_on_final_answer``), the maximum number of user turns, the token or cost budget,
a fatal error (recorded, status ``failed``) or cancellation (the ``cancel`` event or the task
being cancelled; written before the cancellation propagates). Then the agent extracts its graph
(skipped for table tasks and when the agent never replied) and the ``end`` event closes the run.

Given the id of a run that exists, ``run_session`` continues it from its stored events, inside
the turn that was open: what is stored is never done again (``_restore.locate``; the agents
continue a partly stored turn themselves). A run is driven by one process at a time: the session
holds the run's lease (``_lease.Driving``) from before it reads or creates the run to the end.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Iterable

from ..config import Settings
from ..llm import scrub
from ..store import Store, new_run_id
from ..store.leases import LeaseLost, run_key
from ..store.events import EndEvent, ErrorEvent, GraphEvent, MessageEvent, StageEvent, StoredEvent
from ..tasks.models import Task
from ..users.base import UserState, UserTurn
from ._lease import Driving
from ._record import STATUS_OF, Listener, Recorder, RunResult, create_run, is_table_task
from ._restore import Position, locate
from ._unfinished import answer_unanswered, owed_message


class _Stop(Exception):
    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


class Session:
    def __init__(
        self,
        task: Task,
        agent: Any,
        user: Any,
        store: Store,
        settings: Settings,
        run_id: str,
        listeners: Iterable[Listener] = (),
        cancel: asyncio.Event | None = None,
        lease: Driving | None = None,
    ):
        self.task, self.agent, self.user, self.store, self.settings = task, agent, user, store, settings
        self.run_id = run_id
        self.cancel = cancel
        self.rec = Recorder(store, run_id, listeners, settings, lease)
        self.budget_hit = asyncio.Event()
        self.rec.on_budget = self.budget_hit.set
        self.error: str | None = None
        self.detail = ""

    # ------------------------------------------------------------------ state
    @property
    def convo(self):
        return self.rec.convo

    def user_state(self) -> UserState:
        return UserState(
            task=self.task, stage_index=self.convo.stage_index, user_turns=self.convo.user_turns(), emit=self.rec.emit
        )

    def result(self, status: str, termination: str | None) -> RunResult:
        return RunResult(
            run_id=self.run_id,
            status=status,
            termination=termination,
            stages_reached=self.convo.stage_index + 1 if self.convo.stage_events else 0,
            stages_total=self.task.stage_count(),
            user_turns=self.convo.user_turns(),
            assistant_steps=self.rec.assistant_steps,
            tool_calls=self.rec.tool_calls,
            error=self.error,
        )

    def restore(self, events: list[StoredEvent], detail: str = "") -> None:
        """What a resumed run must know besides the conversation: its fatal error and end detail."""
        for ev in events:
            d = ev.data
            if isinstance(d, ErrorEvent) and d.fatal:
                self.error = f"{d.source}: {d.message}"
        self.detail = detail

    # ------------------------------------------------------------------ guards
    def _check_stop(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise _Stop("cancelled", "cancelled by request")
        over = self.rec.over_budget()
        if over:
            raise _Stop("budget", over)

    async def _guard(self, coro: Any, *, budget: bool = True) -> Any:
        """Await ``coro`` but give up on it as soon as the run is cancelled or over budget."""
        work = asyncio.ensure_future(coro)
        stops = []
        if self.cancel is not None:
            stops.append(asyncio.ensure_future(self.cancel.wait()))
        if budget:
            stops.append(asyncio.ensure_future(self.budget_hit.wait()))
        try:
            await asyncio.wait({work, *stops}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            work.cancel()
            raise
        finally:
            for s in stops:
                s.cancel()
        if work.done():
            return work.result()
        work.cancel()
        try:
            await work
        except BaseException:  # noqa: BLE001 - the work was abandoned on purpose
            pass
        if self.cancel is not None and self.cancel.is_set():
            raise _Stop("cancelled", "cancelled by request")
        raise _Stop("budget", self.rec.over_budget() or "budget reached")

    # ------------------------------------------------------------------ the run
    async def run(self, position: Position) -> RunResult:
        termination = position.termination
        if position.phase == "finish" and not termination:
            termination = self._infer_termination()
        try:
            if position.phase != "finish":
                termination = await self._converse(position)
        except _Stop as stop:
            termination, self.detail = stop.reason, stop.detail
        except LeaseLost:
            raise  # another process drives the run now: write nothing more
        except asyncio.CancelledError:
            self._close("cancelled", "the session task was cancelled")
            raise
        except Exception as exc:  # noqa: BLE001 - every failure is recorded, never silent
            termination = "error"
            self._fatal(getattr(exc, "_vs_source", "session"), exc)
        if termination == "cancelled":
            return self._close("cancelled", self.detail or "cancelled by request")
        try:
            if not position.graph_stored:
                await self._extract(termination or "error")
        except LeaseLost:
            raise
        except asyncio.CancelledError:
            self._close("cancelled", "the session task was cancelled during extraction")
            raise
        except _Stop as stop:
            return self._close("cancelled", stop.detail)
        status = "failed" if self.error else STATUS_OF.get(termination or "error", "finished")
        return self._close(termination or "error", self.detail, status=status)

    def _infer_termination(self) -> str:
        """Why a run that stopped during extraction had ended (its reason was not yet written)."""
        primary = [s for s in self.convo.stage_events if not s.shadow]
        if primary and primary[-1].reply_kind == "done":
            return "done"
        if self.rec.over_budget():
            return "budget"
        if self.convo.user_turns() >= self.settings.max_user_turns:
            return "max_user_turns"
        return "answer" if self.settings.stop_on_final_answer else "max_user_turns"

    def _fatal(self, source: str, exc: BaseException) -> None:
        message = scrub(f"{type(exc).__name__}: {exc}")[:2000]
        self.error = f"{source}: {message}"
        self.rec.emit(ErrorEvent(source=source, message=message, fatal=True))

    def _close(self, termination: str, detail: str = "", *, status: str | None = None) -> RunResult:
        status = status or STATUS_OF.get(termination, "finished")
        self.rec.emit(EndEvent(termination=termination, detail=detail or (self.error or "")))  # type: ignore[arg-type]
        self.store.update_run(self.run_id, status=status, termination=termination)
        return self.result(status, termination)

    async def _converse(self, position: Position) -> str:
        phase = position.phase
        final = False
        if phase == "open":
            turn = await self._call("user", self.user.opening(self.user_state()))
            stage = self.task.persona.stages[0]
            self.rec.emit(StageEvent(stage_index=0, stage_name=stage.name, reply_kind="open", decided_by=turn.decided_by, rationale=turn.rationale))
            self.rec.emit(MessageEvent(role="user", content=turn.message))
            phase = "agent"
        elif phase == "open_message":
            turn = await self._call("user", self.user.opening(self.user_state()))
            self.rec.emit(MessageEvent(role="user", content=turn.message))
            phase = "agent"
        elif phase == "user_message":
            if position.dangling is not None and position.dangling.reply_kind == "done":
                self.rec.emit(MessageEvent(role="user", content="[DONE]"))
                return "done"
            await owed_message(self, position)
            phase = "agent"
        elif phase == "agent" and position.unanswered and not getattr(self.agent, "resumes_open_turn", False):
            await answer_unanswered(self, position)  # an agent that cannot continue a turn itself
        elif phase == "user":  # resumed after the agent's reply: decide on it as the live run did
            judge = getattr(self.agent, "reply_is_final", None)
            final = bool(judge(self.convo.last_reply() or "")) if callable(judge) else False
            phase = "replied"

        while True:
            if phase == "agent":
                self._check_stop()
                reply = await self._call("agent", self.agent.respond(self.convo, self.rec.emit))
                final = bool(getattr(reply, "final", False))
                phase = "replied"
            if phase == "replied":
                self._check_stop()
                if self.settings.stop_on_final_answer and final:
                    return "answer"
                phase = "user"
            if self.convo.user_turns() >= self.settings.max_user_turns:
                self.detail = f"{self.settings.max_user_turns} user turns"
                return "max_user_turns"
            turn = await self._call("user", self.user.next_turn(self.convo, self.user_state()))
            self._record_turn(turn)
            if turn.reply_kind == "done":
                return "done"
            self._check_stop()
            phase = "agent"

    async def _call(self, source: str, coro: Any) -> Any:
        try:
            return await self._guard(coro)
        except (_Stop, asyncio.CancelledError):
            raise
        except Exception as exc:
            exc._vs_source = source  # type: ignore[attr-defined]
            raise

    # ------------------------------------------------------------------ user turns
    def _record_turn(self, turn: UserTurn) -> None:
        stages = self.task.persona.stages
        before = self.convo.stage_index
        nxt = before + 1 if before + 1 < len(stages) else None
        advanced = bool(turn.stage_advanced) and nxt is not None
        kind = turn.reply_kind
        if kind == "open" or (kind == "disclose" and not advanced):
            kind = "push"
        after = nxt if advanced else before
        self.rec.emit(
            StageEvent(
                stage_index=after,  # type: ignore[arg-type]
                stage_name=stages[after].name,  # type: ignore[index]
                advanced=advanced,
                reply_kind=kind,
                trigger_met=turn.trigger_met,
                decided_by=turn.decided_by,
                rationale=turn.rationale,
            )
        )
        shadow = turn.shadow
        if shadow is not None:
            s_adv = bool(shadow.stage_advanced) and nxt is not None
            s_kind = "push" if shadow.reply_kind == "open" or (shadow.reply_kind == "disclose" and not s_adv) else shadow.reply_kind
            s_at = nxt if s_adv else before
            said = f" (would have said: {shadow.message[:500]})" if shadow.message else ""
            self.rec.emit(
                StageEvent(
                    stage_index=s_at,  # type: ignore[arg-type]
                    stage_name=stages[s_at].name,  # type: ignore[index]
                    advanced=s_adv,
                    reply_kind=s_kind,
                    trigger_met=shadow.trigger_met,
                    decided_by="shadow",
                    rationale=((shadow.rationale or "") + said).strip() or None,
                    shadow=True,
                )
            )
        self.rec.emit(MessageEvent(role="user", content=turn.message))

    # ------------------------------------------------------------------ the end
    async def _extract(self, termination: str) -> None:
        fields: dict[str, Any] = {"termination": termination}
        if self.detail:  # kept with the run, so a run resumed from here ends with the same words
            meta = json.loads(self.store.get_run(self.run_id).meta_json or "{}")
            fields["meta"] = {**meta, "termination_detail": self.detail}
        self.store.update_run(self.run_id, **fields)
        if is_table_task(self.task) or not self.rec.replied():
            return
        last = self.convo.turns[-1]
        try:
            if last.phase == "extraction" and last.reply is not None:
                # the answer was stored but not its graph (a run written before answer and graph
                # were stored together): read the graph off the answer, do not ask again
                from ..agents.extraction import parse_triples

                graph = parse_triples(last.reply)
            else:
                graph = await self._guard(self.agent.extract_graph(self.convo, self.rec.emit), budget=False)
        except (_Stop, asyncio.CancelledError, LeaseLost):
            raise
        except Exception as exc:  # noqa: BLE001
            self._fatal("extraction", exc)
            return
        self.rec.emit(
            GraphEvent(
                triples=list(graph.triples),
                raw_text=graph.raw_text or "",
                repaired=list(graph.repaired or []),
                dropped=list(graph.dropped or []),
            )
        )


async def run_session(
    task: Task,
    agent: Any,
    user: Any,
    store: Store,
    settings: Settings,
    *,
    run_id: str | None = None,
    run_fields: dict | None = None,
    listeners: Iterable[Listener] = (),
    cancel: asyncio.Event | None = None,
    lease: Driving | None = None,
) -> RunResult:
    """Run (or, given an existing ``run_id``, continue) one conversation and return its result.

    Raises ``LeaseHeld`` when another process drives the run, ``LeaseLost`` when it took the run
    over while this one was driving (this one then stopped without writing).
    ``lease``: one the caller already holds on this run (``resume_run``).
    """
    run_id = run_id or new_run_id()
    if lease is None:
        async with Driving(store, run_key(run_id), f"run {run_id}", settings) as held:
            return await _drive(task, agent, user, store, settings, run_id, run_fields, listeners, cancel, held)
    return await _drive(task, agent, user, store, settings, run_id, run_fields, listeners, cancel, lease)


async def _drive(
    task: Task,
    agent: Any,
    user: Any,
    store: Store,
    settings: Settings,
    run_id: str,
    run_fields: dict | None,
    listeners: Iterable[Listener],
    cancel: asyncio.Event | None,
    lease: Driving,
) -> RunResult:
    """The run itself, read (or created) under the lease."""
    try:
        existing = store.get_run(run_id)
    except KeyError:
        existing = None
    detail = ""
    if existing is None:
        create_run(store, task, agent, user, settings, run_id, run_fields)
        events: list[StoredEvent] = []
        position = Position("open")
    else:
        events = store.events(run_id)
        position = locate(events, existing.termination)
        detail = json.loads(existing.meta_json or "{}").get("termination_detail", "") if position.phase == "finish" else ""
        store.update_run(run_id, status="running")
    session = Session(task, agent, user, store, settings, run_id, listeners, cancel, lease)
    session.rec.replay(events)
    session.restore(events, detail)
    return await session.run(position)


class SessionStream:
    """``async for event in stream_session(...)``: the stored events of a run as they happen.

    The run goes on as its own task; ``result`` holds its ``RunResult`` once the stream ends.
    Leaving the loop early cancels the run (recorded as cancelled).
    """

    def __init__(self, *args: Any, **kwargs: Any):
        self._args, self._kwargs = args, kwargs
        self.result: RunResult | None = None
        self.run_id: str | None = None

    async def __aiter__(self) -> AsyncIterator[StoredEvent]:
        queue: asyncio.Queue[StoredEvent | None] = asyncio.Queue()
        listeners = (*self._kwargs.pop("listeners", ()), queue.put_nowait)
        task = asyncio.ensure_future(run_session(*self._args, listeners=listeners, **self._kwargs))
        task.add_done_callback(lambda _t: queue.put_nowait(None))
        try:
            while True:
                item = await queue.get()
                if item is None:
                    break
                self.run_id = item.run_id
                yield item
            self.result = task.result()
        finally:
            if not task.done():
                task.cancel()
                try:
                    await task
                except BaseException:  # noqa: BLE001
                    pass


def stream_session(task: Task, agent: Any, user: Any, store: Store, settings: Settings, **kwargs: Any) -> SessionStream:
    return SessionStream(task, agent, user, store, settings, **kwargs)
