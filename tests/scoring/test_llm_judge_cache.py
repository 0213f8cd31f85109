"""The judge's layout and prompt caching: a shared prefix, cached tokens measured through the real
client path with the fake provider's prefix cache, and billed tokens below the official layout's."""

import asyncio
import importlib.util
import json
import re
from pathlib import Path

import pytest
from scoring_helpers import T

from vibesearch.llm import complete
from vibesearch.llm import fake as fake_mod
from vibesearch.llm.client import cached_prompt_tokens
from vibesearch.llm.tokenizer import text_tokens
from vibesearch.protocol import own_prompts
from vibesearch.run.events import UsageEvent
from vibesearch.judges.llm_judge import SYSTEM_PROMPT, build_messages, judge_llm
from vibesearch.judges.official_judge import judge_official

LINE = re.compile(r"^\[(R|P)(\d+)\] (.*) \| (.*) \| (.*)$", re.M)


@pytest.fixture
def cached_fake():
    fake_mod.install()
    names = []

    def register(name, handler, **kw):
        names.append(name)
        return fake_mod.register(name, handler, **kw)

    yield register
    for name in names:
        fake_mod.unregister(name)


def exact_match(req):
    gts, preds = {}, {}
    for kind, idx, h, r, t in LINE.findall(req.last_user):
        (gts if kind == "R" else preds)[int(idx)] = (h, r, t)
    out = [{"index": i, "covered": any(p == g for p in preds.values()), "evidence": [j for j, p in preds.items() if p == g]} for i, g in gts.items()]
    return fake_mod.Reply(content=json.dumps({"verdicts": out}))


def graphs(n_gt, n_pred):
    gt = [T(f"Entity number {i}", "has the attribute", f"value number {i}") for i in range(n_gt)]
    pred = [T(f"Entity number {i}", "has the attribute", f"value number {i}") for i in range(0, n_gt, 2)]
    pred += [T(f"Unrelated thing {i}", "other relation", f"x {i}") for i in range(n_pred - len(pred))]
    return gt, pred


async def test_every_call_of_a_graph_starts_with_the_same_prefix(cached_fake, settings):
    seen = []

    def handler(req):
        seen.append(req.messages)
        return exact_match(req)

    model = cached_fake("cache-prefix", handler)
    gt, pred = graphs(120, 80)
    result = await judge_llm(gt, pred, model=model, settings=settings)
    assert len(seen) == 3 and result.details["layout"] == "full"  # 120 triples, at most 50 a call
    assert all(m[0] == {"role": "system", "content": SYSTEM_PROMPT} for m in seen)
    heads = {m[1]["content"].split("Reference triples to judge:")[0] for m in seen}
    assert len(heads) == 1  # the predicted graph: byte-identical in every call
    head = heads.pop()
    assert "[R" not in head and head.count("[P") == 80
    for m in seen:  # the batch's own triples only after the shared part
        assert "[R" in m[1]["content"][len(head):]


