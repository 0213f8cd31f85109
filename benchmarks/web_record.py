"""How much does recording a run's web take, and what does replaying it cost? (docs/web.md)

Serves a SearXNG-style JSON search API and 12 HTML pages (~30 KB each) from 127.0.0.1, runs a
batch of ``--runs`` runs of one task with a scripted react agent (``fake/`` model: per run one
search among 5 queries and a visit of 4 of the results, chosen at random) recording their web,
then prints:

* recorded bytes per run: what the runs' ``web`` events and the contents they name would take
  stored plainly, and what the store holds (contents once each, zlib-compressed);
* the deduplication ratio (contents named by events / distinct contents) and the compression ratio;
* a tool call answered from the recording (``ReplayBackend``) against the same call on the offline
  backend over the frozen pages (``OfflineBackend``): mean ms of a search and of a visit, and the
  difference.

    python benchmarks/web_record.py [--runs 20] [--calls 200] [--seed 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from sqlalchemy import text
from typer.testing import CliRunner

WORDS = ("bridge river arch mason stone valley harvest market flood town tower mill road chapel square "
         "winter summer guild bell wall gate ferry orchard vineyard").split()
QUERIES = ["stone bridge valley", "mason of the old town", "flood of the river", "market square guild", "ferry and orchard"]


def _page(rng: random.Random, i: int) -> bytes:
    paras = "".join(f"<p>{' '.join(rng.choice(WORDS) for _ in range(60))}.</p>" for _ in range(45))
    return f"<html><head><title>Page {i} of the valley</title></head><body><article>{paras}</article></body></html>".encode()


def _serve(pages: dict[str, bytes]) -> tuple[ThreadingHTTPServer, str]:
    state: dict[str, str] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            path = urlsplit(self.path).path
            if path == "/search":
                rows = [{"title": f"Page {k}", "url": state["base"] + f"/p/{k}", "content": "about the valley"} for k in range(len(pages))]
                body, ctype = json.dumps({"results": rows}).encode(), "application/json"
            else:
                body, ctype = pages.get(path, b"gone"), "text/html; charset=utf-8"
            self.send_response(200 if path == "/search" or path in pages else 404)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state["base"] = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, state["base"]


def _agent(rng: random.Random):
    from vibesearch.llm import fake

    lock = threading.Lock()

    def handler(req: fake.Request) -> fake.Reply:
        if not req.tools:
            return fake.Reply(content='[{"head": "bridge", "relation": "spans", "tail": "river"}]')
        results = req.tool_results()
        with lock:
            if not results:
                return fake.Reply(tool_calls=[("search", {"query": rng.choice(QUERIES), "topn": 12})])
            if len(results) == 1:
                urls = [ln.split("URL: ", 1)[1] for ln in str(results[0].get("content")).splitlines() if "URL: " in ln]
                return fake.Reply(tool_calls=[("visit", {"url": rng.sample(urls, 4), "goal": "the bridge"})])
        return fake.Reply(content="The bridge spans the river.")

    return fake.register("web-record-bench", handler)


def _task(folder: Path) -> None:
    folder.mkdir()
    task = {"id": "web-bench", "subset": "pro", "language": "en",
            "persona": {"background": "A visitor.", "initial_query": "Tell me about the bridge.",
                        "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "opening"}, "line": "Tell me about the bridge."}]},
            "graph": [{"head": "bridge", "relation": "spans", "tail": "river"}]}
    (folder / "t.json").write_text(json.dumps(task), encoding="utf-8")


async def _time_calls(box, calls: list[tuple[str, dict]], repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        for name, args in calls:
            out = await box.call(name, args)
            assert not out.error, out.content
    return (time.perf_counter() - start) / (repeat * len(calls)) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    pages = {f"/p/{i}": _page(rng, i) for i in range(12)}
    server, base = _serve(pages)
    work = Path(tempfile.mkdtemp(prefix="web-record-"))
    os.environ.update({"VIBESEARCH_SEARXNG_URL": base, "VIBESEARCH_WEB_ALLOW_PRIVATE": "true", "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    from vibesearch.cli.main import app
    from vibesearch.config import Settings
    from vibesearch.store import Store
    from vibesearch.tools import AgentToolbox, OfflineBackend, OfflineCorpus, PythonSandbox
    from vibesearch.tools.web_replay import Recording, ReplayBackend, recorded_pages

    model = _agent(rng)
    _task(work / "tasks")
    db = work / "web.db"
    started = time.perf_counter()
    out = CliRunner().invoke(app, ["run", "--tasks", str(work / "tasks"), "--agent", "react", "--model", model, "--user", "rules",
                                   "--max-user-turns", "1", "--search", "searxng", "--runs", str(args.runs), "--json", "--db", str(db)])
    wall = time.perf_counter() - started
    server.shutdown()
    server.server_close()
    if out.exit_code != 0:
        raise SystemExit(out.output)
    store = Store(db)
    with store.engine.connect() as conn:
        event_json = [r[0] for r in conn.execute(text("SELECT data_json FROM events WHERE kind = 'web'"))]
    events = store.recorded_web("web-bench")
    sizes = {d: len(b) for d, b in store.web_blobs({h for e in events for h in (e.text_sha256, e.body_sha256) if h}).items()}
    named = sum(sizes.get(h or "", 0) for e in events for h in (e.text_sha256, e.body_sha256))
    storage = store.web_storage()
    plain = sum(len(j) for j in event_json) + named
    kept = sum(len(j) for j in event_json) + storage["stored_bytes"]
    print(f"{args.runs} runs recorded in {wall:.1f} s: {len(events)} web events, {storage['blobs']} distinct contents")
    print(f"recorded bytes per run: {plain / args.runs / 1024:.1f} KiB stored plainly, {kept / args.runs / 1024:.1f} KiB in the store")
    print(f"deduplication {named / max(storage['bytes'], 1):.1f}x, compression {storage['bytes'] / max(storage['stored_bytes'], 1):.1f}x, "
          f"together {plain / max(kept, 1):.1f}x")

    settings = Settings(db=db, tasks="")
    recording = Recording(events)
    searches = [("search", {"query": e.query, "topn": e.topn}) for e in events if e.op == "search"][:5]
    visits = [("visit", {"url": [e.url], "goal": "the bridge"}) for e in events if e.op == "visit"][:5]
    replay = AgentToolbox(ReplayBackend(recording, settings), PythonSandbox(settings), settings)
    offline = AgentToolbox(OfflineBackend(OfflineCorpus(recorded_pages(events)), settings), PythonSandbox(settings), settings)
    repeat = max(1, args.calls // 10)
    for name, calls in (("search", searches), ("visit", visits)):
        asyncio.run(_time_calls(replay, calls, 1))  # warm both (the text helpers keep their caches)
        asyncio.run(_time_calls(offline, calls, 1))
        o = asyncio.run(_time_calls(offline, calls, repeat))
        r = asyncio.run(_time_calls(replay, calls, repeat))
        print(f"{name}: replay {r:.3f} ms, offline {o:.3f} ms per call ({r - o:+.3f} ms)")


if __name__ == "__main__":
    main()
