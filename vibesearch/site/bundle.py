"""The results bundle inside a site, and the one computation both ``build`` and ``verify`` run.

    OUT/results.json        the numbers: leaderboard rows (``aggregate.score_table``), interaction
                            rows, the noise-floor marks and its three-way split (``noise_rank.noise_of``), each configuration against those ranked
                            below it (per shared task, ``noise_rank.pair_comparisons``), the official summary / per_item
                            (``reports.build.official_parts``), the judges' agreement with people,
                            the tasks (id, content hash), the runs with their configs, the version
    OUT/samples/<run>.json  per run: every score record of it with the graded triples and the
                            judge's verdict per ground-truth triple (the official sample record too)
    OUT/events/<run>.json.gz   the run's stored events, as stored (gzipped JSON)
    OUT/tasks/<sha256>.json each task snapshot, named by the sha256 of its canonical JSON
    OUT/official/<config>/  per configuration scored under the official profile: the official
                            grader's files (<qid>_sample<i>.json, summary.json, item_ratings.json,
                            per_query_scores.json; ``labels.official_export``)
    OUT/SHA256SUMS          sha256 of every other file of OUT/ (``sha256sum -c`` reads it)

``derive(records)`` is the one place the site's figures are computed from run records; ``build``
gives it the records read from the store, ``verify`` the records rebuilt from the bundled files.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any, Iterable

from ..reports.build import official_parts
from ..scoring.aggregate import RunRecord, interaction_table, left_out_runs, score_table
from ..scoring.metrics import compute_metrics, dedupe
from ..scoring.noise_rank import noise_of, pair_comparisons, rank_marks
from ..judges.official_metrics import CoverageResult, SampleResult, official_f1, triplet_precision
from ..scoring.stats import as_the_file_says, stats_from_events
from ..run.events import StoredEvent
from ..run.scores import Metrics
from ..judges.verdicts import Verdict

SUMS = "SHA256SUMS"
RESULTS = "results.json"
DERIVED_KEYS = ("scores", "interaction", "noise_marks", "noise", "comparisons", "summary", "per_item", "left_out")
METRIC_FIELDS = ("precision", "recall", "f1", "n_gt", "n_pred", "n_covered", "n_valid", "n_unscored")


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def content_hash(value: Any) -> str:
    return hashlib.sha256(canonical(value).encode("utf-8")).hexdigest()


def file_text(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False, sort_keys=False) + "\n"


def gzip_json(value: Any) -> bytes:
    """``value`` as compact JSON, gzipped the same way every time (no name, no time in the header):
    the bundled events, a third of a site's bytes as plain text and about a tenth gzipped."""
    import gzip

    text = json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def plain(value: Any) -> Any:
    """``value`` as JSON reads it back (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def derive(records: list[RunRecord]) -> dict[str, Any]:
    """Every figure of the site over ``records``: the report's own functions, nothing else."""
    summary, per_item = official_parts(records)
    marks = rank_marks(records)
    return plain({
        "scores": score_table(records),
        "interaction": interaction_table(records),
        "noise_marks": [{"config": c, "profile": p, "mark": m} for (c, p), m in sorted(marks.items())],
        "noise": noise_of(records),
        "comparisons": pair_comparisons(records),
        "summary": summary,
        "per_item": per_item,
        "left_out": left_out_runs(records),
    })


def write_official_folders(records: list[RunRecord], root: Path) -> list[str]:
    """The official grader's result folder of every configuration scored under the official
    profile (``official_export``, as ``vibesearch results export --official`` writes it), one
    sub-folder each under ``root``; returns the sub-folders' names."""
    from ..protocol import profile_named
    from ..scoring.aggregate import official_sample_results, official_samples, official_summary, profile_groups
    from ..labels.official_export import folder_name, write_official_results

    names = []
    for (config, protocol, source), recs in profile_groups(records).items():
        if not profile_named(protocol).official_grader or not official_samples(recs):
            continue
        name = folder_name(config, recs[0].profile)
        write_official_results(root / name, official_sample_results(recs), official_summary(recs), protocol="official", prompt_source=source)
        names.append(name)
    return names


# --------------------------------------------------------------------------- per-sample data
def record_fields(record: RunRecord) -> dict[str, Any]:
    """A record as bundled: everything but its statistics, which are recomputed from the events."""
    return plain(record.model_dump(mode="json", exclude={"stats"}))


