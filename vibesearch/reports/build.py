"""The report's content, independent of its format: a plain dict of tables."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from ..protocol import profile_named
from ..run.config import ProtocolProfile
from ..scoring.aggregate import (
    RunRecord,
    collect_runs,
    interaction_table,
    interval_settings,
    left_out_runs,
    official_samples,
    official_summary,
    N_GIVEN,
    N_MOST,
    padding_samples,
    samples_per_task,
    profile_groups,
    score_table,
    where_filter,
)
from ..scoring.errors import error_analysis
from ..judges.judge_failures import FAILURES_FOOTNOTE
from ..labels.judge_trust import Threshold, judge_trust
from ..scoring.noise_rank import noise_of
from ..scoring.noise_split import spread_of
from ..results.analysis import analysis_of, funnels_of
from ..results.stage_view import stage_view
from ..judges.registry import judge_label
from ..store import Store


def stage_label(reached: int | None, total: int | None) -> str:
    """"stage 3 of 9": the last stage a run disclosed, counted from 1 ("–" when unknown)."""
    if not reached:
        return "–"
    return f"stage {reached} of {total}" if total else f"stage {reached}"


def official_parts(records: list[RunRecord], num_samples: int | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``summary`` (one entry per configuration scored under the official profile, with the
    official keys) and ``per_item`` (every official sample, with the official keys), each entry
    also naming its configuration, profile and prompt source. Every task is padded to N samples
    with 0 samples, as the official run grades it (``samples_per_task``: ``num_samples``, else the
    configuration's most samples of a task; ``num_samples`` and ``n_from`` in the summary say which;
    ``padded`` per task; a padded item has no run, ``run_id`` None and ``padded`` true);
    ``SampleCountError`` when a task has more than ``num_samples``."""
    summary, per_item = [], []
    for (config, protocol, source), recs in profile_groups(records).items():
        if not profile_named(protocol).official_grader:
            continue
        samples = official_samples(recs)
        if not samples and not any(r.left_out for r in recs):
            continue
        label = recs[0].profile
        result = official_summary(recs, num_samples)
        entry = {"config": config, "profile": label, "prompt_source": source, **result.official_dict(),
                 "n_from": N_GIVEN if num_samples is not None else N_MOST, "left_out_cancelled": len(result.left_out),
                 "padded": dict(result.padded), "padded_total": sum(result.padded.values())}
        summary.append(entry)
        per_item += [{"config": config, "profile": label, "prompt_source": source, "run_id": r.run_id, **sample.official_dict()}
                     for r, sample in samples]
        per_item += [{"config": config, "profile": label, "prompt_source": source, "run_id": None, "padded": True,
                      **sample.official_dict()} for sample in padding_samples(recs, samples_per_task(recs, num_samples))]
    return summary, per_item


def build_report(
    store: Store, *, judge: str | None = None, protocol: ProtocolProfile | None = None, num_samples: int | None = None,
    where: dict[str, list[str]] | None = None, min_agreement: Threshold = None,
) -> dict[str, Any]:
    """Score table (Avg@N / Best@N), interaction table and error analysis for every run (each
    number under the profile it was computed with; ``protocol``: only that profile).
    The official profile's numbers grade every task on N samples, a missing one a 0 sample, as the
    official run does: N is ``num_samples`` (its ``--num-samples``) or else each configuration's
    most samples of a task (``n_from`` says which; ours are unchanged). Every score row carries
    its judge's measured agreement with people (``labels.judge_trust``; ``judge_agreement`` lists
    each judge × profile); ``min_agreement``: rows whose judge is below it or unmeasured are
    ``judge_marked``."""
    records, judge = collect_runs(store, judge=judge, protocol=protocol)
    records = [r for r in records if where_filter(where)(r)]  # the judge is still chosen over every run
    scored = [r for r in records if r.scored]
    one_per_run = list({r.run_id: r for r in reversed(records)}.values())[::-1]  # error analysis counts a run once
    kept = [r for r in one_per_run if not r.left_out]
    summary, per_item = official_parts(records, num_samples)
    # the official numbers' N: the one given, or each configuration's most samples of a task
    padding = {"num_samples": num_samples, "n_from": N_GIVEN if num_samples is not None else N_MOST}
    trust = judge_trust(store, threshold=min_agreement)
    scores = score_table(records, num_samples)
    for row in scores:
        entry = trust.of(judge, row["profile"])
        cov = entry.coverage
        row.update(judge_agreement=cov.agreement if cov else None, judge_agreement_ci=cov.agreement_ci if cov else None,
                   judge_kappa=cov.kappa if cov else None, judge_n=cov.n if cov else 0, judge_measured=entry.measured,
                   judge_marked=entry.below(trust.minimum))
    return {
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "database": str(store.path),
        "judge": judge,
        "judge_label": judge_label(judge),
        "profiles": sorted({r.profile for r in scored}),
        "n_runs": len({r.run_id for r in records}),
        "n_scored": len(scored),
        "unscored_runs": [r.run_id for r in records if not r.scored and not r.left_out],
        "left_out": left_out_runs(records),
        **padding,
        "where": dict(where or {}),
        "intervals": interval_settings(),
        "scores": scores,
        # the noise floor split three ways (user, agent, judge; ``combined``), each with an interval
        "noise": noise_of(records),
        "min_judge_agreement": trust.given(),
        "human_ceiling": trust.ceilings,  # per side: people against each other (None: no item labelled by two)
        "judge_agreement": [{**t, "judge_label": judge_label(t["judge"])} for t in trust.rows((judge, p) for p in sorted({r.profile for r in scored}))],
        "judge_footnote": trust.footnote() if any(r["judge_marked"] for r in scores) else "",
        "judge_failures_footnote": FAILURES_FOOTNOTE if any(r["judge_failures"] for r in scores) else "",
        "interaction": interaction_table(records),
        "errors": error_analysis(store, kept),
        "stages": stage_view(store, one_per_run),
        # where each ground-truth fact was lost, and the paper's section-5 measures (docs/analysis.md)
        "analysis": analysis_of(kept, funnels_of(store, kept)),
        "summary": summary,
        "per_item": per_item,
        "runs": [
            {
                "run_id": r.run_id,
                "task_id": r.task_id,
                "config": r.config,
                "profile": r.profile,
                "subset": r.subset,
                "language": r.language,
                "source": r.source,
                "precision": r.precision,
                "recall": r.recall,
                "f1": r.f1,
                "n_gt": r.n_gt,
                "n_pred": r.n_pred,
                "n_unscored": r.n_unscored,
                "judge_failed_batches": r.judge_failed_batches,
                "judge_failure": r.judge_failure,  # ‡: failed judge batches or unscored triples (``judge_failures``)
                "graded": r.graded,  # the run's own extraction, or a re-extraction
                "judgements": r.judgements,  # the F1 of each repeated judgement of the graph (score --repeat K)
                "judge_spread": spread_of(r.judgements),
                "user_turns": r.stats.n_user,
                "stages_reached": r.stats.stages_reached,
                "stages_total": r.stats.stages_total,
                # for people: stages counted from 1 (the opening is stage 1)
                "last_stage": stage_label(r.stats.stages_reached, r.stats.stages_total),
                "assistant_steps": r.stats.n_asst,
                "tool_calls": r.stats.tool_calls,
                "compactions": r.stats.compactions,
                "termination": r.stats.termination,
                "cost": r.stats.cost_text,
                "web_recorded": r.stats.web_recorded,
                "web_replayed": r.stats.web_replayed,
                "web_replay_misses": r.stats.web_replay_misses,
            }
            for r in records
        ],
    }
