"""The ``openclaw`` agent: the paper's headline setting, a real OpenClaw gateway as the agent under test.

Per run: a fresh OpenClaw state folder and workspace, a generated ``openclaw.json``
(``_config.py``), the run's bridge (``_bridge.py``: OpenClaw's model calls and the task's web), a
gateway on a free loopback port (``_gateway.py``), one OpenClaw session. Each user turn is sent
with ``openclaw agent --json --session-id ID --message TEXT``; while it runs, OpenClaw's
transcript is read (``_transcript.py``) and recorded as our events: its steps, every tool call and
result, compactions; the model calls are recorded by the bridge with their usage, each asked with the sampling OpenClaw
sent unless the run's config sets its own (the official profile sets none, as the official driver
sets none). The first
message carries the system prompt before it, as the official driver sends it. A turn that ends
without a reply is looked at again every few seconds; after the idle wait OpenClaw is nudged, up
to the run's number of nudges (the profile's ``OpenclawRules``). The graph is asked for as one
last message. ``aclose`` stops the gateway and the bridge and removes the state folder.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from ...config import Settings
from ...llm import LLMError, complete
from ...protocol.profiles import OpenclawRules
from ...run.config import OpenclawSpec, Sampling
from ...run.conversation import Conversation
from ...run.events import Emit, MessageEvent, NoteEvent
from ...run.protocols import AgentReply, GraphResult
from ...run.tools import ToolOutput, Toolbox
from ...tasks.models import Task
from .._context import ends_with_question
from .._triples import parse_triples
from ..extraction import pending_instruction
from ._bridge import Bridge
from ._config import mcp_tool_name, openclaw_config
from ._gateway import Gateway, _die_with_parent, kill_group, openclaw_env
from ._install import Install
from ._transcript import NO_REPLY, TurnReader

_SESSION_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class OpenclawError(RuntimeError):
    """OpenClaw could not go on with the run (the gateway stopped, a turn never answered ...)."""


class OpenclawAgent:
    kind = "openclaw"
    # its tools run inside OpenClaw (through the bridge), out of the session's reach; a turn is
    # one OpenClaw turn, so a resumed run never continues one half done
    toolbox: Toolbox | None = None
    resumes_open_turn = False

    def __init__(
        self,
        task: Task,
        settings: Settings,
        *,
        install: Install,
        model: str,
        spec: OpenclawSpec,
        rules: OpenclawRules,
        tools: Toolbox,
        system_prompt: str,
        extraction_prompt: str,
        sampling: Sampling | None = None,
        context_window: int = 256_000,
        memory_dir: Path | None = None,
    ):
        self.task = task
        self.settings = settings
        self.install = install
        self.model = model
        self.spec = spec
        self.rules = rules
        self.tools = tools
        self.system_prompt = system_prompt
        self.extraction_prompt = extraction_prompt
        self.sampling = sampling or Sampling()
        self.context_window = context_window
        self.memory_dir = memory_dir if spec.long_term_memory else None
        self.name = f"openclaw:{model}"
        self.description = f"OpenClaw {install.version} on {model}"
        self.session_id = f"vibe-{_SESSION_SAFE.sub('_', task.id)[:80]}-{int(time.time())}"
        self._emit: Emit | None = None
        self._state: Path | None = None
        self._bridge: Bridge | None = None
        self._gateway: Gateway | None = None
        self._reader: TurnReader | None = None
        self._sent = 0
        self._refused_noted = 0  # how many of the bridge's refused requests have had a note

    # ------------------------------------------------------------------ the Agent protocol
    def reply_is_final(self, text: str) -> bool:
        return bool(text.strip()) and not ends_with_question(text)

    async def respond(self, convo: Conversation, emit: Emit) -> AgentReply:
        self._emit = emit
        await self._start(emit)
        message = convo.turns[-1].user if convo.turns else self.task.persona.initial_query
        if self._sent == 0:
            earlier = [t for t in convo.turns[:-1] if t.phase == "dialogue"]
            if earlier:  # a resumed run: this OpenClaw session has not seen the conversation so far
                message = _recap(earlier) + message
            message = f"{self.system_prompt}{self.rules.separator}{message}"
        reply = await self._ask(message, emit, phase="dialogue")
        if reply is None:
            return AgentReply(text="", ends_conversation="no_response")
        return AgentReply(text=reply, final=self.reply_is_final(reply))

    async def extract_graph(self, convo: Conversation, emit: Emit) -> GraphResult:
        self._emit = emit
        await self._start(emit)
        instruction = pending_instruction(convo)
        if instruction is None:
            instruction = self.extraction_prompt
            emit(MessageEvent(role="user", content=instruction, phase="extraction"))
        reply = await self._ask(instruction, emit, phase="extraction")
        if reply is None:
            return GraphResult(triples=[], outcome="no_response")
        graph = parse_triples(reply)
        graph.outcome = "answer"
        return graph

    async def aclose(self) -> None:
        """Stop the gateway and the bridge; keep what long-term memory learnt; remove the state."""
        gateway, bridge, state = self._gateway, self._bridge, self._state
        self._gateway = self._bridge = None
        self._state = None
        if gateway is not None:
            await asyncio.to_thread(gateway.stop)
        if bridge is not None:
            await asyncio.to_thread(bridge.stop)
        if state is not None:
            self.keep_memory(state / "workspace")
            if not self.settings.openclaw_keep_state:
                shutil.rmtree(state, ignore_errors=True)

    # ------------------------------------------------------------------ long-term memory
    def prepare_workspace(self, workspace: Path) -> None:
        """A fresh workspace; with long-term memory on, what earlier runs remembered (OpenClaw
        puts ``MEMORY.md`` into its system prompt)."""
        workspace.mkdir(parents=True, exist_ok=True)
        if self.memory_dir is not None and self.memory_dir.is_dir():
            _copy_memory(self.memory_dir, workspace)

    def keep_memory(self, workspace: Path) -> None:
        """With long-term memory on, keep what this run remembered for the next runs (the last
        run to end wins where two wrote the same file)."""
        if self.memory_dir is not None and workspace.is_dir():
            _copy_memory(workspace, self.memory_dir)

    # ------------------------------------------------------------------ start
    async def _start(self, emit: Emit) -> None:
        if self._gateway is not None:
            if not self._gateway.alive():
                raise OpenclawError(f"the OpenClaw gateway stopped: {self._gateway.last_log_line()}")
            return
        state = Path(tempfile.mkdtemp(prefix="vibesearch-openclaw-"))
        self._state = state
        workspace = state / "workspace"
        self.prepare_workspace(workspace)
        token = secrets.token_urlsafe(24)
        self._bridge = Bridge(
            loop=asyncio.get_running_loop(), token=token, tools=self.tools.schemas(),
            model_call=self._model_call, tool_call=self._tool_call,
        )
        url = await asyncio.to_thread(self._bridge.start)
        config = openclaw_config(
            state_dir=state, workspace=workspace, gateway_port=0, bridge_url=url, token=token, model=self.model,
            spec=self.spec, context_window=self.context_window, max_tokens=self.sampling.max_tokens,
        )
        gateway = Gateway(self.install, state, config)
        self._gateway = gateway
        await gateway.start(self.settings.openclaw_start_timeout_s)
        self._reader = TurnReader(state, self.session_id)
        offered = [mcp_tool_name(str(s.get("function", {}).get("name"))) for s in self.tools.schemas()]
        emit(NoteEvent(
            text=f"OpenClaw {self.install.version} gateway started on 127.0.0.1:{gateway.port}",
            data={
                "openclaw_version": self.install.version, "session_id": self.session_id, "web_tools": offered,
                "subagents": self.spec.subagents, "memory": self.spec.memory, "long_term_memory": self.spec.long_term_memory,
                "idle_s": self.rules.idle_s, "max_nudges": self.rules.max_nudges, "nudge_source": self.rules.nudge_source,
            },
        ))

    # ------------------------------------------------------------------ one message
    async def _ask(self, message: str, emit: Emit, *, phase: str) -> str | None:
        """Send ``message``; wait, and nudge, as the rules say; the reply, or None."""
        reply = await self._send(message, emit, phase=phase)
        nudges = 0
        while reply is None:
            if self.rules.unanswered_fails_run:
                raise OpenclawError(
                    f"OpenClaw did not answer within {self.rules.idle_s:.0f} s; under the official profile the sample "
                    "fails here, as the official simulated mode's nudge call does"
                )
            if nudges >= self.rules.max_nudges:
                emit(NoteEvent(text=f"OpenClaw did not answer after {nudges} nudge(s)", data={"no_response": True}))
                return None
            nudges += 1
            emit(NoteEvent(text=f"OpenClaw had not answered for {self.rules.idle_s:.0f} s: nudge {nudges} of {self.rules.max_nudges}", data={"nudge": self.rules.nudge}))
            reply = await self._send(self.rules.nudge, emit, phase=phase)
        return reply

    async def _send(self, message: str, emit: Emit, *, phase: str) -> str | None:
        assert self._gateway is not None and self._reader is not None and self._bridge is not None
        reader, gateway = self._reader, self._gateway
        reader.start_turn()
        self._bridge.model_errors.clear()
        self._sent += 1
        proc = await asyncio.create_subprocess_exec(
            str(self.install.openclaw), "agent", "--json", "--session-id", self.session_id, "--message", message,
            env=openclaw_env(self.install, gateway.state_dir, gateway.port), cwd=str(gateway.state_dir),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            preexec_fn=_die_with_parent,
        )
        waiting = asyncio.ensure_future(proc.communicate())
        deadline = time.monotonic() + self.settings.openclaw_turn_timeout_s
        try:
            while not waiting.done():
                await asyncio.wait({waiting}, timeout=1.0)
                self._emit_all(emit, reader.poll(), phase)
                if time.monotonic() > deadline and not waiting.done():
                    kill_group(proc.pid, 2.0)
                    emit(NoteEvent(text=f"the OpenClaw turn took longer than {self.settings.openclaw_turn_timeout_s:.0f} s and was stopped"))
                    break
        except asyncio.CancelledError:
            kill_group(proc.pid, 2.0)
            raise
        outcome = _cli_outcome(waiting)
        if outcome:
            emit(NoteEvent(text=f"openclaw agent: {outcome}"))
        self._note_refused(emit)
        self._emit_all(emit, reader.finish(), phase)
        reply = self._reply(reader)
        until = time.monotonic() + self.rules.idle_s
        while reply is None and not self._bridge.model_errors and time.monotonic() < until:
            if not gateway.alive():
                raise OpenclawError(f"the OpenClaw gateway stopped: {gateway.last_log_line()}")
            await asyncio.sleep(self.rules.poll_s)
            self._emit_all(emit, reader.finish(), phase)
            reply = self._reply(reader)
        if reply is None and self._bridge.model_errors:
            raise LLMError(f"OpenClaw's model calls failed: {self._bridge.model_errors[-1]}")
        return reply

    def _note_refused(self, emit: Emit) -> None:
        """A note for what OpenClaw tried to reach outside the run since the last one (its proxy,
        the bridge, refused it)."""
        assert self._bridge is not None
        fresh = self._bridge.refused[self._refused_noted:]
        if fresh:
            self._refused_noted += len(fresh)
            emit(NoteEvent(text=f"OpenClaw tried to reach {', '.join(sorted(set(fresh)))}: refused (its only way out is the run's bridge)", data={"refused_egress": fresh}))

    def _reply(self, reader: TurnReader) -> str | None:
        text = reader.reply if reader.reply is not None or not self.rules.stale_reply_counts else reader.session_reply
        if text is None or text.strip() == NO_REPLY:
            return None
        return text

    @staticmethod
    def _emit_all(emit: Emit, events: list[Any], phase: str) -> None:
        for event in events:
            if isinstance(event, MessageEvent) and phase != "dialogue":
                event = event.model_copy(update={"phase": phase})
            emit(event)

    # ------------------------------------------------------------------ what the bridge asks
    async def _model_call(self, body: dict[str, Any]) -> dict[str, Any]:
        sampling = {**_own_sampling(body), **self.sampling.params()}  # the run's own values over OpenClaw's
        tools = body.get("tools") if isinstance(body.get("tools"), list) else None
        result = await complete(
            body["messages"], model=self.model, purpose="agent", emit=self._emit, tools=tools or None,
            settings=self.settings, sampling=sampling,
        )
        message: dict[str, Any] = {"role": "assistant", "content": result.content or None}
        if result.thinking:
            message["reasoning_content"] = result.thinking
        if result.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.raw_arguments or json.dumps(c.arguments, ensure_ascii=False)}}
                for c in result.tool_calls
            ]
        finish = "tool_calls" if result.tool_calls else (result.finish_reason or "stop")
        return {
            "id": f"chatcmpl-{secrets.token_hex(6)}", "object": "chat.completion", "created": int(time.time()), "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": result.input_tokens or 0, "completion_tokens": result.output_tokens or 0,
                      "total_tokens": (result.input_tokens or 0) + (result.output_tokens or 0)},
        }

    async def _tool_call(self, name: str, arguments: dict[str, Any]) -> ToolOutput:
        return await self.tools.call(name, arguments, self._emit)


def _cli_outcome(waiting: "asyncio.Future[tuple[bytes, bytes]]") -> str:
    """What the ``openclaw agent`` command said when it did not end well ("" when it did)."""
    if not waiting.done() or waiting.cancelled():
        return "stopped"
    out, err = waiting.result()
    try:
        answer = json.loads(out or b"{}")
    except ValueError:
        answer = {}
    status = answer.get("status") if isinstance(answer, dict) else None
    if status == "ok":
        return ""
    said = ""
    if isinstance(answer, dict):
        said = str(answer.get("error") or answer.get("summary") or "")
    if not said:
        lines = [ln for ln in (err or b"").decode("utf-8", "replace").splitlines() if ln.strip()]
        said = lines[-1] if lines else "no output"
    return f"status {status or 'unknown'}: {said[:300]}"


def _recap(turns: list[Any]) -> str:
    lines = ["(The conversation so far, continued in a new session:)"]
    for turn in turns:
        lines.append(f"User: {turn.user}")
        if turn.reply:
            lines.append(f"Assistant: {turn.reply}")
    return "\n".join(lines) + "\n\n"


def _copy_memory(src: Path, dst: Path) -> None:
    """OpenClaw's memory files (``MEMORY.md``, ``memory/``) from one workspace folder to another."""
    dst.mkdir(parents=True, exist_ok=True)
    if (src / "MEMORY.md").is_file():
        shutil.copy2(src / "MEMORY.md", dst / "MEMORY.md")
    if (src / "memory").is_dir():
        shutil.copytree(src / "memory", dst / "memory", dirs_exist_ok=True)


def _own_sampling(body: dict[str, Any]) -> dict[str, float | int]:
    """The sampling OpenClaw asked for in a model call it sent the bridge (what it would have sent
    the provider itself): temperature, top_p and its answer budget, where given and usable."""
    out: dict[str, float | int] = {}
    for key in ("temperature", "top_p"):
        value = body.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = value
    asked = body.get("max_completion_tokens") or body.get("max_tokens")
    if isinstance(asked, int) and not isinstance(asked, bool) and asked > 0:
        out["max_tokens"] = asked
    return out
