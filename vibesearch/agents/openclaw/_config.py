"""The ``openclaw.json`` a run's OpenClaw gateway starts with.

One provider, ``vibesearch``, whose OpenAI-compatible base URL is the run's bridge
(``_bridge.py``): OpenClaw's model calls go through vibesearch's model client, so they are the
run's model, recorded with their usage and cost, and no provider key is ever written here (the
bridge takes a token made for the run). The task's web is the bridge's MCP server
(``vibesearch__search``, ``vibesearch__visit`` ...), offered directly (tool search off);
OpenClaw's own web tools, host commands and browser are denied, so the run's search backend is
the only way out. The switches that keep a gateway offline and quiet are always on — among them
the bridge as OpenClaw's forward proxy, which refuses whatever OpenClaw itself would fetch from
elsewhere (its plugin catalog from clawhub.ai, fetched once the gateway is idle, has no switch of
its own), so OpenClaw never looks a name up; the three ablations of the paper (subagents, memory,
long-term memory) come from the run's config.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...run.config import OpenclawSpec

PROVIDER = "vibesearch"  # the provider id in openclaw.json (models are "vibesearch/<id>")
MCP_SERVER = "vibesearch"  # MCP tools reach the model as "vibesearch__<tool>"
# OpenClaw's tools that would leave the task's web or the run's sandbox: host commands, its own
# web, the browser, other machines, files outside the workspace, its secrets, and the tools that
# change OpenClaw itself (its config, plugins, schedules) — a prompt in a page could ask for any
DENIED_TOOLS = (
    "exec", "process", "code_execution", "web_search", "web_fetch", "x_search", "browser", "computer", "nodes",
    "ls", "dir_list", "dir_fetch", "file_fetch", "file_write", "secrets", "gateway", "openclaw", "plugins",
    "automations", "terminal", "node_inference", "message",
)
SUBAGENT_TOOLS = ("sessions_spawn", "subagents", "agents_wait")
MEMORY_TOOLS = ("memory_search", "memory_get")


def mcp_tool_name(tool: str) -> str:
    """How OpenClaw names a tool of the bridge's MCP server."""
    return f"{MCP_SERVER}__{tool}"


def model_id(model: str) -> str:
    """The model id OpenClaw is told (the run's litellm model string, made safe for a model id)."""
    return "".join(ch if ch.isalnum() or ch in "-_.:" else "-" for ch in model) or "model"


def openclaw_config(
    *,
    state_dir: Path,
    workspace: Path,
    gateway_port: int,
    bridge_url: str,
    token: str,
    model: str,
    spec: OpenclawSpec,
    context_window: int,
    max_tokens: int | None,
) -> dict[str, Any]:
    deny = list(DENIED_TOOLS)
    if not spec.subagents:
        deny += SUBAGENT_TOOLS
    if not spec.memory:
        deny += MEMORY_TOOLS
    defaults: dict[str, Any] = {
        "workspace": str(workspace),
        "model": {"primary": f"{PROVIDER}/{model_id(model)}"},
        "heartbeat": {"every": "0m"},  # no turns but the run's
        "compaction": {"memoryFlush": {"enabled": bool(spec.long_term_memory)}},
    }
    plugins: dict[str, Any] = {
        "entries": {"memory-core": {"config": {"dreaming": {"enabled": bool(spec.long_term_memory)}}}},
    }
    if not spec.memory:
        plugins["slots"] = {"memory": "none"}
    return {
        "gateway": {"port": gateway_port, "mode": "local", "bind": "loopback"},
        "agents": {"defaults": defaults},
        "models": {
            "catalogRefresh": {"enabled": False},
            "providers": {
                PROVIDER: {
                    "baseUrl": f"{bridge_url}/v1",
                    "apiKey": token,
                    "api": "openai-completions",
                    "models": [{
                        "id": model_id(model), "name": model, "contextWindow": int(context_window),
                        "maxTokens": int(max_tokens or 16_384),
                    }],
                }
            },
        },
        # read / write / edit stay for memory files, inside the workspace only
        "tools": {"toolSearch": False, "deny": deny, "fs": {"workspaceOnly": True}},
        "mcp": {"servers": {MCP_SERVER: {
            "url": f"{bridge_url}/mcp/", "transport": "streamable-http", "headers": {"Authorization": f"Bearer {token}"},
        }}},
        "plugins": plugins,
        "update": {"checkOnStart": False},  # also stops its usage ping (telemetry.openclaw.ai) ...
        "telemetry": {"enabled": False},  # ... which this keeps off on its own
        "discovery": {"mdns": {"mode": "off"}},
        # every other HTTP/WebSocket request goes to the bridge by address and is refused there;
        # loopback (the bridge's model and MCP routes) stays direct
        "proxy": {"proxyUrl": bridge_url, "loopbackMode": "gateway-only"},
        "logging": {"file": str(state_dir / "logs" / "openclaw.log")},
    }
