"""Fixtures for the tool tests: a small bilingual corpus, a task that points at it, and a local
HTTP server (127.0.0.1, a thread) that plays web pages and the search APIs."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable
from urllib.parse import parse_qs, urlsplit

import pytest

from vibesearch.config import Settings
from vibesearch.tasks.models import CorpusDoc, Task

LONG_FILLER = " ".join(
    f"Paragraph {i} talks about the weather in the valley, the harvest and the local market." for i in range(200)
)

DOCS = [
    CorpusDoc(
        url="https://history.example.org/zhang-heng",
        title="Zhang Heng and the first seismoscope",
        text=(
            "Zhang Heng was a Chinese polymath of the Eastern Han dynasty. In 132 AD he built the first "
            "seismoscope, a bronze vessel with eight dragons. He also improved the armillary sphere.\n\n"
            "His works covered astronomy, mathematics and poetry."
        ),
    ),
    CorpusDoc(
        url="https://www.example.org/tea/",
        title="A short history of tea",
        text="Tea drinking spread from China to Japan in the ninth century. Green tea and oolong are popular. "
        "The tea ceremony became an art in the sixteenth century.",
    ),
    CorpusDoc(
        url="https://baike.example.cn/item/didongyi",
        title="地动仪",
        text="地动仪是东汉科学家张衡发明的仪器，用于测报地震。它制成于公元132年，用精铜铸造。\n\n这是世界上第一架测报地震的仪器。",
    ),
    CorpusDoc(
        url="https://journal.example.org/paper/seismology-history",
        title="Early instruments in the history of seismology",
        text="This paper reviews early seismological instruments, starting with the seismoscope of Zhang Heng "
        "and ending with the pendulum seismographs of the nineteenth century.",
        scholarly=True,
        date="2019-05-01",
        source="Journal of Example Seismology",
    ),
    CorpusDoc(
        url="https://long.example.org/valley",
        title="The valley almanac",
        text=LONG_FILLER[: len(LONG_FILLER) // 2]
        + "\n\nThe famous stone bridge of the valley was completed in 1742 by the mason Aldo Ferri.\n\n"
        + LONG_FILLER[len(LONG_FILLER) // 2 :],
    ),
]


@pytest.fixture
def docs() -> list[CorpusDoc]:
    return [d.model_copy(deep=True) for d in DOCS]


@pytest.fixture
def tool_settings(tmp_path: Path) -> Settings:
    """Small, fast limits for tool tests."""
    return Settings(
        db=tmp_path / "t.db",
        tasks="",
        llm_backoff_s=0.01,
        llm_backoff_max_s=0.05,
        tool_result_max_chars=4_000,
        http_timeout_s=2.0,
        visit_max_bytes=200_000,
        python_timeout_s=3.0,
        python_cpu_s=2,
        python_memory_mb=256,
        python_output_chars=2_000,
    )


@pytest.fixture
def corpus_task(tmp_path: Path, docs) -> Task:
    """A task whose corpus file (JSONL) holds ``DOCS``; loaded through the real task loader."""
    from vibesearch.tasks import load_tasks

    folder = tmp_path / "tasks"
    (folder / "corpus").mkdir(parents=True)
    (folder / "corpus" / "mini.jsonl").write_text("\n".join(d.model_dump_json() for d in docs) + "\n", encoding="utf-8")
    task = {
        "id": "mini-corpus-task",
        "subset": "pro",
        "language": "en",
        "persona": {
            "background": "A student of the history of science.",
            "initial_query": "Who built the first seismoscope?",
            "stages": [{"name": "start", "trigger": {"kind": "start", "condition": "opening"}, "line": "Who built the first seismoscope?"}],
        },
        "graph": [{"head": "Zhang Heng", "relation": "built", "tail": "seismoscope"}],
        "corpus": "corpus/mini.jsonl",
    }
    (folder / "mini.json").write_text(json.dumps(task), encoding="utf-8")
    (loaded,) = load_tasks([folder])
    return loaded


# ---------------------------------------------------------------- local web server


class LocalWeb:
    """Routes path -> handler(request) -> (status, headers, body bytes); records every request."""

    def __init__(self):
        self.routes: dict[str, Callable[[dict], tuple[int, dict, bytes]]] = {}
        self.requests: list[dict] = []
        self.base = ""

    def route(self, path: str, status: int = 200, body: str | bytes = b"", ctype: str = "text/html; charset=utf-8", headers: dict | None = None, delay: float = 0.0):
        data = body.encode("utf-8") if isinstance(body, str) else body

        def handler(_req):
            if delay:
                time.sleep(delay)
            return status, {"Content-Type": ctype, **(headers or {})}, data

        self.routes[path] = handler

    def json_route(self, path: str, payload, status: int = 200):
        self.route(path, status, json.dumps(payload), "application/json")

    def url(self, path: str) -> str:
        return self.base + path


def _make_handler(web: LocalWeb):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def _serve(self):
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            req = {
                "method": self.command,
                "path": parts.path,
                "query": parse_qs(parts.query),
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body,
            }
            web.requests.append(req)
            handler = web.routes.get(parts.path)
            if handler is None:
                status, headers, data = 404, {"Content-Type": "text/plain"}, b"not here"
            else:
                status, headers, data = handler(req)
            try:
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        do_GET = _serve
        do_POST = _serve

    return Handler


@pytest.fixture
def local_web():
    web = LocalWeb()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(web))
    server.daemon_threads = True
    web.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield web
    server.shutdown()
    server.server_close()
