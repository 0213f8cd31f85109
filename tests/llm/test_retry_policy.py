"""The retry loop of ``llm.complete``: an error that retrying cannot fix (a bad or missing key, a
bad request, an unknown model, no permission) fails at once with a scrubbed message; rate limits
and server errors are still retried. A real OpenAI-compatible server on 127.0.0.1 answers and
counts the requests it gets."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from vibesearch.config import Settings
from vibesearch.llm import LLMError, complete
from vibesearch.run import ErrorEvent

PRESENTED_KEY = "sk-presented-key-0123456789abcdef"
MESSAGES = [{"role": "user", "content": "hello"}]


class StatusServer:
    """Answers every POST with ``status`` and an OpenAI-style error body; counts the requests."""

    def __init__(self, status: int):
        self.status = status
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                auth = self.headers.get("Authorization") or ""
                server.requests.append({"path": self.path, "authorization": auth})
                # like real providers, the error text quotes the key it was given
                body = json.dumps({"error": {"message": f"Incorrect API key provided: {auth.removeprefix('Bearer ')}", "type": "invalid_request_error", "code": None}}).encode()
                try:
                    self.send_response(server.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def status_server():
    servers: list[StatusServer] = []

    def start(status: int) -> StatusServer:
        srv = StatusServer(status)
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        srv.close()


@pytest.fixture
def retry_settings(tmp_path) -> Settings:
    # three retries allowed; short backoff so that a wrongly retried error still ends quickly
    return Settings(db=tmp_path / "r.db", tasks="", llm_retries=3, llm_backoff_s=0.01, llm_backoff_max_s=0.05, llm_timeout_s=30)


async def _call(srv: StatusServer, settings: Settings, events: list, **kwargs):
    return await complete(
        MESSAGES, model="openai/local-model", purpose="agent", settings=settings, api_base=srv.base_url,
        api_key=PRESENTED_KEY, emit=events.append, **kwargs,
    )


@pytest.mark.parametrize("status", [400, 401, 403, 404])
async def test_a_client_error_is_sent_once_and_not_retried(status_server, retry_settings, status):
    srv = status_server(status)
    events: list = []
    with pytest.raises(LLMError) as info:
        await _call(srv, retry_settings, events)
    assert len(srv.requests) == 1
    assert srv.requests[0]["authorization"] == f"Bearer {PRESENTED_KEY}"  # the key was really sent ...
    message = str(info.value)
    assert PRESENTED_KEY not in message and "[redacted]" in message  # ... and never shown back
    assert message.startswith("agent model 'openai/local-model' failed:")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1 and errors[0].attempt == 1 and PRESENTED_KEY not in errors[0].message


async def test_a_streamed_call_with_a_bad_key_is_not_retried_either(status_server, retry_settings):
    srv = status_server(401)
    with pytest.raises(LLMError):
        await _call(srv, retry_settings, [], stream=True, on_delta=lambda text: None)
    assert len(srv.requests) == 1


async def test_a_server_error_is_still_retried(status_server, retry_settings):
    srv = status_server(503)
    events: list = []
    with pytest.raises(LLMError):
        await _call(srv, retry_settings, events)
    attempts = [e.attempt for e in events if isinstance(e, ErrorEvent)]
    assert attempts == [1, 2, 3, 4]  # the first try and three retries ...
    assert len(srv.requests) == 4  # ... and no hidden retries of the provider's SDK inside each


async def test_an_unprocessable_request_fails_as_an_llm_error(status_server, retry_settings):
    # litellm retries a 422 once itself and then hands back no response at all
    srv = status_server(422)
    with pytest.raises(LLMError, match="failed"):
        await _call(srv, retry_settings, [])
    assert 1 <= len(srv.requests) <= 2


async def test_a_missing_key_fails_at_once_naming_the_variable(monkeypatch, retry_settings):
    """No key in the environment: litellm raises a 500 before sending anything; no retry."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = retry_settings.model_copy(update={"llm_backoff_s": 2.0, "llm_backoff_max_s": 2.0})
    events: list = []
    started = time.monotonic()
    with pytest.raises(LLMError) as info:
        await complete(MESSAGES, model="openai/gpt-4o-mini", purpose="agent", settings=settings, emit=events.append)
    assert [e.attempt for e in events if isinstance(e, ErrorEvent)] == [1]
    assert time.monotonic() - started < 2.0  # not even one backoff
    assert "(set OPENAI_API_KEY)" in str(info.value)
