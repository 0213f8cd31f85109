"""A toy agent kind, the way a new kind is added: one module and one registration. (Here a ReAct
agent under another name; a real kind would also be named in ``vibesearch.config.AgentKind``.)"""

from __future__ import annotations

from vibesearch.agents.react import ReactAgent
from vibesearch.agents.registry import AgentKindInfo, register_agent_kind
from vibesearch.tools import make_toolbox


class ToyAgent(ReactAgent):
    kind = "toy"


def build_toy(config, task, settings, *, toolbox, endpoint_key, web=None):
    toolbox = toolbox or make_toolbox(task, settings, search=config.search)
    return ToyAgent(task, settings, model=config.agent.model, toolbox=toolbox, limits=config.limits, sampling=config.agent.sampling)


TOY = register_agent_kind(AgentKindInfo(
    name="toy", label="Toy agent (a test's)", help="a toy kind; needs --model", factory=build_toy, needs_model=True,
))
