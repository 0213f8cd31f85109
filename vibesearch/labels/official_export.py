"""Writing graded samples in the shape of the official grader's output folder.

    OUT/<qid>_sample<i>.json   one graded sample (qid, sample_idx, node_*, triplet_*, coverage_details ...)
    OUT/summary.json           avg@N_* and best@N_* of the six metrics, num_queries, num_samples
    OUT/item_ratings.json      every graded sample in one list
    OUT/per_query_scores.json  per task: num_samples, avg and best

File names and keys are the official ones, so the official tools (and anyone's scripts written
for them) read these files unchanged. What the official format cannot say — the profile, the
prompt source, the runs left out because a person cancelled them, N (``num_samples``, the
official ``--num-samples``, else the most samples of any task: ``n_from``) and the 0 samples
padded in per task — goes under one extra ``vibesearch`` key of the summary. A padded sample has its own ``<qid>_sample<i>.json`` with every
metric 0 and ``num_pred_triples`` 0, as the official run writes for a missing trace.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._files import StagedFolder
from ..judges.official_metrics import OfficialSummary, SampleResult


def sample_stem(qid: str, sample_idx: int) -> str:
    """``<qid>_sample<i>``, the qid's "/" and "\\" replaced by "_" (the official grader's names)."""
    safe = str(qid).replace("/", "_").replace("\\", "_")
    return f"{safe}_sample{sample_idx}"


def sample_file_name(qid: str, sample_idx: int) -> str:
    return f"{sample_stem(qid, sample_idx)}.json"


def folder_name(config: str, profile: str = "") -> str:
    """A file-system-safe folder name for one configuration (and profile): the sub-folder of each
    experiment when one export holds several."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{config} {profile}").strip("_")
    return slug[:120] or "results"


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def write_official_results(out_dir: str | Path, results: Sequence[SampleResult], summary: OfficialSummary, **options: Any) -> list[Path]:
    """Write the folder described above (``results``: every sample, padded ones included;
    ``options``: those of ``stage_official_results``); returns the files written. The files are
    written whole or not at all (``OutputFileError`` names the one that could not be)."""
    with StagedFolder(out_dir) as folder:
        return stage_official_results(folder, "", results, summary, **options)


def stage_official_results(
    folder: StagedFolder,
    sub: str,
    results: Sequence[SampleResult],
    summary: OfficialSummary,
    *,
    protocol: str = "official",
    prompt_source: str | None = None,
    num_samples: int | None = None,
) -> list[Path]:
    """Stage one experiment's files in ``folder`` (under its sub-folder ``sub``, "" for none), so
    that an export of several experiments lands whole or not at all; the summary names N (given as
    ``num_samples``, or the most samples of any task) and the padding."""
    def at(name: str) -> str:
        return f"{sub}/{name}" if sub else name

    written = [folder.write(at(sample_file_name(r.qid, r.sample_idx)), _json(r.official_dict())) for r in results]
    head = summary.official_dict()
    head["vibesearch"] = {
        "protocol": protocol,
        "prompt_source": prompt_source,
        "left_out_cancelled": len(summary.left_out),
        "left_out_runs": [{"qid": q, "sample_idx": i} for q, i in summary.left_out],
    }
    # N, where it came from, and the 0 samples padded in (every task is graded on N samples)
    head["vibesearch"].update(num_samples=summary.n, n_from="--num-samples" if num_samples is not None else "the most samples of any task",
                              padded=dict(summary.padded), padded_total=sum(summary.padded.values()))
    written.append(folder.write(at("summary.json"), _json(head)))
    written.append(folder.write(at("item_ratings.json"), _json([r.official_dict() for r in results])))
    per_query = [{"qid": q.qid, "num_samples": q.num_samples, "avg": q.avg, "best": q.best} for q in summary.per_query]
    written.append(folder.write(at("per_query_scores.json"), _json(per_query)))
    return written
