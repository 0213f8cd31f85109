"""The fast path of ``complete()``: one plain HTTP POST to an OpenAI-compatible endpoint.

litellm costs several milliseconds of CPU per call (its logging payload, callbacks, cost lookups
and response objects), and the openai SDK walks every message through its type transforms. For an
endpoint that speaks the OpenAI chat API — a local vLLM, llama.cpp or LM Studio server given by
an ``api_base`` (``openai/...``, ``hosted_vllm/...``), and the in-process ``fake/...`` models —
the request is a JSON body and the answer a JSON document, so this module sends the one and reads
the other itself. Everything else (other providers, streaming, parameters we do not know, a
pydantic ``response_format``) still goes through litellm. ``VIBESEARCH_LLM_DIRECT=0`` turns the
fast path off.

Failures are raised as exceptions with the HTTP ``status_code`` and the class names litellm uses,
so the retry policy and the recorded error texts read the same on both paths.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import os
import weakref
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Iterator

import httpx

from ._json import decode, encode

# the chat parameters an OpenAI-compatible server takes as they are
_BODY_KEYS = frozenset(
    {
        "tools", "tool_choice", "response_format", "temperature", "top_p", "max_tokens", "max_completion_tokens",
        "stop", "seed", "n", "presence_penalty", "frequency_penalty", "parallel_tool_calls", "reasoning_effort",
        "logprobs", "top_logprobs", "user",
    }
)
# what complete() itself puts into litellm's parameters and this path handles
_OWN_KEYS = frozenset({"model", "messages", "timeout", "api_base", "api_key", "max_retries", "extra_body"})
_PREFIXES = ("openai/", "hosted_vllm/")
_KEY_VARIABLES = {"openai/": "OPENAI_API_KEY", "hosted_vllm/": "HOSTED_VLLM_API_KEY"}
FAKE_BASE = "http://fake.invalid/v1"


class ProviderError(RuntimeError):
    """An error answer of the endpoint (``status_code`` set) or no answer at all."""

    status_code: int | None = None

    def __init__(self, message: str, status_code: int | None = None):
        super().__init__(message)
        if status_code is not None:
            self.status_code = status_code


class BadRequestError(ProviderError):
    status_code = 400


class ContextWindowExceededError(BadRequestError):
    """A 400 saying the prompt does not fit the model's context (litellm's class of the same name)."""


class AuthenticationError(ProviderError):
    status_code = 401


class PermissionDeniedError(ProviderError):
    status_code = 403


class NotFoundError(ProviderError):
    status_code = 404


class UnprocessableEntityError(ProviderError):
    status_code = 422


class RateLimitError(ProviderError):
    status_code = 429


class InternalServerError(ProviderError):
    status_code = 500


class APIConnectionError(ProviderError, ConnectionError):
    """The request did not get an answer (connection refused, reset, a broken fake handler)."""


class Timeout(ProviderError, TimeoutError):
    status_code = 408


_BY_STATUS: dict[int, type[ProviderError]] = {
    400: BadRequestError, 401: AuthenticationError, 403: PermissionDeniedError, 404: NotFoundError,
    422: UnprocessableEntityError, 429: RateLimitError,
}


def enabled() -> bool:
    return os.environ.get("VIBESEARCH_LLM_DIRECT", "1").strip().lower() not in ("0", "false", "no", "off")


def route(params: dict[str, Any], *, stream: bool) -> str | None:
    """The base URL to POST to when this call can take the fast path, else None (litellm)."""
    if stream or not enabled():
        return None
    model = str(params.get("model") or "")
    if model.startswith("fake/"):
        base = FAKE_BASE
    elif model.startswith(_PREFIXES) and params.get("api_base"):
        base = str(params["api_base"])
    else:
        return None
    if any(key not in _BODY_KEYS and key not in _OWN_KEYS for key in params):
        return None  # something only litellm knows how to translate
    fmt = params.get("response_format")
    if fmt is not None and not isinstance(fmt, dict):
        return None  # a pydantic class: litellm turns it into a JSON schema
    return base


@dataclass
class Usage:
    prompt_tokens: int | None
    completion_tokens: int | None
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass
class Message:
    content: str | None
    tool_calls: list[dict[str, Any]]
    reasoning_content: str | None = None


@dataclass
class Choice:
    message: Message
    finish_reason: str | None


@dataclass
class Response:
    model: str
    choices: list[Choice]
    usage: Usage | None


MAX_CONNECTIONS = 512  # per event loop; keep-alive for as many, so none is reopened per call


class _Pools:
    """The clients of one event loop for the fake endpoint: a call takes the first client with a
    free place, a new one when all are busy, up to ``most``, and then the least busy."""

    def __init__(self, make: Callable[[], httpx.AsyncClient], size: int, most: int):
        self.make, self.size, self.most = make, size, most
        self.clients: list[httpx.AsyncClient] = []
        self.busy: list[int] = []

    @contextlib.contextmanager
    def take(self) -> Iterator[httpx.AsyncClient]:
        i = next((k for k, n in enumerate(self.busy) if n < self.size), None)
        if i is None and len(self.clients) < self.most:
            self.clients.append(self.make())
            self.busy.append(0)
            i = len(self.clients) - 1
        if i is None:
            i = min(range(len(self.busy)), key=self.busy.__getitem__)
        self.busy[i] += 1
        try:
            yield self.clients[i]
        finally:
            self.busy[i] -= 1


# per event loop (an httpx client must not outlive or change its loop)
_POOLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, _Pools]] = weakref.WeakKeyDictionary()


def _fake_client() -> httpx.AsyncClient:
    from .fake import transport

    return httpx.AsyncClient(transport=transport())


def _fake_clients() -> _Pools:
    """The fake endpoint's clients of this loop (every run on the loop shares them)."""
    per_loop = _POOLS.setdefault(asyncio.get_running_loop(), {})
    pools = per_loop.get("fake")
    if pools is None:
        pools = per_loop["fake"] = _Pools(_fake_client, MAX_CONNECTIONS, 1)
    return pools


