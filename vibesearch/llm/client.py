"""The one door to language models: ``complete()`` over litellm (and, for OpenAI-compatible
endpoints and the fake models, a direct HTTP fast path with the same behaviour: ``_direct.py``).

Every LLM call the product makes (agent, simulator, judge, summariser) goes through here, so
that retries, usage accounting and secret hygiene are the same everywhere:

* retries with exponential backoff on rate limits, 5xx, timeouts and connection errors; each
  failed attempt is recorded as a non-fatal ``error`` event; an error retrying cannot fix (a bad
  or missing key, a bad request, an unknown model, no permission) fails at once;
* one ``usage`` event per call: tokens (with the prompt tokens the provider served from its
  cache, when it reports them), cost from litellm's local cost map (for the direct path's models
  read from litellm's packaged file without importing litellm: ``_model_map.py``) (``None`` when the model has
  no price, never a made-up 0; litellm prices cached tokens at the model's cache-read rate),
  latency, retries;
* error texts are scrubbed of anything that looks like a key before they are recorded.

litellm is imported lazily, only when a call goes through it (or a model outside the direct
path is looked up): it is slow to import and most commands never call a model.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import sys
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Awaitable, Callable, Mapping, get_args

from .._files import first_non_finite
from .._secrets import scrub
from ..config import Settings, get_settings
from ..run.events import Emit, ErrorEvent, UsageEvent, UsagePurpose
from . import _direct, _model_map
from ._litellm import _litellm
from .pacing import PACER, provider_of

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

Purpose = str  # "agent" | "simulator" | "judge" | "summariser" | "extraction" | "compaction"


class LLMError(RuntimeError):
    """A model call failed for good (after retries, or with an error that retrying cannot fix).

    ``bad_request``: the provider refused the request with a 400 (a context too long among them);
    ``timed_out``: the last attempt timed out. The official profile compacts on either.
    ``cause``: what went wrong, without the "<purpose> model ... failed:" the message starts with
    (scrubbed like the message)."""

    def __init__(self, message: str, *, bad_request: bool = False, timed_out: bool = False, cause: str | None = None):
        super().__init__(message)
        self.bad_request = bad_request
        self.timed_out = timed_out
        self.cause = cause if cause is not None else message


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str | None = None  # set when the arguments were not valid JSON (NaN, Infinity included)


@dataclass
class LLMResult:
    content: str
    # the provider sent no content at all (null), as opposed to an empty text: the official
    # client retries the first kind of answer (with no calls and no reasoning either), not the second
    content_none: bool = False
    tool_calls: list[ToolCall] = field(default_factory=list)
    thinking: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    # the part of input_tokens read from the provider's prompt cache (None: the provider did not say)
    cached_input_tokens: int | None = None
    cost_usd: float | None = None
    latency_s: float = 0.0
    retries: int = 0
    model: str = ""
    finish_reason: str | None = None


# errors a second attempt cannot fix (litellm's classes; any 4xx but 408/409/429 likewise)
_NEVER_RETRY = (
    "AuthenticationError", "PermissionDeniedError", "BadRequestError", "NotFoundError", "UnprocessableEntityError",
    "ContentPolicyViolationError", "ContextWindowExceededError", "UnsupportedParamsError", "InvalidRequestError",
)
# litellm reports a key missing from the environment as a 500 raised before any request is sent
_NO_CREDENTIALS = re.compile(r"(?i)missing credentials|api_key client option must be set|no api key provided")


def _retryable(exc: BaseException) -> bool:
    litellm = _litellm()
    never = tuple(t for t in (getattr(litellm, n, None) for n in _NEVER_RETRY) if isinstance(t, type))
    status = getattr(exc, "status_code", None)
    if isinstance(exc, never) or _NO_CREDENTIALS.search(str(exc)):
        return False
    if isinstance(status, int) and 400 <= status < 500 and status not in (408, 409, 429):
        return False
    retry_types = tuple(
        t
        for t in (
            getattr(litellm, "RateLimitError", None),
            getattr(litellm, "InternalServerError", None),
            getattr(litellm, "ServiceUnavailableError", None),
            getattr(litellm, "Timeout", None),
            getattr(litellm, "APIConnectionError", None),
            getattr(litellm, "BadGatewayError", None),
        )
        if t is not None
    )
    if isinstance(exc, retry_types) or isinstance(exc, (asyncio.TimeoutError, TimeoutError, ConnectionError)):
        return True
    return isinstance(status, int) and (status == 429 or status >= 500)


def _rate_limited(exc: BaseException) -> bool:
    """A 429: litellm's ``RateLimitError`` or the status."""
    limited = getattr(_litellm(), "RateLimitError", None)
    return (isinstance(limited, type) and isinstance(exc, limited)) or getattr(exc, "status_code", None) == 429


