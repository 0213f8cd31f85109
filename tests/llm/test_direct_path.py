"""The direct HTTP path of ``complete()`` (OpenAI-compatible endpoints and the fake models) gives
the same answers, token counts, costs and failures as the litellm path it short-cuts."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from vibesearch.config import Settings
from vibesearch.llm import LLMError, complete
from vibesearch.llm import _direct
from vibesearch.run import ErrorEvent, UsageEvent

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Où est la tour Eiffel ?"}]
TOOLS = [{"type": "function", "function": {"name": "search", "description": "web search",
                                           "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}]


@pytest.fixture
def s(tmp_path) -> Settings:
    return Settings(db=tmp_path / "d.db", tasks="", llm_retries=2, llm_backoff_s=0.001, llm_backoff_max_s=0.002)


async def _both(monkeypatch, **kwargs):
    """The same call through the direct path and through litellm: (result, usage event) each."""
    out = []
    for direct in ("1", "0"):
        monkeypatch.setenv("VIBESEARCH_LLM_DIRECT", direct)
        events: list = []
        result = await complete(MESSAGES, purpose="agent", emit=events.append, **kwargs)
        out.append((result, [e for e in events if isinstance(e, UsageEvent)]))
    return out


def test_which_calls_take_the_direct_path(monkeypatch):
    base = {"messages": MESSAGES, "timeout": 5, "max_retries": 0}
    assert _direct.route({**base, "model": "fake/x"}, stream=False) == _direct.FAKE_BASE
    assert _direct.route({**base, "model": "openai/m", "api_base": "http://h/v1", "temperature": 0.2}, stream=False) == "http://h/v1"
    assert _direct.route({**base, "model": "hosted_vllm/m", "api_base": "http://h/v1"}, stream=False) == "http://h/v1"
    # everything else stays with litellm
    assert _direct.route({**base, "model": "openai/gpt-4o-mini"}, stream=False) is None  # OpenAI itself
    assert _direct.route({**base, "model": "anthropic/claude-x", "api_base": "http://h"}, stream=False) is None
    assert _direct.route({**base, "model": "fake/x"}, stream=True) is None
    assert _direct.route({**base, "model": "fake/x", "custom_llm_provider": "y"}, stream=False) is None
    assert _direct.route({**base, "model": "fake/x", "response_format": Settings}, stream=False) is None
    monkeypatch.setenv("VIBESEARCH_LLM_DIRECT", "0")
    assert _direct.route({**base, "model": "fake/x"}, stream=False) is None


async def test_fake_model_same_answer_tokens_and_cost_on_both_paths(fake, s, monkeypatch):
    seen = []

    def handler(req):
        seen.append((req.messages, req.tools, req.sampling))
        return fake.Reply(content="Paris.", tool_calls=[("search", {"query": "tour Eiffel"})], input_tokens=1234, output_tokens=56)

    model = fake.register("direct-exact", handler)
    (d, d_usage), (lt, lt_usage) = await _both(monkeypatch, model=model, settings=s, tools=TOOLS, sampling={"temperature": 0.3, "max_tokens": 99})
    assert (d.content, d.input_tokens, d.output_tokens, d.cost_usd, d.finish_reason) == ("Paris.", 1234, 56, None, "tool_calls")
    assert (d.content, d.input_tokens, d.output_tokens, d.cost_usd, d.finish_reason) == (lt.content, lt.input_tokens, lt.output_tokens, lt.cost_usd, lt.finish_reason)
    assert [(c.name, c.arguments) for c in d.tool_calls] == [(c.name, c.arguments) for c in lt.tool_calls] == [("search", {"query": "tour Eiffel"})]
    assert [u.model_dump(exclude={"latency_s"}) for u in d_usage] == [u.model_dump(exclude={"latency_s"}) for u in lt_usage]
    assert seen[0] == seen[1]  # the handler got the same messages, tools and sampling either way
    assert seen[0][2] == {"temperature": 0.3, "max_tokens": 99}


async def test_a_priced_fake_model_costs_the_same_on_both_paths(fake, s, monkeypatch):
    import litellm

    litellm.register_model({"fake/direct-priced": {"input_cost_per_token": 1e-4, "output_cost_per_token": 2e-4, "litellm_provider": "fake", "mode": "chat"}})
    model = fake.register("direct-priced", lambda req: fake.Reply(content="ok", input_tokens=1000, output_tokens=10))
    (d, _), (lt, _) = await _both(monkeypatch, model=model, settings=s)
    assert d.cost_usd == lt.cost_usd == pytest.approx(1000 * 1e-4 + 10 * 2e-4)


class AnswerServer:
    """An OpenAI-compatible server on 127.0.0.1 that answers every chat request the same way."""

    def __init__(self, usage: dict):
        self.bodies: list[dict] = []
        self.paths: list[str] = []  # as asked: a proxy is asked for the whole address
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                server.paths.append(self.path)
                server.bodies.append(json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0))))
                body = json.dumps({
                    "id": "x", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini-2024-07-18",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": "La tour est à Paris."}, "finish_reason": "stop"}],
                    "usage": usage,
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.parametrize("usage", [
    {"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280},
    {"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280, "prompt_tokens_details": {"cached_tokens": 1024}},
])
async def test_a_model_priced_in_litellms_cost_map_costs_the_same_on_both_paths(s, monkeypatch, usage):
    srv = AnswerServer(usage)
    try:
        (d, d_usage), (lt, lt_usage) = await _both(monkeypatch, model="openai/gpt-4o-mini", settings=s, api_base=srv.base_url, api_key="sk-test")
    finally:
        srv.close()
    assert d.content == lt.content == "La tour est à Paris."
    assert (d.input_tokens, d.output_tokens) == (lt.input_tokens, lt.output_tokens) == (1200, 80)
    assert d.cost_usd is not None and d.cost_usd == lt.cost_usd
    assert d_usage[0].cost_usd == lt_usage[0].cost_usd == d.cost_usd
    assert srv.bodies[0]["model"] == "gpt-4o-mini" and srv.bodies[0]["messages"] == MESSAGES


async def test_real_endpoints_go_through_the_proxy_the_environment_names(s, monkeypatch):
    """HTTP_PROXY / NO_PROXY apply to the direct path as they did with aiohttp's trust_env (read
    once per address now): a proxy is asked for the endpoint's whole address; an address NO_PROXY
    names is called directly. Every server is this test's own, on 127.0.0.1."""
    monkeypatch.setenv("VIBESEARCH_LLM_DIRECT", "1")
    usage = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
    proxy, behind, direct = AnswerServer(usage), AnswerServer(usage), AnswerServer(usage)
    try:
        for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url.removesuffix("/v1"))
        through = await complete(MESSAGES, model="openai/m", purpose="agent", settings=s, api_base=behind.base_url, api_key="sk-test")
        assert through.content == "La tour est à Paris."
        assert proxy.paths == [behind.base_url + "/chat/completions"] and behind.paths == []
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        await complete(MESSAGES, model="openai/m", purpose="agent", settings=s, api_base=direct.base_url, api_key="sk-test")
        assert direct.paths == ["/v1/chat/completions"] and len(proxy.paths) == 1
    finally:
        for srv in (proxy, behind, direct):
            srv.close()


