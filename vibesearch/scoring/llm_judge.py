"""The LLM coverage judge.

Ground-truth triples are judged in batches; batches run concurrently, at most
``settings.judge_concurrency`` at a time, each one ``complete_json`` call with purpose "judge".
For each ground-truth triple the model returns ``{index, covered, rule, evidence, rationale}``.

* The layout (``choose_layout``) is picked per graph by an estimate of billed prompt tokens: the
  whole predicted graph in every call, placed before the batch's ground-truth triples so that it
  is a prefix the provider caches (the first call goes alone, the rest read the cache), or
  candidate retrieval (below); batches hold at most ``settings.judge_batch_max`` triples unless
  ``settings.judge_batch_size`` fixes their size.

* Bad output is retried by ``complete_json``; model errors are retried by ``complete``. A batch
  that still yields nothing readable is recorded as *unscored* (``covered=None``), never as
  "not covered"; the score reports how many triples are unscored.
* When the predicted graph has more than ``settings.judge_candidates_above`` triples, the
  estimate may choose to show each batch only the predicted triples likely to matter for it
  (``_candidates``); the triples keep their indices in the full graph, so evidence always points
  into the stored graph.
* Judge calls are not part of the run: their usage (tokens, cached tokens, billed tokens, cost)
  goes into the score's details, not into the run's events.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Literal, Sequence

from pydantic import BaseModel, Field, field_validator, model_validator

from ..config import Settings, get_settings
from ..run.events import ErrorEvent, UsageEvent
from ._candidates import CandidateIndex, TripleText
from .offline_judge import as_text_triple
from .verdicts import JudgeResult, Verdict

SYSTEM_PROMPT = """\
You check a knowledge graph that a search assistant wrote against a reference graph written by an \
expert. You get some reference triples (R-numbered) and the assistant's predicted triples \
(P-numbered). For every reference triple, decide whether the predicted triples contain its fact.

A reference triple is covered when at least one of these holds:
1. Same fact: one predicted triple says the same thing, in any wording.
2. States more: one predicted triple says more than the reference triple and the reference fact \
is part of it (a fuller date, a list that includes the reference value, a more detailed value).
3. Jointly: no single predicted triple is enough, but two or more together express the fact.
4. Composition: the fact follows by chaining predicted triples through relations that actually \
appear among the predicted triples (A r1 B and B r2 C together give the reference link from A to C).

Count as the same: different names of one entity (aliases, abbreviations, full and short names, \
the name in another language or script), relations worded differently with the same meaning \
(synonyms, or the passive form with head and tail swapped), and equal numbers, dates and units \
written in different formats.

Never count as covered:
- a fact stated about a different entity, even a closely related one: do not move an attribute \
from one entity to another;
- a relation that sounds close but changes the fact: nominated is not won, candidate is not \
winner, born is not died, planned is not completed, a former status is not the current one;
- anything you know yourself that the predicted triples do not say: judge only from them;
- a case you are unsure about: then covered is false.

