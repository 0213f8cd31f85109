"""The ReAct agent: an LLM with native function calling over the run's toolbox (SPEC 4.1).

Each user turn is a sequence of steps; a step is one LLM call. A step that calls tools is
recorded as an assistant ``message`` (with ``n_tool_calls``), one ``tool_call`` per call and one
``tool_result`` per call; the tools of a step run concurrently. The first step without tool
calls is the reply to the user (``final=True``). After the run's ``limits.max_steps_per_turn`` tool
steps the agent is made to reply with one more call that offers no tools.

The working context is always rebuilt from the ``Conversation`` (system prompt +
``convo.agent_messages()``), which the session updates with every event the agent emits; so a
resumed run and a live run see the same context. Before each call the context is measured and
compacted when it is too large (``compaction.Compactor``). An ``LLMError`` (after the client's
retries) propagates: the session records it as a fatal error.

A resumed run may hand over a turn with some steps stored already: the agent runs only the tool
calls whose result is missing, counts the stored steps against its step budget and goes on; an
extraction whose instruction is stored goes on from it.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from .._fields import MissingSetting
from ..config import Settings
from ..protocol import profile_of
from ..run import Agent, AgentReply, Conversation, RunConfig, Emit, GraphResult, Limits, MessageEvent, NoteEvent, Sampling, Toolbox
from ..run.web import WebArchive
from ..tasks.models import Task
from ._context import missing_results, open_turn_steps, plain_messages, tracking_emit
from .compaction import Compactor
from .extraction import extraction_instruction, parse_triples, pending_instruction, record_graph_answer
from .prompts import FORCED_REPLY_NOTE, system_prompt
from .registry import AgentKindInfo, register_agent_kind
from .steps import StepKit, is_final_answer


class ReactAgent:
    """A tool-using LLM agent (any litellm model string).

    ``limits`` are the run's (``RunConfig.limits``: the step cap per turn, the compaction
    threshold); ``settings`` only the process facts of its model calls (retries, timeouts)."""

    def __init__(
        self,
        task: Task,
        settings: Settings,
        *,
        model: str,
        toolbox: Toolbox,
        limits: Limits | None = None,
        today: date | None = None,
        api_base: str | None = None,
        api_key: str | None = None,
        sampling: Sampling | None = None,
    ):
        self.task = task
        self.limits = limits or Limits()
        self.kit = StepKit(model=model, toolbox=toolbox, settings=settings, sampling=sampling or Sampling(), api_base=api_base, api_key=api_key)
        self.system = system_prompt(today)
        self.compactor = Compactor(model=model, settings=settings, system_prompt=self.system, limits=self.limits)
        self.name = f"react:{model}"
        self.description = (
            f"ReAct agent on {model}: native function calling over the tools search, visit, "
            "scholar_search and python, with context compaction"
        )

    kind = "react"
    resumes_open_turn = True

    @property
    def model(self) -> str:
        return self.kit.model

    @property
    def toolbox(self) -> Toolbox:
        return self.kit.toolbox

    # ------------------------------------------------------------------ dialogue
    async def respond(self, convo: Conversation, emit: Emit) -> AgentReply:
        kit = self.kit
        stored = open_turn_steps(convo)  # steps of this turn stored before an interruption
        emit = tracking_emit(convo, emit)
        schemas, known = kit.offered()
        owed = missing_results(stored)
        if owed:  # calls cut off before their results: run those, and only those
            await kit.run_calls(emit, owed, known)
        cap = self.limits.max_steps_per_turn
        limit_noted = bool(stored) and any(n.data.get("max_steps_per_turn") for n in convo.turns[-1].notes)
        steps = 0
        while cap is None or steps < max(1, cap) - len(stored):
            steps += 1
            messages = await self._context(convo, emit, schemas)
            result = await kit.call(messages, emit, tools=schemas, purpose="agent")
            if not result.tool_calls:
                return kit.reply(emit, result.content, result.thinking)
            calls = kit.record_step(emit, result)
            await kit.run_calls(emit, calls, known)

        # the step budget is spent: one more call, without tools, for the reply
        if not limit_noted:
            emit(
                NoteEvent(
                    text=f"step limit of {cap} reached; asking the agent to reply without tools",
                    data={"max_steps_per_turn": cap},
                )
            )

        def forced(c: Conversation) -> list[dict[str, Any]]:
            return plain_messages(self._messages(c)) + [{"role": "user", "content": FORCED_REPLY_NOTE}]

        await self.compactor.ensure_room(convo, emit, forced)
        result = await kit.call(forced(convo), emit, tools=None, purpose="agent")
        return kit.reply(emit, result.content, result.thinking)

    # ------------------------------------------------------------------ extraction
    async def extract_graph(self, convo: Conversation, emit: Emit) -> GraphResult:
        emit = tracking_emit(convo, emit)
        instruction = extraction_instruction(self.task.language)

        def with_instruction(c: Conversation) -> list[dict[str, Any]]:
            return plain_messages(self._messages(c) + [{"role": "user", "content": instruction}])

        if pending_instruction(convo) is None:  # a resumed run may have asked already
            # compaction (if needed) comes before the instruction so the summary never swallows it
            await self.compactor.ensure_room(convo, emit, with_instruction)
            emit(MessageEvent(role="user", content=instruction, phase="extraction"))
        messages = plain_messages(self._messages(convo))
        result = await self.kit.call(messages, emit, tools=None, purpose="extraction")
        return record_graph_answer(emit, result.content, result.thinking)

    # ------------------------------------------------------------------ internals
    def _messages(self, convo: Conversation) -> list[dict[str, Any]]:
        return [{"role": "system", "content": self.system}, *self.compactor.context(convo)]

    async def _context(self, convo: Conversation, emit: Emit, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        built: list[list[dict[str, Any]]] = []

        def build(c: Conversation) -> list[dict[str, Any]]:
            messages = self._messages(c)
            if c is convo:
                built.append(messages)
            return messages

        # the context measured is the context sent, unless a compaction changed the conversation
        if await self.compactor.ensure_room(convo, emit, build, tools) is None and built:
            return built[-1]
        return self._messages(convo)

    def reply_is_final(self, text: str) -> bool:
        """A reply is a final answer unless it is empty or ends by asking the user something."""
        return is_final_answer(text)


__all__ = ["ReactAgent", "parse_triples"]


def build_react(config: RunConfig, task: Task, settings: Settings, *, toolbox: Toolbox | None, endpoint_key: str | None, web: WebArchive | None = None) -> Agent:
    """``config.agent.model`` is a litellm model string; the toolbox defaults to
    ``make_toolbox(task, config.search, settings)``. When the run's profile runs the official loop
    it is the official agent (``official.OfficialAgent``) with the profile's prompts (the
    configured checkout, or ours)."""
    spec = config.agent
    if not spec.model:
        raise MissingSetting("the react agent needs a model", "agent_model",
                             example="a litellm model string such as 'openai/gpt-4o-mini' or 'ollama_chat/qwen2.5'")
    profile = profile_of(config.protocol)
    prompts = profile.prompts(settings) if (profile.official_loop or profile.official_tools) else None
    if toolbox is None and profile.official_tools and prompts is not None:
        from ..tools import make_official_toolbox

        toolbox = make_official_toolbox(task, settings, search=config.search, prompts=prompts, model=spec.model, web=web)
    elif toolbox is None:
        from ..tools import make_toolbox

        toolbox = make_toolbox(task, settings, search=config.search, web=web)
    if profile.official_loop:
        from .official import OfficialAgent

        if prompts is None:
            raise ValueError(f"the {profile.name} profile runs the official loop but gives it no prompts")
        return OfficialAgent(task, settings, model=spec.model, toolbox=toolbox, limits=config.limits, prompts=prompts, sampling=spec.sampling)
    return ReactAgent(task, settings, model=spec.model, toolbox=toolbox, limits=config.limits, sampling=spec.sampling)


register_agent_kind(AgentKindInfo(
    name="react", label="ReAct agent with a model", help="an LLM with tools; needs --model", factory=build_react,
    needs_model=True, uses_summariser=True,
))
