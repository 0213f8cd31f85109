"""What a person's reply kinds mean, and what is sent for each when they leave the message empty.

One source for the words: ``HumanUser.normalise`` sends ``auto_message`` for an empty message,
and the app's card and the terminal prompt show the very same text before it is sent.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..run.events import DECISIONS, Decision
from ..tasks.models import Task
from ._stages import DONE_SIGNAL, language_of, perfunctory_message, push_body, push_message

_REDIRECT_LEAD = {"en": "Let's get back to what I asked. ", "zh": "我们先回到我问的问题上。"}

# one line each: what the reply kind does
KIND_MEANING: dict[Decision, str] = {
    "disclose": "the next stage's trigger has fired: say its line and move on to that stage",
    "push": "the trigger has not fired: press for what you still need without revealing the next stage",
    "perfunctory": "the agent asked about something none of your stages covers: brush it off, then press on",
    "redirect": "the agent drifted or answered something you did not ask: steer it back",
    "done": "every stage has been dealt with: end the conversation (the agent then writes its graph and the run is scored)",
}


def auto_message(task: Task, kind: Decision, stage_index: int, user_turns: int = 0) -> str:
    """The message sent for ``kind`` when the person writes none, with the stage pointer at
    ``stage_index`` (disclose: the next stage's line; once every stage is out, a push)."""
    stages = task.persona.stages
    nxt = stage_index + 1 if stage_index + 1 < len(stages) else None
    fallback = stages[nxt].fallback if nxt is not None else None
    lang = language_of(task)
    if kind == "done":
        return DONE_SIGNAL
    if kind == "disclose" and nxt is not None:
        return stages[nxt].line
    if kind == "perfunctory":
        return perfunctory_message(task, fallback)
    if kind == "redirect":
        return _REDIRECT_LEAD[lang] + push_body(task, fallback)
    return push_message(task, fallback, user_turns)


@dataclass(frozen=True)
class KindHelp:
    kind: Decision
    meaning: str
    empty: str  # what is sent when the message box is left empty


def reply_kind_help(task: Task, stage_index: int, user_turns: int = 0) -> list[KindHelp]:
    """Every reply kind with its meaning and the message an empty box sends now."""
    return [KindHelp(k, KIND_MEANING[k], auto_message(task, k, stage_index, user_turns)) for k in DECISIONS]
