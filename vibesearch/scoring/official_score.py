"""Scoring a stored run under the official profile, and reading such a score back.

    score = await score_official_run(store, run_id, judge="<litellm model>", settings=s, prompts=prompts)  # a RunScore
    sample_of(row)   # the official per-sample record (``SampleResult``) kept in a stored score

The answer graded is the one the official harness grades: the latest assistant message of the
whole run (any phase, a step that also made tool calls included) whose text is not blank once
stripped (``graded_answer``). That is the extraction answer when it has text; when it has none (the
extraction failed, answered nothing, or never ran) it is the agent's latest dialogue text, and a
run without any assistant text is graded as an empty answer and scores 0. The answer is parsed as
strictly as the official grader parses it. The score's details name the message graded (phase and
event seq) and whether it was such a fall-back. What our own parser read (the run's stored graph)
is compared and kept as a note, never scored.

The stored score: P / R / F1 are the official triplet precision, recall and F1; ``n_pred`` the
strictly parsed predictions (duplicates included), ``n_valid`` the distinct supporting indices,
``n_unscored`` 0 (the official judge never leaves a triple out of recall). One verdict per
ground-truth triple; its evidence points into the run's stored graph like every verdict (a
supporting prediction the stored graph lacks is left out there and kept in the official record of
the details, which holds the indices into the strict parse).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..config import Settings
from ..protocol.prompts import PromptSet, load_prompts, resolve_harness
from ..run.events import MessageEvent
from ..run.scores import RunScore, Verdict
from ..store import Store
from ..store.tables import ScoreRow
from ..tasks.models import Task
from .stored import NoGroundTruth, graph_source, stored_prediction, stored_task
from ..judges.official_grade import OfficialGrade, grade_official
from ..judges.official_metrics import OfficialGroundTruth, SampleResult
from .profile import NotASample, OfficialJudgeRequired, is_cancelled
from ..judges.registry import judge_for, judge_label

LENIENT_KEPT = 50  # predictions only our parser read, kept in the note (the count is always kept)


@dataclass(frozen=True)
class GradedAnswer:
    """The text the official grader grades, and where in the run it came from."""

    text: str  # stripped; "" when the run has no assistant text at all
    phase: str | None = None  # of the message graded (None: nothing was graded)
    seq: int | None = None  # its event seq
    extraction_seq: int | None = None  # the seq of the run's last extraction answer (None: there is none)

    @property
    def fallback(self) -> bool:
        """Not the run's last extraction answer (it had no text, or there was none)."""
        return self.seq is None or self.seq != self.extraction_seq

    def record(self) -> dict[str, Any]:
        return {"phase": self.phase, "seq": self.seq, "fallback": self.fallback, "extraction_seq": self.extraction_seq}


def graded_answer(store: Store, run_id: str, *, original: bool = False) -> GradedAnswer:
    """The latest assistant message of the run whose stripped text is not empty, whatever its phase
    and whether or not it also made tool calls (the official ``extract_response`` over the whole
    trace), with the run's last extraction answer for comparison. A re-extraction's answer replaces
    it, empty or not, as the official re-extraction script writes its ``response`` (``original``:
    the run's own, whatever was re-extracted since)."""
    if not original:
        newest = store.latest_graph(run_id)
        if newest is not None and newest.source == "reextraction":
            return GradedAnswer(newest.raw_text.strip(), "reextraction", None, None)
    graded: tuple[str, str, int] | None = None
    extraction_seq = None
    for ev in store.events(run_id, kinds=["message"]):
        d = ev.data
        if not isinstance(d, MessageEvent) or d.role != "assistant":
            continue
        if d.phase == "extraction":
            extraction_seq = ev.seq
        text = d.content.strip()
        if text:
            graded = (text, d.phase, ev.seq)
    if graded is None:
        return GradedAnswer("", extraction_seq=extraction_seq)
    return GradedAnswer(graded[0], graded[1], graded[2], extraction_seq)


def official_ground_truth(task: Task) -> OfficialGroundTruth:
    return OfficialGroundTruth.from_task(task)


def _key(t: Mapping[str, Any]) -> tuple[str, str, str]:
    return (str(t.get("head", "")).strip(), str(t.get("relation", "")).strip(), str(t.get("tail", "")).strip())


def _graph_evidence(strict: Sequence[Mapping[str, str]], graph: Sequence[Mapping[str, Any]], indices: Sequence[int]) -> list[int]:
    first: dict[tuple[str, str, str], int] = {}
    for i, t in enumerate(graph):
        first.setdefault(_key(t), i)
    out = {first[_key(strict[i])] for i in indices if 0 <= i < len(strict) and _key(strict[i]) in first}
    return sorted(out)


def default_prompts(settings: Settings) -> PromptSet:
    """The prompts of ``--official-harness`` / ``VIBESEARCH_OFFICIAL_HARNESS``, else our own."""
    return load_prompts(resolve_harness(None, settings))