async def test_direct_path_retries_what_litellm_retries_and_fails_fast_on_the_rest(fake, s, monkeypatch):
    monkeypatch.setenv("VIBESEARCH_LLM_DIRECT", "1")
    replies = iter([fake.Reply(error="429"), fake.Reply(error="500"), fake.Reply(content="third time")])
    model = fake.register("direct-flaky", lambda req: next(replies))
    events: list = []
    result = await complete(MESSAGES, model=model, purpose="agent", settings=s, emit=events.append)
    assert result.content == "third time" and result.retries == 2
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert [e.attempt for e in errors] == [1, 2] and "RateLimitError" in errors[0].message and "fake rate limit" in errors[0].message

    bad = fake.register("direct-bad", lambda req: fake.Reply(error="400"))
    events = []
    with pytest.raises(LLMError) as info:
        await complete(MESSAGES, model=bad, purpose="agent", settings=s, emit=events.append)
    assert info.value.bad_request and "fake bad request" in str(info.value)
    assert len([e for e in events if isinstance(e, ErrorEvent)]) == 1  # not retried

    slow = fake.register("direct-timeout", lambda req: fake.Reply(error="timeout"))
    with pytest.raises(LLMError) as info:
        await complete(MESSAGES, model=slow, purpose="agent", settings=s)
    assert info.value.timed_out and not info.value.bad_request


