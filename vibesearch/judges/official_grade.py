"""Grading one sample under the official profile, from the agent's final answer to the result.

    graded = await grade_official(qid, sample_idx, answer_text, gt, prompts.judge, model=..., lenient=run_graph)
    graded.result.official_dict()   # the official per-sample record
    graded.parse.note()             # what the strict parse took, and what our parser would have added
    graded.judgement.details()      # judge batches, attempts, tokens (None when nothing was judged)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..config import Settings
from ..protocol.prompts import JudgeTemplate
from .official_judge import OfficialJudgement, judge_official
from .official_metrics import OfficialGroundTruth, SampleResult, grade_sample
from .official_parse import StrictParse, strict_parse


@dataclass
class OfficialGrade:
    result: SampleResult
    parse: StrictParse
    judgement: OfficialJudgement | None


async def grade_official(
    qid: str,
    sample_idx: int,
    answer: str,
    gt: OfficialGroundTruth,
    template: JudgeTemplate,
    *,
    model: str,
    settings: Settings | None = None,
    lenient: Sequence[Mapping[str, Any]] | None = None,
) -> OfficialGrade:
    """Strictly parse ``answer`` (the extraction answer; "" for a run that produced none), judge it
    in the official layout, and compute the official metrics. ``lenient``: the run's graph as our
    parser read it, recorded in the parse note only."""
    parsed = strict_parse(answer, lenient)
    if not parsed.triples:
        return OfficialGrade(grade_sample(qid, sample_idx, [], gt, None), parsed, None)
    judgement = await judge_official(parsed.triples, gt, template, model=model, settings=settings)
    return OfficialGrade(grade_sample(qid, sample_idx, parsed.triples, gt, judgement.coverage), parsed, judgement)