def _is_bad_request(exc: BaseException) -> bool:
    """A 400: litellm's ``BadRequestError`` (its ``ContextWindowExceededError`` is one) or the status."""
    bad = getattr(_litellm(), "BadRequestError", None)
    return (isinstance(bad, type) and isinstance(exc, bad)) or getattr(exc, "status_code", None) == 400


def _is_timeout(exc: BaseException) -> bool:
    timeout = getattr(_litellm(), "Timeout", None)
    return (isinstance(timeout, type) and isinstance(exc, timeout)) or isinstance(exc, (asyncio.TimeoutError, TimeoutError))


def _unknown_to_litellm(model: str | None) -> bool:
    """A ``fake/`` model while litellm is not loaded: litellm's map cannot know it (only
    ``litellm.register_model`` could add it, which loads litellm), so nothing is asked of it."""
    return bool(model) and str(model).startswith("fake/") and "litellm" not in sys.modules


def _has_price(model: str) -> bool:
    """Does litellm's cost map price this model? (Asked once per model name.)"""
    return False if _unknown_to_litellm(model) else _priced(model)


def _map_entry(model: str) -> dict[str, Any] | None:
    """The model's entry in litellm's map: for the direct path's models read from the packaged
    file (``_model_map``, litellm not loaded), for the others from litellm; None when unmapped."""
    found = _model_map.entry(model)
    if found is not _model_map.ASK_LITELLM:
        return dict(found) if isinstance(found, Mapping) else None
    try:
        return dict(_litellm().get_model_info(model))
    except Exception:
        return None


@lru_cache(maxsize=256)
def _priced(model: str) -> bool:
    info = _map_entry(model)
    return info is not None and _model_map.has_price(info)


def _cost(litellm: Any, response: Any, model: str) -> float | None:
    if not _has_price(model) and not _has_price(getattr(response, "model", None) or model):
        return None  # unknown, never a made-up 0
    try:
        cost = litellm.completion_cost(completion_response=response, model=model)
    except Exception:
        return None
    if cost is None:
        return None
    # litellm returns 0.0 for models it has no price for; treat as unknown unless it knows the model
    if cost == 0.0:
        try:
            info = litellm.get_model_info(model)
            if not info.get("input_cost_per_token") and not info.get("output_cost_per_token"):
                return None
        except Exception:
            return None
    return float(cost)


def _direct_cost(response: _direct.Response, model: str) -> float | None:
    """The cost of a direct-path answer, as litellm works it out for its own responses: priced by
    the name the endpoint answered with (read under the call's provider) when the map prices it,
    else by the model asked for. Plain rates are applied here (``_model_map.simple_cost``); any
    other pricing rebuilds the answer as a litellm response and asks litellm."""
    if response.usage is None:
        return None
    answered = response.model if "/" in response.model else f"{model.split('/', 1)[0]}/{response.model}"
    for name in (answered, model):
        if _has_price(name):
            info = _model_map.entry(name)
            cost = _model_map.simple_cost(info, response.usage.raw) if isinstance(info, Mapping) else None
            if cost is not None:
                return cost
            break
    else:
        return None  # neither name has a price: unknown, never a made-up 0
    litellm = _litellm()
    rebuilt = litellm.ModelResponse(
        model=response.model,
        choices=[{"index": 0, "message": {"role": "assistant", "content": c.message.content}, "finish_reason": c.finish_reason} for c in response.choices],
        usage=dict(response.usage.raw),
    )
    return _cost(litellm, rebuilt, model)


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)


def cached_prompt_tokens(usage: Any) -> int | None:
    """How many prompt tokens the provider read from its prompt cache, from a usage report: a
    litellm ``Usage`` or the raw usage of the direct path. OpenAI, DeepSeek and litellm's
    normalised form say ``prompt_tokens_details.cached_tokens``; Anthropic's own field is
    ``cache_read_input_tokens``. None when the report says neither."""
    if usage is None:
        return None
    if isinstance(usage, _direct.Usage):
        usage = usage.raw
    details = _field(usage, "prompt_tokens_details")
    for value in (_field(details, "cached_tokens") if details is not None else None, _field(usage, "cache_read_input_tokens")):
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def cache_read_fraction(model: str) -> float | None:
    """The price of a cached prompt token as a fraction of an uncached one, from litellm's cost
    map (``cache_read_input_token_cost`` / ``input_cost_per_token``); None when the map does not
    price both for this model."""
    if _unknown_to_litellm(model):
        return None
    return _cache_fraction(model)


