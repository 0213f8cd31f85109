"""A fake OpenAI-compatible chat-completions server for the throughput benchmarks (aiohttp).

Every ``POST /v1/chat/completions`` is answered exactly ``--latency`` seconds after its request
arrived (a timer, no CPU spent waiting), so hundreds of calls can be in flight at once. What it
answers decides a ReAct agent's run:

* tools offered and fewer than ``--tool-steps`` tool results since the last user message: one
  ``search`` tool call;
* tools offered otherwise: a final answer (text, no tool calls);
* no tools offered (the agent's graph extraction, a forced reply): a small JSON list of triples.

So one user turn of a run costs ``tool_steps + 1`` calls, plus one for the extraction.

A conversation is recognised by a nonce: the first call of a conversation (no tool call in its
messages yet) gets a new one, which rides in every tool call's id and query (``bq-<nonce>-<k>``)
and so comes back in each later request of the same run and in the run's stored ``tool_call``
events. That is how the benchmark finds the arrival time of each run's first model call.

``GET /stats``: requests, peak and current number in flight, the busy integral (sum of in-flight
seconds), and per conversation its first arrival (``time.time()``), number of calls and last
answer. ``POST /reset`` clears them. Run alone::

    python benchmarks/_fake_openai_server.py --port 0 --latency 1.0 [--tool-steps 4]

It prints ``PORT <n>`` on its first line once it listens.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import re
import signal
import sys
import time
from typing import Any

from aiohttp import web

_NONCE = re.compile(r"bq-([0-9a-f]+)-\d+")


class State:
    def __init__(self, latency: float, tool_steps: int):
        self.latency = latency
        self.tool_steps = tool_steps
        self._ids = itertools.count(1)
        self.reset()

    def reset(self) -> None:
        self.requests = 0
        self.in_flight = 0
        self.peak = 0
        self.busy = 0.0  # integral of in_flight over time (call-seconds)
        self._last_change = time.monotonic()
        self.first_at: float | None = None
        self.last_at: float | None = None
        self.conversations: dict[str, dict[str, Any]] = {}

    def _account(self, delta: int) -> None:
        now = time.monotonic()
        self.busy += self.in_flight * (now - self._last_change)
        self._last_change = now
        self.in_flight += delta
        self.peak = max(self.peak, self.in_flight)


def _reply(state: State, body: dict[str, Any], arrived: float) -> dict[str, Any]:
    messages = body.get("messages") or []
    text = json.dumps(messages, ensure_ascii=False)
    found = _NONCE.search(text)
    if found:
        nonce = found.group(1)
    else:
        nonce = format(next(state._ids), "x") + format(int(arrived * 1000) & 0xFFFFFF, "x")
        state.conversations[nonce] = {"first": arrived, "calls": 0, "last": None}
    conv = state.conversations.setdefault(nonce, {"first": arrived, "calls": 0, "last": None})
    conv["calls"] += 1
    since_user = 0
    for m in reversed(messages):
        if m.get("role") == "user":
            break
        if m.get("role") == "tool":
            since_user += 1
    message: dict[str, Any]
    if body.get("tools") and since_user < state.tool_steps:
        k = since_user + 1
        call_id = f"bq-{nonce}-{k}"
        message = {
            "role": "assistant", "content": None,
            "tool_calls": [{"id": call_id, "type": "function",
                            "function": {"name": "search", "arguments": json.dumps({"query": f"heritage {call_id}"})}}],
        }
        finish = "tool_calls"
    elif body.get("tools"):
        message = {"role": "assistant", "content": "Here is what I found: Kyoto, Nara and Himeji are worth a visit."}
        finish = "stop"
    else:
        triples = [{"head": "Himeji Castle", "relation": "located in", "tail": "Hyogo"}]
        message = {"role": "assistant", "content": json.dumps(triples)}
        finish = "stop"
    return {
        "id": f"chatcmpl-{state.requests}", "object": "chat.completion", "created": int(arrived),
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": len(text) // 4, "completion_tokens": 20, "total_tokens": len(text) // 4 + 20},
    }, nonce


async def chat(request: web.Request) -> web.Response:
    state: State = request.app["state"]
    arrived = time.time()
    t0 = time.monotonic()
    state.requests += 1
    state.first_at = state.first_at or arrived
    state._account(+1)
    try:
        body = await request.json()
        answer, nonce = _reply(state, body, arrived)
        left = state.latency - (time.monotonic() - t0)
        if left > 0:
            await asyncio.sleep(left)
        state.conversations[nonce]["last"] = time.time()
        state.last_at = time.time()
        return web.json_response(answer)
    finally:
        state._account(-1)


async def stats(request: web.Request) -> web.Response:
    state: State = request.app["state"]
    state._account(0)
    return web.json_response({
        "requests": state.requests, "in_flight": state.in_flight, "peak_in_flight": state.peak,
        "busy_call_s": state.busy, "first_at": state.first_at, "last_at": state.last_at,
        "latency": state.latency, "conversations": state.conversations,
    })


async def reset(request: web.Request) -> web.Response:
    request.app["state"].reset()
    return web.json_response({"ok": True})


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--latency", type=float, default=1.0)
    p.add_argument("--tool-steps", type=int, default=4)
    args = p.parse_args()
    app = web.Application(client_max_size=64 * 1024 * 1024)
    app["state"] = State(args.latency, args.tool_steps)
    app.router.add_post("/v1/chat/completions", chat)
    app.router.add_post("/chat/completions", chat)
    app.router.add_get("/stats", stats)
    app.router.add_post("/reset", reset)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, args.host, args.port, backlog=2048)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    print(f"PORT {port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await runner.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
