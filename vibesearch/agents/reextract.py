"""Asking a stored run for its graph again, with the current triple request (the official harness's
``scripts/re_extract_triples.py``): the conversation as the agent last had it, before its
extraction request, then the request of the prompt source given now, as one call.

* The context is the official client's (``_official_context``): the system prompt of the run's
  language, the dialogue's native messages; after a compaction, the official rebuild — whose
  question is the task's final query when it has one, as the official script rebuilds it.
* One call: no tools, the sampling of the run's profile (``Profile.reextraction_sampling``: under
  the official profile temperature 0.7, top_p 0.95 — what the script's OpenAI client sends when it
  is given none — and ``max_tokens`` 32,768; under ours only the 32,768 tokens, the provider's own
  temperature), ``CLIENT_ATTEMPTS`` attempts; DeepSeek and Kimi models get the chat template's
  thinking switch the script sends both. An empty answer is kept, not asked again.

The answer is the run's newest graph (``GraphEvent`` of source ``reextraction``, stored in the
graphs table beside the run's own): scoring grades the newest one unless told otherwise.
"""

from __future__ import annotations

from typing import Any

from ..config import Settings
from ..llm import complete
from ..protocol import PromptSet
from ..protocol.profiles import official_language, profile_of
from ..protocol.rules import CLIENT_ATTEMPTS
from ..run import Conversation, GraphEvent, Limits, StoredEvent
from ..run.config import ProtocolProfile
from ..run.events import Emit, MessageEvent
from ..tasks.models import Task
from ._official_context import OfficialCompactor
from ._triples import parse_triples

SOURCE = "reextraction"


class NothingToReextract(ValueError):
    """The run has no conversation to ask again over."""


def reextraction_context(task: Task, events: list[StoredEvent], prompts: PromptSet) -> list[dict[str, Any]]:
    """The messages of the re-extraction request: the dialogue before the extraction request, as
    the official client keeps it, then the current request."""
    dialogue = [e for e in _before_extraction(events)]
    convo = Conversation.from_events(dialogue)
    if not any(t.phase == "dialogue" for t in convo.turns):
        raise NothingToReextract("the run has no dialogue")
    language = official_language(task)
    rebuild = OfficialCompactor(
        model="reextract", settings=Settings(), system_prompt="", limits=Limits(), prompts=prompts.compaction,
        question=task.final_query or task.persona.initial_query, ask=_never,
    )
    return [
        {"role": "system", "content": prompts.agent_system_prompt(language)},
        *rebuild.context(convo),
        {"role": "user", "content": prompts.extraction_prompt(language)},
    ]


async def reextract(
    task: Task, events: list[StoredEvent], prompts: PromptSet, *, model: str, settings: Settings, protocol: ProtocolProfile,
    emit: Emit | None = None,
) -> GraphEvent:
    """Ask ``model`` for the graph again over the stored run's conversation, sampling as the run's
    profile (``protocol``) re-extracts; the graph to store."""
    messages = reextraction_context(task, events, prompts)
    name = model.lower()
    body = {"chat_template_kwargs": {"thinking": True, "reasoning_effort": "max"}} if ("deepseek" in name or "kimi" in name) else None
    result = await complete(
        messages, model=model, purpose="extraction", emit=emit, settings=settings,
        sampling=profile_of(protocol).reextraction_sampling.params(), retries=CLIENT_ATTEMPTS - 1, extra_body=body,
    )
    text = result.content.strip()
    graph = parse_triples(text)
    return GraphEvent(triples=list(graph.triples), raw_text=text, repaired=list(graph.repaired), dropped=list(graph.dropped),
                      source=SOURCE, outcome="answer" if text else "empty_response")


def _before_extraction(events: list[StoredEvent]) -> list[StoredEvent]:
    """The events up to the run's (first) extraction request."""
    for i, ev in enumerate(events):
        d = ev.data
        if isinstance(d, MessageEvent) and d.role == "user" and d.phase == "extraction":
            return events[:i]
    return [e for e in events if e.data.kind != "end"]


async def _never(messages: list[dict[str, Any]], emit: Emit, purpose: str) -> Any:
    raise AssertionError("a re-extraction never compacts")
