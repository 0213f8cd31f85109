"""The LLM coverage judge.

Ground-truth triples are judged in batches; batches run concurrently, at most
``settings.judge_concurrency`` at a time, each one ``complete_json`` call with purpose "judge".
For each ground-truth triple the model returns ``{index, covered, rule, evidence, rationale}``.

* Every call shows the whole predicted graph first, then the batch's ground-truth triples, so the
  graph is a prefix the provider caches (the first call goes alone, the rest read the cache);
  batches hold at most ``settings.judge_batch_max`` triples unless ``settings.judge_batch_size``
  fixes their size. Only a graph too large for one call of the judge's context budget is split
  into prediction windows (``_judge_layout``), and then every batch is asked once per window, so
  every ground-truth triple still meets every prediction; the verdicts are merged (covered when
  any window covers) and the score's details say that a cover needing two windows was not seen.
  No call is shown predictions picked for its batch (as word-overlap retrieval once did): a judge
  recognises paraphrases, reversed relations, joint covers and compositions no such pick foresees.
* Bad output is retried by ``complete_json``; model errors are retried by ``complete``. A batch
  that still yields nothing readable is recorded as *unscored* (``covered=None``), never as
  "not covered", with its ``cause`` and the ``attempts`` (requests) made for it. Every batch
  failing with a model error raises ``JudgeFailed``; scoring a run refuses any failed batch
  (``metrics.score_graph_async``, ``judge_failures``). Evidence keeps the indices of the whole
  predicted graph.
* Judge calls are not part of the run: their usage (tokens, cached tokens, billed tokens, cost)
  goes into the score's details, not into the run's events.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any, Callable, Sequence

from pydantic import BaseModel, Field, field_validator, model_validator

from ..config import Settings, get_settings
from ..run.events import ErrorEvent, UsageEvent
from ..llm.tokenizer import tokenizer_name
from ._judge_layout import WINDOWS_NOTE, Layout, TripleText, choose_layout, merge_windows, token_counts
from .judge_failures import JudgeFailed
from .offline import as_text_triple
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
_WINDOW_HEADER = (
    "Predicted triples, part {part} of {parts} (the predicted graph is too large for one prompt; "
    "the numbers are positions in the whole graph):"
)
_GT_HEADER = "Reference triples to judge:"


def _pred_block(lines: Sequence[str], window: tuple[int, int] | None) -> str:
    header = _PRED_HEADER if window is None else _WINDOW_HEADER.format(part=window[0] + 1, parts=window[1])
    return "\n".join([header, *(lines or ["(none)"])]) + "\n\n"


def _gt_block(lines: Sequence[str]) -> str:
    return "\n".join([_GT_HEADER, *lines])


def build_messages(
    gt: Sequence[tuple[int, TripleText]],
    pred: Sequence[tuple[int, TripleText]],
    *,
    window: tuple[int, int] | None = None,
    cache_control: bool = False,
) -> list[dict[str, Any]]:
    """The judge's prompt for one batch: the instructions, the predicted triples, then the batch's
    reference triples, last. Every call of one graph (of one window: ``(index, count)`` when the
    graph is split) starts with the same text up to the end of the predicted triples: a prefix the
    provider can cache.

    ``cache_control``: mark the end of that prefix for Anthropic (the user message becomes two
    text blocks, the first with ``cache_control: {"type": "ephemeral"}``)."""
    head = _pred_block([_triple_line(f"P{i}", t) for i, t in pred], window)
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


def context_budget(model: str, settings: Settings) -> tuple[int, str]:
    """The judge's context budget in tokens, and where it came from: litellm's ``max_input_tokens``
    for the model when its map knows it, else ``settings.judge_context_tokens``."""
    from ..llm.client import context_window

    known = context_window(model, 0)
    if known > 0:
        return known, "litellm model map"
    return settings.judge_context_tokens, "settings (judge_context_tokens)"


def plan_layout(gt: Sequence[TripleText], pred: Sequence[TripleText], settings: Settings, *, budget: int) -> Layout:
    """The batches and prediction windows for one graph (``_judge_layout.choose_layout``), from
    the tokens of this prompt's own lines."""
    gt_tokens = token_counts([_triple_line(f"R{i}", t) for i, t in enumerate(gt)])
    pred_tokens = token_counts([_triple_line(f"P{j}", t) for j, t in enumerate(pred)])
    overhead = sum(token_counts([SYSTEM_PROMPT, _WINDOW_HEADER, _GT_HEADER])) + 16  # + the chat format's few per message
    return choose_layout(
        gt_tokens,
        pred_tokens,
        pred,
        overhead_tokens=overhead,
        budget=budget,
        batch_max=settings.judge_batch_max,
        batch_size=settings.judge_batch_size,
        min_cached=settings.judge_cache_min_tokens,
    )


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
MODEL_ERROR = "model error"
NEVER_PARSED = "output never parsed"
JUDGE_ATTEMPTS = 3  # answers asked for a batch until one parses (each request retried by ``complete`` on errors)