async def test_a_broken_fake_handler_is_retried_like_a_lost_connection(fake, s, monkeypatch):
    monkeypatch.setenv("VIBESEARCH_LLM_DIRECT", "1")
    calls = []

    def handler(req):
        calls.append(1)
        raise RuntimeError("handler blew up")

    model = fake.register("direct-broken", handler)
    events: list = []
    with pytest.raises(LLMError, match="handler blew up"):
        await complete(MESSAGES, model=model, purpose="agent", settings=s, emit=events.append)
    assert len(calls) == 3  # the first try and two retries
    assert all("APIConnectionError" in e.message for e in events if isinstance(e, ErrorEvent))


def test_request_json_is_utf8_and_falls_back_for_what_orjson_refuses():
    from vibesearch.llm._json import decode, encode

    body = {"messages": [{"role": "user", "content": "東京 — Zürich"}], "temperature": 0.5}
    assert decode(encode(body)) == body and "東京".encode() in encode(body)
    assert decode(encode({1: "x", "big": 2**70})) == {"1": "x", "big": 2**70}


class SlowServer(AnswerServer):
    """Takes ``delay`` seconds before it answers anything."""

    def __init__(self, delay: float):
        super().__init__({"prompt_tokens": 1, "completion_tokens": 1})
        handler = self.httpd.RequestHandlerClass
        answer = handler.do_POST

        def slow(this):
            import time

            time.sleep(delay)
            answer(this)

        handler.do_POST = slow  # type: ignore[method-assign]  # the subclass of this server only


async def test_a_real_endpoint_slower_than_the_timeout_is_a_timeout(s):
    srv = SlowServer(1.5)
    try:
        with pytest.raises(_direct.Timeout, match="timed out"):
            await _direct.acompletion({"model": "openai/m", "messages": MESSAGES, "timeout": 0.3}, srv.base_url)
        # with room to wait, the same server answers
        answer = await _direct.acompletion({"model": "openai/m", "messages": MESSAGES, "timeout": 5}, srv.base_url)
        assert answer.choices[0].message.content == "La tour est à Paris."
    finally:
        srv.close()


async def test_a_closed_port_is_a_connection_error():
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(_direct.APIConnectionError, match="openai/m"):
        await _direct.acompletion({"model": "openai/m", "messages": MESSAGES, "timeout": 5}, f"http://127.0.0.1:{port}/v1")


def test_the_loops_http_session_closes_with_the_loop(tmp_path):
    """One aiohttp session per event loop, shared by its calls, closed when ``asyncio.run`` ends the
    loop: nothing is left open and no "Unclosed client session" is logged."""
    import subprocess
    import sys

    srv = AnswerServer({"prompt_tokens": 1, "completion_tokens": 1})
    script = (
        "import asyncio, gc, sys\n"
        "from vibesearch.llm import _direct\n"
        "msgs = [{'role': 'user', 'content': 'hi'}]\n"
        "async def main():\n"
        "    await asyncio.gather(*[_direct.acompletion({'model': 'openai/m', 'messages': msgs}, sys.argv[1]) for _ in range(5)])\n"
        "    first = await _direct._session()\n"
        "    await _direct.acompletion({'model': 'openai/m', 'messages': msgs}, sys.argv[1])\n"
        "    assert await _direct._session() is first\n"
        "    return first\n"
        "session = asyncio.run(main())\n"
        "print('closed' if session.closed else 'open')\n"
        "gc.collect()\n"
    )
    try:
        done = subprocess.run([sys.executable, "-c", script, srv.base_url], capture_output=True, text=True, timeout=60)
    finally:
        srv.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "closed"
    assert "Unclosed" not in done.stderr, done.stderr


async def test_the_settings_give_a_call_no_sampling(fake, s, monkeypatch):
    """Sampling comes from the caller (a run's resolved config) only: a temperature in the settings
    reaches no call that does not pass it (``RunConfig.draft`` is where the settings' one is read)."""
    seen = []

    def handler(req):
        seen.append(req.sampling)
        return fake.Reply(content="ok")

    model = fake.register("no-settings-sampling", handler)
    warm = s.model_copy(update={"temperature": 0.9})
    await _both(monkeypatch, model=model, settings=warm)
    await _both(monkeypatch, model=model, settings=warm, sampling={"temperature": 0.2})
    assert seen == [{}, {}, {"temperature": 0.2}, {"temperature": 0.2}]
