"""A scripted model provider for tests and benchmarks, reachable two ways: plugged into litellm
(its custom-provider hook; streamed calls and ``VIBESEARCH_LLM_DIRECT=0``) and as an in-process
OpenAI-compatible endpoint (``transport()``) for ``complete()``'s direct HTTP path, which every
other call takes. Nothing here is used unless a ``fake/...`` model name is configured.

    from vibesearch.llm import fake
    fake.register("echo", lambda req: fake.Reply(content=req.last_user))
    await complete(messages, model="fake/echo", purpose="agent")

A handler gets a ``Request`` (messages, tools, model name, response_format) and returns a
``Reply``: text, tool calls, token counts, an artificial delay, or an error to raise (429, 500,
timeout) so retry paths run for real through litellm.

``register(..., prefix_cache=True)`` (or a minimum in tokens) makes the model act like a provider
with automatic prompt caching (OpenAI, DeepSeek, vLLM with prefix caching): each answer reports,
as ``usage.prompt_tokens_details.cached_tokens``, the tokens of the longest prefix this prompt
shares with a prompt the model has already *answered* (a call still in flight caches
nothing yet), or 0 below the minimum (1,024 tokens by default, as OpenAI's). Tokens are about
four characters each, or counted by the tokenizer given as ``register(..., tokens=count)``.

Handlers can also be registered in another process (the app under a browser test) by naming a
function in ``VIBESEARCH_FAKE_MODELS=package.module:function`` — ``install_from_env()`` imports
and calls it.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import itertools
import json
import os
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

_HANDLERS: dict[str, Callable[["Request"], "Reply"]] = {}
# models registered with a prefix cache: name -> (minimum cached tokens, prompts answered so far)
_CACHES: dict[str, tuple[int, list[list[tuple[str, str]]]]] = {}
# models registered with a tokenizer: name -> tokens of a text (the others: characters / 4)
_COUNTERS: dict[str, Callable[[str], int]] = {}
MESSAGE_TOKENS = 3  # with a tokenizer: the chat format's tokens around each message (OpenAI's count)
_CACHE_KEEP = 256  # prompts remembered per model
DEFAULT_CACHE_MIN_TOKENS = 1024
_LOCK = threading.Lock()
_counter = itertools.count(1)
_installed = False
_wanted = False  # a handler was registered: litellm gets the provider when it is loaded


@dataclass
class Request:
    model: str  # the part after "fake/"
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    response_format: Any = None
    # how the caller asked the model to sample (temperature, top_p, max_tokens; only those given)
    sampling: dict[str, Any] = field(default_factory=dict)
    # every other field the request carried (tool_choice, reasoning_effort, extra_body's fields ...)
    body: dict[str, Any] = field(default_factory=dict)
    # with a prefix cache: the prompt tokens its answer reports as read from the cache
    cached_tokens: int | None = None

    @property
    def last_user(self) -> str:
        for m in reversed(self.messages):
            if m.get("role") == "user":
                return _text(m.get("content"))
        return ""

    @property
    def last(self) -> dict[str, Any]:
        return self.messages[-1] if self.messages else {}

    @property
    def system(self) -> str:
        return "\n".join(_text(m.get("content")) for m in self.messages if m.get("role") == "system")

    def tool_results(self) -> list[dict[str, Any]]:
        """Tool messages after the last user message."""
        out: list[dict[str, Any]] = []
        for m in reversed(self.messages):
            if m.get("role") == "user":
                break
            if m.get("role") == "tool":
                out.append(m)
        return list(reversed(out))


@dataclass
class Reply:
    content: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (name, arguments)
    input_tokens: int | None = None
    output_tokens: int | None = None
    delay_s: float = 0.0
    # the reply waits (without blocking the event loop) until this returns True, then ``delay_s``:
    # a test holds a run mid-call for as long as it needs, instead of guessing a delay
    hold: Callable[[], bool] | None = None
    error: str | None = None  # "429" | "500" | "timeout" | "400"
    raw_arguments: list[str] | None = None  # override argument text (to test broken JSON)
    reasoning: str | None = None  # the message's reasoning_content (a thinking model's)
    # the message's content exactly ("" is sent as an empty text; by default an empty ``content``
    # is sent as null, as providers do for a step that only calls tools)
    raw_content: str | None = None


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def register(
    name: str, handler: Callable[[Request], Reply], *, prefix_cache: bool | int = False, tokens: Callable[[str], int] | None = None
) -> str:
    """Register a handler; returns the litellm model string (``fake/<name>``).

    ``prefix_cache``: simulate a provider's prompt cache (see the module's docstring); True for a
    minimum of ``DEFAULT_CACHE_MIN_TOKENS``, a number for another minimum. Registering a name
    again starts it with an empty cache.

    ``tokens``: count the usage's prompt, completion and cached tokens with this tokenizer (a
    text's tokens, plus ``MESSAGE_TOKENS`` a message) instead of characters / 4.

    The provider is plugged into litellm at once when litellm is loaded already, else the first
    time ``_litellm()`` loads it (``installed_if_wanted``): the direct path, which serves every
    call but streamed ones and ``VIBESEARCH_LLM_DIRECT=0``, never needs litellm."""
    global _wanted
    with _LOCK:
        _HANDLERS[name] = handler
        _CACHES.pop(name, None)
        _COUNTERS.pop(name, None)
        if tokens is not None:
            _COUNTERS[name] = tokens
        if prefix_cache is not False:
            minimum = DEFAULT_CACHE_MIN_TOKENS if prefix_cache is True else max(1, int(prefix_cache))
            _CACHES[name] = (minimum, [])
        _wanted = True
    if "litellm" in sys.modules:
        install()
    return f"fake/{name}"


def unregister(name: str) -> None:
    with _LOCK:
        _HANDLERS.pop(name, None)
        _CACHES.pop(name, None)
        _COUNTERS.pop(name, None)


def _prompt_parts(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(str(m.get("role", "")), _text(m.get("content"))) for m in messages]


def _shared_prefix(a: list[tuple[str, str]], b: list[tuple[str, str]]) -> tuple[list[str], str]:
    """The prefix two prompts share: the messages while they are equal, then the common start of
    the first one that differs."""
    whole: list[str] = []
    for (role_a, text_a), (role_b, text_b) in zip(a, b):
        if role_a != role_b:
            break
        if text_a == text_b:
            whole.append(text_a)
            continue
        n = 0
        for x, y in zip(text_a, text_b):
            if x != y:
                break
            n += 1
        return whole, text_a[:n]
    return whole, ""


def _tokens_of(name: str, whole: list[str], partial: str = "") -> int:
    """Tokens of whole messages' texts and a part of one more: the model's tokenizer, or
    ``_estimate_tokens``' count (characters + 8 a message, / 4)."""
    with _LOCK:
        count = _COUNTERS.get(name)
    if count is None:
        return (sum(len(t) + 8 for t in whole) + len(partial)) // 4
    return sum(count(t) + MESSAGE_TOKENS for t in whole) + (count(partial) if partial else 0)


