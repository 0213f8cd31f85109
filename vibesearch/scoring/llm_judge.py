"""The LLM coverage judge.

Ground-truth triples are judged in batches (``settings.judge_batch_size``); batches run
concurrently, at most ``settings.judge_concurrency`` at a time, each one ``complete_json`` call
with purpose "judge". For each ground-truth triple the model returns ``{index, covered, rule,
evidence, rationale}``.

* Bad output is retried by ``complete_json``; model errors are retried by ``complete``. A batch
  that still yields nothing readable is recorded as *unscored* (``covered=None``), never as
  "not covered"; the score reports how many triples are unscored.
* When the predicted graph has more than ``settings.judge_candidates_above`` triples, each batch
  sees only the predicted triples likely to matter for it (``_candidates``); the triples keep
  their indices in the full graph, so evidence always points into the stored graph.
* Judge calls are not part of the run: their usage (tokens, cost) goes into the score's
  details, not into the run's events.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any, Callable, Sequence

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


def build_messages(
    gt: Sequence[tuple[int, TripleText]], pred: Sequence[tuple[int, TripleText]], *, filtered: bool
) -> list[dict[str, str]]:
    """The judge's prompt for one batch: numbered reference triples and predicted triples."""
    lines = ["Reference triples to judge:"]
    lines += [_triple_line(f"R{i}", t) for i, t in gt]
    lines.append("")
    if filtered:
        lines.append(
            "Predicted triples (only those that may bear on these reference triples are shown; "
            "the numbers are their positions in the full predicted graph):"
        )
    else:
        lines.append("Predicted triples:")
    lines += [_triple_line(f"P{i}", t) for i, t in pred] or ["(none)"]
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(lines)}]


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

    ``candidates``: None = on when the graph is larger than ``settings.judge_candidates_above``.
    """
    settings = settings or get_settings()
    gt_t = [as_text_triple(t) for t in gt]
    pred_t = [as_text_triple(t) for t in pred]
    size = max(1, settings.judge_batch_size)
    batches = [list(range(i, min(i + size, len(gt_t)))) for i in range(0, len(gt_t), size)]
    use_candidates = (len(pred_t) > settings.judge_candidates_above) if candidates is None else candidates
    index = CandidateIndex(pred_t) if use_candidates and pred_t else None

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

    async def run_batch(batch: list[int]) -> tuple[list[Verdict], dict[str, Any]]:
        cand = index.for_batch([gt_t[i] for i in batch], settings.judge_candidates_topk) if index else list(range(len(pred_t)))
        messages = build_messages([(i, gt_t[i]) for i in batch], [(j, pred_t[j]) for j in cand], filtered=index is not None)
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

    results = await asyncio.gather(*(run_batch(b) for b in batches))
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
    details = {
        "judge_kind": "llm",
        "model": model,
        "batch_size": size,
        "concurrency": settings.judge_concurrency,
        "n_batches": len(batches),
        "batches_unscored": len(failed),
        "candidates": index is not None,
        "candidates_topk": settings.judge_candidates_topk if index is not None else None,
        "mean_candidates": round(sum(i["n_candidates"] for i in infos) / len(infos), 2) if infos else 0,
        "input_tokens": sum(u.input_tokens or 0 for u in usage),
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

    try:
        out, _ = await complete_json(messages, JudgeOutput, model=model, purpose="judge", emit=emit, settings=settings, attempts=3)
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
