"""Helpers for the agent tests: a recorder that does what the session does with emitted events,
a small task with its own corpus, and a local OpenAI-compatible chat server."""

from __future__ import annotations

import json
from pathlib import Path

from vibesearch.agents import make_agent
from vibesearch.run import Agent, Conversation, MessageEvent
from vibesearch.store import Store
from vibesearch.protocol import build_config


def agent_of(kind, task, settings, *, model=None, endpoint_url=None, endpoint_model=None, toolbox=None, endpoint_key=None) -> Agent:
    """``make_agent`` of the run config these describe, built the way the CLI and the app build one."""
    config = build_config(
        settings, task_id=task.id, agent=kind, agent_model=model, endpoint_url=endpoint_url, endpoint_model=endpoint_model
    )
    return make_agent(config, task, settings, toolbox=toolbox, endpoint_key=endpoint_key)


class Recorder:
    """Mimics the session's emitter: every event is appended to the store and to the convo."""

    def __init__(self, store: Store, task):
        self.store = store
        self.run_id = store.create_run(task.id, task_json=task.model_dump(mode="json")).id
        self.convo = Conversation()

    def emit(self, data) -> None:
        self.store.append(self.run_id, data)
        self.convo.add(data)

    def user(self, text: str) -> None:
        self.emit(MessageEvent(role="user", content=text))

    def events(self):
        return [e.data for e in self.store.events(self.run_id)]

    def kinds(self):
        return [e.kind for e in self.events()]


SMALL_DOCS = [
    {
        "url": "https://example.org/euler",
        "title": "Leonhard Euler",
        "text": "Leonhard Euler was a Swiss mathematician born in Basel in 1707. "
        "He studied under Johann Bernoulli at the University of Basel. "
        "Euler introduced the notation e for the base of the natural logarithm. "
        "He spent most of his career in Saint Petersburg and Berlin.",
        "facts": [
            {"head": "Leonhard Euler", "relation": "born in", "tail": "Basel"},
            {"head": "Leonhard Euler", "relation": "teacher", "tail": "Johann Bernoulli"},
            {"head": "Euler's number", "relation": "notation introduced by", "tail": "Leonhard Euler"},
        ],
    },
    {
        "url": "https://example.org/bernoulli",
        "title": "Johann Bernoulli",
        "text": "Johann Bernoulli was a Swiss mathematician of the Bernoulli family. "
        "He posed the brachistochrone problem in 1696. "
        "Johann Bernoulli taught calculus to the Marquis de l'Hôpital.",
        "facts": [
            {"head": "Johann Bernoulli", "relation": "posed", "tail": "brachistochrone problem"},
            {"head": "Marquis de l'Hôpital", "relation": "student of", "tail": "Johann Bernoulli"},
        ],
    },
    {
        "url": "https://example.org/gauss",
        "title": "Carl Friedrich Gauss",
        "text": "Carl Friedrich Gauss was a German mathematician born in Brunswick in 1777. "
        "His doctoral advisor was Johann Friedrich Pfaff at the University of Helmstedt.",
        "facts": [
            {"head": "Carl Friedrich Gauss", "relation": "born in", "tail": "Brunswick"},
            {"head": "Johann Friedrich Pfaff", "relation": "doctoral student", "tail": "Carl Friedrich Gauss"},
        ],
    },
    {
        "url": "https://example.org/riemann",
        "title": "Bernhard Riemann",
        "text": "Bernhard Riemann was a German mathematician who studied under Gauss at Göttingen. "
        "The Riemann hypothesis concerns the zeros of the zeta function.",
        "facts": [{"head": "Bernhard Riemann", "relation": "doctoral advisor", "tail": "Carl Friedrich Gauss"}],
    },
    {
        "url": "https://scholar.example.org/euler-paper",
        "title": "Euler and the number e: a historical study",
        "text": "This paper traces how Euler came to name the constant e in the 1720s and 1730s.",
        "scholarly": True,
        "date": "2004",
        "source": "Historia Mathematica",
        "facts": [],
    },
]


def write_task(folder: Path, *, task_id: str = "tiny-en-mathematicians", language: str = "en", docs=None) -> Path:
    corpus = folder / "corpus" / f"{task_id}.jsonl"
    corpus.parent.mkdir(parents=True, exist_ok=True)
    corpus.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in (docs or SMALL_DOCS)) + "\n", encoding="utf-8")
    task = {
        "id": task_id,
        "subset": "daily",
        "language": language,
        "domain": "mathematics",
        "persona": {
            "background": "A student of the history of mathematics.",
            "initial_query": "Who taught Leonhard Euler, and where was he born?",
            "stages": [
                {
                    "name": "Opening",
                    "trigger": {"kind": "start", "condition": "conversation start"},
                    "line": "Who taught Leonhard Euler, and where was he born?",
                }
            ],
        },
        "graph": [{"head": "Leonhard Euler", "relation": "born in", "tail": "Basel"}],
        "corpus": f"corpus/{task_id}.jsonl",
    }
    path = folder / f"{task_id}.json"
    path.write_text(json.dumps(task, ensure_ascii=False), encoding="utf-8")
    return path


# ------------------------------------------------------------------ a local OpenAI-compatible server
class ChatServer:
    """A tiny OpenAI-compatible chat server on 127.0.0.1 (threaded http.server).

    ``respond(body, headers) -> (status, payload)`` decides each answer; every request's
    headers and JSON body are kept in ``requests``.
    """

    def __init__(self, respond):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):  # noqa: N802 - http.server API
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {k.lower(): v for k, v in self.headers.items()}
                server.requests.append({"path": self.path, "headers": headers, "body": body})
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    status, payload = 404, {"error": {"message": f"no route {self.path}"}}
                else:
                    status, payload = respond(body, headers)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def chat_completion(content: str | None = None, tool_calls: list[tuple[str, str, dict]] | None = None, *, model: str = "m", prompt_tokens: int = 11, completion_tokens: int = 7) -> dict:
    """A chat.completion payload; tool_calls are (id, name, arguments)."""
    message: dict = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for cid, name, args in tool_calls
        ]
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens},
    }

