"""The LLM simulator's prompt (our own wording of the paper's seven rules) and its dialogue view."""

from __future__ import annotations

from typing import Any

from ..run.conversation import Conversation
from ..tasks.models import Task
from ._stages import DONE_SIGNAL, StageCard

# earlier agent replies are cut to this many characters; the latest one is kept whole
EARLIER_REPLY_CHARS = 4000
LATEST_REPLY_CHARS = 24000

_KIND_HELP = {
    "mentions": "met when the assistant's latest message contains the information described",
    "asks": (
        "met only when the assistant itself, in its latest message, asks YOU about the aspect "
        "described. Its statements do not count, and you must never hint at what it should ask"
    ),
    "completes": "met when the assistant's latest message delivers the piece of work described, in full",
}

_RULES = f"""RULES YOU FOLLOW
1. One stage at a time, in order. Never skip a stage, never fold two stages into one message, and never
   let anything from a stage you have not reached slip out.
2. Judge the next stage's trigger against the assistant's LATEST message only. If it is met, say that
   stage's line (light rewording so it flows is fine, but keep every question and detail in it).
3. If it is not met, keep the pressure on: react to what the assistant found, ask for the details that
   are missing, doubt whether the list is complete or correct, urge it to finish the job. Do not go
   quiet and do not change the subject. When the next stage is of the "asks" kind, keep talking about
   the current topic and never suggest, even indirectly, what the assistant ought to ask you.
4. Behave like a real person: answer every question the assistant put to you. A question about
   something none of your stages covers gets a short, indifferent answer ("no particular preference",
   "I don't really mind"). If it asked several questions, answer all of them in the same message.
5. No greetings, thanks-and-goodbyes or small talk. If the assistant starts wrapping up while stages
   remain, carry on with your need.
6. Only when every stage has been said AND the assistant has properly dealt with the last one do you
   end, with reply_kind "done" and the reply "{DONE_SIGNAL}".
7. You do not know the answers you are looking for, so never state them. Never ask for triples, a
   knowledge graph or JSON. No Markdown (no lists, headings or bold). The reply holds only the words you
   would type into the chat box."""

_OUTPUT = """ANSWER FORMAT
Answer with one JSON object and nothing else:
{"trigger_met": true or false, "reply_kind": "disclose" | "push" | "perfunctory" | "redirect" | "done",
 "reply": "your message to the assistant", "rationale": "one sentence: why"}
- trigger_met: whether the assistant's latest message meets the next stage's trigger.
- disclose: you say the next stage's line (only when trigger_met is true).
- push: the trigger is not met and you press on with the current topic.
- perfunctory: you mainly brush off a question that none of your stages covers (and then press on).
- redirect: the assistant drifted or answered something you did not ask, and you steer it back.
- done: every stage has been said and the last one was dealt with."""


def system_prompt(task: Task, card: StageCard) -> str:
    persona = task.persona
    said = "\n".join(
        f'  stage {i} "{s.name}": "{s.line}"' for i, s in enumerate(persona.stages[: card.stage_index + 1])
    )
    parts = [
        "You are playing a person who is chatting with a research assistant (an AI that searches the web "
        "for them). Stay in character for the whole conversation and write the way that person would type.",
        "",
        "WHO YOU ARE",
        persona.background.strip(),
    ]
    if persona.behavior.strip():
        parts += ["", "HOW YOU BEHAVE", persona.behavior.strip()]
    parts += [
        "",
        "HOW YOUR NEED UNFOLDS",
        f"Your need is split into {card.stages_total} numbered stages that you reveal one by one. The system "
        "keeps track of where you are; you only judge the assistant's latest message.",
        "What you have already said (stages 0 to " f"{card.stage_index}):",
        said,
        "",
    ]
    if card.next_index is None:
        parts += [
            "Every stage has been said. If the assistant has properly dealt with the last one, you are done; "
            "otherwise press it to finish that part.",
        ]
    else:
        kind = card.trigger_kind or "mentions"
        parts += [
            f'NEXT STAGE: stage {card.next_index} "{card.next_name}"',
            f"  trigger kind: {kind} ({_KIND_HELP.get(kind, '')})",
            f"  trigger condition: {card.trigger_condition}",
            f'  line to say when the trigger is met: "{card.next_line}"',
            f"  while it is not met: {card.fallback or 'keep the assistant working on the current topic'}",
        ]
        if card.next_index + 1 < card.stages_total:
            parts.append("Stages after this one stay hidden until it has been said.")
    parts += ["", _RULES, "", _OUTPUT]
    return "\n".join(parts)


def dialogue_messages(convo: Conversation) -> list[dict[str, Any]]:
    """The conversation seen from the user's side: the agent's replies are the incoming messages."""
    turns = convo.dialogue()
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "(The assistant is ready. Send your first message.)"}]
    last_assistant = max((i for i, m in enumerate(turns) if m["role"] == "assistant"), default=-1)
    for i, m in enumerate(turns):
        if m["role"] == "user":
            msgs.append({"role": "assistant", "content": m["content"]})
        else:
            limit = LATEST_REPLY_CHARS if i == last_assistant else EARLIER_REPLY_CHARS
            text = m["content"] or "(empty reply)"
            if len(text) > limit:
                text = text[:limit] + f"\n[... {len(text) - limit} more characters ...]"
            msgs.append({"role": "user", "content": text})
    return msgs
