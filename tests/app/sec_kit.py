"""Helpers for the security tests: a listener on 127.0.0.1 that records every credential header it
gets (and answers like an OpenAI-compatible chat endpoint), the Play tab's private handlers called
by raw HTTP, polling with deadlines, and a read-only look at the app's database."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

from raw_gradio import RawSession, Result

CREDENTIAL_HEADERS = ("authorization", "api-key", "x-api-key", "x-goog-api-key")


class Listener:
    """An HTTP server on 127.0.0.1 recording (path, credential headers, body) of each request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _record(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
                creds = {h: self.headers[h] for h in CREDENTIAL_HEADERS if self.headers.get(h)}
                with outer._lock:
                    outer.requests.append({"path": self.path, "headers": creds, "body": body})
                reply = {
                    "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "agent",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Noted."}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
                }
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_POST = _record
            do_GET = _record

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def seen(self, path_part: str = "") -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.requests if path_part in r["path"]]

    def credentials(self) -> list[str]:
        with self._lock:
            return [v for r in self.requests for v in r["headers"].values()]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def wait_for(pred: Callable[[], Any], timeout: float, what: str, every: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def runs_in(db: Path) -> list[tuple[str, str | None, str]]:
    """(id, owner, status) of every run, read without touching the app's writes."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return [tuple(r) for r in con.execute("SELECT id, owner, status FROM runs ORDER BY created_at")]
    finally:
        con.close()


# ---------------------------------------------------------------------- the page's handlers
def _markdown(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("value", value))
    return "" if value is None else str(value)


def play_start(s: RawSession, **fields: Any) -> Result:
    """The Play tab's Start handler with the page's defaults, fields given by label prefix:
    ``agent``, ``user``, ``task``, ``agent_model``, ``endpoint_url``, ``endpoint_key``, ``turns`` ..."""
    labels = {
        "task": "Task", "user": "User", "agent": "Agent", "agent_model": "Agent model", "sim_model": "Simulator model",
        "backend": "Search backend", "judge": "Judge model", "endpoint_url": "Endpoint URL", "endpoint_model": "Endpoint model",
        "endpoint_key": "Endpoint key", "turns": "Max user turns", "pace": "Watch pace", "web": "Web",
    }
    fn, dep = s.dependency(s.component(elem_id="vs-start")["id"], "click")
    data = []
    for _, comp in s.inputs_by_label(dep):
        props = comp.get("props", {})
        value = None if comp["type"] == "state" else props.get("value")
        for key, prefix in labels.items():
            label = props.get("label") or ""
            if key in fields and (label == prefix or (len(prefix) > 6 and label.startswith(prefix))):
                value = fields[key]
        data.append(value)
    return s.call(fn, data, timeout=60)


def play_load(s: RawSession, path: str, timeout: float = 60) -> tuple[str, float]:
    """The "Load tasks from a folder" handler: (message shown, seconds taken)."""
    btn = next(c for c in s.config["components"] if c["type"] == "button" and c["props"].get("value") == "Load")
    fn, _ = s.dependency(btn["id"], "click")
    t0 = time.monotonic()
    _, dep = s.dependency(btn["id"], "click")
    data = [path, None] if len(dep["inputs"]) == 2 else [None, path, None]  # (older pages had no owner input)
    res = s.call(fn, data, timeout=timeout)
    took = time.monotonic() - t0
    if not res.ok:
        return f"ERROR: {res.error}", took
    return _markdown(res.data[2]), took


def play_upload(s: RawSession, files: dict[str, bytes], timeout: float = 60) -> tuple[str, float]:
    """Upload files through Gradio's upload route and press "Load uploaded files"."""
    r = s.http.post(s.url + "gradio_api/upload", files=[("files", (name, data)) for name, data in files.items()])
    assert r.status_code == 200, r.text[:300]
    paths = r.json()
    payload = [{"path": p, "orig_name": name, "meta": {"_type": "gradio.FileData"}} for p, name in zip(paths, files)]
    btn = next(c for c in s.config["components"] if c["type"] == "button" and c["props"].get("value") == "Load uploaded files")
    fn, _ = s.dependency(btn["id"], "click")
    t0 = time.monotonic()
    res = s.call(fn, [None, payload, None], timeout=timeout)
    took = time.monotonic() - t0
    if not res.ok:
        return f"ERROR: {res.error}", took
    return _markdown(res.data[2]), took


def runs_open(s: RawSession, run_id: str) -> Result:
    fn, _ = s.dependency(s.component(elem_id="vs-runs-open")["id"], "click")
    return s.call(fn, [None, run_id])


def runs_continue(s: RawSession) -> Result:
    fn, _ = s.dependency(s.component(elem_id="vs-runs-continue")["id"], "click")
    return s.call(fn, [None, None])


def runs_score(s: RawSession, judge: str = "") -> Result:
    """The Score button of the run open in this session's Runs tab."""
    fn, _ = s.dependency(s.component(elem_id="vs-runs-score")["id"], "click")
    return s.call(fn, [None, None, judge])


def runs_refresh(s: RawSession) -> Result:
    fn, _ = s.dependency(s.component(elem_id="vs-runs-refresh")["id"], "click")
    _, dep = s.dependency(s.component(elem_id="vs-runs-refresh")["id"], "click")
    filters = ["(any)"] * (len(dep["inputs"]) - 2)  # task, agent, user, status, profile …; the search box empty
    return s.call(fn, [None, *filters, ""])