def metrics_from_verdicts(verdicts: list[dict[str, Any]], n_gt: int, graded: list[dict[str, Any]]) -> Metrics:
    """P/R/F1 of our profile from a score's stored verdicts, as ``metrics.score_graph_async`` made
    them: the stored evidence points at the first copy of each triple in the graded graph, the
    metrics count distinct triples (``dedupe``)."""
    unique, first = dedupe(graded)
    position = {raw: i for i, raw in enumerate(first)}
    judged = [Verdict.model_validate(v) for v in verdicts]
    as_judged = [v.model_copy(update={"evidence": [position[e] for e in v.evidence if e in position]}) for v in judged]
    return compute_metrics(as_judged, n_gt, len(unique))


def official_triplets(sample: dict[str, Any]) -> dict[str, float]:
    """The official triplet metrics of a sample, recomputed from its coverage details with the
    official grader's functions (``official_metrics``); a sample without details scores 0."""
    result = SampleResult.model_validate(sample)
    if result.coverage_details is None or not result.num_pred_triples:
        return {"triplet_precision": 0.0, "triplet_recall": 0.0, "triplet_f1": 0.0}
    items = result.coverage_details.per_gt_triple
    precision = triplet_precision(items, result.num_pred_triples)
    recall = CoverageResult.of(items, result.coverage_details.total_gt_triples).triplet_recall
    return {"triplet_precision": round(precision, 4), "triplet_recall": recall, "triplet_f1": round(official_f1(precision, recall), 4)}


def official_nodes(sample: dict[str, Any], answer: str, task_json: dict[str, Any]) -> dict[str, float]:
    """An official sample's node metrics and prediction count, recomputed from the answer it graded
    (parsed strictly again, ``official_parse``), the task's official nodes and the sample's coverage
    details (``official_metrics.node_metrics``); a sample with nothing parsed scores 0."""
    from ..judges.official_metrics import OfficialGroundTruth, node_metrics
    from ..judges.official_parse import strict_parse
    from ..tasks.models import Task

    result = SampleResult.model_validate(sample)
    parsed = strict_parse(answer).triples
    if not parsed or result.coverage_details is None:
        return {"node_precision": 0.0, "node_recall": 0.0, "node_f1": 0.0, "num_pred_triples": len(parsed)}
    details = result.coverage_details
    nodes = node_metrics(parsed, OfficialGroundTruth.from_task(Task.from_snapshot(task_json)),
                         CoverageResult.of(details.per_gt_triple, details.total_gt_triples))
    return {"node_precision": nodes.node_precision, "node_recall": nodes.node_recall, "node_f1": nodes.node_f1,
            "num_pred_triples": len(parsed)}


def rebuild_records(sample_file: dict[str, Any], events: list[dict[str, Any]]) -> list[RunRecord]:
    """The records of one bundled run, statistics recomputed from its bundled events."""
    inputs = sample_file["stats_inputs"]
    stats = stats_from_events(sample_file["run_id"], [StoredEvent.model_validate(e) for e in events],
                              stages_total=inputs["stages_total"], termination=inputs["termination"], imported=inputs["imported"])
    if "file" in inputs:  # an imported trajectory: its counts as its file states them
        stats = as_the_file_says(stats, inputs["file"])
    return [RunRecord.model_validate({**entry["record"], "stats": stats.model_dump()}) for entry in sample_file["records"]]


# --------------------------------------------------------------------------- comparing and hashing
def close(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return bool(a == b)


def first_difference(stored: Any, fresh: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first place (a dotted path) where ``stored`` differs from ``fresh``, with both values."""
    if isinstance(stored, dict) and isinstance(fresh, dict):
        for key in list(fresh) + [k for k in stored if k not in fresh]:
            if key not in stored or key not in fresh:
                return (f"{path}.{key}".lstrip("."), stored.get(key, "(missing)"), fresh.get(key, "(missing)"))
            found = first_difference(stored[key], fresh[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(stored, list) and isinstance(fresh, list):
        for i, (a, b) in enumerate(zip(stored, fresh)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        if len(stored) != len(fresh):
            return (f"{path} (length)".lstrip("."), len(stored), len(fresh))
        return None
    return None if close(stored, fresh) else (path.lstrip("."), stored, fresh)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def site_files(out: Path) -> Iterable[Path]:
    """Every file of the site but the sums themselves, in a stable order."""
    return sorted(p for p in out.rglob("*") if p.is_file() and p.relative_to(out).as_posix() != SUMS)


def write_sums(out: Path) -> None:
    lines = [f"{sha256_file(p)}  {p.relative_to(out).as_posix()}" for p in site_files(out)]
    (out / SUMS).write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_sums(out: Path) -> dict[str, str]:
    sums: dict[str, str] = {}
    for line in (out / SUMS).read_text(encoding="utf-8").splitlines():
        if line.strip():
            digest, _, name = line.partition("  ")
            sums[name] = digest
    return sums
