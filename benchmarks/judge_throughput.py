"""Judge throughput: batched concurrent LLM judging vs one call per triple, prompt size with and
without candidate retrieval, and the offline judge's time — on a synthetic 300 × 300 graph pair.

    python benchmarks/judge_throughput.py [--latency 0.2] [--sequential-sample 5]

The judge model is a fake litellm provider that sleeps ``--latency`` seconds per call and answers
"covered" when a shown predicted triple has the same head and tail (what it answers does not
matter here; the layouts are compared on the same answers). Token counts are the fake provider's
estimate (prompt characters / 4), the same for both layouts.
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

from vibesearch.config import Settings  # noqa: E402
from vibesearch.llm import complete  # noqa: E402
from vibesearch.llm import fake  # noqa: E402
from vibesearch.scoring.llm_judge import build_messages, judge_llm  # noqa: E402
from vibesearch.scoring.offline_judge import OfflineJudge  # noqa: E402

RELATIONS = ["founded in", "headquartered in", "chief executive", "number of employees", "parent company", "listed on"]
PRED_RELATIONS = ["founding year", "headquarters", "CEO", "employees", "owned by", "stock exchange"]
LINE = re.compile(r"^\[(R|P)(\d+)\] (.*) \| (.*) \| (.*)$", re.M)


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
        gts, preds = {}, {}
        for kind, idx, h, _r, t in LINE.findall(req.messages[1]["content"]):
            (gts if kind == "R" else preds)[int(idx)] = (h.lower(), t.lower())
        verdicts = []
        for i, key in gts.items():
            ev = [j for j, p in preds.items() if p == key]
            verdicts.append({"index": i, "covered": bool(ev), "rule": 1 if ev else None, "evidence": ev, "rationale": "same head and tail"})
        return fake.Reply(content=json.dumps({"verdicts": verdicts}), delay_s=latency)

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
    whole = await judge_llm(gt, pred, model=model, settings=settings, candidates=False)
    whole_s = time.perf_counter() - start
    per_call = await sequential_sample(model, gt, pred, settings, args.sequential_sample)
    sequential_est = per_call * len(gt)

    start = time.perf_counter()
    offline = OfflineJudge().judge(gt, pred)
    offline_s = time.perf_counter() - start

    covered = lambda r: sum(1 for v in r.verdicts if v.covered)  # noqa: E731
    d, w = ours.details, whole.details
    print(f"graphs: {len(gt)} ground-truth x {len(pred)} predicted triples (synthetic); fake judge latency {args.latency * 1000:.0f} ms")
    print(f"settings: batch size {settings.judge_batch_size}, concurrency {settings.judge_concurrency}, "
          f"candidates above {settings.judge_candidates_above} triples, top-k {settings.judge_candidates_topk}")
    print()
    print("(a) wall time")
    print(f"  batched + concurrent judge: {batched_s:.2f} s for {d['calls']} calls (max {d['max_in_flight']} in flight)")
    print(f"  sequential, one call per ground-truth triple: ~{sequential_est:.1f} s  "
          f"[ESTIMATED: {len(gt)} calls x {per_call * 1000:.0f} ms measured over {args.sequential_sample} real sequential calls]")
    print(f"  speed-up: {sequential_est / batched_s:.1f}x   (target >= 10x)")
    print()
    print("(b) prompt tokens (fake provider's estimate: characters / 4)")
    print(f"  candidate retrieval:        {d['input_tokens']:>8,} tokens (mean {d['mean_candidates']:.0f} predicted triples per batch)")
    print(f"  whole graph in every batch: {w['input_tokens']:>8,} tokens ({len(pred)} predicted triples per batch; wall {whole_s:.2f} s)")
    print(f"  ratio: {d['input_tokens'] / w['input_tokens']:.2f}x   (target <= 0.5x)")
    print(f"  same verdicts either way: {covered(ours)} vs {covered(whole)} covered")
    print()
    print("(c) offline judge")
    print(f"  {offline_s:.3f} s for the same graphs, {covered(offline)} covered   (target < 0.5 s)")


if __name__ == "__main__":
    asyncio.run(main())
