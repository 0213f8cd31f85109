"""The LLM judge through litellm with fake judge models (no network)."""

import asyncio
import json
import re
import threading
import time

import pytest
from scoring_helpers import T

from vibesearch.llm import LLMError
from vibesearch.scoring import compute_metrics, score_run, stored_verdicts
from vibesearch.judges.verdicts import majority_verdicts
from vibesearch.labels.calibration import calibrate, load_cases
from vibesearch.judges.llm_judge import SYSTEM_PROMPT, judge_llm
from vibesearch.judges.verdicts import Verdict

LINE = re.compile(r"^\[(R|P)(\d+)\] (.*) \| (.*) \| (.*)$", re.M)


def parse_prompt(text: str):
    gts, preds = {}, {}
    for kind, idx, h, r, t in LINE.findall(text):
        (gts if kind == "R" else preds)[int(idx)] = (h, r, t)
    return gts, preds


def exact_match_judge(req):
    """Covered when a shown predicted triple has the same text (a stand-in for a real model)."""
    gts, preds = parse_prompt(req.last_user)
    out = []
    for i, g in gts.items():
        ev = [j for j, p in preds.items() if p == g]
        out.append({"index": f"R{i}", "covered": bool(ev), "rule": 1 if ev else None, "evidence": [f"P{j}" for j in ev], "rationale": "text match"})
    return json.dumps({"verdicts": out})


def graphs(n_gt=30, n_pred=30):
    gt = [T(f"Entity {i}", "relation", f"value {i}") for i in range(n_gt)]
    pred = [T(f"Entity {i}", "relation", f"value {i}") for i in range(0, n_gt, 2)]
    pred += [T(f"Noise {i}", "other", f"x {i}") for i in range(n_pred - len(pred))]
    return gt, pred