@lru_cache(maxsize=256)
def _cache_fraction(model: str) -> float | None:
    info = _map_entry(model)
    return None if info is None else _model_map.cache_read_fraction(info)


def _parse_tool_calls(message: Any) -> list[ToolCall]:
    calls = []
    for i, tc in enumerate(getattr(message, "tool_calls", None) or []):
        fn = tc.function if hasattr(tc, "function") else tc["function"]
        name = getattr(fn, "name", None) or fn.get("name")
        raw = getattr(fn, "arguments", None)
        if raw is None and isinstance(fn, dict):
            raw = fn.get("arguments")
        call_id = getattr(tc, "id", None) or (tc.get("id") if isinstance(tc, dict) else None) or f"call_{i}"
        if isinstance(raw, dict):
            if first_non_finite(raw) is not None:  # kept as the text it stands for, so the call is refused
                calls.append(ToolCall(id=call_id, name=name or "", arguments={}, raw_arguments=json.dumps(raw, ensure_ascii=False)))
            else:
                calls.append(ToolCall(id=call_id, name=name or "", arguments=raw))
            continue
        try:
            args = json.loads(raw or "{}")
            if not isinstance(args, dict):
                raise ValueError("arguments are not an object")
            if first_non_finite(args) is not None:
                # NaN, Infinity or a number too large for a float: not JSON, and no tool can use
                # it; the call keeps its text and comes back as an error result (run.tools)
                calls.append(ToolCall(id=call_id, name=name or "", arguments={}, raw_arguments=raw))
                continue
            calls.append(ToolCall(id=call_id, name=name or "", arguments=args))
        except (ValueError, TypeError):
            from json_repair import repair_json

            repaired = repair_json(raw or "", return_objects=True)
            calls.append(
                ToolCall(
                    id=call_id,
                    name=name or "",
                    arguments=repaired if isinstance(repaired, dict) else {},
                    raw_arguments=raw,
                )
            )
    return calls


