"""The ``openclaw`` agent: a real OpenClaw gateway as the agent under test (docs/openclaw.md)."""

from ._install import HOW_TO_INSTALL, OPENCLAW_VERSION, Install, OpenclawMissing, find_openclaw, install, install_dir
from ._bridge import Bridge
from ._config import MEMORY_TOOLS, SUBAGENT_TOOLS, openclaw_config
from ._gateway import Gateway, openclaw_env
from .agent import OpenclawAgent, OpenclawError

__all__ = [
    "HOW_TO_INSTALL",
    "OPENCLAW_VERSION",
    "Install",
    "OpenclawAgent",
    "OpenclawError",
    "OpenclawMissing",
    "find_openclaw",
    "install",
    "install_dir",
    "Bridge",
    "Gateway",
    "MEMORY_TOOLS",
    "SUBAGENT_TOOLS",
    "openclaw_config",
    "openclaw_env",
]
