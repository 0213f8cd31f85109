"""The LLM user simulator (SPEC 3.1) with the stage pointer held by the harness.

Each call hands the model the persona, the stages said so far, the next stage's trigger, line
and fallback, and the conversation (the agent's replies as the incoming messages). The model
answers with a ``SimulatorDecision`` (JSON mode, repaired, retried once on bad output). The model
only *judges*; this module decides what the decision means for the pointer:

* ``disclose`` counts only when ``trigger_met`` is true and a next stage exists — otherwise it
  becomes a push (its text is kept unless it is the next stage's line);
* ``done`` counts only once the last stage was disclosed on an earlier turn (so the agent has
  replied to it) — otherwise it becomes a push;
* whatever the output claims, at most one stage advances, and a reply that leaks a stage beyond
  the one disclosed is replaced by the disclosed stage's line.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, field_validator

from ..llm import StructuredOutputError, complete_json
from ..run.conversation import Conversation
from ..run.events import Decision, ErrorEvent, ReplyKind
from ..run.protocols import UserState, UserTurn
from ..run.stages import stage_step
from ..tasks.models import Task
from ._llm_user import LLMPlayedUser
from ._prompt import dialogue_messages, system_prompt
from ._stages import DONE_SIGNAL, LINE_MATCH, line_similarity, plain_reply, push_message, stage_card


class SimulatorDecision(BaseModel):
    """What the simulator model returns for one turn (unknown extra fields are ignored)."""

    model_config = ConfigDict(extra="ignore")

    trigger_met: bool = False
    reply_kind: Decision = "push"
    reply: str = ""
    rationale: str = ""

    @field_validator("reply_kind", mode="before")
    @classmethod
    def _kind(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.strip().lower()
            return {"disclosure": "disclose", "pressure": "push", "finish": "done", "complete": "done"}.get(value, value)
        return value

    @field_validator("trigger_met", mode="before")
    @classmethod
    def _flag(cls, value: object) -> object:
        if isinstance(value, str):
            return value.strip().lower() in ("true", "yes", "1", "met")
        return value

    @field_validator("reply", "rationale", mode="before")
    @classmethod
    def _text(cls, value: object) -> object:
        return "" if value is None else value


class SimulatorUser(LLMPlayedUser):
    kind = "simulator"
    title = "LLM simulator"

    def messages(self, convo: Conversation, state: UserState) -> list[dict[str, str]]:
        card = stage_card(self.task, state)
        return [{"role": "system", "content": system_prompt(self.task, card)}, *dialogue_messages(convo)]

    async def next_turn(self, convo: Conversation, state: UserState) -> UserTurn:
        try:
            decision, _ = await complete_json(
                self.messages(convo, state),
                SimulatorDecision,
                model=self.model,
                purpose="simulator",
                emit=state.emit,
                settings=self.settings,
                sampling=self.sampling.params(),
            )
        except StructuredOutputError as exc:
            if state.emit is not None:
                state.emit(ErrorEvent(source="user", message=f"simulator output unreadable, pushed instead: {exc}"[:1000]))
            nxt = state.next_stage_index
            fallback = self.task.persona.stages[nxt].fallback if nxt is not None else None
            return UserTurn(
                message=push_message(self.task, fallback, state.user_turns),
                reply_kind="push",
                trigger_met=None,
                decided_by="simulator",
                rationale="the simulator's output could not be read twice; the harness pushed with the fallback",
            )
        return apply_decision(self.task, state, decision)


def apply_decision(task: Task, state: UserState, d: SimulatorDecision) -> UserTurn:
    """Turn the model's decision into a turn the harness can accept (the pointer rules above)."""
    stages = task.persona.stages
    nxt = state.next_stage_index
    reply = plain_reply(d.reply)
    kind: ReplyKind = d.reply_kind
    notes: list[str] = []

    if kind == "done":
        if nxt is None:
            return UserTurn(DONE_SIGNAL, "done", trigger_met=d.trigger_met, decided_by="simulator", rationale=d.rationale)
        notes.append("done refused: stages remain")
        kind = "push"
    step = stage_step(state.stage_index, len(stages), kind, advance=kind == "disclose" and d.trigger_met)
    if kind == "disclose" and not step.advanced:
        notes.append("disclose refused: " + ("no stage left" if nxt is None else "trigger not met"))
    kind = step.reply_kind

    reply = reply.replace(DONE_SIGNAL, "").strip()
    if step.advanced:
        assert nxt is not None
        line = stages[nxt].line
        later = [i for i in range(nxt + 1, len(stages)) if line_similarity(stages[i].line, reply) >= LINE_MATCH]
        if later or not reply:
            if later:
                notes.append(f"the reply also said stage {later[0] + 1}; only stage {nxt + 1} is disclosed")
            reply = line
        return UserTurn(
            reply,
            "disclose",
            stage_advanced=True,
            trigger_met=True,
            decided_by="simulator",
            rationale=_why(d.rationale, notes),
        )

    # no advance: the reply must not give away any stage that has not been reached
    leaked = nxt is not None and any(line_similarity(stages[i].line, reply) >= LINE_MATCH for i in range(nxt, len(stages)))
    if leaked or not reply:
        if leaked:
            notes.append("the reply gave away a stage not reached; replaced with a push")
        fallback = stages[nxt].fallback if nxt is not None else None
        reply = push_message(task, fallback, state.user_turns)
    return UserTurn(
        reply,
        kind,
        stage_advanced=False,
        trigger_met=d.trigger_met,
        decided_by="simulator",
        rationale=_why(d.rationale, notes),
    )


def _why(rationale: str, notes: list[str]) -> str | None:
    text = " ".join([rationale.strip(), *(f"[harness: {n}]" for n in notes)]).strip()
    return text or None

