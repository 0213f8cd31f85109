"""The one loop of the product: agent ↔ user until the run ends, every event stored as it happens.

``run_session`` opens (stage 0 + the opening message), then alternates the agent's turn and the
user's turn. The session owns the stage pointer: a user turn advances it by at most one stage
(``run.stages.stage_step``). A run ends on (SPEC 3.3) the completion signal, the agent's final
answer (when the config's ``limits.stop_on_final_answer``), the maximum number of user turns, the
token, cost or model-call budget, a fatal error (recorded, status ``failed``) or cancellation (the
``cancel`` event or the task being cancelled; written before the cancellation propagates). A
database that went away is not a way of ending: nothing more can be written, so the error goes
on to the caller and the run stays as stored, to be continued (``_outage``). Then
the agent extracts its graph (skipped for table tasks and when the agent never replied) and the
``end`` event closes the run.

Given the id of a run that exists, ``run_session`` continues it from its stored events, inside
the turn that was open: what is stored is never done again (``_restore.locate``; the agents
continue a partly stored turn themselves). A run is driven by one process at a time: the session
holds the run's lease (``_lease.Driving``) from before it reads or creates the run to the end.
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Iterable, TypeVar

from ..config import Settings
from ..llm import scrub
from ..protocol import profile_of, require_resolved
from ..run import Agent, Conversation, RunConfig, User, UserAway, UserIdle, UserState, UserTurn
from ..run.events import ErrorEvent, GraphEvent, MessageEvent, StageEvent, StoredEvent, Termination
from ..run.result import PartFailed, RunStatus
from ..store import Store, new_run_id
from ..store.leases import LeaseLost, run_key
from ..tasks.models import Task
from ..users.registry import is_person
from ._lease import Driving
from ._outage import database_unreachable
from ._record import Listener, Recorder, RunFields, RunResult, is_table_task
from ._restore import Position, locate
from ._turn_events import turn_events
from ._unfinished import answer_unanswered, owed_message
from .lifecycle import OpenedRun, close_run, close_run_async, mark_interrupted, open_run, reopen_run

T = TypeVar("T")


class _Stop(Exception):
    def __init__(self, reason: Termination, detail: str = ""):
        super().__init__(reason)
        self.reason: Termination = reason
        self.detail = detail


class Session:
    def __init__(
        self,
        config: RunConfig,
        task: Task,
        agent: Agent,
        user: User,
        store: Store,
        run_id: str,
        listeners: Iterable[Listener] = (),
        cancel: asyncio.Event | None = None,
        lease: Driving | None = None,
    ):
        self.config, self.task, self.agent, self.user, self.store = config, task, agent, user, store
        self.limits = config.limits
        self.profile = profile_of(config.protocol)  # what the run's profile decides (turn cap, [DONE], extraction)
        self.run_id = run_id
        self.cancel = cancel
        self.rec = Recorder(store, run_id, listeners, config.limits, lease)
        self.lease = lease  # the run's lease, let go with its last write (its end)
        self._owner = lease.owner if lease is not None else None  # the run's row is updated only while it holds
        self.budget_hit = asyncio.Event()
        self.rec.on_budget = self.budget_hit.set
        self.error: str | None = None
        self.detail = ""
        self.extraction_outcome: str | None = None  # how the agent's extraction ended (its graph says)

    # ------------------------------------------------------------------ state
    @property
    def convo(self) -> Conversation:
        return self.rec.convo

    def user_state(self) -> UserState:
        return UserState(
            task=self.task, stage_index=self.convo.stage_index, user_turns=self.convo.user_turns(), emit=self.rec.emit
        )

    def result(self, status: RunStatus, termination: str | None) -> RunResult:
        return RunResult(
            run_id=self.run_id,
            status=status,
            termination=termination,
            stages_reached=self.convo.stage_index + 1 if self.convo.stage_events else 0,
            stages_total=self.task.stage_count(),
            user_turns=self.rec.user_turns,
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
            elif isinstance(d, GraphEvent):
                self.extraction_outcome = d.outcome
        self.detail = detail

    # ------------------------------------------------------------------ guards
    def _check_stop(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise _Stop("cancelled", "cancelled by request")
        over = self.rec.over_budget()
        if over:
            raise _Stop("budget", over)

    async def _guard(self, coro: Awaitable[T], *, budget: bool = True) -> T:
        """Await ``coro`` but give up on it as soon as the run is cancelled or over budget."""
        work = asyncio.ensure_future(coro)
        stops: list[asyncio.Future[Any]] = []
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

    async def _call(self, source: str, coro: Awaitable[T]) -> T:
        """``_guard`` for a part of the run: what the part raises comes back as ``PartFailed``."""
        try:
            return await self._guard(coro)
        except (_Stop, asyncio.CancelledError, LeaseLost, UserAway):
            raise
        except Exception as exc:
            raise PartFailed(source, exc) from exc

    # ------------------------------------------------------------------ the run
    async def run(self, position: Position) -> RunResult:
        termination: str | None = position.termination
        if position.phase == "finish" and not termination:
            termination = self._infer_termination()
        try:
            if position.phase != "finish":
                termination = await self._converse(position)
        except _Stop as stop:
            termination, self.detail = stop.reason, stop.detail
        except LeaseLost:
            raise  # another process drives the run now: write nothing more
        except UserIdle as idle:  # the person let the run wait too long: ended, the owner may continue it
            return self._close("abandoned", f"{idle}; the run's owner may continue it")
        except UserAway:  # the person left: no end is written, the run waits to be resumed
            mark_interrupted(self.store, self.run_id, writer=self.rec, lease=self._owner)
            raise
        except asyncio.CancelledError:
            self._close("cancelled", "the session task was cancelled")
            raise
        except PartFailed as failed:
            if database_unreachable(failed.cause) is not None:  # not the run's failure: it is continued later
                raise failed.cause from None
            termination = "error"
            self._fatal(failed.source, failed.cause)
        except Exception as exc:  # noqa: BLE001 - every failure is recorded, never silent
            if database_unreachable(exc) is not None:
                raise
            termination = "error"
            self._fatal("session", exc)
        if termination == "cancelled":
            return self._close("cancelled", self.detail or "cancelled by request")
        try:
            if not position.graph_stored:
                await self._extract(termination or "error")
            termination = await self._final(termination or "error")
        except LeaseLost:
            raise
        except asyncio.CancelledError:
            self._close("cancelled", "the session task was cancelled during extraction")
            raise
        except _Stop as stop:
            return self._close("cancelled", stop.detail)
        final = await close_run_async(
            self.store, self.run_id, termination, self.detail or (self.error or ""),
            failed=bool(self.error), writer=self.rec, lease=self._owner, driving=self.lease,
        )
        return self.result(final, termination)

    async def _final(self, termination: str) -> str:
        """The run's termination by its profile's rule; the conversation's own ending is kept in
        the run's meta when the two differ."""
        final = self.profile.final_termination(termination, self.extraction_outcome)
        if final != termination:
            await self.rec.adrain()
            await asyncio.to_thread(self._merge_meta, {"conversation_ended": termination})
            self.detail = f"{self.detail + '; ' if self.detail else ''}the conversation ended: {termination}"
        return final

    def _merge_meta(self, meta: dict[str, Any], **fields: Any) -> None:
        """(a worker thread) Set fields of the run's row, ``meta`` merged into the stored one."""
        if meta:
            fields["meta"] = {**self.store.run_state(self.run_id).meta(), **meta}
        self.store.update_run(self.run_id, **fields, lease=self._owner)

    def _infer_termination(self) -> str:
        """Why a run that stopped during extraction had ended (its reason was not yet written)."""
        primary = [s for s in self.convo.stage_events if not s.shadow]
        if primary and primary[-1].reply_kind == "done":
            return "done"
        if self.rec.over_budget():
            return "budget"
        if self._turns_spent():
            return "max_user_turns"
        if self._rounds_spent():
            return "max_rounds"
        if any(n.data.get("error_loop") for t in self.convo.turns for n in t.notes):
            return "error_loop"
        return "answer" if self.limits.stop_on_final_answer else "max_user_turns"

    def _turns_spent(self) -> bool:
        """No user turn left (what counts as one is the profile's rule)."""
        return self.profile.user_turns_left(self.limits, self.convo.user_turns()) <= 0

    def _rounds_spent(self) -> bool:
        """The trajectory's model calls (``limits.max_rounds``, when its profile counts them) are spent."""
        return self.profile.rounds_left(self.limits, self.convo) == 0

    def _fatal(self, source: str, exc: BaseException) -> None:
        message = scrub(f"{type(exc).__name__}: {exc}")[:2000]
        self.error = f"{source}: {message}"
        self.rec.emit(ErrorEvent(source=source, message=message, fatal=True))

    def _close(self, termination: str, detail: str = "") -> RunResult:
        final = close_run(self.store, self.run_id, termination, detail or (self.error or ""), writer=self.rec, lease=self._owner)
        return self.result(final, termination)

    async def _converse(self, position: Position) -> Termination:
        phase: str = position.phase
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
                for data in self.profile.done_events("[DONE]"):  # the words are lost: the signal is stored
                    self.rec.emit(data)
                return "done"
            state = self.user_state().copy(stage_index=position.pointer_before)  # ask again for the words
            turn = await self._call("user", self.user.next_turn(self.convo, state))
            self.rec.emit(MessageEvent(role="user", content=owed_message(self.task, position, state, turn)))
            phase = "agent"
        elif phase == "agent" and position.unanswered and not self.agent.resumes_open_turn:
            # an agent that cannot continue a turn itself
            await answer_unanswered(self.agent.toolbox, position.unanswered, self.rec.emit)
        elif phase == "user":  # resumed after the agent's reply: decide on it as the live run did
            final = self.agent.reply_is_final(self.convo.last_reply() or "")
            phase = "replied"

        while True:
            if phase == "agent":
                self._check_stop()
                reply = await self._call("agent", self.agent.respond(self.convo, self.rec.emit))
                if reply.ends_conversation is not None:
                    self.detail = "the agent's calls failed too many times in a row" if reply.ends_conversation == "error_loop" else ""
                    return reply.ends_conversation
                final = reply.final
                phase = "replied"
            if phase == "replied":
                self._check_stop()
                if self.limits.stop_on_final_answer and final:
                    return "answer"
                phase = "user"
            if self._turns_spent():
                self.detail = self.profile.turn_cap_detail(self.limits)
                return "max_user_turns"
            if self._rounds_spent():
                self.detail = f"{self.limits.max_rounds} model calls (agent calls and compactions)"
                return "max_rounds"
            if is_person(self.user.kind):
                self.rec.drain()  # a person is shown the whole agent turn before being asked
            turn = await self._call("user", self.user.next_turn(self.convo, self.user_state()))
            self._record_turn(turn)
            if turn.reply_kind == "done":
                return "done"
            self._check_stop()
            phase = "agent"

    # ------------------------------------------------------------------ user turns
    def _record_turn(self, turn: UserTurn) -> None:
        for data in turn_events(self.task, self.convo.stage_index, turn, self.profile):
            self.rec.emit(data)

    # ------------------------------------------------------------------ the end
    async def _extract(self, termination: str) -> None:
        await self.rec.adrain()  # the conversation is stored before the run's row records its end
        # the detail is kept with the run, so a run resumed from here ends with the same words
        await asyncio.to_thread(self._merge_meta, {"termination_detail": self.detail} if self.detail else {}, termination=termination)
        worked = self.profile.extracts(replied=self.rec.replied(), steps=self.rec.assistant_steps, termination=termination)
        if is_table_task(self.task) or not worked:
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
        except (_Stop, asyncio.CancelledError, LeaseLost, UserAway):
            raise
        except Exception as exc:  # noqa: BLE001 - a failed extraction ends the run as an error, recorded
            if database_unreachable(exc) is not None:
                raise
            self._fatal("extraction", exc)
            return
        self.extraction_outcome = graph.outcome
        self.rec.emit(
            GraphEvent(
                triples=list(graph.triples),
                raw_text=graph.raw_text or "",
                repaired=list(graph.repaired or []),
                dropped=list(graph.dropped or []),
                outcome=graph.outcome,
            )
        )