Answer with one JSON object and nothing else:
{"verdicts": [{"index": <reference number>, "covered": true or false, "rule": 1, 2, 3, 4 or null, \
"evidence": [<predicted numbers that support it>], "rationale": "<one short sentence>"}]}
Give exactly one entry per reference number listed. When covered is false, rule is null and \
evidence is empty."""


def _triple_line(tag: str, t: TripleText) -> str:
    clean = [" ".join(part.split()) for part in t]
    return f"[{tag}] {clean[0]} | {clean[1]} | {clean[2]}"


_PRED_HEADER = "Predicted triples:"
_FILTERED_HEADER = (
    "Predicted triples (only those that may bear on the reference triples below are shown; "
    "the numbers are their positions in the full predicted graph):"
)
_GT_HEADER = "Reference triples to judge:"


def _pred_block(lines: Sequence[str], filtered: bool) -> str:
    return "\n".join([_FILTERED_HEADER if filtered else _PRED_HEADER, *(lines or ["(none)"])]) + "\n\n"


def _gt_block(lines: Sequence[str]) -> str:
    return "\n".join([_GT_HEADER, *lines])


def build_messages(
    gt: Sequence[tuple[int, TripleText]],
    pred: Sequence[tuple[int, TripleText]],
    *,
    filtered: bool,
    cache_control: bool = False,
) -> list[dict[str, Any]]:
    """The judge's prompt for one batch: the instructions, the predicted triples, then the batch's
    reference triples, last. Without ``filtered`` every call of one graph starts with the same
    text up to the end of the predicted triples: a prefix the provider can cache.

    ``cache_control``: mark the end of that prefix for Anthropic (the user message becomes two
    text blocks, the first with ``cache_control: {"type": "ephemeral"}``)."""
    head = _pred_block([_triple_line(f"P{i}", t) for i, t in pred], filtered)
    tail = _gt_block([_triple_line(f"R{i}", t) for i, t in gt])
    content: Any = head + tail
    if cache_control:
        content = [
            {"type": "text", "text": head, "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": tail},
        ]
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": content}]


def wants_cache_control(model: str) -> bool:
    """Claude models served by Anthropic, Bedrock or Vertex cache only what is marked; other
    providers cache identical prefixes on their own (and may refuse the extra field)."""
    name = model.lower()
    if name.startswith(("fake/", "openai/", "hosted_vllm/", "openrouter/")):
        return False
    return "claude" in name


# -- the layout: which predicted triples each call shows, and how many ground-truth triples --

def _tokens(chars: float) -> int:
    """About four characters a token (what the estimate needs: layouts compared on one scale)."""
    return int(chars // 4)


def _even_batches(n: int, calls: int) -> list[list[int]]:
    """n indices in ``calls`` contiguous batches whose sizes differ by at most one."""
    if n <= 0:
        return []
    calls = max(1, min(calls, n))
    size, extra = divmod(n, calls)
    out, start = [], 0
    for k in range(calls):
        stop = start + size + (1 if k < extra else 0)
        out.append(list(range(start, stop)))
        start = stop
    return out


@dataclass
class Layout:
    """How one graph is judged: the batches, the predicted triples each call shows, and the
    estimated billed prompt tokens (cached prefix tokens priced at ``fraction``)."""

    kind: Literal["full", "candidates"]
    batches: list[list[int]]
    shown: list[list[int]]
    prompt_tokens: int  # estimated, every call in full
    shared_prefix_tokens: int  # the start every call has in common
    cacheable: bool  # the shared prefix is long enough to be cached and there is a second call
    billed_tokens: float  # estimated, the shared prefix of calls 2.. priced at the cache fraction

    def label(self) -> str:
        return f"{self.kind} x{len(self.batches)}"


def _layout(
    kind: Literal["full", "candidates"],
    batches: list[list[int]],
    shown: list[list[int]],
    gt_chars: Sequence[int],
    pred_chars: Sequence[int],
    fraction: float,
    min_cached: int,
) -> Layout:
    fixed = len(SYSTEM_PROMPT) + 8 + 8 + len(_GT_HEADER) + 2  # two messages' overhead, as the fake counts
    header = len(_FILTERED_HEADER if kind == "candidates" else _PRED_HEADER) + 1
    calls = []
    for batch, preds in zip(batches, shown):
        chars = fixed + header + (sum(pred_chars[j] + 1 for j in preds) if preds else 7) + sum(gt_chars[i] + 1 for i in batch)
        calls.append(_tokens(chars))
    shared = len(SYSTEM_PROMPT) + 8 + header
    if kind == "full" and shown:
        shared += sum(pred_chars[j] + 1 for j in shown[0]) if shown[0] else 7
    shared_t = _tokens(shared)
    cacheable = len(batches) > 1 and min_cached <= shared_t
    billed = float(sum(calls))
    if cacheable:
        billed -= (len(batches) - 1) * shared_t * (1.0 - fraction)
    return Layout(kind, batches, shown, sum(calls), shared_t, cacheable, billed)


# candidate retrieval must save at least this share of the estimate to be used: the full graph
# lets the judge see every triple a composition (rules 3 and 4) might need
CANDIDATE_MARGIN = 0.10


def choose_layout(
    gt: Sequence[TripleText],
    pred: Sequence[TripleText],
    settings: Settings,
    *,
    fraction: float,
    candidates: bool | None = None,
) -> tuple[Layout, list[Layout]]:
    """The layout with the fewest estimated billed prompt tokens, and every one considered.

    * ``full``: every call shows the whole predicted graph, first, so that every call but the
      first reads it from the provider's prompt cache; as few calls as the cap allows.
    * ``candidates``: each call shows only the predicted triples retrieved for its batch
      (``_candidates``); tried with several batch sizes (smaller batches show fewer triples but
      repeat the instructions more often). Only for graphs above ``judge_candidates_above``.

    ``settings.judge_batch_size``, when set, fixes the batch size (contiguous batches of it);
    ``candidates`` True/False forces the kind."""
    n = len(gt)
    gt_chars = [len(_triple_line(f"R{i}", t)) for i, t in enumerate(gt)]
    pred_chars = [len(_triple_line(f"P{j}", t)) for j, t in enumerate(pred)]
    fixed = settings.judge_batch_size
    cap = max(1, fixed if fixed is not None else settings.judge_batch_max)

    def batchings() -> list[list[list[int]]]:
        if fixed is not None:
            size = max(1, fixed)
            return [[list(range(i, min(i + size, n))) for i in range(0, n, size)]]
        counts = sorted({-(-n // b) for b in (cap, 30, 20, 15, 10) if b <= cap} | {-(-n // cap)})
        return [_even_batches(n, k) for k in counts if k >= 1]

    min_cached = settings.judge_cache_min_tokens
    use_candidates = (len(pred) > settings.judge_candidates_above) if candidates is None else candidates
    options: list[Layout] = []
    if candidates is not True or not pred:
        batches = batchings()[0] if fixed is not None else _even_batches(n, -(-n // cap))
        everything = list(range(len(pred)))
        options.append(_layout("full", batches, [everything] * len(batches), gt_chars, pred_chars, fraction, min_cached))
    if use_candidates and pred:
        index = CandidateIndex(pred)
        per_gt = [index.for_triple(t, settings.judge_candidates_topk) for t in gt]
        for batches in batchings():
            shown = [sorted(set().union(*(per_gt[i] for i in b))) for b in batches]
            options.append(_layout("candidates", batches, shown, gt_chars, pred_chars, fraction, min_cached))
    full = [o for o in options if o.kind == "full"]
    cands = [o for o in options if o.kind == "candidates"]
    best = min(cands, key=lambda o: o.billed_tokens) if cands else None
    if best is not None and full and best.billed_tokens > full[0].billed_tokens * (1 - CANDIDATE_MARGIN):
        best = None
    return (best if best is not None else full[0]), options


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == int(value):
        return int(value)
    if isinstance(value, str):
        m = re.search(r"-?\d+", value)
        return int(m.group(0)) if m else None
    return None


class JudgeItem(BaseModel):
    index: int
    covered: bool | None = None
    rule: int | None = None
    evidence: list[int] = Field(default_factory=list)
    rationale: str = ""

    @field_validator("index", mode="before")
    @classmethod
    def _index(cls, v: Any) -> Any:
        n = _as_int(v)
        return n if n is not None else v

    @field_validator("covered", mode="before")
    @classmethod
    def _covered(cls, v: Any) -> Any:
        if isinstance(v, str):
            return {"true": True, "yes": True, "covered": True, "false": False, "no": False}.get(v.strip().lower())
        return v

    @field_validator("rule", mode="before")
    @classmethod
    def _rule(cls, v: Any) -> Any:
        n = _as_int(v)
        return n if n in (1, 2, 3, 4) else None

    @field_validator("evidence", mode="before")
    @classmethod
    def _evidence(cls, v: Any) -> Any:
        if v is None:
            return []
        items = v if isinstance(v, list) else [v]
        return [n for n in (_as_int(x) for x in items) if n is not None]

    @field_validator("rationale", mode="before")
    @classmethod
    def _rationale(cls, v: Any) -> Any:
        return "" if v is None else str(v)


class JudgeOutput(BaseModel):
    verdicts: list[JudgeItem]

    @model_validator(mode="before")
    @classmethod
    def _find_list(cls, data: Any) -> Any:
        # accept {"results": [...]} or a lone list under another key
        if isinstance(data, dict) and "verdicts" not in data:
            lists = [v for v in data.values() if isinstance(v, list)]
            if len(lists) == 1:
                return {"verdicts": lists[0]}
            if "index" in data:
                return {"verdicts": [data]}
        return data


Progress = Callable[[int, int], None]


async def judge_llm(
    gt: Sequence[Any],
    pred: Sequence[Any],
    *,
    model: str,
    settings: Settings | None = None,
    progress: Progress | None = None,
    candidates: bool | None = None,
) -> JudgeResult:
    """Judge every ground-truth triple against the predicted graph with a model.

    ``candidates``: None = chosen by the token estimate (``choose_layout``) when the graph is
    larger than ``settings.judge_candidates_above``; True/False force retrieval on or off.
    """
    from ..llm.client import cache_read_fraction

    settings = settings or get_settings()
    gt_t = [as_text_triple(t) for t in gt]
    pred_t = [as_text_triple(t) for t in pred]
    if settings.judge_cache_read_fraction is not None:
        fraction, fraction_from = settings.judge_cache_read_fraction, "settings"
    else:
        mapped = cache_read_fraction(model)
        fraction, fraction_from = (mapped, "litellm cost map") if mapped is not None else (1.0, "unknown: cached tokens priced in full")
    layout, considered = choose_layout(gt_t, pred_t, settings, fraction=fraction, candidates=candidates)
    batches = layout.batches
    filtered = layout.kind == "candidates"
    marked = wants_cache_control(model)

    usage: list[UsageEvent] = []
    errors: list[str] = []

    def collect(event: Any) -> None:
        if isinstance(event, UsageEvent):
            usage.append(event)
        elif isinstance(event, ErrorEvent):
            errors.append(event.message[:300])

    sem = asyncio.Semaphore(max(1, settings.judge_concurrency))
    state = {"done": 0, "in_flight": 0, "max_in_flight": 0}
    start = time.perf_counter()

    async def run_batch(k: int) -> tuple[list[Verdict], dict[str, Any]]:
        batch, cand = batches[k], layout.shown[k]
        messages = build_messages(
            [(i, gt_t[i]) for i in batch], [(j, pred_t[j]) for j in cand], filtered=filtered, cache_control=marked
        )
        info: dict[str, Any] = {"gt": [batch[0], batch[-1]], "n_candidates": len(cand)}
        async with sem:
            state["in_flight"] += 1
            state["max_in_flight"] = max(state["max_in_flight"], state["in_flight"])
            try:
                out = await _ask(messages, model, settings, collect)
            finally:
                state["in_flight"] -= 1
        state["done"] += 1
        if progress is not None:
            progress(state["done"], len(batches))
        if isinstance(out, str):
            info["unscored"] = out
            return [Verdict(gt_index=i, covered=None, rationale=f"unscored: {out}") for i in batch], info
        return _to_verdicts(out, batch, set(cand), info), info

    order = list(range(len(batches)))
    results: list[tuple[list[Verdict], dict[str, Any]]] = []
    if layout.cacheable:
        # the first call alone: a provider caches a prefix once it has processed it, so calls
        # sent together with the first would all miss the cache
        results.append(await run_batch(order.pop(0)))
    results += await asyncio.gather(*(run_batch(k) for k in order))
    verdicts = [v for vs, _ in results for v in vs]
    infos = [info for _, info in results]
    for (vs, info) in results:
        if "unscored" not in info and vs and all(v.covered is None for v in vs):
            info["unscored"] = "the output held no verdict for this batch"
    failed = [i for i in infos if "unscored" in i]
    if batches and len(failed) == len(batches) and all(i["unscored"].startswith("model error") for i in failed):
        from ..llm import LLMError

        raise LLMError(f"judge model {model!r} failed on every batch: {failed[0]['unscored']}")
    costs = [u.cost_usd for u in usage if u.cost_usd is not None]
    input_tokens = sum(u.input_tokens or 0 for u in usage)
    reported = [u.cached_input_tokens for u in usage if u.cached_input_tokens is not None]
    cached = sum(reported) if reported else None
    details = {
        "judge_kind": "llm",
        "model": model,
        "layout": layout.kind,
        "batch_size": max((len(b) for b in batches), default=0),
        "batch_max": settings.judge_batch_size if settings.judge_batch_size is not None else settings.judge_batch_max,
        "concurrency": settings.judge_concurrency,
        "n_batches": len(batches),
        "batches_unscored": len(failed),
        "candidates": filtered,
        "candidates_topk": settings.judge_candidates_topk if filtered else None,
        "mean_candidates": round(sum(i["n_candidates"] for i in infos) / len(infos), 2) if infos else 0,
        "input_tokens": input_tokens,
        # prompt tokens the provider read from its cache (None: no call's usage said)
        "cached_input_tokens": cached,
        # input tokens as billed: cached ones at the cache fraction of the full price
        "billed_input_tokens": round(input_tokens - (cached or 0) * (1.0 - fraction)),
        "cache_read_fraction": round(fraction, 4),
        "cache_read_fraction_from": fraction_from,
        "cache_warmup": layout.cacheable,
        "shared_prefix_tokens_est": layout.shared_prefix_tokens,
        "layouts_considered": {o.label(): round(o.billed_tokens) for o in considered},
        "output_tokens": sum(u.output_tokens or 0 for u in usage),
        "cost_usd": round(sum(costs), 6) if len(costs) == len(usage) else None,  # None: some call's cost is unknown
        "calls": len(usage),
        "max_in_flight": state["max_in_flight"],
        "seconds": round(time.perf_counter() - start, 3),
        "errors": errors[:10],
        "batches": infos,
    }
    return JudgeResult(judge=model, verdicts=verdicts, details=details)


async def _ask(messages: list[dict[str, str]], model: str, settings: Settings, emit: Any) -> JudgeOutput | str:
    """The parsed output, or a short reason why the batch stays unscored."""
    from ..llm import LLMError, StructuredOutputError, complete_json
    from ._judge_route import judge_route

    try:
        out, _ = await complete_json(messages, JudgeOutput, model=model, purpose="judge", emit=emit, settings=settings, attempts=3,
                                     **judge_route(model, settings))
        return out
    except StructuredOutputError as exc:
        return f"output never parsed ({str(exc)[:200]})"
    except LLMError as exc:
        return f"model error ({str(exc)[:200]})"


def _to_verdicts(out: JudgeOutput, batch: list[int], allowed: set[int], info: dict[str, Any]) -> list[Verdict]:
    by_index: dict[int, JudgeItem] = {}
    for given in out.verdicts:
        if given.index in batch and given.index not in by_index:
            by_index[given.index] = given
    verdicts = []
    dropped = 0
    for i in batch:
        item = by_index.get(i)
        if item is None or item.covered is None:
            verdicts.append(Verdict(gt_index=i, covered=None, rationale="unscored: the judge gave no verdict for it"))
            continue
        evidence = sorted({e for e in item.evidence if e in allowed}) if item.covered else []
        dropped += len(set(item.evidence) - allowed) if item.covered else 0
        verdicts.append(
            Verdict(
                gt_index=i,
                covered=item.covered,
                rule=item.rule if item.covered else None,
                evidence=evidence,
                rationale=item.rationale[:500],
            )
        )
    missing = sum(1 for i in batch if i not in by_index)
    if missing:
        info["missing_verdicts"] = missing
    if dropped:
        info["evidence_dropped"] = dropped  # indices the model cited that it was not shown
    return verdicts
