"""The rule-based simulator: the offline default user, no model needed.

Each turn looks only at the agent's latest reply:

* the next stage's trigger fires when the reply contains one of the stage's ``cues``
  (case-insensitive; for ``asks`` stages the cue must sit in a question to the user). A stage
  without cues gets cues derived from its trigger condition (quoted phrases, capitalised names,
  Chinese examples in brackets) — see ``_stages.trigger_fires``;
* fired: the user says the stage's line (``disclose``);
* not fired: a push built from the stage's fallback; when the agent asked something no stage
  covers, a perfunctory answer comes first (``perfunctory``);
* once the last stage was disclosed and the agent has answered it: ``done`` (``[DONE]``).
"""

from __future__ import annotations

from ..config import Settings
from ..run.config import RunConfig
from ..run.conversation import Conversation
from ..run.protocols import UserState, UserTurn
from ..tasks.models import Task
from .registry import UserKindInfo, register_user_kind
from ._stages import (
    DONE_SIGNAL,
    perfunctory_message,
    push_message,
    question_covered,
    questions,
    trigger_fires,
)


class RuleUser:
    kind = "rules"
    model: str | None = None

    def __init__(self, task: Task):
        self.task = task

    async def opening(self, state: UserState) -> UserTurn:
        return UserTurn(message=self.task.persona.initial_query, reply_kind="open", decided_by="rules")

    async def next_turn(self, convo: Conversation, state: UserState) -> UserTurn:
        return self.decide(convo.last_reply() or "", state)

    def decide(self, reply: str, state: UserState) -> UserTurn:
        """The decision on one agent reply (pure: the same reply and state give the same turn)."""
        stages = self.task.persona.stages
        nxt = state.next_stage_index
        if nxt is None:
            return UserTurn(
                message=DONE_SIGNAL,
                reply_kind="done",
                trigger_met=None,
                decided_by="rules",
                rationale="every stage was disclosed and the agent has replied to the last one",
            )
        stage = stages[nxt]
        fired, why = trigger_fires(stage, reply)
        if fired:
            return UserTurn(
                message=stage.line,
                reply_kind="disclose",
                stage_advanced=True,
                trigger_met=True,
                decided_by="rules",
                rationale=f"stage {nxt + 1} ({stage.name}) fired: {why}"  # counted from 1, as people read it,
            )
        push = push_message(self.task, stage.fallback, state.user_turns)
        uncovered = [q for q in questions(reply) if not question_covered(self.task, q)]
        if uncovered:
            return UserTurn(
                message=perfunctory_message(self.task, stage.fallback),
                reply_kind="perfunctory",
                trigger_met=False,
                decided_by="rules",
                rationale=f"answered {len(uncovered)} question(s) no stage covers; {why}",
            )
        return UserTurn(message=push, reply_kind="push", trigger_met=False, decided_by="rules", rationale=why)


def build_rules(config: RunConfig, task: Task, settings: Settings) -> RuleUser:
    return RuleUser(task)


register_user_kind(UserKindInfo(
    name="rules", label="Rule-based simulator (offline)", help="offline", factory=build_rules, same_answer=True,
))