async def judge_llm(
    gt: Sequence[Any],
    pred: Sequence[Any],
    *,
    model: str,
    settings: Settings | None = None,
    progress: Progress | None = None,
) -> JudgeResult:
    """Judge every ground-truth triple against the whole predicted graph with a model: one call
    per batch and prediction window (``plan_layout``), verdicts merged over the windows."""
    from ..llm.client import cache_read_fraction

    settings = settings or get_settings()
    gt_t = [as_text_triple(t) for t in gt]
    pred_t = [as_text_triple(t) for t in pred]
    if settings.judge_cache_read_fraction is not None:
        fraction, fraction_from = settings.judge_cache_read_fraction, "settings"
    else:
        mapped = cache_read_fraction(model)
        fraction, fraction_from = (mapped, "litellm cost map") if mapped is not None else (1.0, "unknown: cached tokens priced in full")
    budget, budget_from = context_budget(model, settings)
    layout = plan_layout(gt_t, pred_t, settings, budget=budget)
    batches, windows = layout.batches, layout.windows
    marked = wants_cache_control(model)

    usage: list[UsageEvent] = []
    errors: list[str] = []

    def collect(event: Any) -> None:
        if isinstance(event, UsageEvent):
            usage.append(event)
        elif isinstance(event, ErrorEvent):
            errors.append(event.message[:300])

    sem = asyncio.Semaphore(max(1, settings.judge_concurrency))
    calls = [(k, w) for w in range(len(windows)) for k in range(len(batches))]
    state = {"done": 0, "in_flight": 0, "max_in_flight": 0}
    start = time.perf_counter()

    async def run_call(k: int, w: int) -> tuple[list[Verdict], dict[str, Any]]:
        batch, shown = batches[k], windows[w]
        messages = build_messages(
            [(i, gt_t[i]) for i in batch],
            [(j, pred_t[j]) for j in shown],
            window=(w, len(windows)) if len(windows) > 1 else None,
            cache_control=marked,
        )
        info: dict[str, Any] = {"gt": [batch[0], batch[-1]], "window": w, "n_shown": len(shown), "attempts": 0}

        def emit(event: Any) -> None:  # every request of this call: answered (usage) or failed (an llm error)
            if isinstance(event, UsageEvent) or (isinstance(event, ErrorEvent) and event.source.startswith("llm:")):
                info["attempts"] += 1
            collect(event)

        async with sem:
            state["in_flight"] += 1
            state["max_in_flight"] = max(state["max_in_flight"], state["in_flight"])
            try:
                out = await _ask(messages, model, settings, emit)
            finally:
                state["in_flight"] -= 1
        state["done"] += 1
        if progress is not None:
            progress(state["done"], len(calls))
        if isinstance(out, tuple):
            kind, cause = out
            info.update(unscored=f"{kind} ({cause[:200]})", cause=cause[:300])
            return [Verdict(gt_index=i, covered=None, rationale=f"unscored: {info['unscored']}") for i in batch], info
        verdicts = _to_verdicts(out, batch, set(shown), info)
        if verdicts and all(v.covered is None for v in verdicts):
            info.update(unscored="the output held no verdict for this batch", cause="its answer held no verdict for this batch")
        return verdicts, info

    # a provider caches a prefix once it has processed it, so calls sent together with a window's
    # first call would all miss the cache: the first call of every cacheable window goes first
    # (the windows' first calls together: their prefixes differ), the rest after them
    first = [calls.index((0, w)) for w in range(len(windows)) if layout.cacheable[w]]
    results: dict[int, tuple[list[Verdict], dict[str, Any]]] = {}
    for group in (first, [c for c in range(len(calls)) if c not in first]):
        done = await asyncio.gather(*(run_call(*calls[c]) for c in group))
        results.update(zip(group, done))
    ordered = [results[c] for c in range(len(calls))]
    infos = [info for _, info in ordered]
    failed = [i for i in infos if "unscored" in i]
    failure = JudgeFailed.from_batches(model, infos)
    if failure is not None and len(failed) == len(calls) and all(i["unscored"].startswith(MODEL_ERROR) for i in failed):
        raise failure  # (a run's score refuses any failed batch: ``metrics.score_graph_async``)
    verdicts = merge_windows([v for vs, _ in ordered for v in vs])
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
        # predictions split into windows only when a call would not fit the context budget;
        # every batch is asked once per window
        "windows": len(windows),
        "window_sizes": [len(w) for w in windows],
        "context_budget": budget,
        "context_budget_from": budget_from,
        "tokenizer": tokenizer_name(),
        "max_prompt_tokens": layout.max_prompt_tokens,
        "batches_unscored": len(failed),  # calls (batch × window) that yielded no verdict
        "input_tokens": input_tokens,
        # prompt tokens the provider read from its cache (None: no call's usage said)
        "cached_input_tokens": cached,
        # input tokens as billed: cached ones at the cache fraction of the full price
        "billed_input_tokens": round(input_tokens - (cached or 0) * (1.0 - fraction)),
        "cache_read_fraction": round(fraction, 4),
        "cache_read_fraction_from": fraction_from,
        "cache_warmup": any(layout.cacheable),
        "shared_prefix_tokens": layout.prefix_tokens,
        "output_tokens": sum(u.output_tokens or 0 for u in usage),
        "cost_usd": round(sum(costs), 6) if len(costs) == len(usage) else None,  # None: some call's cost is unknown
        "calls": len(usage),
        "max_in_flight": state["max_in_flight"],
        "seconds": round(time.perf_counter() - start, 3),
        "errors": errors[:10],
        "batches": infos,
    }
    if len(windows) > 1:
        details["windows_note"] = WINDOWS_NOTE.format(n=len(windows), budget=budget)
    return JudgeResult(judge=model, verdicts=verdicts, details=details)


async def _ask(messages: list[dict[str, str]], model: str, settings: Settings, emit: Any) -> JudgeOutput | tuple[str, str]:
    """The parsed output, or why the batch stays unscored: (``MODEL_ERROR`` or ``NEVER_PARSED``, the cause)."""
    from ..llm import LLMError, StructuredOutputError, complete_json
    from ..run.config import default_sampling
    from ._judge_route import judge_route

    try:
        out, _ = await complete_json(messages, JudgeOutput, model=model, purpose="judge", emit=emit, settings=settings,
                                     attempts=JUDGE_ATTEMPTS, sampling=default_sampling(settings), **judge_route(model, settings))
        return out
    except StructuredOutputError as exc:
        return NEVER_PARSED, f"its answer never parsed ({str(exc)[:200]})"
    except LLMError as exc:
        return MODEL_ERROR, exc.cause


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