async def close_agent(agent: Agent) -> None:
    """Let an agent release what it holds (``aclose``, when it has one); never raises."""
    close = getattr(agent, "aclose", None)
    if close is None:
        return
    try:
        await asyncio.shield(close())
    except Exception:  # noqa: BLE001 - a failed clean-up must not hide how the run ended
        pass


async def run_session(
    config: RunConfig,
    task: Task,
    agent: Agent,
    user: User,
    store: Store,
    settings: Settings,
    *,
    run_id: str | None = None,
    run_fields: RunFields | None = None,
    listeners: Iterable[Listener] = (),
    cancel: asyncio.Event | None = None,
    lease: Driving | None = None,
    opened: OpenedRun | None = None,
) -> RunResult:
    """Run (or, given an existing ``run_id``, continue) the run ``config`` describes and return its
    result. ``config`` is resolved for its profile (``vibesearch.protocol.build_config``);
    ``agent`` and ``user`` are its parts (``make_agent``/``make_user`` of the same config, or a
    person); a new run is opened with ``config`` (``lifecycle.open_run``).

    Raises ``LeaseHeld`` when another process drives the run, ``LeaseLost`` when it took the run
    over while this one was driving (this one then stopped without writing).
    ``lease``: one the caller already holds on this run (``resume_run``); ``opened``: what
    ``open_run`` returned for it, whose lease this driver adopts (at once after the opening: with
    the events it stored, nothing read back).
    """
    require_resolved(config)
    run_id = run_id or new_run_id()
    if lease is None:
        owner, claimed_at = (opened.lease_owner, opened.claimed_at) if opened is not None else (None, None)
        async with Driving(store, run_key(run_id), f"run {run_id}", settings, owner=owner, claimed_at=claimed_at) as held:
            fresh = opened if opened is not None and opened.run_id == run_id and held.adopted_fresh else None
            return await _drive(config, task, agent, user, store, settings, run_id, run_fields, listeners, cancel, held, fresh)
    return await _drive(config, task, agent, user, store, settings, run_id, run_fields, listeners, cancel, lease)


