"""The official judge layout, driven end to end by a fake judge model through litellm."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from vibesearch.llm import fake
from vibesearch.protocol import load_prompts, own_prompts
from vibesearch.judges.official_judge import (
    align_best_effort,
    align_exact,
    answer_items,
    judge_official,
    split_batches,
)
from vibesearch.judges.official_metrics import OfficialGroundTruth, grade_sample

STAND_IN = Path(__file__).resolve().parents[1] / "data" / "official_harness"
P_LINE = re.compile(r'^P-(\d+): "(.*)" --\[(.*)\]--> "(.*)"$', re.MULTILINE)
GT_LINE = re.compile(r'^GT-(\d+): "(.*)" --\[(.*)\]--> "(.*)"$', re.MULTILINE)


def sizes(n: int) -> list[int]:
    return [size for _, size in split_batches(n)]


def test_batch_split_of_7_60_301():
    assert split_batches(7) == [(0, 2), (2, 2), (4, 1), (5, 1), (6, 1)]
    assert sizes(60) == [12] * 5
    assert split_batches(301) == [(0, 61), (61, 60), (121, 60), (181, 60), (241, 60)]
    assert sizes(3) == [1, 1, 1]
    assert split_batches(0) == []


def ground_truth(n: int) -> OfficialGroundTruth:
    nodes = [{"node_id": f"c{i}", "node_name": f"City {i}"} for i in range(n)] + [{"node_id": "x", "node_name": "Country"}]
    triples = [{"head_id": f"c{i}", "relation": "in", "tail_id": "x"} for i in range(n)]
    return OfficialGroundTruth.from_record({"nodes": nodes, "triples": triples})


def official_answer(prompt: str, *, drop: set[int] = frozenset()) -> str:
    """Covered when a predicted triple has the same head and tail; the official output format."""
    preds = {(h, t): int(i) for i, h, _r, t in P_LINE.findall(prompt)}
    results = []
    for i, h, _r, t in GT_LINE.findall(prompt):
        if int(i) in drop:
            continue
        hit = preds.get((h, t))
        results.append({"index": int(i), "covered": hit is not None, "supporting_pred_indices": [] if hit is None else [hit]})
    return json.dumps({"results": results}, ensure_ascii=False)


@pytest.fixture
def prompts_seen():
    return []


def register(name: str, answer, seen: list[str]) -> str:
    def handler(req: fake.Request) -> fake.Reply:
        assert len(req.messages) == 1 and req.messages[0]["role"] == "user"
        seen.append(req.last_user)
        return fake.Reply(content=answer(req.last_user, len(seen)))

    return fake.register(name, handler)


def test_end_to_end_in_the_official_format(settings, prompts_seen):
    gt = ground_truth(7)
    # predicted: cities 0..4 match; two others do not; and a duplicate of city 0
    pred = [{"head": f"City {i}", "relation": "located in", "tail": "Country"} for i in range(5)]
    pred += [{"head": "Town", "relation": "in", "tail": "Nowhere"}, {"head": "City 0", "relation": "located in", "tail": "Country"}]
    model = register(
        "official-judge",
        lambda prompt, n: f"<think>let me look\n at every line</think>\n```json\n{official_answer(prompt)}\n```",
        prompts_seen,
    )
    out = asyncio.run(judge_official(pred, gt, own_prompts().judge, model=model, settings=settings))

    assert len(prompts_seen) == 5  # 7 triples -> 5 batches, one call each
    for prompt in prompts_seen:  # every batch shows every prediction
        assert [int(i) for i, *_ in P_LINE.findall(prompt)] == list(range(7))
    assert sorted(int(i) for p in prompts_seen for i, *_ in GT_LINE.findall(p)) == list(range(7))
    assert any("(2 claims, GT-0 to GT-1)" in p for p in prompts_seen)
    assert any("(1 claims, GT-6 to GT-6)" in p for p in prompts_seen)
    assert [b.outcome for b in out.batches] == ["complete"] * 5
    cov = out.coverage
    assert cov.total_gt_triples == 7 and cov.covered_count == 5 and cov.triplet_recall == round(5 / 7, 4)
    assert [i.gt_index for i in cov.per_gt_triple] == list(range(7))
    assert out.calls == 5 and out.input_tokens > 0

    r = grade_sample("task_1", 0, pred, gt, cov)
    assert r.triplet_precision == round(5 / 7, 4)  # P-5 and the duplicate P-6 are never cited
    assert r.node_recall == round(6 / 8, 4)  # 5 cities + Country of 8 nodes


def test_missing_indices_are_retried_then_padded(settings, prompts_seen):
    gt = ground_truth(10)  # 5 batches of 2: GT-0..1, 2..3, 4..5, 6..7, 8..9
    pred = [{"head": f"City {i}", "relation": "in", "tail": "Country"} for i in range(10)]

    def answer(prompt: str, n: int) -> str:
        indices = {int(i) for i, *_ in GT_LINE.findall(prompt)}
        if 3 in indices:
            return official_answer(prompt, drop={3})  # always leaves GT-3 out
        if 5 in indices and sum(1 for p in prompts_seen if "GT-5:" in p) == 1:
            return official_answer(prompt, drop={5})  # the first answer misses GT-5, the second is whole
        if 7 in indices:
            return "I could not decide."  # never JSON
        return official_answer(prompt)

    model = register("retry-judge", answer, prompts_seen)
    out = asyncio.run(judge_official(pred, gt, own_prompts().judge, model=model, settings=settings))
    by_offset = {b.offset: b for b in out.batches}
    assert (by_offset[2].attempts, by_offset[2].outcome) == (3, "partial")
    assert (by_offset[4].attempts, by_offset[4].outcome) == (2, "complete")
    assert (by_offset[6].attempts, by_offset[6].outcome) == (3, "never answered")
    assert len(by_offset[6].errors) == 3
    assert (by_offset[0].attempts, by_offset[0].outcome) == (1, "complete")
    covered = {i.gt_index for i in out.coverage.per_gt_triple if i.covered}
    assert covered == {0, 1, 2, 4, 5, 8, 9}  # GT-3 padded as not covered, GT-6/7 never answered
    assert out.coverage.total_gt_triples == 10 and out.coverage.triplet_recall == 0.7  # denominator: all 10
    assert len(out.coverage.per_gt_triple) == 10


def test_model_errors_count_as_failed_attempts(settings, prompts_seen):
    def handler(req: fake.Request) -> fake.Reply:
        prompts_seen.append(req.last_user)
        return fake.Reply(error="400")

    model = fake.register("broken-judge", handler)
    gt = ground_truth(2)
    out = asyncio.run(judge_official([{"head": "City 0", "relation": "in", "tail": "Country"}], gt, own_prompts().judge, model=model, settings=settings))
    assert [b.outcome for b in out.batches] == ["never answered", "never answered"]
    assert out.coverage.triplet_recall == 0.0 and len(prompts_seen) == 6  # 2 batches x 3 attempts


def test_the_stand_in_judge_template_drives_the_layout(settings, prompts_seen, monkeypatch, tmp_path):
    monkeypatch.setenv("HARNESS_IMPORT_MARKER", str(tmp_path / "m"))
    template = load_prompts(STAND_IN).judge
    model = register("stand-in-judge", lambda prompt, n: official_answer(prompt), prompts_seen)
    gt = ground_truth(3)
    out = asyncio.run(judge_official([{"head": "City 1", "relation": "in", "tail": "Country"}], gt, template, model=model, settings=settings))
    assert all(p.startswith("STAND-IN JUDGE.") for p in prompts_seen)
    assert [i.covered for i in out.coverage.per_gt_triple] == [False, True, False]


def test_nothing_to_judge_asks_nothing(settings):
    out = asyncio.run(judge_official([], ground_truth(4), own_prompts().judge, model="fake/none", settings=settings))
    assert out.calls == 0 and out.coverage.total_gt_triples == 4 and out.coverage.per_gt_triple == []


def test_alignment_rules():
    items = [{"index": 5, "covered": True}, {"index": 5, "covered": False}, {"index": 6, "covered": False}]
    exact = align_exact(items, 2, 5)
    assert exact is not None and exact[0]["covered"] is True  # the first entry of an index wins
    assert align_exact([{"covered": True}, {"index": 5}, {"index": 6}], 2, 5) is None  # an entry without index
    assert align_exact([{"index": 5}], 2, 5) is None
    padded = align_best_effort([{"index": 6, "covered": True}, {"index": 99}], 2, 5)
    assert padded[0]["covered"] is False and padded[1]["covered"] is True
    by_position = align_best_effort([{"covered": True}], 3, 5)
    assert [p.get("covered") for p in by_position] == [True, False, False]


def test_reading_an_answer():
    assert answer_items('```json\n{"results": [{"index": 0}]}\n```') == [{"index": 0}]
    assert answer_items("[1, 2]") == []  # not an object: no results
    for bad in ("```", "not json", '{"results": 3}', '{"results": [1]}'):
        with pytest.raises(ValueError):
            answer_items(bad)


def test_judge_sampling_reaches_the_provider(settings):
    """A local OpenAI-compatible server sees what the official grader sends: one user message,
    temperature 0.7, max_tokens 32768."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    bodies: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            bodies.append(body)
            answer = "<think>hmm</think>" + official_answer(body["messages"][0]["content"])
            reply = {
                "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
            data = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        local = settings.model_copy(update={"api_base": f"http://127.0.0.1:{server.server_address[1]}/v1", "temperature": 0.1})
        gt = ground_truth(2)
        out = asyncio.run(judge_official([{"head": "City 1", "relation": "in", "tail": "Country"}], gt, own_prompts().judge, model="openai/judge-x", settings=local))
    finally:
        server.shutdown()
        thread.join(5)
    assert len(bodies) == 2
    for body in bodies:
        assert body["temperature"] == 0.7 and body["max_tokens"] == 32768  # the profile's, not the global 0.1
        assert [m["role"] for m in body["messages"]] == ["user"]
    assert [i.covered for i in out.coverage.per_gt_triple] == [False, True]  # the think block was stripped


def test_grade_from_the_final_answer(settings, prompts_seen):
    from vibesearch.judges.official_grade import grade_official

    model = register("grade-judge", lambda prompt, n: official_answer(prompt), prompts_seen)
    gt = ground_truth(3)
    answer = 'Done:\n```json\n[{"head": "City 0", "relation": "in", "tail": "Country"}, {"head": "City 2", "relation": "in", "tail": "Country"}]\n```'
    graded = asyncio.run(grade_official("t", 0, answer, gt, own_prompts().judge, model=model, settings=settings, lenient=[]))
    assert graded.result.num_pred_triples == 2 and graded.result.triplet_recall == 0.6667
    assert graded.result.triplet_precision == 1.0 and graded.judgement is not None
    nothing = asyncio.run(grade_official("t", 1, "sorry, no graph", gt, own_prompts().judge, model=model, settings=settings))
    assert nothing.judgement is None and nothing.result.triplet_f1 == 0.0 and len(prompts_seen) == 3
