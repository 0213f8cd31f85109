"""A predicted graph too large for one judge call: prediction windows, every batch against each,
verdicts merged (fake judge models through the real client path; a small configured budget)."""

import json
import re

from scoring_helpers import T

from vibesearch.judges._judge_layout import token_counts
from vibesearch.judges.llm_judge import judge_llm

LINE = re.compile(r"^\[(R|P)(\d+)\] (.*) \| (.*) \| (.*)$", re.M)


def parse(text):
    gts, preds = {}, {}
    for kind, idx, h, r, t in LINE.findall(text):
        (gts if kind == "R" else preds)[int(idx)] = (h, r, t)
    return gts, preds


def answer(gts, preds, same):
    out = []
    for i, g in gts.items():
        ev = [j for j, p in preds.items() if same(g, p)]
        out.append({"index": i, "covered": bool(ev), "rule": 1 if ev else None, "evidence": ev, "rationale": "x"})
    return json.dumps({"verdicts": out})


def exact_judge(fake, name, prompts):
    """Covered by a shown prediction with the same text; every prompt's messages kept in ``prompts``."""

    def handler(req):
        prompts.append(req.messages)
        gts, preds = parse(req.last_user)
        return fake.Reply(content=answer(gts, preds, lambda g, p: g == p))

    return fake.register(name, handler)


async def test_every_batch_meets_every_prediction_and_entities_stay_together(fake, settings):
    prompts = []
    model = exact_judge(fake, "judge-windows", prompts)
    # 50 entities with 8 facts each, written interleaved (entity j % 50): a cut in order would split them
    pred = [T(f"Cluster {j % 50}", f"attribute {j // 50}", f"value {j % 50}-{j // 50}") for j in range(400)]
    gt = [T(f"Cluster {k}", "attribute 3", f"value {k}-3") for k in range(0, 50, 2)]
    gt += [T("Cluster 7", "attribute 9", "value 7-9")] * 5  # attribute 9 was never written
    s = settings.model_copy(update={"judge_context_tokens": 2000, "judge_batch_size": 10})
    result = await judge_llm(gt, pred, model=model, settings=s)
    d = result.details

    windows = {tuple(sorted(parse(m[1]["content"])[1])) for m in prompts}
    assert d["layout"] == "windows" and d["windows"] == len(windows) > 1
    assert d["calls"] == len(prompts) == 3 * d["windows"] and d["n_batches"] == 3
    assert (d["context_budget"], d["context_budget_from"]) == (2000, "settings (judge_context_tokens)")
    assert "o200k" in d["tokenizer"] and "could not be seen" in d["windows_note"]
    for batch in ({i for i in range(k, k + 10)} & set(range(len(gt))) for k in (0, 10, 20)):
        shown = [parse(m[1]["content"])[1] for m in prompts if set(parse(m[1]["content"])[0]) == batch]
        assert len(shown) == d["windows"]
        assert sorted(j for s_ in shown for j in s_) == list(range(400))  # each prediction exactly once
    for window in windows:  # every entity's facts in a single window
        assert all(all(j2 in window for j2 in range(j % 50, 400, 50)) for j in window)
    for messages in prompts:  # each prompt within the budget, counted with the real tokenizer
        assert sum(token_counts([m["content"] for m in messages])) <= 2000
        assert re.search(r"Predicted triples, part \d+ of \d+", messages[1]["content"])

    covered = {v.gt_index: v.evidence for v in result.verdicts if v.covered}
    assert covered == {i: [(2 * i) + 150] for i in range(25)}  # entity 2i's attribute 3 is prediction 2i + 3*50
    assert [v.covered for v in result.verdicts[25:]] == [False] * 5


def hubs(n):
    """Two entities with n facts each, each entity with one "marker" fact: they cannot share a window."""
    pred = []
    for hub in ("A", "B"):
        pred += [T(f"Hub {hub}", f"relation {k}", f"{hub} value {k}") for k in range(n)]
        pred.append(T(f"Hub {hub}", "marker", "1"))
    return pred


def marker_judge(fake, name, fail_part=None):
    def handler(req):
        if fail_part and f"part {fail_part} of" in req.last_user:
            return fake.Reply(content="no idea")
        gts, preds = parse(req.last_user)
        return fake.Reply(content=answer(gts, preds, lambda g, p: g[1:] == p[1:]))

    return fake.register(name, handler)


async def test_a_triple_covered_in_two_windows_keeps_the_evidence_of_both(fake, settings):
    pred = hubs(40)
    gt = [T("Target", "marker", "1"), T("Target", "absent", "2")]
    s = settings.model_copy(update={"judge_context_tokens": 2000})
    result = await judge_llm(gt, pred, model=marker_judge(fake, "judge-hubs"), settings=s)
    assert result.details["windows"] == 2 and result.details["window_sizes"] == [41, 41]
    first, second = result.verdicts
    assert (first.covered, first.evidence) == (True, [40, 81])
    assert (second.covered, second.evidence) == (False, [])


async def test_a_window_without_an_answer_leaves_uncovered_triples_unscored(fake, settings):
    pred = hubs(40)
    gt = [T("Target", "marker", "1"), T("Target", "absent", "2")]
    s = settings.model_copy(update={"judge_context_tokens": 2000})
    result = await judge_llm(gt, pred, model=marker_judge(fake, "judge-hubs-half", fail_part=2), settings=s)
    first, second = result.verdicts
    assert (first.covered, first.evidence) == (True, [40])  # the first window covers it: covered
    assert second.covered is None  # not covered in one window, never answered in the other
    assert result.details["batches_unscored"] == 1


async def test_a_graph_that_fits_is_one_window_under_the_plain_header(fake, settings):
    prompts = []
    model = exact_judge(fake, "judge-fits", prompts)
    result = await judge_llm([T("Hub A", "marker", "1")] * 3, hubs(30), model=model, settings=settings.model_copy(update={"judge_batch_size": 1}))
    d = result.details
    assert (d["layout"], d["windows"], d["calls"]) == ("full", 1, 3) and "windows_note" not in d
    assert d["context_budget"] == settings.judge_context_tokens
    assert all(m[1]["content"].startswith("Predicted triples:\n") for m in prompts)
    assert [v.evidence for v in result.verdicts] == [[30]] * 3


def test_the_budget_comes_from_litellm_when_it_knows_the_model(fake, settings):
    import litellm

    from vibesearch.judges.llm_judge import context_budget

    known = litellm.get_model_info("gpt-4o-mini")["max_input_tokens"]
    assert context_budget("gpt-4o-mini", settings) == (known, "litellm model map")
    assert context_budget("fake/unknown-judge", settings.model_copy(update={"judge_context_tokens": 5000})) == (5000, "settings (judge_context_tokens)")