async def complete(
    messages: list[dict[str, Any]],
    *,
    model: str,
    purpose: Purpose,
    emit: Emit | None = None,
    tools: list[dict[str, Any]] | None = None,
    response_format: Any = None,
    settings: Settings | None = None,
    api_base: str | None = None,
    api_key: str | None = None,
    stream: bool = False,
    on_delta: Callable[[str], Awaitable[None] | None] | None = None,
    sampling: Mapping[str, float | int | str] | None = None,
    retries: int | None = None,
    extra_body: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> LLMResult:
    """Call a model (a litellm model string) and return its message, recording usage.

    ``sampling``: temperature, top_p, max_tokens for this call (``run.config.Sampling.params()``;
    a run's parts pass the sampling its resolved ``RunConfig`` gives them); without, the
    provider's defaults (the settings hold no sampling of their own). ``retries``: how often a failed call is tried again
    (default ``settings.llm_retries``; 0 for a caller that runs its own attempts). ``extra_body``:
    fields added to the request body as they are (what the OpenAI SDK's ``extra_body`` does)."""
    settings = settings or get_settings()
    params: dict[str, Any] = {"model": model, "messages": messages, "timeout": settings.llm_timeout_s}
    if tools:
        params["tools"] = tools
    if response_format is not None:
        params["response_format"] = response_format
    base = api_base or settings.api_base
    if base and not model.startswith("fake"):
        params["api_base"] = base
    if api_key:
        params["api_key"] = api_key
    elif base and model.startswith(("openai/", "hosted_vllm/")) and not os.environ.get("OPENAI_API_KEY"):
        # litellm's OpenAI route refuses to send a request without some key; a local server
        # (vLLM, llama.cpp, LM Studio) needs none, so a placeholder stands in.
        params["api_key"] = "no-key"
    params.update(sampling or {})
    params["max_retries"] = 0  # the provider SDK's own retries would multiply those of the loop below
    if extra_body:
        params["extra_body"] = dict(extra_body)
    params.update(kwargs)
    allowed_retries = settings.llm_retries if retries is None else max(0, retries)

    # an OpenAI-compatible endpoint (and the fake models) are asked directly: see _direct.py
    direct = _direct.route(params, stream=stream and on_delta is not None)
    litellm: Any = _litellm() if direct is None else None
    response: Any
    attempt = 0
    start = time.perf_counter()
    pacer, provider = PACER.get(), provider_of(model)
    while True:
        try:
            if pacer is not None:
                await pacer.wait(provider)
            if direct is not None:
                response = await _direct.acompletion(params, direct)
            elif stream and on_delta is not None:
                response = await _streamed(litellm, params, on_delta)
            else:
                response = await litellm.acompletion(**params)
            break
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - classified below
            message = scrub(f"{type(exc).__name__}: {exc}")[:2000]
            retry = _retryable(exc) and attempt < allowed_retries
            if emit is not None:
                emit(ErrorEvent(source=f"llm:{purpose}", message=message, fatal=False, attempt=attempt + 1))
            if not retry:
                cause = f"{message}{_key_hint(model, exc, params)}"
                raise LLMError(
                    f"{purpose} model {model!r} failed: {cause}", bad_request=_is_bad_request(exc), timed_out=_is_timeout(exc), cause=cause
                ) from None
            delay = min(settings.llm_backoff_max_s, settings.llm_backoff_s * (2**attempt)) * (0.5 + random.random() / 2)
            if pacer is not None and _rate_limited(exc):
                await pacer.backed_off(provider, delay)  # every caller sharing the pacer waits it out too
            await asyncio.sleep(delay)
            attempt += 1

    latency = time.perf_counter() - start
    if not getattr(response, "choices", None):  # litellm can hand back nothing (e.g. after a 422)
        raise LLMError(f"{purpose} model {model!r} failed: the provider returned no answer", cause="the provider returned no answer")
    choice = response.choices[0]
    message = choice.message
    usage = getattr(response, "usage", None)
    result = LLMResult(
        content=message.content or "",
        content_none=message.content is None,
        tool_calls=_parse_tool_calls(message),
        thinking=getattr(message, "reasoning_content", None) or None,
        input_tokens=getattr(usage, "prompt_tokens", None) if usage else None,
        output_tokens=getattr(usage, "completion_tokens", None) if usage else None,
        cached_input_tokens=cached_prompt_tokens(usage),
        cost_usd=_direct_cost(response, model) if direct is not None else _cost(litellm, response, model),
        latency_s=latency,
        retries=attempt,
        model=model,
        finish_reason=getattr(choice, "finish_reason", None),
    )
    if emit is not None:
        emit(
            UsageEvent(
                purpose=_PURPOSES.get(purpose, "other"),
                model=model,
                input_tokens=result.input_tokens,
                output_tokens=result.output_tokens,
                cached_input_tokens=result.cached_input_tokens,
                cost_usd=result.cost_usd,
                latency_s=round(latency, 4),
                retries=attempt,
            )
        )
    return result


def _key_hint(model: str, exc: BaseException, params: dict[str, Any]) -> str:
    """For an authentication failure: which variable to set (names only, never a value)."""
    auth = getattr(_litellm(), "AuthenticationError", None)
    unauthorised = isinstance(exc, _direct.AuthenticationError) or (isinstance(auth, type) and isinstance(exc, auth))
    if not (_NO_CREDENTIALS.search(str(exc)) or unauthorised):
        return ""
    from .credentials import missing_variables, variables_text

    missing = missing_variables(model, api_base=params.get("api_base"), api_key=params.get("api_key"))
    return f" (set {variables_text(missing)})" if missing else ""


_PURPOSES: dict[str, UsagePurpose] = {p: p for p in get_args(UsagePurpose)}  # a usage event names one of these


async def _streamed(litellm: Any, params: dict[str, Any], on_delta: Callable[[str], Any]) -> Any:
    chunks = []
    stream = await litellm.acompletion(**params, stream=True, stream_options={"include_usage": True})
    async for chunk in stream:
        chunks.append(chunk)
        delta = chunk.choices[0].delta.content if chunk.choices else None
        if delta:
            res = on_delta(delta)
            if asyncio.iscoroutine(res):
                await res
    return litellm.stream_chunk_builder(chunks, messages=params["messages"])


def count_tokens(messages: list[dict[str, Any]], model: str, tools: list[dict[str, Any]] | None = None) -> int:
    """Tokens of a context for a model (litellm's counter; a character estimate if it fails)."""
    litellm = _litellm()
    try:
        return int(litellm.token_counter(model=model, messages=messages, tools=tools))
    except Exception:
        text = json.dumps(messages, ensure_ascii=False)
        return len(text) // 4 + 1


def context_window(model: str, default: int) -> int:
    """The model's context window from litellm's map, else the configured default."""
    window = None if _unknown_to_litellm(model) else _mapped_window(model)
    return window if window is not None else default


@lru_cache(maxsize=256)
def _mapped_window(model: str) -> int | None:
    # asked before every agent step: litellm's lookup (an exception for an unmapped model) costs
    # about a millisecond, and the map does not change while the process runs
    info = _map_entry(model)
    return None if info is None else _model_map.context_window(info)