# Real endpoints: one aiohttp session per event loop, shared by every run on it (a batch or a
# worker may have hundreds of calls in flight), up to MAX_CONNECTIONS connections kept alive.
# aiohttp costs two thirds of httpx's CPU a call, JSON included (benchmarks/http_client_cpu.py); at
# 200 calls in flight httpx's connection pools were the largest share of a worker's CPU.
_SESSIONS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[Any, Any]] = weakref.WeakKeyDictionary()


async def _session() -> Any:
    loop = asyncio.get_running_loop()
    held = _SESSIONS.get(loop)
    if held is None:
        import aiohttp

        # HTTP(S)_PROXY / NO_PROXY apply (as with httpx), read once per address (``_proxy_for``),
        # not on every request as aiohttp's trust_env does
        session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=MAX_CONNECTIONS, limit_per_host=0))
        keeper = _closed_with_loop(session)
        await keeper.__anext__()
        held = _SESSIONS[loop] = (session, keeper)
    return held[0]


_PROXIES: dict[str, tuple[Any, Any]] = {}  # address → (proxy, its credentials) as the environment says


def _proxy_for(url: str) -> tuple[Any, Any]:
    """The proxy the environment names for ``url`` (HTTP(S)_PROXY, NO_PROXY, netrc credentials),
    read the first time an address is called and kept for the process: reading it per request
    was a few percent of a process driving 200 runs."""
    hit = _PROXIES.get(url)
    if hit is None:
        from aiohttp.helpers import get_env_proxy_for_url
        from yarl import URL

        try:
            hit = get_env_proxy_for_url(URL(url))
        except LookupError:  # no proxy for it
            hit = (None, None)
        _PROXIES[url] = hit
    return hit


async def _closed_with_loop(session: Any) -> AsyncIterator[None]:
    """Parked at its ``yield`` for the loop's life: ``asyncio.run`` closes the loop's async
    generators before the loop itself (``shutdown_asyncgens``), and so the session with it."""
    try:
        yield
    finally:
        await session.close()


def _key(params: dict[str, Any]) -> str | None:
    if params.get("api_key"):
        return str(params["api_key"])
    model = str(params.get("model") or "")
    for prefix, variable in _KEY_VARIABLES.items():
        if model.startswith(prefix):
            return os.environ.get(variable) or None
    return None


