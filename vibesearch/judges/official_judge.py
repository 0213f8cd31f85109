"""The official judge layout: few big batches, every batch shows the whole predicted graph.

* The ground-truth triples are split into at most 5 batches of near-equal size (``divmod``: the
  first ``n mod k`` batches get one more). Each batch is one prompt (a single user message) that
  shows **all** predicted triples as ``P-i: "head" --[relation]--> "tail"`` and the batch's
  ground-truth triples as ``GT-i: ...`` with their global index.
* The judge answers ``{"results": [{"index", "covered", "supporting_pred_indices"}]}``. A batch is
  asked up to 3 times until every index of its range is present (the first entry of an index
  counts). An attempt that answers only part of the range is kept as a best-effort alignment by
  index — or by position when no entry has a usable index — padded with "not covered"; an attempt
  that fails (model error, unreadable JSON) keeps the previous one's alignment. A batch that never
  yields anything counts as not covered; recall's denominator is always every ground-truth triple.
  How many batches failed so, and why, is kept (``batches_failed``, ``failure_cause``): ``score``
  warns about it and reports mark such a score (``judge_failures``).
* Sampling, by judge (``grader_for``): a ``gemini/...`` judge (litellm's Google AI Studio route;
  ``judge_api_base`` — else ``api_base`` — points it at another server, and ``judge_key_header``
  sends its key in the header the official grader uses, ``api-key``: ``_judge_route``) is the
  official Gemini grader, run.py's default:
  temperature 0.8, top_p 0.6, max_tokens 64,000, and only the answer's non-thought parts are read
  (litellm hands parts marked ``"thought": true`` over as ``reasoning_content``, which the judge
  never reads). Any other judge is the official OpenAI-compatible grader: temperature 0.7,
  max_tokens 32,768, ``<think>…</think>`` blocks removed from the answer. Calls go through
  ``vibesearch.llm.complete`` (purpose ``judge``).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..config import Settings, get_settings
from ..protocol.prompts import JudgeTemplate
from ..protocol.rules import (
    CLIENT_ATTEMPTS,
    GEMINI_JUDGE_PREFIX,
    JUDGE_ATTEMPTS,
    JUDGE_MAX_BATCHES,
    OFFICIAL_GEMINI_JUDGE_SAMPLING,
    OFFICIAL_JUDGE_SAMPLING,
)
from ..run.config import Sampling
from ._judge_route import judge_route
from .official_metrics import (
    CoverageItem,
    CoverageResult,
    GTTriple,
    OfficialGroundTruth,
)

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
Outcome = Literal["complete", "partial", "never answered"]


def split_batches(n: int, max_batches: int = JUDGE_MAX_BATCHES) -> list[tuple[int, int]]:
    """(offset, size) of each batch for n ground-truth triples: at most ``max_batches``, sizes
    differing by at most one, larger ones first."""
    if n <= 0:
        return []
    k = min(max_batches, n)
    size, extra = divmod(n, k)
    out, offset = [], 0
    for i in range(k):
        this = size + (1 if i < extra else 0)
        out.append((offset, this))
        offset += this
    return out


def pred_lines(pred: Sequence[Mapping[str, str]]) -> str:
    return "\n".join(
        f'P-{i}: "{t.get("head", "")}" --[{t.get("relation", "")}]--> "{t.get("tail", "")}"' for i, t in enumerate(pred)
    )


def gt_lines(gt: Sequence[GTTriple], offset: int) -> str:
    return "\n".join(f'GT-{offset + i}: "{t.head}" --[{t.relation}]--> "{t.tail}"' for i, t in enumerate(gt))


def strip_thinking(text: str) -> str:
    return _THINK.sub("", text).strip()


@dataclass(frozen=True)
class Grader:
    """Which official grader a judge model stands for, and what that means for a call."""

    kind: Literal["gemini", "openai"]
    sampling: Sampling
    removes_think_tags: bool  # the OpenAI-compatible grader removes <think> blocks; the Gemini one reads parts

    def answer_text(self, content: str) -> str:
        """The text of the judge's answer the official grader reads (stripped)."""
        return strip_thinking(content) if self.removes_think_tags else content.strip()


GEMINI_GRADER = Grader("gemini", OFFICIAL_GEMINI_JUDGE_SAMPLING, removes_think_tags=False)
OPENAI_GRADER = Grader("openai", OFFICIAL_JUDGE_SAMPLING, removes_think_tags=True)