async def test_batches_run_concurrently_within_the_limit(fake, settings):
    calls = []  # (start, scheduled end) of each call
    lock = threading.Lock()
    delay = 0.05

    def handler(req):
        now = time.monotonic()
        with lock:
            in_flight = sum(1 for _, end in calls if end > now)  # calls started and not yet finished
            calls.append((now, now + delay))
            handler.max_seen = max(handler.max_seen, in_flight + 1)
        return fake.Reply(content=exact_match_judge(req), delay_s=delay)

    handler.max_seen = 0
    model = fake.register("judge-conc", handler)
    s = settings.model_copy(update={"judge_batch_size": 3, "judge_concurrency": 4})
    gt, pred = graphs(30, 20)
    result = await judge_llm(gt, pred, model=model, settings=s)
    assert len(calls) == 10  # 30 triples in batches of 3
    assert handler.max_seen >= 2, "batches did not overlap"
    assert handler.max_seen <= 4, "more calls in flight than judge_concurrency"
    assert result.details["max_in_flight"] <= 4
    covered = [v.gt_index for v in result.verdicts if v.covered]
    assert covered == list(range(0, 30, 2))
    assert all(v.evidence == [v.gt_index // 2] for v in result.verdicts if v.covered)


async def test_a_batch_that_never_parses_is_unscored_not_false(fake, settings):
    def handler(req):
        gts, _ = parse_prompt(req.messages[1]["content"])  # the batch's prompt, also on the retries
        if 0 in gts:
            handler.garbage += 1
            return fake.Reply(content="I think most of them are covered, honestly.")
        return fake.Reply(content=exact_match_judge(req))

    handler.garbage = 0

    model = fake.register("judge-broken", handler)
    s = settings.model_copy(update={"judge_batch_size": 5})
    gt, pred = graphs(20, 10)
    result = await judge_llm(gt, pred, model=model, settings=s)
    unscored = [v for v in result.verdicts if v.covered is None]
    assert [v.gt_index for v in unscored] == [0, 1, 2, 3, 4]
    assert result.details["batches_unscored"] == 1
    assert handler.garbage == 3  # complete_json asked again before giving up
    m = compute_metrics(result.verdicts, len(gt), len(pred))
    assert m.n_unscored == 5
    # recall over the 15 scored triples: 5, 7, ..., 19 even -> 6, 8, ..., 18 -> 7 covered
    assert m.n_covered == 7 and m.recall == pytest.approx(7 / 15)


async def test_every_call_shows_the_whole_graph_with_its_own_indices(fake, settings):
    """No call is shown a selection: a prediction sharing no word with its ground truth (a
    paraphrase) is in every prompt, at its position in the stored graph."""
    seen_prompts = []

    def handler(req):
        seen_prompts.append(req.last_user)
        return fake.Reply(content=exact_match_judge(req))

    model = fake.register("judge-whole", handler)
    gt = [T("Star Alliance", "founded in", "1997"), T("SkyTeam", "founded in", "2000")] * 10
    pred = [T(f"Airline {i}", "based in", f"City {i}") for i in range(100)]
    pred[57] = T("Star Alliance", "founded in", "1997")
    pred[83] = T("星空联盟", "成立于", "一九九七年")
    pred[91] = T("SkyTeam", "founded in", "2000")
    s = settings.model_copy(update={"judge_batch_size": 10})
    result = await judge_llm(gt, pred, model=model, settings=s)
    assert len(seen_prompts) == 2 and result.details["layout"] == "full" and result.details["windows"] == 1
    for prompt in seen_prompts:
        _, shown = parse_prompt(prompt)
        assert sorted(shown) == list(range(100)) and shown[83] == ("星空联盟", "成立于", "一九九七年")
    assert [v.evidence for v in result.verdicts] == [[57], [91]] * 10


async def test_evidence_the_judge_was_not_shown_is_dropped(fake, settings):
    def handler(req):
        return fake.Reply(content=json.dumps({"verdicts": [{"index": 0, "covered": True, "rule": "rule 1", "evidence": [0, 999], "rationale": "x"}]}))

    model = fake.register("judge-stray", handler)
    result = await judge_llm([T("a", "b", "c")], [T("a", "b", "c")], model=model, settings=settings)
    v = result.verdicts[0]
    assert (v.covered, v.rule, v.evidence) == (True, 1, [0])
    assert result.details["batches"][0]["evidence_dropped"] == 1


async def test_model_failing_on_every_batch_raises(fake, settings):
    model = fake.register("judge-down", lambda req: fake.Reply(error="400"))
    with pytest.raises(LLMError):
        await judge_llm([T("a", "b", "c")], [T("a", "b", "c")], model=model, settings=settings)


def test_prompt_on_the_case_file(fake, settings, cases_path):
    """Every case's GT triple and predicted triples reach the prompt; the reply is parsed into verdicts."""
    cases = {c.id: c for c in load_cases(cases_path)}
    prompts = []

    def handler(req):
        assert req.system == SYSTEM_PROMPT
        prompts.append(req.last_user)
        gts, preds = parse_prompt(req.last_user)
        # says "covered, by P0" for everything: a judge that only ever says yes
        return fake.Reply(content=json.dumps({"verdicts": [{"index": i, "covered": True, "rule": 2, "evidence": [0]} for i in gts]}))

    model = fake.register("judge-yes", handler)
    report = calibrate(cases_path, judge=model, settings=settings)
    with_pred = [c for c in cases.values() if c.pred]
    assert len(prompts) == len(with_pred)  # the empty prediction needs no call
    for case in with_pred:
        g = case.gt
        lines = [f"[R0] {g.head} | {g.relation} | {g.tail}"]
        lines += [f"[P{j}] {p.head} | {p.relation} | {p.tail}" for j, p in enumerate(case.pred)]
        assert any(all(line in prompt for line in lines) for prompt in prompts), case.id
    positives = sum(c.covered for c in cases.values())
    # yes to everything except the empty case: agreement = positives + 1 (the empty negative)
    assert report["agreement"] == pytest.approx((positives + 1) / len(cases))
    assert set(report["disagreements"]) == {c.id for c in cases.values() if not c.covered and c.pred}


def test_several_judges_each_kept_and_majority(fake, store, settings, make_run):
    gt = [T("A", "r", "1"), T("B", "r", "2"), T("C", "r", "3")]
    pred = [T("A", "r", "1"), T("B", "r", "2"), T("C", "r", "3")]
    rid = make_run(store, gt, pred)

    def voter(pattern):
        def handler(req):
            gts, _ = parse_prompt(req.last_user)
            return fake.Reply(content=json.dumps({"verdicts": [{"index": i, "covered": pattern[i], "evidence": [i] if pattern[i] else []} for i in gts]}))
        return handler

    models = [fake.register(f"voter{k}", voter(p)) for k, p in enumerate([[1, 1, 0], [1, 0, 0], [1, 1, 1]])]
    rows = [score_run(store, rid, judge=m, settings=settings) for m in models]
    assert [s.judge for s in store.scores(rid)] == models
    assert [round(r.recall, 3) for r in rows] == [0.667, 0.333, 1.0]
    maj = majority_verdicts([stored_verdicts(store, r.id) for r in rows])
    assert [v.covered for v in maj] == [True, True, False]
    assert maj[1].evidence == [1]


def test_majority_tie_and_unscored():
    a = [Verdict(gt_index=0, covered=True, evidence=[1]), Verdict(gt_index=1, covered=None)]
    b = [Verdict(gt_index=0, covered=False), Verdict(gt_index=1, covered=None)]
    maj = majority_verdicts([a, b])
    assert maj[0].covered is False  # a tie is not covered
    assert maj[1].covered is None  # nobody scored it


def test_score_run_from_inside_a_running_loop(fake, store, settings, make_run):
    model = fake.register("judge-loop", lambda req: fake.Reply(content=exact_match_judge(req)))
    rid = make_run(store, [T("a", "b", "c")], [T("a", "b", "c")])

    async def inside():
        return score_run(store, rid, judge=model, settings=settings)

    row = asyncio.run(inside())
    assert row.f1 == 1.0
    details = json.loads(row.details_json)
    assert details["judge_kind"] == "llm" and details["calls"] == 1 and details["input_tokens"] > 0


async def test_the_judge_samples_as_the_settings_say(fake, settings):
    """A judge asked outside a run takes the settings' default temperature explicitly (the model
    client reads none from the settings): set, it is sent; unset, the provider's own applies."""
    seen = []

    def handler(req):
        seen.append(req.sampling)
        return fake.Reply(content=exact_match_judge(req))

    model = fake.register("judge-sampling", handler)
    gt, pred = graphs(n_gt=2, n_pred=2)
    await judge_llm(gt, pred, model=model, settings=settings.model_copy(update={"temperature": 0.25}))
    await judge_llm(gt, pred, model=model, settings=settings.model_copy(update={"temperature": None}))
    assert seen == [{"temperature": 0.25}, {}]