def _cache_lookup(name: str, messages: list[dict[str, Any]]) -> int | None:
    """Cached tokens for a prompt arriving now (None: the model has no prefix cache)."""
    with _LOCK:
        entry = _CACHES.get(name)
        if entry is None:
            return None
        minimum, seen = entry[0], list(entry[1])
    parts = _prompt_parts(messages)
    shared = [_shared_prefix(parts, old) for old in seen]
    tokens = max((_tokens_of(name, whole, partial) for whole, partial in shared), default=0)
    return tokens if tokens >= minimum else 0


def _cache_store(name: str, messages: list[dict[str, Any]]) -> None:
    """Remember a prompt once it is answered (what a provider's cache then holds)."""
    with _LOCK:
        entry = _CACHES.get(name)
        if entry is not None:
            entry[1].append(_prompt_parts(messages))
            del entry[1][:-_CACHE_KEEP]


def _raise(kind: str, model: str) -> None:
    import litellm

    if kind == "429":
        raise litellm.RateLimitError("fake rate limit", llm_provider="fake", model=model)
    if kind == "500":
        raise litellm.InternalServerError("fake server error", llm_provider="fake", model=model)
    if kind == "timeout":
        raise litellm.Timeout("fake timeout", llm_provider="fake", model=model)
    raise litellm.BadRequestError("fake bad request", llm_provider="fake", model=model)