async def acompletion(params: dict[str, Any], base: str) -> Response:
    """POST ``params`` as a chat completion to ``base`` and read the answer."""
    model = str(params["model"])
    name = model.split("/", 1)[1]
    body: dict[str, Any] = {"model": name, "messages": params["messages"]}
    body.update((k, v) for k, v in params.items() if k in _BODY_KEYS and v is not None)
    body.update(params.get("extra_body") or {})  # as the OpenAI SDK sends extra_body: merged into the body
    headers = {"Content-Type": "application/json"}
    key = _key(params)
    if key:
        headers["Authorization"] = f"Bearer {key}"
    content = encode(body)
    wait_s = float(params["timeout"]) if params.get("timeout") else None
    url = base.rstrip("/") + "/chat/completions"
    if base == FAKE_BASE:
        status, raw = await _post_fake(url, content, headers, wait_s, model)
    else:
        status, raw = await _post(url, content, headers, wait_s, model)
    if status >= 400:
        raise _error(status, raw.decode("utf-8", "replace"), model)
    try:
        data = decode(raw)
    except ValueError:
        raise InternalServerError(f"{model}: the answer is not JSON: {raw[:300].decode('utf-8', 'replace')}", status) from None
    return _response(data, model)


async def _post_fake(url: str, content: bytes, headers: dict[str, str], wait_s: float | None, model: str) -> tuple[int, bytes]:
    """The in-process fake endpoint (an httpx transport): (status, body)."""
    try:
        with _fake_clients().take() as client:
            answer = await client.post(url, content=content, headers=headers, timeout=wait_s)
    except httpx.TimeoutException as exc:
        raise Timeout(f"the request to {model} timed out: {exc}") from None
    except httpx.TransportError as exc:
        raise APIConnectionError(f"{model}: {type(exc).__name__}: {exc}") from None
    return answer.status_code, answer.content


async def _post(url: str, content: bytes, headers: dict[str, str], wait_s: float | None, model: str) -> tuple[int, bytes]:
    """A real endpoint, through the event loop's aiohttp session: (status, body). ``wait_s``
    bounds connecting and each wait for the answer's bytes (as httpx's timeout did), not the
    whole call."""
    import aiohttp

    session = await _session()
    limits = aiohttp.ClientTimeout(total=None, sock_connect=wait_s, sock_read=wait_s)
    proxy, proxy_auth = _proxy_for(url)
    try:
        async with session.post(url, data=content, headers=headers, timeout=limits, proxy=proxy, proxy_auth=proxy_auth) as answer:
            return answer.status, await answer.read()
    except TimeoutError as exc:  # aiohttp's connect and read timeouts are TimeoutErrors
        raise Timeout(f"the request to {model} timed out: {type(exc).__name__} {exc}".rstrip()) from None
    except aiohttp.ClientError as exc:
        raise APIConnectionError(f"{model}: {type(exc).__name__}: {exc}") from None


def _error(status: int, text: str, model: str) -> ProviderError:
    try:
        detail = json.loads(text).get("error") or text
        if isinstance(detail, dict):
            detail = detail.get("message") or json.dumps(detail)
    except (ValueError, AttributeError):
        detail = text
    kind = _BY_STATUS.get(status) or (InternalServerError if status >= 500 else ProviderError)
    if status == 400 and _CONTEXT_HINTS.search(text):
        kind = ContextWindowExceededError
    return kind(f"{model} answered {status}: {str(detail)[:1500]}", status)


# how OpenAI-compatible servers say a prompt is too long (OpenAI, vLLM, the fake endpoint)
_CONTEXT_HINTS = re.compile(r"context_length_exceeded|context length|context window|maximum context|prompt is too long", re.I)


def _response(data: dict[str, Any], model: str) -> Response:
    choices = []
    for choice in data.get("choices") or []:
        msg = choice.get("message") or {}
        choices.append(
            Choice(
                message=Message(
                    content=msg.get("content"),
                    tool_calls=list(msg.get("tool_calls") or []),
                    reasoning_content=msg.get("reasoning_content") or msg.get("reasoning") or None,
                ),
                finish_reason=choice.get("finish_reason"),
            )
        )
    raw_usage = data.get("usage")
    usage = None
    if isinstance(raw_usage, dict):
        usage = Usage(raw_usage.get("prompt_tokens"), raw_usage.get("completion_tokens"), raw_usage)
    return Response(model=str(data.get("model") or model), choices=choices, usage=usage)
