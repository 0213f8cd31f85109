"""The agents under test: ``react`` (an LLM with tools), ``endpoint`` (an external agent behind an
OpenAI-compatible chat endpoint), ``openclaw`` (a real OpenClaw gateway) and ``baseline`` (offline
retrieval with an oracle reader, the default). Each kind is one description in ``registry.py``,
registered in the kind's own module; ``make_agent`` builds the one a ``RunConfig`` names."""

from __future__ import annotations

from ..config import AGENT_KINDS, Settings
from ..protocol import require_resolved
from ..run import Agent, AgentReply, GraphResult, RunConfig, Toolbox
from ..run.web import WebArchive
from ..tasks.models import Task
from . import baseline, endpoint, openclaw_kind, react  # noqa: F401 - each registers its kind
from ._triples import parse_triples
from .registry import AgentKindInfo, agent_kind, agent_kind_names, agent_kinds, find_agent_kind, register_agent_kind

__all__ = [
    "AGENT_KINDS", "Agent", "AgentKindInfo", "AgentReply", "GraphResult", "agent_kind", "agent_kind_names", "agent_kinds",
    "find_agent_kind", "make_agent", "parse_triples", "register_agent_kind", "web_refusal",
]


def web_refusal(config: RunConfig) -> str | None:
    """Why ``config``'s agent cannot take its web mode, or None: an agent that reads the task's
    offline corpus (the baseline: ``AgentKindInfo.needs_corpus``) never sees a web, so a replay of
    a recorded web would run on the corpus while the run says it replayed."""
    if config.search.web == "replay" and agent_kind(config.agent.kind).needs_corpus:
        return (f"the web: the {config.agent.kind} agent reads the task's offline corpus, never a web; "
                "choose an agent with web tools to replay a recorded web")
    return None


def make_agent(
    config: RunConfig,
    task: Task,
    settings: Settings,
    *,
    toolbox: Toolbox | None = None,
    endpoint_key: str | None = None,
    web: WebArchive | None = None,
) -> Agent:
    """Build the agent under test that ``config.agent`` describes (a config resolved for its
    profile: ``vibesearch.protocol.build_config``), with its kind's registered factory. The agent
    reads the run's limits and search from ``config``; ``settings`` gives only process facts
    (retries, timeouts, keys' places). ``endpoint_key`` is a key given with an endpoint's URL
    (never stored); ``web`` is where a run that replays its web reads the recording (the store)."""
    require_resolved(config)
    if (why := web_refusal(config)) is not None:
        raise ValueError(why)
    return agent_kind(config.agent.kind).factory(config, task, settings, toolbox=toolbox, endpoint_key=endpoint_key, web=web)
