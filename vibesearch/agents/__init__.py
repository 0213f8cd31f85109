"""The agents under test: ``react`` (an LLM with tools), ``endpoint`` (an external agent behind an
OpenAI-compatible chat endpoint) and ``baseline`` (offline retrieval with an oracle reader, the
default). ``make_agent`` builds one from a kind and the settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._triples import parse_triples
from .base import Agent, AgentReply, GraphResult

if TYPE_CHECKING:
    from ..config import Settings
    from ..tasks.models import Task
    from ..tools.base import Toolbox

AGENT_KINDS = ("baseline", "react", "endpoint")

__all__ = ["AGENT_KINDS", "Agent", "AgentReply", "GraphResult", "make_agent", "parse_triples"]


def make_agent(
    kind: str,
    task: "Task",
    settings: "Settings",
    *,
    model: str | None = None,
    toolbox: "Toolbox | None" = None,
    endpoint_url: str | None = None,
    endpoint_model: str | None = None,
    endpoint_key: str | None = None,
) -> Any:
    """Build the agent under test.

    * ``react``: ``model`` (or ``settings.agent_model``) is a litellm model string; the toolbox
      defaults to ``make_toolbox(task, settings)``.
    * ``endpoint``: ``endpoint_url`` (or ``settings.endpoint_url``), ``endpoint_model`` (or
      ``settings.endpoint_model``), optional ``endpoint_key`` (or ``settings.endpoint_key``, which is
      only ever sent to ``settings.endpoint_url``).
    * ``baseline``: no model; it needs the task's offline corpus.
    """
    if kind == "react":
        model = model or settings.agent_model
        if not model:
            raise ValueError(
                "the react agent needs a model: pass --model (a litellm model string such as "
                "'openai/gpt-4o-mini' or 'ollama_chat/qwen2.5') or set VIBESEARCH_AGENT_MODEL"
            )
        from .react import ReactAgent

        if toolbox is None:
            from ..tools import make_toolbox

            toolbox = make_toolbox(task, settings)
        return ReactAgent(task, settings, model=model, toolbox=toolbox)
    if kind == "endpoint":
        url = endpoint_url or settings.endpoint_url
        if not url:
            raise ValueError(
                "the endpoint agent needs the URL of an OpenAI-compatible chat endpoint: pass "
                "--endpoint-url (e.g. http://127.0.0.1:8000/v1) or set VIBESEARCH_ENDPOINT_URL"
            )
        # the configured key goes only to the configured URL; any other URL gets only the key
        # given with it (or none)
        key = endpoint_key if endpoint_key is not None else settings.endpoint_key_for(url)
        from .endpoint import EndpointAgent

        return EndpointAgent(task, settings, url=url, model=endpoint_model or settings.endpoint_model, key=key)
    if kind == "baseline":
        if not task.corpus:
            raise ValueError(
                f"the baseline agent searches the task's offline corpus, and task {task.id!r} has none "
                "(set 'corpus' in the task file, or use --agent react with a model)"
            )
        from .baseline import BaselineAgent

        return BaselineAgent(task, settings, toolbox=toolbox)
    raise ValueError(f"unknown agent kind {kind!r}: expected one of {', '.join(AGENT_KINDS)}")
