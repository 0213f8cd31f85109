"""Judge throughput: batched concurrent LLM judging vs one call per triple, the judge's prompt tokens
under our profile against the official layout, and the offline judge's time — on a synthetic
300 × 300 graph pair.

    python benchmarks/judge_throughput.py [--latency 0.2] [--sequential-sample 5]

Layouts compared in (b), at 50 / 100 / 300 / 1,000 predictions against 300 ground-truth triples:
* ours (``vibesearch`` profile): the layout ``choose_layout`` picks per graph by its estimate of
  billed prompt tokens: the whole predicted graph first in every call (a prefix the provider
  caches; the first call goes alone) or candidate retrieval, at most 50 ground-truth triples a call;
* the official layout (``official`` profile): at most 5 batches of ground-truth triples, every
  batch showing all predicted triples (our own judge prompt, written to the official structure).

Each size runs under three providers: no prompt cache; an automatic prefix cache (the fake
provider's ``prefix_cache``, 1,024 tokens at least) with cached tokens billed at 0.5 (OpenAI);
the same with 0.1 (DeepSeek, and Anthropic's cache reads). Cached tokens come from the usage the
provider reports, through the real client path. The official layout's calls are answered one at
a time here (no latency), so they get every cache hit their shared prefix allows.

The judge model is a fake litellm provider that sleeps ``--latency`` seconds per call and answers
"covered" when a shown predicted triple has the same head and tail, in whichever output format the
prompt asks for (what it answers does not matter here; the layouts are compared on the same
answers). Token counts are the fake provider's estimate (prompt characters / 4) for every layout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vibesearch.config import Settings
from vibesearch.llm import complete, fake
from vibesearch.protocol import own_prompts
from vibesearch.scoring.llm_judge import build_messages, judge_llm
from vibesearch.scoring.official_judge import judge_official
from vibesearch.scoring.official_metrics import GTTriple, OfficialGroundTruth
from vibesearch.scoring.offline_judge import OfflineJudge
from vibesearch.scoring.verdicts import JudgeResult

RELATIONS = ["founded in", "headquartered in", "chief executive", "number of employees", "parent company", "listed on"]
PRED_RELATIONS = ["founding year", "headquarters", "CEO", "employees", "owned by", "stock exchange"]
LINE = re.compile(r"^\[(R|P)(\d+)\] (.*) \| (.*) \| (.*)$", re.MULTILINE)
OFFICIAL_LINE = re.compile(r'^(GT|P)-(\d+): "(.*)" --\[(.*)\]--> "(.*)"$', re.MULTILINE)


def synthetic(n: int = 300) -> tuple[list[dict], list[dict]]:
    """n ground-truth triples (n/3 companies × 3 attributes); n predictions: 2/3 paraphrases, 1/3 noise."""
    gt, pred = [], []
    for i in range(n):
        company, k = i // 3, (i % 3) + 3 * ((i // 3) % 2)
        gt.append({"head": f"Company {company:03d}", "relation": RELATIONS[k], "tail": f"Value {i:03d}"})
    for i in range(0, n, 3):
        for j in (0, 1):
            k = (j) + 3 * (((i + j) // 3) % 2)
            pred.append({"head": f"company {(i + j) // 3:03d}", "relation": PRED_RELATIONS[k], "tail": f"value {i + j:03d}"})
    while len(pred) < n:
        m = len(pred)
        pred.append({"head": f"Agency {m:03d}", "relation": "located in", "tail": f"Town {m % 37:02d}"})
    return gt, pred


def make_handler(latency: float):
    def handler(req: fake.Request) -> fake.Reply:
        official = len(req.messages) == 1  # the official layout sends one user message; ours a system message too
        gts, preds = {}, {}
        for kind, idx, h, _r, t in (OFFICIAL_LINE if official else LINE).findall(req.messages[-1]["content"]):
            (preds if kind == "P" else gts)[int(idx)] = (h.lower(), t.lower())
        verdicts = []
        for i, key in gts.items():
            ev = [j for j, p in preds.items() if p == key]
            if official:
                verdicts.append({"index": i, "covered": bool(ev), "supporting_pred_indices": ev})
            else:
                verdicts.append({"index": i, "covered": bool(ev), "rule": 1 if ev else None, "evidence": ev, "rationale": "same head and tail"})
        key = "results" if official else "verdicts"
        return fake.Reply(content=json.dumps({key: verdicts}), delay_s=latency)

    return handler


async def sequential_sample(model: str, gt: list[dict], pred: list[dict], settings: Settings, k: int) -> float:
    """Mean wall time of k one-triple calls made one after another (whole graph in each prompt)."""
    numbered = [(j, (p["head"], p["relation"], p["tail"])) for j, p in enumerate(pred)]
    start = time.perf_counter()
    for i in range(k):
        g = gt[i]
        messages = build_messages([(i, (g["head"], g["relation"], g["tail"]))], numbered, filtered=False)
        await complete(messages, model=model, purpose="judge", settings=settings)
    return (time.perf_counter() - start) / k


def official_truth(gt: list[dict]) -> OfficialGroundTruth:
    return OfficialGroundTruth(
        node_names=frozenset(n for t in gt for n in (t["head"], t["tail"])), triples=tuple(GTTriple(**t) for t in gt)
    )


def resized(pred: list[dict], n: int) -> list[dict]:
    """The first n predictions, padded with unrelated ones."""
    out = list(pred[:n])
    while len(out) < n:
        m = len(out)
        out.append({"head": f"Agency {m:04d}", "relation": "located in", "tail": f"Town {m % 37:02d}"})
    return out


SIZES = (50, 100, 300, 1000)
PROVIDERS = (("no prompt cache", 1.0, False), ("prefix cache, cached at 0.5 (OpenAI)", 0.5, True),
             ("prefix cache, cached at 0.1 (DeepSeek, Anthropic reads)", 0.1, True))


async def token_scaling(gt: list[dict], pred: list[dict], settings: Settings) -> list[tuple]:
    """Per provider and size: ours (layout, calls, in, cached, billed, covered) and the official
    layout's (in, cached, billed, covered); each run on a fresh fake model (an empty cache)."""
    rows = []
    for k, (label, fraction, cache) in enumerate(PROVIDERS):
        s = settings.model_copy(update={"judge_cache_read_fraction": fraction})
        for n in SIZES:
            p = resized(pred, n)
            mine = fake.register(f"bench-ours-{k}-{n}", make_handler(0.0), prefix_cache=cache)
            theirs = fake.register(f"bench-official-{k}-{n}", make_handler(0.0), prefix_cache=cache)
            ours = await judge_llm(gt, p, model=mine, settings=s)
            official = await judge_official(p, official_truth(gt), own_prompts().judge, model=theirs, settings=s)
            d = ours.details
            off_billed = round(official.input_tokens - official.cached_input_tokens * (1 - fraction))
            covered = sum(1 for v in ours.verdicts if v.covered)
            rows.append((label, fraction, n, d["layout"], d["n_batches"], d["input_tokens"], d["cached_input_tokens"] or 0,
                         d["billed_input_tokens"], covered, official.input_tokens, official.cached_input_tokens, off_billed,
                         official.coverage.covered_count))
    return rows


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per fake judge call")
    parser.add_argument("--sequential-sample", type=int, default=5, help="one-triple calls to time for the sequential estimate")
    args = parser.parse_args()

    gt, pred = synthetic(300)
    settings = Settings(llm_backoff_s=0.01)
    model = fake.register("bench-judge", make_handler(args.latency))
    # warm up litellm (its first call imports and sets up a lot)
    await judge_llm(gt[:1], pred[:1], model=model, settings=settings.model_copy(update={"judge_batch_size": 1}), candidates=False)

    start = time.perf_counter()
    ours = await judge_llm(gt, pred, model=model, settings=settings)
    batched_s = time.perf_counter() - start
    start = time.perf_counter()
    official = await judge_official(pred, official_truth(gt), own_prompts().judge, model=model, settings=settings)
    official_s = time.perf_counter() - start
    scaling = await token_scaling(gt, pred, settings)
    per_call = await sequential_sample(model, gt, pred, settings, args.sequential_sample)
    sequential_est = per_call * len(gt)

    start = time.perf_counter()
    offline = OfflineJudge().judge(gt, pred)
    offline_s = time.perf_counter() - start

    def covered(r: JudgeResult) -> int:
        return sum(1 for v in r.verdicts if v.covered)

    d = ours.details
    print(f"graphs: {len(gt)} ground-truth x {len(pred)} predicted triples (synthetic); fake judge latency {args.latency * 1000:.0f} ms")
    print(f"settings: batch size {settings.judge_batch_size or f'auto, at most {settings.judge_batch_max}'}, concurrency {settings.judge_concurrency}, "
          f"candidates above {settings.judge_candidates_above} triples, top-k {settings.judge_candidates_topk}")
    print()
    print("(a) wall time")
    print(f"  batched + concurrent judge: {batched_s:.2f} s for {d['calls']} calls (max {d['max_in_flight']} in flight)")
    print(f"  sequential, one call per ground-truth triple: ~{sequential_est:.1f} s  "
          f"[ESTIMATED: {len(gt)} calls x {per_call * 1000:.0f} ms measured over {args.sequential_sample} real sequential calls]")
    print(f"  speed-up: {sequential_est / batched_s:.1f}x   (target >= 10x)")
    print()
    print("(b) judge prompt tokens, our profile vs the official layout (fake provider's estimate: characters / 4)")
    print(f"  the (a) run, 300 x 300, no prompt cache: ours {d['layout']} layout, {d['n_batches']} calls, "
          f"{d['input_tokens']:,} tokens vs official {official.input_tokens:,} ({len(official.batches)} batches, wall {official_s:.2f} s); "
          f"covered {covered(ours)} vs {official.coverage.covered_count}")
    print(f"  {len(gt)} ground-truth triples; billed = uncached + fraction x cached prompt tokens")
    current = None
    for (label, fraction, n, layout, calls, o_in, o_cached, o_billed, o_cov, f_in, f_cached, f_billed, f_cov) in scaling:
        if label != current:
            current = label
            print(f"  provider: {label}; cached tokens billed at fraction {fraction}")
            print(f"    {'preds':>5}  {'ours: layout':<17} {'prompt':>7} {'cached':>7} {'billed':>7}   {'official: prompt':>16} {'cached':>7} {'billed':>7}"
                  f"   {'ratio prompt':>12} {'ratio billed':>12}  verdicts")
        same = "same" if o_cov == f_cov else f"DIFFER ({o_cov} vs {f_cov})"
        print(f"    {n:>5}  {layout + ' x' + str(calls):<17} {o_in:>7,} {o_cached:>7,} {o_billed:>7,}   {f_in:>16,} {f_cached:>7,} {f_billed:>7,}"
              f"   {o_in / f_in:>11.2f}x {o_billed / f_billed:>11.2f}x  {same} ({o_cov} covered)")
    print()
    print("(c) offline judge")
    print(f"  {offline_s:.3f} s for the same graphs, {covered(offline)} covered   (target < 0.5 s)")


if __name__ == "__main__":
    asyncio.run(main())