async def test_cached_tokens_reach_the_usage_event_and_the_details(cached_fake, settings):
    model = cached_fake("cache-on", lambda req: exact_match(req) if LINE.search(req.last_user) else fake_mod.Reply(content="ok", delay_s=0.02), prefix_cache=True)
    events = []
    long = [{"role": "system", "content": "x" * 6000}, {"role": "user", "content": "first"}]
    await complete(long, model=model, purpose="judge", emit=events.append, settings=settings)
    await complete(long[:1] + [{"role": "user", "content": "second"}], model=model, purpose="judge", emit=events.append, settings=settings)
    usage = [e for e in events if isinstance(e, UsageEvent)]
    assert [u.cached_input_tokens for u in usage] == [0, 1502]  # (6,000 characters + 8) / 4

    counted = cached_fake("cache-tiktoken", lambda req: fake_mod.Reply(content="ok"), prefix_cache=True, tokens=text_tokens)
    words = " ".join(f"w{i}" for i in range(1500))  # o200k: well over the 1,024 tokens a cache needs
    events.clear()
    await complete([{"role": "system", "content": words}, long[1]], model=counted, purpose="judge", emit=events.append, settings=settings)
    await complete([{"role": "system", "content": words}, {"role": "user", "content": "second"}], model=counted, purpose="judge", emit=events.append, settings=settings)
    usage = [e for e in events if isinstance(e, UsageEvent)]
    assert [u.cached_input_tokens for u in usage] == [0, text_tokens(words) + 3]  # the system message, counted by tiktoken
    assert usage[0].input_tokens == text_tokens(words) + text_tokens("first") + 6

    plain = cached_fake("cache-off", lambda req: fake_mod.Reply(content="ok"))
    events.clear()
    await complete(long, model=plain, purpose="judge", emit=events.append, settings=settings)
    assert [e.cached_input_tokens for e in events if isinstance(e, UsageEvent)] == [None]

    def slow(req):
        reply = exact_match(req)
        reply.delay_s = 0.03  # calls in flight together: only the warm-up lets the others hit the cache
        return reply

    judge = cached_fake("cache-judge", slow, prefix_cache=True)
    gt, pred = graphs(150, 300)
    s = settings.model_copy(update={"judge_cache_read_fraction": 0.1})
    result = await judge_llm(gt, pred, model=judge, settings=s)
    d = result.details
    assert d["calls"] == 3 and d["cache_warmup"] is True
    assert d["cached_input_tokens"] > 0.5 * d["input_tokens"]  # calls 2 and 3 read the graph from the cache
    assert d["billed_input_tokens"] == round(d["input_tokens"] - 0.9 * d["cached_input_tokens"])
    assert d["cache_read_fraction"] == 0.1 and d["cache_read_fraction_from"] == "settings"


def test_usage_shapes_and_the_anthropic_marker():
    assert cached_prompt_tokens({"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": 7}}) == 7
    assert cached_prompt_tokens({"prompt_tokens": 10, "cache_read_input_tokens": 4}) == 4
    assert cached_prompt_tokens({"prompt_tokens": 10}) is None
    assert cached_prompt_tokens(None) is None
    messages = build_messages([(0, ("a", "b", "c"))], [(0, ("a", "b", "c"))], cache_control=True)
    head, tail = messages[1]["content"]
    assert head["cache_control"] == {"type": "ephemeral"} and "[P0]" in head["text"] and "[R0]" in tail["text"]
    assert "cache_control" not in tail


def _bench():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "judge_throughput.py"
    spec = importlib.util.spec_from_file_location("judge_throughput_for_tests", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("fraction", [1.0, 0.1])
def test_billed_tokens_below_the_official_layout_at_every_size(cached_fake, settings, fraction):
    """Both graph families of the benchmark, tokens counted with tiktoken: ours bills fewer prompt
    tokens than the official layout at every size, with the same covered set and supports."""
    bench = _bench()
    gt, pred = bench.synthetic(300)
    s = settings.model_copy(update={"judge_cache_read_fraction": fraction})
    cache = fraction < 1
    families = {"synthetic": (lambda n: (gt, bench.resized(pred, n)), bench.make_handler(0.0)),
                "paraphrase": (bench.paraphrase_graphs, bench.paraphrase.semantic_judge)}

    async def run():
        for family, (graphs, handler) in families.items():
            for n in (50, 300, 1000):
                g, p = graphs(n)
                mine = cached_fake(f"bill-o-{family}-{n}", handler, prefix_cache=cache, tokens=text_tokens)
                theirs = cached_fake(f"bill-f-{family}-{n}", handler, prefix_cache=cache, tokens=text_tokens)
                ours = await judge_llm(g, p, model=mine, settings=s)
                official = await judge_official(p, bench.official_truth(g), own_prompts().judge, model=theirs, settings=s)
                billed_official = official.input_tokens - official.cached_input_tokens * (1 - fraction)
                assert ours.details["billed_input_tokens"] < billed_official, (family, n)
                assert bench.covered_ours(ours) == bench.covered_official(official), (family, n)

    asyncio.run(run())
