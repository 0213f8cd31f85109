"""The run's door for OpenClaw: its model and its web, on one loopback port.

* ``POST /v1/chat/completions``: OpenClaw's model calls (OpenAI chat format, streamed or not).
  Each is made by ``model_call`` on the run's event loop, so it goes through vibesearch's model
  client (the run's model, retries, usage and cost recorded) and the answer is handed back in the
  format OpenClaw asked for.
* ``/mcp/``: an MCP server (streamable HTTP) offering the run's tools (``search``, ``visit`` ...),
  each call run by ``tool_call`` on the run's loop with the run's search backend.

Both need the run's token (``Authorization: Bearer``); the bridge listens on 127.0.0.1 only. It
runs in a thread of its own (uvicorn), so OpenClaw's requests never wait on the run's loop for
anything but the work itself.

It is also OpenClaw's forward proxy (``proxy.proxyUrl`` in ``_config.py``): whatever OpenClaw would
fetch from elsewhere (its plugin catalog from clawhub.ai, any other HTTP or WebSocket egress) comes
here as a proxy request, so OpenClaw never looks a name up itself, and is refused (403); the host
it was for (never its path or query) is kept in ``refused`` for the run's record.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, TypeVar
from urllib.parse import urlsplit

import mcp.types as mcp_types
import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ...run.tools import ToolOutput

T = TypeVar("T")
ModelCall = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
ToolCall = Callable[[str, dict[str, Any]], Awaitable[ToolOutput]]


class BridgeError(RuntimeError):
    pass


_LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def _egress_target(scope: Scope) -> str | None:
    """The ``host:port`` a proxy request is for (``CONNECT host:port``, a whole URL as the target,
    or a ``Host`` that is not this machine), or None for a request to the bridge itself."""
    path = str(scope.get("path", "/"))
    host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
    if scope.get("method") == "CONNECT":
        where = path
    elif not path.startswith("/"):
        parts = urlsplit(path)
        where = parts.netloc.rpartition("@")[2] or path
    else:
        where = host
    try:
        name = urlsplit(f"//{where}").hostname or ""
    except ValueError:
        name = ""
    if scope.get("method") != "CONNECT" and path.startswith("/") and (not host or name in _LOCAL_HOSTS):
        return None
    return where[:200] or "?"


class _Guard:
    """Refuses every proxy request, keeping the host it was for, and every other request without
    the run's token."""

    def __init__(self, app: ASGIApp, token: str, refused: list[str]):
        self.app = app
        self.expected = f"Bearer {token}".encode()
        self.refused = refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        target = _egress_target(scope) if scope["type"] in ("http", "websocket") else None
        if target is not None:
            self.refused.append(target)
            if scope["type"] == "http":
                await JSONResponse({"error": {"message": "no way out: OpenClaw's only web is the task's"}}, status_code=403)(scope, receive, send)
            else:
                await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await JSONResponse({"error": {"message": "not this run's token"}}, status_code=401)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class Bridge:
    def __init__(self, *, loop: asyncio.AbstractEventLoop, token: str, tools: list[dict[str, Any]], model_call: ModelCall, tool_call: ToolCall):
        self.loop = loop  # the run's loop: the work of every request is done there
        self.token = token
        self.tools = tools
        self.model_call = model_call
        self.tool_call = tool_call
        self.model_errors: list[str] = []  # model calls that failed, for the turn that asked
        self.refused: list[str] = []  # what OpenClaw tried to reach through its proxy (refused)
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None
        self.url = ""

    # ------------------------------------------------------------------ lifecycle
    def start(self, timeout_s: float = 30.0) -> str:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        self._sock = sock
        port = sock.getsockname()[1]
        # h11 keeps a proxy request's target as it came (CONNECT's host:port, a whole URL)
        config = uvicorn.Config(self._app(), log_level="warning", lifespan="on", access_log=False, http="h11")
        self._server = server = uvicorn.Server(config)
        self._thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), name="openclaw-bridge", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise BridgeError("the bridge for OpenClaw did not start")
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    def stop(self) -> None:
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is not None:
            server.should_exit = True
        if thread is not None:
            thread.join(timeout=10)
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    # ------------------------------------------------------------------ the app
    async def _on_run_loop(self, work: Coroutine[Any, Any, T]) -> T:
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self.loop))

    def _app(self) -> ASGIApp:
        server: Server[Any] = Server("vibesearch", on_list_tools=self._list_tools, on_call_tool=self._call_tool)
        manager = StreamableHTTPSessionManager(app=server, stateless=True, json_response=True)

        async def handle_mcp(scope: Scope, receive: Receive, send: Send) -> None:
            await manager.handle_request(scope, receive, send)

        @contextlib.asynccontextmanager
        async def lifespan(_app: Starlette) -> AsyncIterator[None]:
            async with manager.run():
                yield

        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
                Mount("/mcp", app=handle_mcp),
            ],
            lifespan=lifespan,
        )
        return _Guard(app, self.token, self.refused)

    async def _list_tools(self, _ctx: Any, _params: Any) -> mcp_types.ListToolsResult:
        tools = []
        for schema in self.tools:
            fn = schema.get("function", {})
            tools.append(mcp_types.Tool(
                name=str(fn.get("name")), description=str(fn.get("description", "")),
                input_schema=fn.get("parameters") or {"type": "object", "properties": {}},
            ))
        return mcp_types.ListToolsResult(tools=tools)

    async def _call_tool(self, _ctx: Any, params: mcp_types.CallToolRequestParams) -> mcp_types.CallToolResult:
        out = await self._on_run_loop(self._tool(params.name, dict(params.arguments or {})))
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=out.content)], is_error=out.error)

    async def _tool(self, name: str, arguments: dict[str, Any]) -> ToolOutput:
        return await self.tool_call(name, arguments)

    async def _models(self, _request: Request) -> Response:
        return JSONResponse({"object": "list", "data": []})

    async def _chat(self, request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": {"message": "the body is not JSON"}}, status_code=400)
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return JSONResponse({"error": {"message": "expected a chat completion request"}}, status_code=400)
        try:
            answer = await self._on_run_loop(self._model(body))
        except Exception as exc:  # the model call failed: OpenClaw sees a server error, the turn learns why
            message = str(exc)[:500] or type(exc).__name__
            self.model_errors.append(message)
            return JSONResponse({"error": {"message": message, "type": "server_error"}}, status_code=502)
        if not body.get("stream"):
            return JSONResponse(answer)
        return StreamingResponse(_as_stream(answer), media_type="text/event-stream")

    async def _model(self, body: dict[str, Any]) -> dict[str, Any]:
        return await self.model_call(body)


async def _as_stream(answer: dict[str, Any]) -> AsyncIterator[str]:
    """A whole chat completion as the chunks of a streamed one."""
    base = {"id": answer.get("id", "chatcmpl"), "object": "chat.completion.chunk", "created": answer.get("created", 0), "model": answer.get("model")}
    choice = (answer.get("choices") or [{}])[0]
    message = choice.get("message") or {}
    delta: dict[str, Any] = {"role": "assistant"}
    for key in ("content", "reasoning_content"):
        if message.get(key):
            delta[key] = message[key]
    if message.get("tool_calls"):
        delta["tool_calls"] = [dict(call, index=i) for i, call in enumerate(message["tool_calls"])]
    yield _sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
    yield _sse({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice.get("finish_reason") or "stop"}]})
    if answer.get("usage"):
        yield _sse({**base, "choices": [], "usage": answer["usage"]})
    yield "data: [DONE]\n\n"


def _sse(data: dict[str, Any]) -> str:
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"