def grader_for(model: str) -> Grader:
    """The official grader a judge model stands for: ``gemini/...`` the Gemini grader, else the
    OpenAI-compatible one."""
    return GEMINI_GRADER if model.startswith(GEMINI_JUDGE_PREFIX) else OPENAI_GRADER


class _BadAnswer(ValueError):
    """An attempt whose answer cannot be read at all (it keeps the previous attempt's alignment)."""


def answer_items(text: str) -> list[Any]:
    """The ``results`` list of one answer, read as the official grader reads it."""
    text = text.strip()
    if text.startswith("```"):
        parts = text.split("\n", 1)
        if len(parts) < 2:
            raise _BadAnswer("a code fence with nothing after it")
        text = parts[1].rsplit("```", 1)[0].strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _BadAnswer(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        return []
    items = value.get("results", [])
    if isinstance(items, list):
        pass
    elif isinstance(items, (dict, str)) and not items:
        items = []
    else:
        raise _BadAnswer(f"results is a {type(items).__name__}, not a list")
    if any(not isinstance(item, dict) for item in items):
        raise _BadAnswer("an entry of results is not an object")
    return items


def align_exact(items: Sequence[Mapping[str, Any]], expected: int, offset: int) -> list[Mapping[str, Any]] | None:
    """One entry per index of ``offset .. offset+expected-1`` (first entry wins), or None when
    an index is missing or any entry has no index at all."""
    by_idx: dict[int, Mapping[str, Any]] = {}
    for item in items:
        idx = item.get("index")
        if idx is None:
            return None
        if isinstance(idx, int) and offset <= idx < offset + expected:
            by_idx.setdefault(idx, item)
    if len(by_idx) == expected:
        return [by_idx[i] for i in range(offset, offset + expected)]
    return None


_NOT_COVERED: Mapping[str, Any] = {"covered": False, "supporting_pred_indices": []}


def align_best_effort(items: Sequence[Mapping[str, Any]], expected: int, offset: int) -> list[Mapping[str, Any]]:
    """By index where indices are usable, else by position; padded with "not covered"."""
    by_idx: dict[int, Mapping[str, Any]] = {}
    for item in items:
        idx = item.get("index")
        if isinstance(idx, int) and offset <= idx < offset + expected:
            by_idx.setdefault(idx, item)
    if by_idx:
        return [by_idx.get(i, _NOT_COVERED) for i in range(offset, offset + expected)]
    return (list(items[:expected]) + [_NOT_COVERED] * expected)[:expected]


@dataclass
class BatchReport:
    offset: int
    size: int
    attempts: int = 0
    outcome: Outcome = "never answered"
    errors: list[str] = field(default_factory=list)
    dropped_supports: int = 0  # support values that are not whole numbers (the official code would crash)
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0  # of input_tokens, read from the provider's prompt cache (as reported)
    cause: str | None = None  # why the last failed attempt failed (a model error's cause, or the unreadable answer)


@dataclass
class OfficialJudgement:
    coverage: CoverageResult
    batches: list[BatchReport]
    model: str
    seconds: float
    grader: Grader = OPENAI_GRADER

    @property
    def input_tokens(self) -> int:
        return sum(b.input_tokens for b in self.batches)

    @property
    def output_tokens(self) -> int:
        return sum(b.output_tokens for b in self.batches)

    @property
    def cached_input_tokens(self) -> int:
        return sum(b.cached_input_tokens for b in self.batches)

    @property
    def calls(self) -> int:
        return sum(b.attempts for b in self.batches)

    @property
    def failed(self) -> list[BatchReport]:
        """The batches that never answered: graded "not covered" (the official rule)."""
        return [b for b in self.batches if b.outcome == "never answered"]

    def details(self) -> dict[str, Any]:
        """For a score's details: how each batch went and what the judge cost."""
        return {
            "judge_kind": "llm",
            "layout": "official",
            "model": self.model,
            "grader": self.grader.kind,
            "sampling": self.grader.sampling.params(),
            "n_batches": len(self.batches),
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "cached_input_tokens": self.cached_input_tokens,
            "output_tokens": self.output_tokens,
            "seconds": round(self.seconds, 3),
            # judge batches that failed for good, graded not covered: shown by ``score``, marked in reports
            "batches_failed": len(self.failed),
            "failure_cause": next((b.cause for b in self.failed), None),
            "batches": [
                {
                    "gt": [b.offset, b.offset + b.size - 1],
                    "attempts": b.attempts,
                    "outcome": b.outcome,
                    "dropped_supports": b.dropped_supports,
                    "errors": b.errors[:3],
                }
                for b in self.batches
            ],
        }


def _supports(value: Any, report: BatchReport) -> list[int]:
    if not isinstance(value, list):
        if value not in ("", {}):  # iterating an empty text or object gives nothing, as in the official code
            report.dropped_supports += 1
        return []
    out = []
    for v in value:
        if isinstance(v, int):  # a JSON true/false reads as 1/0, as in the official code
            out.append(int(v))
        else:
            report.dropped_supports += 1
    return out


def _items(batch: Sequence[GTTriple], offset: int, aligned: Sequence[Mapping[str, Any]] | None, report: BatchReport) -> list[CoverageItem]:
    rows = aligned if aligned is not None else [_NOT_COVERED] * len(batch)
    return [
        CoverageItem(
            gt_index=offset + i,
            gt_triple=t,
            covered=bool(item.get("covered", False)),
            supporting_pred_indices=_supports(item.get("supporting_pred_indices", []), report),
        )
        for i, (t, item) in enumerate(zip(batch, rows))
    ]


async def _judge_batch(
    prompt: str, batch: Sequence[GTTriple], offset: int, *, model: str, settings: Settings, attempts: int, grader: Grader
) -> tuple[list[CoverageItem], BatchReport]:
    from ..llm import LLMError, complete

    report = BatchReport(offset=offset, size=len(batch))
    aligned: Sequence[Mapping[str, Any]] | None = None
    for _ in range(attempts):
        report.attempts += 1
        try:
            result = await complete(
                [{"role": "user", "content": prompt}],
                model=model,
                purpose="judge",
                settings=settings,
                sampling=grader.sampling.params(),
                retries=CLIENT_ATTEMPTS - 1,  # run.py gives the grader its --max-retries (8 attempts) too
                **judge_route(model, settings),  # the grader's own server and key header, when configured
            )
            report.input_tokens += result.input_tokens or 0
            report.output_tokens += result.output_tokens or 0
            report.cached_input_tokens += result.cached_input_tokens or 0
            # only the answer's text: a Gemini answer's thought parts are in result.thinking, never read
            items = answer_items(grader.answer_text(result.content))
        except (LLMError, ValueError) as exc:
            report.errors.append(str(exc)[:300])
            report.cause = (exc.cause if isinstance(exc, LLMError) else f"its answer could not be read ({exc})")[:300]
            continue
        exact = align_exact(items, len(batch), offset)
        if exact is not None:
            aligned, report.outcome = exact, "complete"
            break
        aligned, report.outcome = align_best_effort(items, len(batch), offset), "partial"
    return _items(batch, offset, aligned, report), report


async def judge_official(
    pred: Sequence[Mapping[str, str]],
    gt: OfficialGroundTruth,
    template: JudgeTemplate,
    *,
    model: str,
    settings: Settings | None = None,
    max_batches: int = JUDGE_MAX_BATCHES,
    attempts: int = JUDGE_ATTEMPTS,
) -> OfficialJudgement:
    """Coverage of every ground-truth triple by ``pred`` (the strictly parsed predictions), judged
    in the official layout. No predictions or no ground truth: nothing is asked, recall is 0."""
    settings = settings or get_settings()
    grader = grader_for(model)
    start = time.perf_counter()
    triples = list(gt.triples)
    if not triples or not pred:
        return OfficialJudgement(CoverageResult.of([], len(triples)), [], model, time.perf_counter() - start, grader)
    shown = pred_lines(pred)
    jobs = []
    for offset, size in split_batches(len(triples), max_batches):
        batch = triples[offset : offset + size]
        prompt = template.render(pred_lines=shown, gt_lines=gt_lines(batch, offset), first_index=offset, count=size)
        jobs.append(_judge_batch(prompt, batch, offset, model=model, settings=settings, attempts=attempts, grader=grader))
    done = await asyncio.gather(*jobs)
    items = [item for batch_items, _ in done for item in batch_items]
    return OfficialJudgement(
        coverage=CoverageResult.of(items, len(triples)),
        batches=[report for _, report in done],
        model=model,
        seconds=time.perf_counter() - start,
        grader=grader,
    )
