"""The paper-faithful simulator: the persona text goes to the model as the official harness gives it.

The model sees the whole persona (all stages) and keeps track of the stages itself; it answers
in free text, and ``[DONE]`` anywhere in its reply ends the run. The harness only *infers* stage
progress afterwards: the next stage counts as disclosed when its line appears in the reply
(rapidfuzz partial ratio of at least 80); a reply that discloses nothing is read as a brush-off
(``perfunctory``), a steer back to what the user asked (``redirect``) or a push. Use this mode to reproduce the official numbers; use
``simulator`` for exact, labelled stage progress.
"""

from __future__ import annotations

import re

from ..llm import complete
from ..run.conversation import Conversation
from ..run.events import Decision
from ..run.protocols import UserState, UserTurn
from ..tasks.export import generated_persona_markdown
from ..tasks.models import Task
from ._llm_user import LLMPlayedUser
from ._prompt import dialogue_messages
from ._stages import DONE_SIGNAL, LINE_MATCH, line_similarity, plain_reply

# how a brushed-off question usually reads (used only to label the inferred reply kind)
_PERFUNCTORY = re.compile(
    r"no (particular )?preference|don'?t (really )?(care|mind)|doesn'?t matter|whatever works|"
    r"无所谓|不太在意|不在意|都行|都可以|没有特别",
    re.I,
)


# how a reply that steers the assistant back reads: "not what I asked", "back to my question", "I
# don't need that, I just want ...", "hold on, I still have questions" (the official simulator's
# answer to an assistant that wraps up early or wanders off, its rules 4 and 5)
_REDIRECT = re.compile(
    r"\b(that'?s|this is|it'?s) not what I (asked|wanted|meant|was asking)|\bnot what I('m| am) (asking|looking) for|"
    r"\b(get|go|come) back to\b|\bback to (my|the|our) (question|point|topic|request)|"
    r"\b(I )?(don'?t|do not) need (that|this|those|these|all that)\b|\b(stay|stick) (on|to) (the|my) (topic|question|point)|"
    r"\bI('m| am) not (asking|interested) (about|in) (that|this)|\bfor now,? I (just|only) want|\bhold on\b|\bnot so fast\b|"
    r"我问的是|我想问的是|不是我要的|不是我问的|跑题|偏题|回到(正题|主题|我的问题|刚才的问题)|先别急|等一下|"
    r"先不急|不急着|暂时不需要|不需要这些|我就想(问|知道|了解)|我只想(问|知道|了解)|先不(用|要)(管|说|聊)",
    re.I,
)


def persona_markdown(task: Task) -> str:
    """The official persona text: the task's own when it came with one, else written from the stages."""
    if task.persona_markdown and task.persona_markdown.strip():
        return task.persona_markdown
    return generated_persona_markdown(task)  # the tasks package's writer of the official layout


def paper_system_prompt(task: Task) -> str:
    return f"""You are standing in for a real person who is chatting with a research assistant. Talk exactly like
that person would: naturally, and answering whatever the assistant asks.

# Your persona
{persona_markdown(task)}

# What you first asked
{task.persona.initial_query}

# The one principle
The persona above lists numbered stages. Each has a trigger condition and a line to say once the
condition holds. You reveal your need one stage at a time, strictly in that order. While a stage's
condition does not hold, you keep pressing the assistant to finish the work in front of it.

# How to behave
1. Triggers. A condition may be that the assistant's reply mentions or contains some information,
   that the assistant itself asks you about some aspect, or that it finishes some piece of work. When
   the condition of the next stage holds, say that stage's line and move on to the following stage.
   When it does not hold, press on: comment on the results, ask for more detail, urge it to finish,
   question whether it is complete or accurate. For a stage whose condition is that the assistant asks
   about something, keep talking about the current topic if it has not asked; do not offer that stage's
   content and never tell the assistant what to ask. Never skip a stage.
2. Answer every question. If the assistant asks about the aspect of the next stage, reveal that stage.
   If it asks about something no stage of your persona covers, say you do not really mind or have no
   preference. If it asks several questions, answer them all in one message.
3. Keep the order: one stage per message, never two at once, never one out of turn.
4. Keep going while a condition is unmet; do not fall silent, give up or change the subject.
5. No pleasantries, goodbyes or small talk. If the assistant seems to be wrapping up while stages
   remain, keep the conversation going.
6. When the assistant has thoroughly handled every stage, send exactly {DONE_SIGNAL}. Not before every
   stage has been triggered and handled.
7. Sound natural. Do not ask for triples or a knowledge graph. Do not use Markdown. Do not reveal
   answers you would not know. Send only your message (or {DONE_SIGNAL}) and nothing else."""


class PaperUser(LLMPlayedUser):
    kind = "paper"
    title = "paper simulator"

    def messages(self, convo: Conversation) -> list[dict[str, str]]:
        return [{"role": "system", "content": paper_system_prompt(self.task)}, *dialogue_messages(convo)]

    async def next_turn(self, convo: Conversation, state: UserState) -> UserTurn:
        result = await complete(
            self.messages(convo), model=self.model, purpose="simulator", emit=state.emit, settings=self.settings,
            sampling=self.sampling.params(),
        )
        return infer_turn(self.task, state, result.content)


def infer_turn(task: Task, state: UserState, text: str) -> UserTurn:
    """Read the stage decision off a free-text reply."""
    raw = (text or "").strip()
    if DONE_SIGNAL in raw:
        return UserTurn(DONE_SIGNAL, "done", decided_by="simulator", rationale="inferred from text: [DONE] in the reply")
    reply = plain_reply(raw)
    nxt = state.next_stage_index
    if nxt is not None:
        score = line_similarity(task.persona.stages[nxt].line, reply)
        if score >= LINE_MATCH:
            return UserTurn(
                reply,
                "disclose",
                stage_advanced=True,
                trigger_met=True,
                decided_by="simulator",
                rationale=f"inferred from text: stage {nxt + 1}'s line appears (similarity {score:.0f})",
            )
    later: list[int] = []
    if nxt is not None:
        later = [i for i in range(nxt + 1, len(task.persona.stages)) if line_similarity(task.persona.stages[i].line, reply) >= LINE_MATCH]
    note = f"; the reply says stage {later[0] + 1}'s line out of order" if later else ""
    kind: Decision = "perfunctory" if _PERFUNCTORY.search(reply) else "redirect" if _REDIRECT.search(reply) else "push"
    return UserTurn(reply, kind, trigger_met=None, decided_by="simulator", rationale="inferred from text" + note)

