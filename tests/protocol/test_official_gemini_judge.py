"""A ``gemini/...`` judge under the official profile is the official Gemini grader (run.py's
default): temperature 0.8, top_p 0.6, 64,000 output tokens, and thought parts never read.

A local server on 127.0.0.1 speaks Gemini's ``generateContent`` REST shape; litellm's Google AI
Studio route reaches it through ``api_base`` with a dummy key (no network)."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from vibesearch.protocol import own_prompts
from vibesearch.run import EndEvent, MessageEvent
from vibesearch.run.config import RunConfig
from vibesearch.scoring import score_run
from vibesearch.judges.official_judge import grader_for, judge_official
from vibesearch.judges.official_metrics import OfficialGroundTruth
from vibesearch.store import Store

MODEL = "gemini/gemini-2.5-pro"
P_LINE = re.compile(r'^P-(\d+): "(.*)" --\[(.*)\]--> "(.*)"$', re.MULTILINE)
GT_LINE = re.compile(r'^GT-(\d+): "(.*)" --\[(.*)\]--> "(.*)"$', re.MULTILINE)


def answer_for(prompt: str) -> str:
    """Covered when a predicted triple has the ground-truth triple's head and tail."""
    preds = {(h, t): int(i) for i, h, _r, t in P_LINE.findall(prompt)}
    results = [{"index": int(i), "covered": (h, t) in preds, "supporting_pred_indices": [preds[(h, t)]] if (h, t) in preds else []}
               for i, h, _r, t in GT_LINE.findall(prompt)]
    return json.dumps({"results": results})


def thought_for(prompt: str) -> str:
    """What the model "thought": a different verdict (every triple covered), itself valid JSON,
    so reading it instead of the answer, or with it, would show in the result."""
    return json.dumps({"results": [{"index": int(i), "covered": True, "supporting_pred_indices": [0]} for i, *_ in GT_LINE.findall(prompt)]})