async def score_official_run(
    store: Store, run_id: str, *, judge: str, settings: Settings, prompts: PromptSet | None = None, progress: Any = None,
    original: bool = False,
) -> RunScore:
    """Grade the run as the official grader would (``progress`` is not reported: the official
    judge's batches go out at once)."""
    run = store.get_run(run_id)
    if is_cancelled(run):
        raise NotASample(f"run {run_id} was cancelled by a person: under the official profile it is not a sample (left out, and counted)")
    if judge_for(judge).is_offline:
        raise OfficialJudgeRequired(
            f"run {run_id}: the official profile is judged by an LLM in the official layout; give --judge MODEL "
            "(or score it with --protocol vibesearch to use the offline judge)"
        )
    task = stored_task(store, run_id)
    if task is None or not task.graph:
        raise NoGroundTruth(f"run {run_id} has no ground-truth graph in its task snapshot")
    prompts = prompts or default_prompts(settings)
    gt = official_ground_truth(task)
    answer = graded_answer(store, run_id, original=original)
    graph, graph_id = stored_prediction(store, run_id, original=original)
    graded = await grade_official(
        run.task_id, run.run_index, answer.text, gt, prompts.judge, model=judge, settings=settings, lenient=graph
    )
    score = _score(run_id, graph_id, judge, graded, prompts, n_gt=len(gt.triples), answer=answer)
    score.details["graded_graph"] = graph_source(store, run_id, graph_id)
    score.prompt_source = prompt_source_label(run.meta().get("prompt_source"), prompts)
    score.verdicts = _verdicts(graded, graph, len(gt.triples))
    return score


def prompt_source_label(run_source: object, prompts: PromptSet) -> str:
    """The score's prompt source: the judge's, or both when the run (it records its own, see the
    session) used other prompts than the judge."""
    judge_source = prompts.source.label()
    if isinstance(run_source, str) and run_source and run_source != judge_source:
        return f"run: {run_source}; judge: {judge_source}"
    return judge_source


def _score(
    run_id: str, graph_id: int | None, judge: str, graded: OfficialGrade, prompts: PromptSet, *, n_gt: int, answer: GradedAnswer
) -> RunScore:
    result, parse = graded.result, graded.parse
    coverage = result.coverage_details
    supports = {i for item in coverage.per_gt_triple for i in item.supporting_pred_indices} if coverage else set()
    details: dict[str, Any] = {
        "protocol": "official",
        "judge_label": judge_label(judge),
        "prompt_source": prompts.source.record(),
        "prompt_notes": list(prompts.notes),
        "official": result.official_dict(),
        "parse": {
            "step": parse.step,
            "note": parse.note(),
            "strict_count": len(parse.triples),
            "lenient_count": parse.lenient_count,
            "lenient_only_count": len(parse.lenient_only),
            "lenient_only": parse.lenient_only[:LENIENT_KEPT],
        },
        "judge": graded.judgement.details() if graded.judgement is not None else {"skipped": "no parsable triples: the sample scores 0"},
        "graded_message": answer.record(),
    }
    if answer.phase == "reextraction":
        details["note"] = "the run's newest re-extraction was graded (`vibesearch reextract`)"
    elif answer.seq is None:
        details["note"] = ("the run gave no extraction answer and no assistant text at all: it scores 0 "
                           "(a failed run is a sample under the official profile)")
    elif answer.fallback:
        details["note"] = (f"the run gave no extraction answer with text: its latest assistant text (phase {answer.phase}, "
                           f"event {answer.seq}) was graded instead, as the official grader does")
    return RunScore(
        run_id=run_id,
        graph_id=graph_id,
        judge=judge,
        precision=result.triplet_precision,
        recall=result.triplet_recall,
        f1=result.triplet_f1,
        n_gt=n_gt,
        n_pred=result.num_pred_triples,
        n_covered=coverage.covered_count if coverage else 0,
        n_valid=len(supports),
        n_unscored=0,
        details=details,
        protocol="official",
        prompt_source=prompts.source.label(),
    )


def _verdicts(graded: OfficialGrade, graph: Sequence[Mapping[str, Any]], n_gt: int) -> list[Verdict]:
    coverage = graded.result.coverage_details
    if coverage is None:  # nothing parsed: every ground-truth triple is not covered
        return [Verdict(gt_index=i, covered=False, rationale="no parsable predicted triples") for i in range(n_gt)]
    return [
        Verdict(
            gt_index=item.gt_index,
            covered=item.covered,
            evidence=_graph_evidence(graded.parse.triples, graph, item.supporting_pred_indices) if item.covered else [],
            rationale="official judge" + ("" if item.covered else ": not covered"),
        )
        for item in coverage.per_gt_triple
    ]


def sample_of(score: ScoreRow) -> SampleResult | None:
    """The official per-sample record kept in an official score (None for any other score)."""
    record = score.details().get("official")
    return SampleResult.model_validate(record) if isinstance(record, dict) else None
