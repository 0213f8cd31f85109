"""Scoring a stored run: one ``Scorer`` per way of grading, chosen once by the run's task kind and
profile, each returning a ``RunScore`` (a domain value) that ``store.record_score`` turns into rows.

    row = score_run(store, run_id, judge="offline" | "<litellm model>")     # scored and stored
    scorer = scorer_for("persona", profile_of("official"), prompts=prompts)  # what grades such a run
    value = await scorer.score(store, run_id, judge=..., settings=...)      # a RunScore, not stored

* ``GraphScorer`` — our profile: the latest graph against the ground truth, the offline judge or an
  LLM judge (``metrics.score_graph_run``);
* ``OfficialGraphScorer`` — a profile that grades in the official layout: the extraction answer
  parsed strictly, judged in the official batches (``official_score.score_official_run``);
* ``TableScorer`` — a table task, whatever the profile (``tables.runs.table_run_score``).
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any, Protocol

from .._aio import run_sync
from ..config import Settings, get_settings
from ..protocol import Profile, profile_named, profile_of
from ..protocol.prompts import PromptSet
from ..run.config import ProtocolProfile
from ..run.scores import RunScore
from ..store import ScoreRow, Store, record_score
from .stored import stored_task
from ..judges.judge_failures import JudgeFailed
from .metrics import score_graph_run
from .official_score import score_official_run
from .profile import run_protocol


class Scorer(Protocol):
    async def score(
        self, store: Store, run_id: str, *, judge: str, settings: Settings, progress: Any = None, original: bool = False
    ) -> RunScore:
        """The run's score by ``judge`` (``progress(done, total)`` follows the judge's batches;
        ``original``: its own extraction, not its newest re-extraction)."""
        ...


class GraphScorer:
    async def score(
        self, store: Store, run_id: str, *, judge: str, settings: Settings, progress: Any = None, original: bool = False
    ) -> RunScore:
        return await score_graph_run(store, run_id, judge=judge, settings=settings, progress=progress, original=original)


@dataclass
class OfficialGraphScorer:
    prompts: PromptSet | None = None  # the judge prompt's source (None: the configured checkout, or ours)

    async def score(
        self, store: Store, run_id: str, *, judge: str, settings: Settings, progress: Any = None, original: bool = False
    ) -> RunScore:
        return await score_official_run(store, run_id, judge=judge, settings=settings, prompts=self.prompts, progress=progress,
                                        original=original)


class TableScorer:
    async def score(
        self, store: Store, run_id: str, *, judge: str, settings: Settings, progress: Any = None, original: bool = False
    ) -> RunScore:
        from ..tables.runs import table_run_score

        return await asyncio.to_thread(table_run_score, store, run_id, judge=judge, settings=settings)


def scorer_for(kind: str, profile: Profile, *, prompts: PromptSet | None = None) -> Scorer:
    """The scorer of a run whose task is of ``kind`` ("persona" | "table") under ``profile``."""
    if kind == "table":
        return TableScorer()
    if profile.official_grader:
        return OfficialGraphScorer(prompts)
    return GraphScorer()


async def score_run_repeats(
    store: Store,
    run_id: str,
    *,
    times: int = 1,
    judge: str = "offline",
    settings: Settings | None = None,
    progress: Any = None,
    protocol: ProtocolProfile | None = None,
    prompts: PromptSet | None = None,
    original: bool = False,
    asked_by: str | None = None,
) -> list[ScoreRow]:
    """Judge a run's graph ``times`` times and store every judgement; return the stored rows, the
    run's score (the latest judgement) last. More than one judgement is one repeat set (``score
    --repeat K``: reports measure the judge's noise on it). Every judgement is made before any is
    stored: a judge that failed on any of them stores nothing and raises ``JudgeFailed`` naming
    the run.

    ``protocol`` (default: the run's own profile) chooses how (``scorer_for``); ``prompts``: the
    official judge prompt's source (default the configured checkout, or our own); ``original``:
    grade the run's own extraction, not its newest re-extraction (``vibesearch reextract``);
    ``asked_by``: who asked for the score (the app's login), kept in its details."""
    settings = settings or get_settings()
    task = stored_task(store, run_id)
    profile = profile_of(protocol) if protocol is not None else profile_named(run_protocol(store.get_run(run_id)))
    scorer = scorer_for(task.kind if task is not None else "persona", profile, prompts=prompts)
    values = []
    for _ in range(max(1, times)):
        try:
            value = await scorer.score(store, run_id, judge=judge, settings=settings, progress=progress, original=original)
        except JudgeFailed as exc:  # nothing is stored; the line names the run
            raise exc.for_run(run_id) from None
        if asked_by:
            value = value.model_copy(update={"details": {**value.details, "asked_by": asked_by}})
        values.append(value)
    repeat_set = uuid.uuid4().hex[:12] if len(values) > 1 else None
    return [record_score(store, v, (repeat_set, k) if repeat_set else None) for k, v in enumerate(values, start=1)]


async def score_run_async(store: Store, run_id: str, **kwargs: Any) -> ScoreRow:
    """Score a run once and store the score with its verdicts (``score_run_repeats``'s keywords);
    return the stored row. A judge that failed stores nothing and raises ``JudgeFailed``."""
    return (await score_run_repeats(store, run_id, times=1, **kwargs))[-1]


def score_run(store: Store, run_id: str, **kwargs: Any) -> ScoreRow:
    """Sync entry point (see ``score_run_async``); usable from inside a running event loop too."""
    return run_sync(score_run_async(store, run_id, **kwargs))


def score_run_repeated(store: Store, run_id: str, **kwargs: Any) -> list[ScoreRow]:
    """Sync entry point of ``score_run_repeats``."""
    return run_sync(score_run_repeats(store, run_id, **kwargs))
