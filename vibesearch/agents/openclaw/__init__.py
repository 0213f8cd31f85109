"""The ``openclaw`` agent: a real OpenClaw gateway as the agent under test (docs/openclaw.md)."""

from ._install import HOW_TO_INSTALL, OPENCLAW_VERSION, Install, OpenclawMissing, find_openclaw, install, install_dir
from .agent import OpenclawAgent, OpenclawError

__all__ = [
    "HOW_TO_INSTALL", "OPENCLAW_VERSION", "Install", "OpenclawAgent", "OpenclawError", "OpenclawMissing",
    "find_openclaw", "install", "install_dir",
]
