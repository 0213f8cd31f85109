"""The openclaw agent against a real OpenClaw install (``vibesearch openclaw install``) and a
scripted OpenAI-compatible model on 127.0.0.1.

* one whole persona run (``openclaw_driver.py``, in a network namespace with only loopback and a
  resolver that records every query, ``tests/offline_net.py``; it looks nothing up and connects
  nowhere but loopback): two user turns, one corpus search recorded as our tool call and result,
  the second turn answered only after a nudge, the graph extracted and scored; and one under the
  official profile, where the unanswered turn fails the sample;
* the ablation switches, each seen in the tool list OpenClaw sends the model, on one gateway whose
  ``openclaw.json`` is rewritten between messages (OpenClaw reloads its tool policy live);
* a run killed outright mid-turn leaves no OpenClaw process behind.

Without OpenClaw these tests skip saying what to install (with CI set they fail).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from offline_net import run_isolated, strace_missing, why_not
from openclaw_fake import FakeModel, plain_user_text, tool_names

from vibesearch.agents.openclaw import MEMORY_TOOLS, SUBAGENT_TOOLS, Bridge, OpenclawMissing, find_openclaw, openclaw_config
from vibesearch.agents.openclaw import Gateway, openclaw_env
from vibesearch.config import Settings
from vibesearch.run.config import OpenclawSpec
from vibesearch.run.tools import ToolOutput

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "openclaw_driver.py"


@pytest.fixture(scope="module")
def install():
    try:
        return find_openclaw(Settings())
    except OpenclawMissing as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must have OpenClaw: {exc}")
        pytest.skip(str(exc))


def _in_loopback_namespace() -> list[str]:
    """A command prefix running the rest in a new network namespace with only loopback up (as
    root, with unshare and ip); empty where that cannot be made."""
    if os.geteuid() == 0 and shutil.which("unshare") and shutil.which("ip"):
        probe = subprocess.run(["unshare", "--net", "true"], capture_output=True)
        if probe.returncode == 0:
            return ["unshare", "--net", "sh", "-c", 'ip link set lo up && exec "$0" "$@"']
    return []


def _driver_env(mark: str) -> dict[str, str]:
    env = dict(os.environ)
    env["VIBESEARCH_TEST_MARK"] = mark  # every process of the run inherits it (the kill test looks for it)
    env.pop("VIBESEARCH_DB", None)
    return env


# ------------------------------------------------------------------ one whole run
@pytest.fixture(scope="module")
def persona_run(tmp_path_factory, install) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("openclaw-run")
    cmd, env = [sys.executable, str(DRIVER), str(out)], _driver_env(uuid.uuid4().hex)
    no_net = why_not()
    if no_net is None:  # the recording namespace: every DNS query and every connect outside loopback seen
        isolated = run_isolated(cmd, out / "net", env=env, timeout=800)
        rc, stdout, stderr = isolated.returncode, isolated.stdout, isolated.stderr
        queries, connects, traced = isolated.queries, isolated.connects, isolated.traced
    else:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=800, env=env)
        rc, stdout, stderr = done.returncode, done.stdout, done.stderr
        queries, connects, traced = [], [], False
    assert rc == 0, (stdout[-2000:], stderr[-4000:])
    result = json.loads((out / "result.json").read_text(encoding="utf-8"))
    result.update(no_net=no_net, dns=queries, connects=connects, traced=traced)
    return result


def _kinds(result: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in result["events"] if e["kind"] == kind]


def test_a_two_turn_persona_run_records_the_search_and_is_scored(persona_run):
    assert persona_run["status"] == "finished", persona_run["termination"]
    users = [m for m in _kinds(persona_run, "message") if m["role"] == "user" and m["phase"] == "dialogue"]
    assert [m["content"] for m in users[:2]] == ["Who taught Leonhard Euler, and where was he born?", "Thanks. And who were Euler's own students?"]
    calls = _kinds(persona_run, "tool_call")
    assert [(c["tool"], c["arguments"]) for c in calls] == [("search", {"query": "Leonhard Euler teacher birthplace"})]
    results = _kinds(persona_run, "tool_result")
    assert [r["call_id"] for r in results] == [calls[0]["call_id"]]
    assert "Euler" in results[0]["content"] and not results[0]["error"]  # the task's own corpus answered
    finals = [m for m in _kinds(persona_run, "message") if m["role"] == "assistant" and m["final"]]
    assert finals[0]["content"].startswith("Leonhard Euler was born in Basel")
    graph = _kinds(persona_run, "graph")[-1]
    assert {(t["head"], t["tail"]) for t in graph["triples"]} == {("Leonhard Euler", "Basel"), ("Leonhard Euler", "Johann Bernoulli")}
    assert persona_run["score"]["recall"] == 1.0  # the ground truth (Euler born in Basel) is covered


def test_every_model_call_is_recorded_with_its_usage(persona_run):
    usage = [u for u in _kinds(persona_run, "usage") if u["purpose"] == "agent"]
    assert len(usage) == len(persona_run["requests"]) >= 4
    assert all(u["input_tokens"] == 11 and u["output_tokens"] == 7 for u in usage)


def test_the_first_message_carries_the_system_prompt_and_openclaw_offers_the_task_web(persona_run):
    from vibesearch.agents.prompts import system_prompt

    first = persona_run["requests"][0]
    _, text = plain_user_text(first["messages"])
    head = system_prompt().split("\n", 1)[0]
    assert head in text and "\n\n---\n\nWho taught Leonhard Euler" in text
    tools = tool_names(first)
    assert {"vibesearch__search", "vibesearch__visit"} <= set(tools)
    assert not {"exec", "web_search", "web_fetch", "browser", "gateway", "secrets", "file_fetch", "dir_list"} & set(tools)  # no way out but the task's web


def _needs_namespace(persona_run) -> None:
    if persona_run["no_net"]:
        if os.environ.get("CI"):
            pytest.fail(f"CI must be able to make the recording network namespace: {persona_run['no_net']}")
        pytest.skip(persona_run["no_net"])


def test_the_run_used_nothing_but_loopback(persona_run):
    _needs_namespace(persona_run)
    assert persona_run["interfaces"] == ["lo"]
    assert persona_run["requests"]  # and OpenClaw worked there


def test_the_run_looked_no_name_up(persona_run):
    """Without the generated config's proxy (the bridge), OpenClaw's gateway looks clawhub.ai up once
    it is idle after the first turn (its plugin-catalog prewarm, which no setting turns off)."""
    _needs_namespace(persona_run)
    assert persona_run["dns"] == []
    refused = [n for n in _kinds(persona_run, "note") if "refused_egress" in n["data"]]
    assert all(n["data"]["refused_egress"] and "refused" in n["text"] for n in refused)  # what it tried instead is on record


def test_the_run_connected_to_nothing_but_loopback(persona_run):
    _needs_namespace(persona_run)
    if not persona_run["traced"]:
        if os.environ.get("CI"):
            pytest.fail("CI must have strace to watch connect attempts")
        pytest.skip(strace_missing() or "not traced")
    assert persona_run["connects"] == []


# ------------------------------------------------------------------ an unanswered turn
def _drive(out: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [*_in_loopback_namespace(), sys.executable, str(DRIVER), str(out), *args],
        capture_output=True, text=True, timeout=800, env=_driver_env(uuid.uuid4().hex),
    )
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-4000:])
    return json.loads((out / "result.json").read_text(encoding="utf-8"))


def test_an_unanswered_turn_is_nudged_and_the_nudge_answered(persona_run):
    notes = [n for n in _kinds(persona_run, "note") if "nudge" in n["data"]]
    assert [n["data"]["nudge"] for n in notes] == ["Are you still there? I have not seen an answer from you yet. Do you have something for me?"]
    finals = [m for m in _kinds(persona_run, "message") if m["role"] == "assistant" and m["final"] and m["phase"] == "dialogue"]
    assert [m["content"] for m in finals][1:] == ["His students included Lagrange."]  # "NO_REPLY" is no reply


def test_under_the_official_profile_an_unanswered_turn_fails_the_sample(tmp_path, install):
    stand_in = HERE.parent / "data" / "official_harness"
    result = _drive(tmp_path, "--shy", "--official", str(stand_in))
    assert (result["status"], result["termination"]) == ("failed", "error")
    assert not [n for n in _kinds(result, "note") if "nudge" in n["data"]]  # the official simulated mode never nudges
    errors = [e for e in _kinds(result, "error") if e["fatal"]]
    assert "did not answer within 1 s" in errors[-1]["message"]


# ------------------------------------------------------------------ the ablation switches
class _LiveGateway:
    """A gateway whose model and tools are a bridge to the scripted model."""

    def __init__(self, install, state: Path):
        self.fake = FakeModel()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.requests: list[dict[str, Any]] = []

        async def model_call(body: dict[str, Any]) -> dict[str, Any]:
            self.requests.append(body)
            return self.fake.respond(body, {})[1]

        async def tool_call(name: str, arguments: dict[str, Any]) -> ToolOutput:
            return ToolOutput(f"no results for {arguments}")

        search = {"type": "function", "function": {"name": "search", "description": "search", "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}
        self.bridge = Bridge(loop=self.loop, token="t0ken", tools=[search], model_call=model_call, tool_call=tool_call)
        self.url = self.bridge.start()
        self.state = state
        (state / "workspace").mkdir(parents=True)
        self.gateway = Gateway(install, state, self.config(OpenclawSpec()))
        asyncio.run(self.gateway.start(300))
        self.install = install

    def config(self, spec: OpenclawSpec) -> dict[str, Any]:
        return openclaw_config(
            state_dir=self.state, workspace=self.state / "workspace", gateway_port=0, bridge_url=self.url, token="t0ken",
            model="fake-model", spec=spec, context_window=128_000, max_tokens=4096,
        )

    def tools_with(self, spec: OpenclawSpec, expect: Any) -> list[str]:
        """Rewrite the config for ``spec`` and send messages until OpenClaw's tool list meets
        ``expect`` (it reloads the file on its own), or give the last list."""
        self.gateway.config = {**self.config(spec), "gateway": self.gateway.config["gateway"]}
        self.gateway.write_config()
        tools: list[str] = []
        for _attempt in range(6):
            before = len(self.requests)
            subprocess.run(
                [str(self.install.openclaw), "agent", "--json", "--session-id", f"ablation-{uuid.uuid4().hex[:8]}", "--message", "hello"],
                env=openclaw_env(self.install, self.state, self.gateway.port), capture_output=True, timeout=300,
            )
            if len(self.requests) > before:
                tools = tool_names(self.requests[-1])
                if expect(set(tools)):
                    return tools
        return tools

    def close(self) -> None:
        self.gateway.stop()
        self.bridge.stop()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.fake.close()


@pytest.fixture(scope="module")
def live_gateway(tmp_path_factory, install):
    gw = _LiveGateway(install, tmp_path_factory.mktemp("openclaw-ablations"))
    yield gw
    gw.close()


def test_by_default_openclaw_offers_subagents_and_memory(live_gateway):
    tools = set(live_gateway.tools_with(OpenclawSpec(), lambda t: {*SUBAGENT_TOOLS, *MEMORY_TOOLS} <= t))
    assert {*SUBAGENT_TOOLS, *MEMORY_TOOLS, "vibesearch__search"} <= tools


def test_subagents_off_removes_the_subagent_tools(live_gateway):
    tools = set(live_gateway.tools_with(OpenclawSpec(subagents=False), lambda t: not set(SUBAGENT_TOOLS) & t))
    assert not set(SUBAGENT_TOOLS) & tools and set(MEMORY_TOOLS) <= tools


def test_memory_off_removes_the_memory_tools(live_gateway):
    tools = set(live_gateway.tools_with(OpenclawSpec(memory=False), lambda t: not set(MEMORY_TOOLS) & t))
    assert not set(MEMORY_TOOLS) & tools and set(SUBAGENT_TOOLS) <= tools


def test_openclaw_puts_the_remembered_memory_into_its_system_prompt(live_gateway):
    (live_gateway.state / "workspace" / "MEMORY.md").write_text("# Memory\nRemembered fact VS-LTM-7731\n", encoding="utf-8")
    try:
        live_gateway.tools_with(OpenclawSpec(long_term_memory=True), lambda t: True)
        assert "VS-LTM-7731" in live_gateway.requests[-1]["messages"][0]["content"]
    finally:
        (live_gateway.state / "workspace" / "MEMORY.md").unlink()


@pytest.mark.parametrize("spec", [OpenclawSpec(), OpenclawSpec(subagents=False, memory=False, long_term_memory=True)], ids=["defaults", "switched"])
def test_openclaw_accepts_the_generated_config(tmp_path, install, spec):
    config = openclaw_config(
        state_dir=tmp_path, workspace=tmp_path / "workspace", gateway_port=18999, bridge_url="http://127.0.0.1:9", token="t",
        model="openai/gpt-4o-mini", spec=spec, context_window=128_000, max_tokens=None,
    )
    (tmp_path / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    done = subprocess.run(
        [str(install.openclaw), "config", "validate"], env=openclaw_env(install, tmp_path, 18999), capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0 and "Config valid" in done.stdout, done.stdout + done.stderr


# ------------------------------------------------------------------ killed mid-turn
def _marked(mark: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if f"VIBESEARCH_TEST_MARK={mark}".encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_a_run_killed_mid_turn_leaves_no_openclaw_process(tmp_path, install):
    mark = uuid.uuid4().hex
    proc = subprocess.Popen(
        [*_in_loopback_namespace(), sys.executable, str(DRIVER), str(tmp_path), "--silent"],
        env=_driver_env(mark), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        log = tmp_path / "requests.jsonl"
        deadline = time.monotonic() + 400
        while not (log.exists() and log.read_text().strip()):  # OpenClaw is mid-turn: it waits on the model
            assert proc.poll() is None, "the run ended before its first model call"
            assert time.monotonic() < deadline, "no model call within 400 s"
            time.sleep(0.2)
        assert len(_marked(mark)) >= 3  # the run, its gateway and the turn's openclaw command at least
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while _marked(mark) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _marked(mark) == []
    finally:
        for pid in _marked(mark):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