class GeminiServer:
    """``POST /models/<model>:generateContent``: one thought part, then the answer part."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "key": self.headers.get("x-goog-api-key"),
                                       "api_key_header": self.headers.get("api-key"), "body": body})
                prompt = body["contents"][0]["parts"][0]["text"]
                reply = {
                    "candidates": [{
                        "content": {"role": "model", "parts": [{"text": thought_for(prompt), "thought": True}, {"text": answer_for(prompt)}]},
                        "finishReason": "STOP",
                        "index": 0,
                    }],
                    "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 12, "thoughtsTokenCount": 30, "totalTokenCount": 82},
                    "modelVersion": "gemini-2.5-pro",
                }
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def gemini(monkeypatch) -> Iterator[GeminiServer]:
    monkeypatch.setenv("GEMINI_API_KEY", "dummy-key-for-a-local-server")
    server = GeminiServer()
    server.thread.start()
    yield server
    server.server.shutdown()
    server.thread.join(5)


def ground_truth(n: int) -> OfficialGroundTruth:
    nodes = [{"node_id": f"c{i}", "node_name": f"City {i}"} for i in range(n)] + [{"node_id": "x", "node_name": "Country"}]
    return OfficialGroundTruth.from_record({"nodes": nodes, "triples": [{"head_id": f"c{i}", "relation": "in", "tail_id": "x"} for i in range(n)]})


def generation_config(body: dict[str, Any]) -> dict[str, Any]:
    """The request's generationConfig with camelCase keys (Gemini's REST API reads both spellings;
    litellm writes snake_case, the official grader camelCase)."""
    def camel(key: str) -> str:
        head, *rest = key.split("_")
        return head + "".join(w.title() for w in rest)

    return {camel(k): v for k, v in body["generationConfig"].items()}


def test_the_gemini_grader_sampling_and_only_the_answer_part(settings, gemini):
    local = settings.model_copy(update={"api_base": gemini.url, "temperature": 0.1})
    gt = ground_truth(2)
    out = asyncio.run(judge_official([{"head": "City 1", "relation": "in", "tail": "Country"}], gt, own_prompts().judge,
                                     model=MODEL, settings=local))
    assert len(gemini.requests) == 2  # one per batch: no attempt needed a second try
    for req in gemini.requests:
        assert req["path"] == "/models/gemini-2.5-pro:generateContent" and req["key"] == "dummy-key-for-a-local-server"
        body = req["body"]
        assert [c["role"] for c in body["contents"]] == ["user"] and len(body["contents"][0]["parts"]) == 1
        # the official Gemini grader's numbers, not the global 0.1 nor the OpenAI grader's 0.7 / 32,768
        assert generation_config(body) == {"temperature": 0.8, "topP": 0.6, "maxOutputTokens": 64000}
        assert "systemInstruction" not in body and "thinkingConfig" not in body["generationConfig"]
    # only the answer part was parsed: the thought part's "everything covered" never counted
    assert [(i.covered, i.supporting_pred_indices) for i in out.coverage.per_gt_triple] == [(False, []), (True, [0])]
    assert all(b.outcome == "complete" and b.attempts == 1 for b in out.batches)
    details = out.details()
    assert details["grader"] == "gemini" and details["sampling"] == {"temperature": 0.8, "top_p": 0.6, "max_tokens": 64000}


def test_other_judges_keep_the_openai_grader():
    for model in ("openai/gpt-4.1", "vertex_ai/gemini-2.5-pro", "fake/judge", "gemini-2.5-pro"):
        grader = grader_for(model)
        assert grader.kind == "openai" and grader.sampling.params() == {"temperature": 0.7, "max_tokens": 32768}
        assert grader.answer_text("<think>x</think> {}") == "{}"
    gem = grader_for(MODEL)
    assert gem.kind == "gemini" and gem.answer_text("  <think>kept</think> {} \n") == "<think>kept</think> {}"  # no tag removal


def test_score_under_the_official_profile_with_a_gemini_judge(settings, gemini, tmp_db):
    store = Store(tmp_db)
    stages = [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]
    gt = [{"head": "A", "relation": "r", "tail": "B"}, {"head": "C", "relation": "r", "tail": "D"}]
    snap = {"id": "t1", "subset": "pro", "language": "en", "extra": {}, "graph": gt,
            "persona": {"background": "b", "initial_query": "q", "stages": stages}}
    run = store.create_run("t1", task_json=snap, run_config=RunConfig(task_id="t1", protocol="official"), agent="react",
                           agent_model="fake/agent", user="rules", status="finished", termination="done")
    store.append(run.id, MessageEvent(role="user", content="q"))
    store.append(run.id, MessageEvent(role="user", content="list every triple", phase="extraction"))
    store.append(run.id, MessageEvent(role="assistant", content='[{"head": "A", "relation": "r", "tail": "B"}]', phase="extraction", final=True))
    store.append(run.id, EndEvent(termination="done"))
    row = score_run(store, run.id, judge=MODEL, settings=settings.model_copy(update={"api_base": gemini.url}), protocol="official")
    assert (row.precision, row.recall, row.f1) == (1.0, 0.5, 0.6667)  # the thought part would have covered both
    judge = row.details()["judge"]
    assert judge["grader"] == "gemini" and judge["calls"] == 2
    assert all(generation_config(r["body"])["temperature"] == 0.8 for r in gemini.requests)


def test_the_gemini_grader_goes_through_its_own_base_url_with_the_key_in_a_header(settings, gemini, tmp_path):
    # run.py points its Gemini grader at a full URL (…/models/<model>:generateContent) and sends the
    # key as "api-key": judge_api_base / judge_key_header, while every other model keeps api_base
    local = settings.model_copy(update={"api_base": "http://127.0.0.1:9/unused", "judge_api_base": f"{gemini.url}/proxy/v1beta",
                                        "judge_key_header": "api-key"})
    gt = ground_truth(1)
    out = asyncio.run(judge_official([{"head": "City 0", "relation": "in", "tail": "Country"}], gt, own_prompts().judge,
                                     model=MODEL, settings=local))
    (req,) = gemini.requests
    assert req["path"] == "/proxy/v1beta/models/gemini-2.5-pro:generateContent"
    assert req["api_key_header"] == "dummy-key-for-a-local-server"
    assert [i.covered for i in out.coverage.per_gt_triple] == [True]
    # without the header setting, no such header is sent
    asyncio.run(judge_official([{"head": "City 0", "relation": "in", "tail": "Country"}], gt, own_prompts().judge,
                               model=MODEL, settings=local.model_copy(update={"judge_key_header": None})))
    assert gemini.requests[-1]["api_key_header"] is None
    assert "dummy-key" not in json.dumps(out.details())  # the key is in no detail that is stored
