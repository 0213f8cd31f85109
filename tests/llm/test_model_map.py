"""The direct path's context windows and prices come from litellm's packaged JSON map without
importing litellm (``vibesearch/llm/_model_map.py``); here they are compared with what litellm
itself says for the same models: ``get_model_info`` for the window and the cache-read fraction,
``completion_cost`` for the cost of an answer (``complete()`` against a local OpenAI-compatible
server on 127.0.0.1 that answers with the model name and usage report a case gives)."""

from __future__ import annotations

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from vibesearch.llm import client, complete

litellm = pytest.importorskip("litellm")

MODELS = [
    "openai/gpt-4o-mini", "openai/gpt-4o", "openai/gpt-4.1-mini", "openai/o3-mini", "openai/GPT-4o-Mini",
    "openai/my-local-qwen", "hosted_vllm/gpt-4o-mini", "hosted_vllm/Qwen2.5-7B-Instruct",
]
USAGES = [
    {"prompt_tokens": 1234, "completion_tokens": 56, "total_tokens": 1290},
    {  # what OpenAI reports: a cached prefix, zero counts of the other kinds
        "prompt_tokens": 5000, "completion_tokens": 77, "total_tokens": 5077,
        "prompt_tokens_details": {"cached_tokens": 4096, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
    },
    {"prompt_tokens": 300, "completion_tokens": 90, "total_tokens": 390, "completion_tokens_details": {"reasoning_tokens": 40}},
]


def _litellm_window(model: str) -> int | None:
    try:
        info = litellm.get_model_info(model)
    except Exception:
        return None
    return int(info["max_input_tokens"]) if info.get("max_input_tokens") else None


def _litellm_cost(answered: str, model: str, usage: dict) -> float | None:
    response = litellm.ModelResponse(
        model=answered, choices=[{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}], usage=dict(usage)
    )
    try:
        return float(litellm.completion_cost(completion_response=response, model=model))
    except Exception:
        return None


@pytest.mark.parametrize("model", MODELS)
def test_context_window_and_cache_fraction_match_litellm(model):
    assert client.context_window(model, default=-1) == (_litellm_window(model) or -1)
    try:
        info = litellm.get_model_info(model)
        full, cached = info.get("input_cost_per_token"), info.get("cache_read_input_token_cost")
        expected = float(cached) / float(full) if full and cached is not None else None
    except Exception:
        expected = None
    assert client.cache_read_fraction(model) == expected


def test_the_known_models_are_known():
    """(So the comparison above is not all None against None.)"""
    assert client.context_window("openai/gpt-4o-mini", default=-1) == 128000
    assert client.context_window("openai/my-local-qwen", default=-1) == -1


class _Server(ThreadingHTTPServer):
    answer: dict = {}


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the http.server name
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps(self.server.answer).encode()  # type: ignore[attr-defined] - the _Server holds the answer a case sets
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def server():
    srv = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.mark.parametrize("usage", USAGES, ids=["plain", "cached", "reasoning"])
@pytest.mark.parametrize(
    ("answered", "model"),
    [
        ("gpt-4o-mini", "openai/gpt-4o-mini"), ("gpt-4o", "openai/gpt-4o-mini"), ("qwen", "openai/gpt-4o-mini"),
        ("gpt-4o-mini", "openai/my-local-qwen"), ("qwen", "openai/my-local-qwen"), ("o3-mini", "openai/o3-mini"),
        ("gpt-4o-mini", "hosted_vllm/gpt-4o-mini"),
    ],
)
def test_the_cost_of_a_direct_answer_matches_litellm(server, answered, model, usage):
    server.answer = {
        "id": "x", "object": "chat.completion", "created": 0, "model": answered,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}], "usage": usage,
    }
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    result = asyncio.run(complete([{"role": "user", "content": "hi"}], model=model, purpose="agent", api_base=base, api_key="k", retries=0))
    expected = _litellm_cost(answered, model, usage)
    if expected == 0.0:  # litellm's 0 for a model it has no price for: unknown to the product
        expected = None
    assert result.cost_usd == expected
    if model == "openai/gpt-4o-mini" and answered != "gpt-4o":
        assert expected is not None  # (a priced case: not None against None)
