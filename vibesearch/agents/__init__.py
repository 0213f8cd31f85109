"""The agents under test: ``react`` (an LLM with tools), ``endpoint`` (an external agent behind an
OpenAI-compatible chat endpoint) and ``baseline`` (offline retrieval with an oracle reader, the
default). ``make_agent`` builds the one a ``RunConfig`` names."""

from __future__ import annotations

from .._fields import MissingSetting
from ..config import AGENT_KINDS, Settings
from ..protocol import profile_of, require_resolved
from ..run import Agent, AgentReply, GraphResult, RunConfig, Toolbox
from ..tasks.models import Task
from ._triples import parse_triples


__all__ = ["AGENT_KINDS", "Agent", "AgentReply", "GraphResult", "make_agent", "parse_triples"]


def make_agent(
    config: RunConfig,
    task: Task,
    settings: Settings,
    *,
    toolbox: Toolbox | None = None,
    endpoint_key: str | None = None,
) -> Agent:
    """Build the agent under test that ``config.agent`` describes (a config resolved for its
    profile: ``vibesearch.protocol.build_config``). The agent reads the run's limits and search
    from ``config``; ``settings`` gives only process facts (retries, timeouts, keys' places).

    * ``react``: ``config.agent.model`` is a litellm model string; the toolbox defaults to
      ``make_toolbox(task, config.search, settings)``. When the run's profile runs the official
      loop it is the official agent (``official.OfficialAgent``) with the profile's prompts (the
      configured checkout, or ours).
    * ``endpoint``: ``config.agent.endpoint_url`` and ``endpoint_model``; ``endpoint_key`` is a key
      given with the URL (never stored). Without one, the configured key (``settings.endpoint_key``)
      is sent only when the URL is the configured one (``Settings.endpoint_key_for``).
    * ``baseline``: no model; it needs the task's offline corpus.
    """
    require_resolved(config)
    spec = config.agent
    if spec.kind == "react":
        if not spec.model:
            raise MissingSetting("the react agent needs a model", "agent_model",
                                 example="a litellm model string such as 'openai/gpt-4o-mini' or 'ollama_chat/qwen2.5'")
        profile = profile_of(config.protocol)
        prompts = profile.prompts(settings) if (profile.official_loop or profile.official_tools) else None
        if toolbox is None and profile.official_tools and prompts is not None:
            from ..tools import make_official_toolbox

            toolbox = make_official_toolbox(task, settings, search=config.search, prompts=prompts, model=spec.model)
        elif toolbox is None:
            from ..tools import make_toolbox

            toolbox = make_toolbox(task, settings, search=config.search)
        if profile.official_loop:
            from .official import OfficialAgent

            if prompts is None:
                raise ValueError(f"the {profile.name} profile runs the official loop but gives it no prompts")
            return OfficialAgent(task, settings, model=spec.model, toolbox=toolbox, limits=config.limits, prompts=prompts, sampling=spec.sampling)
        from .react import ReactAgent

        return ReactAgent(task, settings, model=spec.model, toolbox=toolbox, limits=config.limits, sampling=spec.sampling)
    if spec.kind == "endpoint":
        url = spec.endpoint_url
        if not url:
            raise MissingSetting("the endpoint agent needs the URL of an OpenAI-compatible chat endpoint", "endpoint_url",
                                 example="e.g. http://127.0.0.1:8000/v1")
        # the configured key goes only to the configured URL; any other URL gets only the key
        # given with it (or none)
        key = endpoint_key if endpoint_key is not None else settings.endpoint_key_for(url)
        from .endpoint import EndpointAgent

        return EndpointAgent(task, settings, url=url, model=spec.endpoint_model or "agent", key=key, sampling=spec.sampling)
    if spec.kind == "baseline":
        if not task.corpus:
            raise ValueError(
                f"the baseline agent searches the task's offline corpus, and task {task.id!r} has none "
                "(set 'corpus' in the task file, or use --agent react with a model)"
            )
        from .baseline import BaselineAgent

        return BaselineAgent(task, settings, search=config.search, toolbox=toolbox)
    if spec.kind == "openclaw":
        return _openclaw_agent(config, task, settings, toolbox)
    raise ValueError(f"unknown agent kind {spec.kind!r}: expected one of {', '.join(AGENT_KINDS)}")


def _openclaw_agent(config: RunConfig, task: Task, settings: Settings, toolbox: Toolbox | None) -> Agent:
    """OpenClaw on the run's model, with the run's tools as its web (refused in one line when
    OpenClaw or a Node.js new enough is not installed)."""
    from ..protocol.profiles import official_language
    from .openclaw import OpenclawAgent, find_openclaw
    from .prompts import extraction_instruction, system_prompt

    spec = config.agent
    if not spec.model:
        raise MissingSetting("the openclaw agent needs a model", "agent_model",
                             example="a litellm model string such as 'openai/gpt-4o-mini'; OpenClaw calls it through vibesearch")
    install = find_openclaw(settings)
    profile = profile_of(config.protocol)
    prompts = profile.prompts(settings) if profile.official_loop else None
    if prompts is not None:
        language = official_language(task)
        system, extraction = prompts.agent_system_prompt(language), prompts.extraction_prompt(language)
    else:
        system, extraction = system_prompt(), extraction_instruction(task.language)
    if toolbox is None:
        from ..tools import make_toolbox

        toolbox = make_toolbox(task, settings, search=config.search)
    assert spec.openclaw is not None  # a resolved openclaw config has its switches
    return OpenclawAgent(
        task, settings, install=install, model=spec.model, spec=spec.openclaw,
        rules=profile.openclaw_rules(spec.openclaw, settings, simulated=config.user.kind not in ("direct", "staged")),
        tools=toolbox, system_prompt=system, extraction_prompt=extraction, sampling=spec.sampling,
        context_window=config.limits.context_window, memory_dir=settings.openclaw_memory_area(),
    )

