"""The user simulator of the official profile (``run_one_simulated`` of the official harness).

* Its system prompt is the ``PromptSet``'s simulator prompt, filled with the official persona text
  and the initial query: the initial query appears there only, never as a turn of its own.
* It then sees each reply of the agent in full as an incoming message, and its own earlier
  messages as it wrote them; what it writes goes to the agent verbatim.
* ``[DONE]`` anywhere in its answer ends the conversation. A call that fails or answers nothing is
  tried again after a pause (1 s, then 2 s, times ``settings.llm_backoff_s``); after
  ``SIMULATOR_ATTEMPTS`` failures the conversation ends as if it said ``[DONE]``.
* The agent's text it is handed is the last assistant message with any content (whitespace
  included, as the official ``_extract_last_assistant_text`` reads it), whichever step wrote it.
* Stage progress is only inferred from the text afterwards (``paper.infer_turn``), as for the
  paper-faithful simulator.
"""

from __future__ import annotations

import asyncio

from ..config import Settings
from ..llm import LLMError, complete
from ..protocol import PromptSet
from ..protocol.rules import SIMULATOR_ATTEMPTS
from ..run.config import Sampling
from ..run.conversation import Conversation
from ..run.events import ErrorEvent
from ..run.protocols import UserState, UserTurn
from ..tasks.models import Task
from ._llm_user import LLMPlayedUser
from ._stages import DONE_SIGNAL
from .paper import infer_turn, persona_markdown


class OfficialUser(LLMPlayedUser):
    kind = "paper"
    title = "official simulator"

    def __init__(
        self, task: Task, settings: Settings | None = None, *, model: str, prompts: PromptSet, sampling: Sampling | None = None,
        attempts: int = SIMULATOR_ATTEMPTS,
    ):
        super().__init__(task, settings, model=model, sampling=sampling)
        self.prompts = prompts
        self.attempts = attempts  # one for the OpenClaw driver's own simulator

    def system_prompt(self) -> str:
        return self.prompts.simulator_system_prompt(persona_markdown(self.task), self.task.persona.initial_query)

    def messages(self, convo: Conversation) -> list[dict[str, str]]:
        """System prompt, then per agent turn: the agent's latest text as the incoming message and,
        before it, the simulator's own message that the turn answered (the opening excluded)."""
        msgs = [{"role": "system", "content": self.system_prompt()}]
        latest = ""
        for i, turn in enumerate(t for t in convo.turns if t.phase == "dialogue"):
            if i > 0:
                msgs.append({"role": "assistant", "content": turn.user})
            # the official harness hands over the agent's last text, whatever step wrote it
            latest = next((s.content for s in reversed(turn.steps) if s.content), latest)
            msgs.append({"role": "user", "content": latest})
        return msgs

    async def next_turn(self, convo: Conversation, state: UserState) -> UserTurn:
        messages = self.messages(convo)
        problem = ""
        for attempt in range(1, self.attempts + 1):
            try:
                result = await complete(
                    messages, model=self.model, purpose="simulator", emit=state.emit, settings=self.settings,
                    sampling=self.sampling.params(), retries=0,  # three single calls, as the official harness makes
                )
            except LLMError as exc:
                problem = str(exc)
            else:
                text = result.content.strip()
                if text:
                    turn = infer_turn(self.task, state, text)
                    if turn.reply_kind != "done":
                        turn.message = text  # verbatim, as the official harness passes it on
                    return turn
                problem = "the simulator answered nothing"
            if state.emit is not None:
                state.emit(ErrorEvent(source="user", message=f"official simulator, attempt {attempt}: {problem}"[:1000]))
            if attempt < self.attempts:
                await asyncio.sleep(float(attempt) * self.settings.llm_backoff_s)
        return UserTurn(
            DONE_SIGNAL,
            "done",
            decided_by="simulator",
            rationale=f"the simulator failed {self.attempts} {'time' if self.attempts == 1 else 'times'}; the conversation ends as if it said {DONE_SIGNAL}",
        )