def _open_or_reopen(
    config: RunConfig, task: Task, store: Store, settings: Settings, run_id: str, run_fields: RunFields | None, lease: Driving
) -> tuple[list[StoredEvent], Position, str]:
    """Open a new run, or reopen a stored one: its events, where it stands and the detail it ended with."""
    try:
        existing = store.run_state(run_id)
    except KeyError:
        existing = None
    detail = ""
    if existing is None:
        open_run(store, config, task, settings, run_id=run_id, fields=run_fields, lease=lease.owner)
        events: list[StoredEvent] = store.events(run_id)  # what the profile records first (its note)
        return events, locate(events), detail
    events = store.events(run_id)
    # an abandoned run continued by its owner: the abandonment is history
    set_aside = reopen_run(store, run_id, existing.status, lease=lease.owner if lease else None)
    position = locate(events, None if set_aside else existing.termination)
    detail = str(existing.meta().get("termination_detail", "")) if position.phase == "finish" else ""
    return events, position, detail


async def _drive(
    config: RunConfig,
    task: Task,
    agent: Agent,
    user: User,
    store: Store,
    settings: Settings,
    run_id: str,
    run_fields: RunFields | None,
    listeners: Iterable[Listener],
    cancel: asyncio.Event | None,
    lease: Driving,
    fresh: OpenedRun | None = None,
) -> RunResult:
    """The run itself, read (or created) under the lease; ``fresh``: just opened by this process
    under that lease, so its events are the ones the opening stored (nothing to read back)."""
    if fresh is not None:
        events, position, detail = list(fresh.events), locate(list(fresh.events)), ""
    else:  # in a worker thread: the other runs on the loop go on while this one is opened
        events, position, detail = await asyncio.to_thread(_open_or_reopen, config, task, store, settings, run_id, run_fields, lease)
    session = Session(config, task, agent, user, store, run_id, listeners, cancel, lease)
    session.rec.replay(events)
    session.restore(events, detail)
    try:
        return await session.run(position)
    finally:
        await close_agent(agent)  # an agent holding processes (openclaw's gateway) lets them go
        session.rec.close()  # every write made (or failed) before the lease is let go
