"""The ``openclaw`` agent kind: its description and its factory (``agents/registry.py``). Outside the
``openclaw/`` package so that registering the kind imports nothing of OpenClaw's (its bridge's MCP
server takes seconds to import): the factory imports it when a run asks for it."""

from __future__ import annotations

from .._fields import MissingSetting
from ..config import SCRIPTED_USER_KINDS, Settings
from ..protocol import profile_of
from ..protocol.profiles import official_language
from ..run import Agent, RunConfig, Toolbox
from ..run.web import WebArchive
from ..tasks.models import Task
from .prompts import extraction_instruction, system_prompt
from .registry import AgentKindInfo, register_agent_kind


def build_openclaw(config: RunConfig, task: Task, settings: Settings, *, toolbox: Toolbox | None, endpoint_key: str | None, web: WebArchive | None = None) -> Agent:
    """OpenClaw on the run's model, with the run's tools as its web (refused in one line when
    OpenClaw or a Node.js new enough is not installed)."""
    from .openclaw import OpenclawAgent, find_openclaw

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

        toolbox = make_toolbox(task, settings, search=config.search, web=web)
    assert spec.openclaw is not None  # a resolved openclaw config has its switches
    return OpenclawAgent(
        task, settings, install=install, model=spec.model, spec=spec.openclaw,
        rules=profile.openclaw_rules(spec.openclaw, settings, simulated=config.user.kind not in SCRIPTED_USER_KINDS),
        tools=toolbox, system_prompt=system, extraction_prompt=extraction, sampling=spec.sampling,
        context_window=config.limits.context_window, memory_dir=settings.openclaw_memory_area(),
    )


register_agent_kind(AgentKindInfo(
    name="openclaw", label="OpenClaw gateway with a model",
    help="a real OpenClaw gateway on --model (vibesearch openclaw install)", factory=build_openclaw,
    needs_model=True, uses_summariser=True,
))
