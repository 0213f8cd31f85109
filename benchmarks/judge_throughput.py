"""Judge throughput: batched concurrent LLM judging vs one call per triple, the judge's prompt tokens
under our profile against the official layout on two families of graphs, and the offline judge's time.

    python benchmarks/judge_throughput.py [--latency 0.2] [--sequential-sample 5]

(a) wall time on a synthetic 300 × 300 graph pair, a fake judge with ``--latency`` per call.

(b) prompt tokens, at 50 / 100 / 300 / 1,000 / 3,000 predictions, of
* ours (``vibesearch`` profile): the whole predicted graph first in every call (a prefix the
  provider caches; the first call goes alone), at most 50 ground-truth triples a call after it;
* the official layout (``official`` profile): at most 5 batches of ground-truth triples, every
  batch showing all predicted triples (our own judge prompt, written to the official structure);
on two graph families:
* ``synthetic``: 300 ground-truth triples (100 companies × 3 attributes); the predictions
  restate 2 of every 3 in other relation words with the same head and tail, padded with noise;
  the judge answers "covered" when a shown prediction has the same head and tail;
* ``paraphrase``: 300 facts drawn (seed 37) from ``_paraphrase_graphs`` (aliases for heads,
  tails and relations, reversed relations, Chinese/English, facts split over two predictions,
  compositions through an alias, near misses, noise); 255 distinct ground-truth triples; the
  scripted judge recognises exactly those aliases. Its verdicts (covered set and supporting
  predictions) are compared between the layouts in the same run: cheaper counts only where they
  are the same.
Each size runs under three providers: no prompt cache; an automatic prefix cache (the fake
provider's ``prefix_cache``, 1,024 tokens at least) with cached tokens billed at 0.5 (OpenAI);
the same with 0.1 (DeepSeek, Anthropic's cache reads). Tokens are counted by the fake provider
with tiktoken's o200k encoding (``vibesearch.llm.tokenizer``, from litellm's bundled copy) plus
3 a message, cached tokens likewise over the shared prefix; they reach the score through the real
client path. The official layout's calls are answered as they arrive (no latency), so each gets
every cache hit an earlier answered call allows.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _paraphrase_graphs as paraphrase  # noqa: E402 - benchmarks/ is on sys.path when this runs as a script

from vibesearch.config import Settings
from vibesearch.llm import complete, fake
from vibesearch.llm.tokenizer import text_tokens, tokenizer_name
from vibesearch.protocol import own_prompts
from vibesearch.judges.llm_judge import build_messages, judge_llm
from vibesearch.judges.official_judge import judge_official
from vibesearch.judges.official_metrics import GTTriple, OfficialGroundTruth
from vibesearch.judges.offline import OfflineJudge
from vibesearch.judges.verdicts import JudgeResult

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
        messages = build_messages([(i, (g["head"], g["relation"], g["tail"]))], numbered)
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


SIZES = (50, 100, 300, 1000, 3000)
PROVIDERS = (("no prompt cache", 1.0, False), ("prefix cache, cached at 0.5 (OpenAI)", 0.5, True),
             ("prefix cache, cached at 0.1 (DeepSeek, Anthropic reads)", 0.1, True))
PARAPHRASE_SEED = 37


def paraphrase_graphs(n: int) -> tuple[list[dict], list[dict]]:
    """The paraphrase family at n predictions: the same 300 drawn facts at every size."""
    import random

    return paraphrase.build(paraphrase.random_specs(random.Random(PARAPHRASE_SEED), 300), n, PARAPHRASE_SEED)


def covered_ours(r: JudgeResult) -> dict[int, list[int]]:
    return {v.gt_index: sorted(v.evidence) for v in r.verdicts if v.covered}


def covered_official(j) -> dict[int, list[int]]:
    return {i.gt_index: sorted(i.supporting_pred_indices) for i in j.coverage.per_gt_triple if i.covered}


def tiktoken_model(name: str, handler, cache: bool) -> str:
    return fake.register(name, handler, prefix_cache=cache, tokens=text_tokens)


async def token_scaling(family: str, graphs, handler, settings: Settings) -> list[tuple]:
    """Per provider and size: ours (layout, calls, in, cached, billed) and the official layout's
    (calls, in, cached, billed), the covered counts, and whether covered sets and supports are
    the same; each run on fresh fake models (empty caches)."""
    rows = []
    for k, (label, fraction, cache) in enumerate(PROVIDERS):
        s = settings.model_copy(update={"judge_cache_read_fraction": fraction})
        for n in SIZES:
            gt, p = graphs(n)
            mine = tiktoken_model(f"bench-{family}-ours-{k}-{n}", handler, cache)
            theirs = tiktoken_model(f"bench-{family}-official-{k}-{n}", handler, cache)
            ours = await judge_llm(gt, p, model=mine, settings=s)
            official = await judge_official(p, official_truth(gt), own_prompts().judge, model=theirs, settings=s)
            d = ours.details
            off_billed = round(official.input_tokens - official.cached_input_tokens * (1 - fraction))
            a, b = covered_ours(ours), covered_official(official)
            rows.append((label, fraction, n, len(gt), f"{d['layout']} x{d['calls']}", d["input_tokens"], d["cached_input_tokens"] or 0,
                         d["billed_input_tokens"], official.calls, official.input_tokens, official.cached_input_tokens, off_billed,
                         len(a), len(b), a == b))
    return rows


def print_scaling(family: str, rows: list[tuple]) -> None:
    current = None
    for (label, fraction, n, n_gt, layout, o_in, o_cached, o_billed, f_calls, f_in, f_cached, f_billed, o_cov, f_cov, same) in rows:
        if label != current:
            current = label
            print(f"  {family} graphs; provider: {label}; cached tokens billed at fraction {fraction}")
            print(f"    {'preds':>5} {'GT':>4}  {'ours: layout':<12} {'prompt':>8} {'cached':>8} {'billed':>8}   "
                  f"{'official: calls':>15} {'prompt':>8} {'cached':>8} {'billed':>8}   {'ratio billed':>12}  verdicts (covered ours / official)")
        verdicts = "same" if same else "DIFFER"
        print(f"    {n:>5} {n_gt:>4}  {layout:<12} {o_in:>8,} {o_cached:>8,} {o_billed:>8,}   {f_calls:>15} {f_in:>8,} {f_cached:>8,} {f_billed:>8,}"
              f"   {o_billed / f_billed:>11.2f}x  {verdicts} ({o_cov} / {f_cov})")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per fake judge call")
    parser.add_argument("--sequential-sample", type=int, default=5, help="one-triple calls to time for the sequential estimate")
    args = parser.parse_args()

    gt, pred = synthetic(300)
    settings = Settings(llm_backoff_s=0.01)
    model = fake.register("bench-judge", make_handler(args.latency), tokens=text_tokens)
    # warm up litellm (its first call imports and sets up a lot)
    await judge_llm(gt[:1], pred[:1], model=model, settings=settings.model_copy(update={"judge_batch_size": 1}))

    start = time.perf_counter()
    ours = await judge_llm(gt, pred, model=model, settings=settings)
    batched_s = time.perf_counter() - start
    start = time.perf_counter()
    official = await judge_official(pred, official_truth(gt), own_prompts().judge, model=model, settings=settings)
    official_s = time.perf_counter() - start
    synthetic_rows = await token_scaling("synthetic", lambda n: (gt, resized(pred, n)), make_handler(0.0), settings)
    paraphrase_rows = await token_scaling("paraphrase", paraphrase_graphs, paraphrase.semantic_judge, settings)
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
          f"context budget {settings.judge_context_tokens:,} tokens (fake models are unknown to litellm)")
    print()
    print("(a) wall time")
    print(f"  batched + concurrent judge: {batched_s:.2f} s for {d['calls']} calls (max {d['max_in_flight']} in flight)")
    print(f"  sequential, one call per ground-truth triple: ~{sequential_est:.1f} s  "
          f"[ESTIMATED: {len(gt)} calls x {per_call * 1000:.0f} ms measured over {args.sequential_sample} real sequential calls]")
    print(f"  speed-up: {sequential_est / batched_s:.1f}x   (target >= 10x)")
    print()
    print(f"(b) judge prompt tokens, our profile vs the official layout (counted with {tokenizer_name()}, 3 more a message)")
    print(f"  the (a) run, 300 x 300, no prompt cache: ours {d['layout']} layout, {d['n_batches']} calls, "
          f"{d['input_tokens']:,} tokens vs official {official.input_tokens:,} ({len(official.batches)} batches, wall {official_s:.2f} s); "
          f"covered {covered(ours)} vs {official.coverage.covered_count}")
    print("  billed = uncached + fraction x cached prompt tokens; verdicts: covered set and supporting predictions, ours vs official")
    print_scaling("synthetic", synthetic_rows)
    print_scaling("paraphrase", paraphrase_rows)
    differ = [r for r in paraphrase_rows if not r[-1]]
    print(f"  paraphrase graphs: verdicts {'the same in every run' if not differ else f'DIFFER in {len(differ)} runs'}")
    print()
    print("(c) offline judge")
    print(f"  {offline_s:.3f} s for the same graphs, {covered(offline)} covered   (target < 0.5 s)")


if __name__ == "__main__":
    asyncio.run(main())