def _estimate_tokens(obj: Any, name: str = "") -> int:
    """Tokens of the message texts (and tool calls' arguments): the model's tokenizer when it
    was registered with one, else about four characters a token."""
    messages = obj if isinstance(obj, list) else [obj]
    texts = []
    for m in messages:
        texts.append(_text(m.get("content")))
        texts += [str(tc.get("function", {}).get("arguments", "")) for tc in m.get("tool_calls") or []]
    return max(1, _tokens_of(name, texts))


def _answer(req: Request, reply: Reply) -> dict[str, Any]:
    """The reply as an OpenAI chat-completion document (what both paths hand back)."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.raw_content if reply.raw_content is not None else (reply.content or None)}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        # Ids follow from the request, not from a process-wide counter: concurrent runs that ask the
        # same thing get the same ids, so a conversation (and anything keyed on it) is reproducible.
        seed = hashlib.sha1((req.model + json.dumps(req.messages, sort_keys=True, default=str)).encode()).hexdigest()[:12]
        message["tool_calls"] = [
            {
                "id": f"call_{seed}_{i}",
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": (reply.raw_arguments[i] if reply.raw_arguments else json.dumps(args, ensure_ascii=False)),
                },
            }
            for i, (name, args) in enumerate(reply.tool_calls)
        ]
    prompt = reply.input_tokens if reply.input_tokens is not None else _estimate_tokens(req.messages, req.model)
    completion = reply.output_tokens if reply.output_tokens is not None else _estimate_tokens(message, req.model)
    usage: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    if req.cached_tokens is not None:  # a model with a prefix cache: the shape OpenAI (and litellm) use
        usage["prompt_tokens_details"] = {"cached_tokens": min(req.cached_tokens, prompt)}
        _cache_store(req.model, req.messages)
    return {
        "id": f"fake-{next(_counter)}",
        "object": "chat.completion",
        "model": f"fake/{req.model}",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
        "usage": usage,
    }


def _build_response(req: Request, reply: Reply) -> Any:
    import litellm

    answer = _answer(req, reply)
    return litellm.ModelResponse(model=answer["model"], choices=answer["choices"], usage=answer["usage"])


_ERROR_STATUS = {"429": 429, "500": 500, "400": 400}
_ERROR_TEXT = {"429": "fake rate limit", "500": "fake server error", "400": "fake bad request"}


def transport() -> Any:
    """The fake models as an OpenAI-compatible endpoint inside this process (an httpx transport),
    for ``complete()``'s direct path: same handlers, replies, delays and errors as through litellm."""
    import httpx

    class _Transport(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            from ._json import decode

            body = decode(await request.aread())
            try:
                req, reply = _handle(f"fake/{body['model']}", body.get("messages") or [], body)
            except Exception as exc:
                status = getattr(exc, "status_code", None)
                if isinstance(status, int) and 400 <= status < 600:  # a provider error the handler chose: answer it
                    kind = "context_length_exceeded" if type(exc).__name__ == "ContextWindowExceededError" else "fake"
                    return httpx.Response(status, json={"error": {"message": str(exc), "type": kind, "code": kind}})
                # a broken handler is a request that got no answer (as in litellm)
                raise httpx.ConnectError(f"{type(exc).__name__}: {exc}") from None
            await _wait(reply)
            if reply.error == "timeout":
                raise httpx.ReadTimeout("fake timeout")
            if reply.error:
                status = _ERROR_STATUS.get(reply.error, 400)
                text = _ERROR_TEXT.get(reply.error, "fake bad request")
                return httpx.Response(status, json={"error": {"message": text, "type": "fake"}})
            return httpx.Response(200, json=_answer(req, reply))

    return _Transport()


HOLD_POLL_S = 0.05


async def _wait(reply: Reply) -> None:
    """A reply's hold, then its delay (asynchronously)."""
    while reply.hold is not None and not reply.hold():  # noqa: ASYNC110 - a polled predicate (a file another process writes), no Event to wait on
        await asyncio.sleep(HOLD_POLL_S)
    if reply.delay_s:
        await asyncio.sleep(reply.delay_s)


def _handle(model: str, messages: list, optional_params: dict) -> tuple[Request, Reply]:
    name = model.split("/", 1)[1] if "/" in model else model
    with _LOCK:
        handler = _HANDLERS.get(name)
    if handler is None:
        raise ValueError(f"no fake model registered as {name!r}")
    req = Request(
        model=name,
        messages=messages,
        tools=optional_params.get("tools"),
        response_format=optional_params.get("response_format"),
        sampling={k: optional_params[k] for k in ("temperature", "top_p", "max_tokens") if optional_params.get(k) is not None},
        body={k: v for k, v in optional_params.items() if k not in ("model", "messages", "tools", "response_format")},
        cached_tokens=_cache_lookup(name, messages),  # what the cache holds when the request arrives
    )
    return req, handler(req)


def install() -> None:
    """Register the ``fake`` provider with litellm (idempotent)."""
    global _installed
    if _installed:
        return
    import litellm
    from litellm import CustomLLM

    class _FakeProvider(CustomLLM):
        def completion(  # litellm's CustomLLM signature
            self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose, encoding, api_key,
            logging_obj, optional_params, *args, **kwargs,
        ):
            req, reply = _handle(model, messages, optional_params)
            import time

            while reply.hold is not None and not reply.hold():
                time.sleep(HOLD_POLL_S)
            if reply.delay_s:
                time.sleep(reply.delay_s)
            if reply.error:
                _raise(reply.error, model)
            return _build_response(req, reply)

        async def acompletion(  # litellm's CustomLLM signature
            self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose, encoding, api_key,
            logging_obj, optional_params, *args, **kwargs,
        ):
            req, reply = _handle(model, messages, optional_params)
            await _wait(reply)
            if reply.error:
                _raise(reply.error, model)
            return _build_response(req, reply)

    with _LOCK:
        if _installed:
            return
        existing = [p for p in (litellm.custom_provider_map or []) if p.get("provider") != "fake"]
        litellm.custom_provider_map = existing + [{"provider": "fake", "custom_handler": _FakeProvider()}]
        # litellm reads the map when it sets up providers
        from litellm.utils import custom_llm_setup

        custom_llm_setup()
        _installed = True


def installed_if_wanted() -> None:
    """Called by ``_litellm()`` each time it hands out litellm: plug in the provider once a
    handler is registered (cheap when there is nothing to do)."""
    if _wanted and not _installed:
        install()


def install_from_env() -> None:
    """Import ``VIBESEARCH_FAKE_MODELS`` (``module:function``, comma-separated) and call each."""
    spec = os.environ.get("VIBESEARCH_FAKE_MODELS", "").strip()
    if not spec:
        return
    global _wanted
    _wanted = True  # litellm gets the provider when it is loaded (see register)
    if "litellm" in sys.modules:
        install()
    for item in spec.split(","):
        module_name, _, func_name = item.strip().partition(":")
        func = getattr(importlib.import_module(module_name), func_name or "register_fakes")
        func()
