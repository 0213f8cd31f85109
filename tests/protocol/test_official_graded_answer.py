"""The answer the official grader grades (agent ``extract_response`` over the whole trace): the
latest assistant message with text, whatever its phase and whether it also made tool calls. The
score's details name the message graded and whether it was a fall-back from the extraction answer.
The judge is a fake model that answers in the official format."""

from __future__ import annotations

import json
import re

import pytest

from vibesearch.run import EndEvent, MessageEvent, ToolCallEvent, ToolResultEvent
from vibesearch.run.config import RunConfig
from vibesearch.scoring import score_run
from vibesearch.scoring.official_score import graded_answer
from vibesearch.store import Store

P_LINE = re.compile(r'^P-(\d+): "(.*)" --\[(.*)\]--> "(.*)"$', re.MULTILINE)
GT_LINE = re.compile(r'^GT-(\d+): "(.*)" --\[(.*)\]--> "(.*)"$', re.MULTILINE)
GT = [{"head": "A", "relation": "r", "tail": "B"}, {"head": "C", "relation": "r", "tail": "D"}]
ONE = '[{"head": "A", "relation": "r", "tail": "B"}]'
TWO = '[{"head": "A", "relation": "r", "tail": "B"}, {"head": "C", "relation": "r", "tail": "D"}]'


@pytest.fixture
def judged(fake):
    """A judge that covers a ground-truth triple when a prediction has its head and tail; every
    prompt it was shown is kept."""
    prompts: list[str] = []

    def handler(req):
        prompt = req.last_user
        prompts.append(prompt)
        preds = {(h, t): int(i) for i, h, _r, t in P_LINE.findall(prompt)}
        results = [{"index": int(i), "covered": (h, t) in preds, "supporting_pred_indices": [preds[(h, t)]] if (h, t) in preds else []}
                   for i, h, _r, t in GT_LINE.findall(prompt)]
        return fake.Reply(content=json.dumps({"results": results}))

    return fake.register("graded-answer-judge", handler), prompts


def new_run(store: Store) -> str:
    stages = [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]
    snap = {"id": "t1", "subset": "pro", "language": "en", "extra": {}, "graph": GT,
            "persona": {"background": "b", "initial_query": "q", "stages": stages}}
    run = store.create_run("t1", task_json=snap, run_config=RunConfig(task_id="t1", protocol="official"), agent="react",
                           agent_model="fake/agent", user="rules", status="finished", termination="done")
    store.append(run.id, MessageEvent(role="user", content="q"))
    return run.id


def step_with_call(store: Store, rid: str, text: str) -> int:
    """An assistant step that made one tool call and also wrote ``text``; returns its seq."""
    seq = store.append(rid, MessageEvent(role="assistant", content=text, n_tool_calls=1)).seq
    store.append(rid, ToolCallEvent(call_id="c1", tool="search", arguments={"query": "x"}))
    store.append(rid, ToolResultEvent(call_id="c1", tool="search", content="results"))
    return seq


def extraction(store: Store, rid: str, answer: str) -> int:
    store.append(rid, MessageEvent(role="user", content="list every triple", phase="extraction"))
    return store.append(rid, MessageEvent(role="assistant", content=answer, phase="extraction", final=True)).seq


def test_an_extraction_answer_with_text_is_graded(tmp_db, judged):
    judge, prompts = judged
    store = Store(tmp_db)
    rid = new_run(store)
    step_with_call(store, rid, f"so far: {ONE}")
    store.append(rid, MessageEvent(role="assistant", content="done", final=True))
    seq = extraction(store, rid, f"  {TWO}\n")
    store.append(rid, EndEvent(termination="done"))

    answer = graded_answer(store, rid)
    assert (answer.text, answer.phase, answer.seq, answer.fallback) == (TWO, "extraction", seq, False)
    row = score_run(store, rid, judge=judge, protocol="official")
    assert (row.n_pred, row.recall, row.f1) == (2, 1.0, 1.0)  # the extraction's two triples, not the dialogue's one
    details = row.details()
    assert details["graded_message"] == {"phase": "extraction", "seq": seq, "fallback": False, "extraction_seq": seq}
    assert "note" not in details
    assert all('"C" --[r]--> "D"' in p for p in prompts if p.count("P-") >= 1)


def test_an_empty_extraction_answer_falls_back_to_the_last_dialogue_text(tmp_db, judged):
    """The last text came with a tool call; a later step with no text does not count; the
    extraction answered nothing (whitespace only)."""
    judge, prompts = judged
    store = Store(tmp_db)
    rid = new_run(store)
    store.append(rid, MessageEvent(role="assistant", content=f"first: {TWO}", final=True))
    store.append(rid, MessageEvent(role="user", content="more please"))
    seq = step_with_call(store, rid, f"  see below {ONE}  ")
    store.append(rid, MessageEvent(role="assistant", content="", n_tool_calls=0, final=True, thinking="nothing to say"))
    ext = extraction(store, rid, "   \n")
    store.append(rid, EndEvent(termination="done"))

    answer = graded_answer(store, rid)
    assert (answer.text, answer.phase, answer.seq, answer.fallback, answer.extraction_seq) == (f"see below {ONE}", "dialogue", seq, True, ext)
    row = score_run(store, rid, judge=judge, protocol="official")
    # graded: the one triple of the tool-call step; P = 1/1, R = 1/2, F1 = 2/3
    assert (row.n_pred, row.precision, row.recall, row.f1) == (1, 1.0, 0.5, 0.6667)
    details = row.details()
    assert details["graded_message"] == {"phase": "dialogue", "seq": seq, "fallback": True, "extraction_seq": ext}
    assert f"phase dialogue, event {seq}" in details["note"] and "no extraction answer with text" in details["note"]
    assert prompts and all("P-1:" not in p for p in prompts)  # the judge saw only that one prediction


def test_a_run_without_extraction_grades_its_last_dialogue_text(tmp_db, judged):
    judge, _ = judged
    store = Store(tmp_db)
    rid = new_run(store)
    seq = store.append(rid, MessageEvent(role="assistant", content=f"partial: {ONE}", final=True)).seq
    store.append(rid, EndEvent(termination="error_loop"))
    answer = graded_answer(store, rid)
    assert (answer.phase, answer.seq, answer.extraction_seq, answer.fallback) == ("dialogue", seq, None, True)
    assert score_run(store, rid, judge=judge, protocol="official").n_pred == 1


def test_no_assistant_text_at_all_scores_zero_without_asking_the_judge(tmp_db, judged):
    judge, prompts = judged
    store = Store(tmp_db)
    rid = new_run(store)
    store.append(rid, MessageEvent(role="assistant", content="", n_tool_calls=1))
    store.append(rid, ToolCallEvent(call_id="c1", tool="search", arguments={"query": "x"}))
    store.append(rid, ToolResultEvent(call_id="c1", tool="search", content="results"))
    ext = extraction(store, rid, "")
    store.append(rid, EndEvent(termination="done"))

    answer = graded_answer(store, rid)
    assert (answer.text, answer.seq, answer.fallback) == ("", None, True)
    row = score_run(store, rid, judge=judge, protocol="official")
    assert (row.f1, row.n_pred, row.n_gt) == (0.0, 0, 2) and prompts == []
    details = row.details()
    assert details["graded_message"] == {"phase": None, "seq": None, "fallback": True, "extraction_seq": ext}
    assert "no assistant text at all" in details["note"]
