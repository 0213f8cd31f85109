"""The judge's verdicts do not depend on its layout (issue 37, section 1).

Hypothesis draws ground-truth facts and how an agent wrote each (the same words, paraphrased
heads, tails and relations from alias tables, reversed relations, the other language, a fact
split over two predictions, a composition through an alias, missed, a near miss), noise fills the
predicted graph to 50 / 100 / 300 / 1,000 / 3,000 predictions, and a scripted judge that
recognises exactly those aliases (``benchmarks/_paraphrase_graphs.py``) judges it through the real
code paths in both layouts: ours (``judge_llm``) and the official one (``judge_official``). The
covered ground-truth triples and the predictions supporting each must be the same, and equal to
what the judge finds shown the whole graph at once.

With a small context budget the predicted graph is split into windows; a fact one prediction
states is still found wherever it is, a fact needing two predictions only when they share a window.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, strategies as st
from hypothesis import settings as hyp_settings

from vibesearch.protocol import own_prompts
from vibesearch.judges.llm_judge import judge_llm
from vibesearch.judges.official_judge import judge_official
from vibesearch.judges.official_metrics import GTTriple, OfficialGroundTruth

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "_paraphrase_graphs.py"
_spec = importlib.util.spec_from_file_location("paraphrase_graphs_for_tests", _PATH)
assert _spec is not None and _spec.loader is not None
PG = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = PG  # dataclasses look their module up while the class is made
_spec.loader.exec_module(PG)

FACT = st.builds(
    PG.FactSpec,
    kind=st.sampled_from(PG.FACT_KINDS),
    a=st.integers(0, 999),
    b=st.integers(0, 999),
    c=st.integers(0, 999),
    written=st.sampled_from(PG.WRITTEN),
    chinese=st.booleans(),
    twice=st.booleans(),
)


def fact_lists(n_pred: int):
    """Ground truths of 8-25 facts for 50 predictions up to 60-150 (three judge batches of ours)."""
    low, high = {50: (8, 25), 100: (15, 45), 300: (40, 120)}.get(n_pred, (60, 150))
    return st.lists(FACT, min_size=low, max_size=high)


def hyp(examples: int):
    return hyp_settings(
        max_examples=examples,
        derandomize=True,  # the same examples on every run: CI never meets a new one
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    )


def official_truth(gt):
    return OfficialGroundTruth(node_names=frozenset(n for t in gt for n in (t["head"], t["tail"])), triples=tuple(GTTriple(**t) for t in gt))


def ours_covered(result) -> dict[int, list[int]]:
    assert all(v.covered is not None for v in result.verdicts), "an unscored verdict"
    return {v.gt_index: sorted(v.evidence) for v in result.verdicts if v.covered}


def official_covered(judgement) -> dict[int, list[int]]:
    return {item.gt_index: sorted(item.supporting_pred_indices) for item in judgement.coverage.per_gt_triple if item.covered}


@pytest.fixture
def judge_model(fake):
    return fake.register("semantic-judge", PG.semantic_judge)


@pytest.mark.parametrize("n_pred, examples", [(50, 12), (100, 10), (300, 6), (1000, 4), (3000, 3)])
def test_our_layout_gives_the_official_layouts_verdicts(judge_model, settings, n_pred, examples):
    seen = {"covered": 0, "joint": 0, "composed": 0}

    @hyp(examples)
    @given(specs=fact_lists(n_pred), seed=st.integers(0, 2**16))
    def check(specs, seed):
        gt, pred = PG.build(specs, n_pred, seed)
        assert len(pred) == n_pred

        async def both():
            ours = await judge_llm(gt, pred, model=judge_model, settings=settings)
            official = await judge_official(pred, official_truth(gt), own_prompts().judge, model=judge_model, settings=settings)
            return ours, official

        ours, official = asyncio.run(both())
        expected = PG.expected_coverage(gt, pred)
        assert ours.details["windows"] == 1 and ours.details["layout"] == "full"
        assert ours_covered(ours) == expected
        assert official_covered(official) == expected
        seen["covered"] += len(expected)
        seen["joint"] += sum(1 for v in ours.verdicts if v.rule == 3)
        seen["composed"] += sum(1 for v in ours.verdicts if v.rule == 4)

    check()
    assert seen["covered"] > 0  # the judges found something to agree on
    if n_pred <= 300:  # the sizes with many examples met joint covers and compositions too
        assert seen["joint"] > 0 and seen["composed"] > 0, seen


def needs_two(triple: dict[str, str]) -> bool:
    key = PG.canonical(triple["head"], triple["relation"], triple["tail"])
    return key is not None and key[1] in ("founders", "hq_country")


def test_windows_find_every_fact_one_prediction_states(fake, settings):
    """A 2,000-token budget splits 300 predictions into windows: facts stated by one prediction
    get the official verdicts and support; facts needing two are never covered more than there."""
    model = fake.register("semantic-judge-windows", PG.semantic_judge)
    small = settings.model_copy(update={"judge_context_tokens": 2000})
    counts = {"windows": 0, "single": 0}

    @hyp(4)
    @given(specs=st.lists(FACT, min_size=10, max_size=40), seed=st.integers(0, 2**16))
    def check(specs, seed):
        gt, pred = PG.build(specs, 300, seed)

        async def both():
            ours = await judge_llm(gt, pred, model=model, settings=small)
            official = await judge_official(pred, official_truth(gt), own_prompts().judge, model=model, settings=small)
            return ours, official

        ours, official = asyncio.run(both())
        d = ours.details
        assert d["layout"] == "windows" and d["windows"] > 1 and "could not be seen" in d["windows_note"]
        assert d["calls"] == d["n_batches"] * d["windows"]
        assert d["max_prompt_tokens"] <= 2000
        mine, theirs = ours_covered(ours), official_covered(official)
        for i, triple in enumerate(gt):
            if needs_two(triple):
                assert i not in mine or (i in theirs and set(mine[i]) <= set(theirs[i]))
            else:
                assert mine.get(i) == theirs.get(i), (i, triple)
                counts["single"] += i in mine
        counts["windows"] += d["windows"]

    check()
    assert counts["single"] > 0 and counts["windows"] > 4
