"""The official meta-evaluation CSVs, written and read back.

One folder, two sides, one file per sample, named as the official script names them after the
grader's ``<qid>_sample<i>.json`` (``scripts/generate_meta_eval_csv.py``):

    OUT/gt_recall_check/<qid>_sample<i>.csv       gt_index, head, relation, tail, model_covered,
                                                  supporting_pred_triples, human_label, human_comment
    OUT/pred_precision_check/<qid>_sample<i>.csv  pred_index, head, relation, tail, model_valid,
                                                  supporting_gt_triples, human_label, human_comment
    OUT/vibesearch_runs.json                      which run each file name stands for, and under
                                                  ``human_label`` what filled that column

UTF-8 with a byte-order mark (``utf-8-sig``), ``是``/``否`` in the model columns, supporting triples
written ``(head, relation, tail)`` one per line inside the cell: the official layout, so files made
by either tool can be filled the same way. The ground-truth side shows the task's node names and
relations exactly as the official record has them (not stripped), as the official grader's
``coverage_details`` do.

``<qid>`` is the task id ("/" and "\\" replaced by "_", as the official grader does); ``<i>`` numbers
the task's runs of one configuration (agent, models, user) in the order they were started, counting
the runs with a stored score (by ``judge`` when given) that a person did not cancel — a cancelled run
is not a sample and is not written. That is the numbering of ``vibesearch results export --official``
when the configuration's runs are all scored by one judge under the official profile. One
configuration is written straight into OUT; several each get a sub-folder named after it.

The model columns come from the run's latest score (by ``judge`` when given). A predicted triple
is valid for the judge when it supports at least one ground-truth triple the judge called
covered; its supporting ground-truth triples are those. (The official script builds this side from
a ``validity_details`` record the current official grader no longer writes, so the script itself
stops at the first file; this exporter is the working path.)

Reading back, a folder (or a folder of such folders) is read whole. A file's name is the run id
(files written before sample names) or ``<qid>_sample<i>``, found in ``vibesearch_runs.json`` or,
without it, numbered again as above (refused when several configurations have that sample).
``human_label`` may be 是/否, yes/no, y/n, 1/0 or true/false (any case); a blank cell means "not
labelled". The supporting indices a person agreed with are not in the file: a label that keeps the
annotator's earlier decision keeps its earlier evidence; a "yes" where the judge also said yes takes
the judge's supporting triples; anything else has none. Every file is checked before anything is
written, and all labels are stored in one transaction.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._files import InputFileError, StagedFolder, read_json, read_text
from .._names import PersonNameError, annotator_name
from ..store import RunNotFound, Store
from ..store import put_labels_bulk
from ..store.tables import Run
from ._final_label import Side
from .human_label import LabelTally, item_finals, tally
from ..scoring.stored import stored_ground_truth, stored_prediction, stored_task
from ..scoring.metrics import stored_verdicts
from .official_export import folder_name, sample_stem
from ..judges.official_metrics import OfficialGroundTruth
from ..scoring.profile import is_cancelled

GT_DIR = "gt_recall_check"
PRED_DIR = "pred_precision_check"
GT_HEADER = ["gt_index", "head", "relation", "tail", "model_covered", "supporting_pred_triples", "human_label", "human_comment"]
PRED_HEADER = ["pred_index", "head", "relation", "tail", "model_valid", "supporting_gt_triples", "human_label", "human_comment"]
YES, NO = "是", "否"
MANIFEST = "vibesearch_runs.json"  # file name (without .csv) -> run id
_SAMPLE_NAME = re.compile(r"^(?P<qid>.*)_sample(?P<index>\d+)$")
MAX_COMMENT = 100_000
_TRUE = {"是", "yes", "y", "1", "true"}
_FALSE = {"否", "no", "n", "0", "false"}


class MetaEvalError(ValueError):
    """A meta-eval folder or file that cannot be read; the message names file, row and value."""


@dataclass
class JudgeSides:
    """One run's triples and its judge's decisions on both sides."""

    run_id: str
    gt: list[dict[str, Any]]
    pred: list[dict[str, Any]]
    judge: str | None = None
    covered: dict[int, bool | None] = field(default_factory=dict)  # gt index -> judge's decision
    gt_support: dict[int, list[int]] = field(default_factory=dict)  # gt index -> predicted indices
    valid: dict[int, bool] = field(default_factory=dict)  # pred index -> judge's decision
    pred_support: dict[int, list[int]] = field(default_factory=dict)  # pred index -> gt indices


def official_gt(store: Store, run_id: str) -> list[dict[str, Any]]:
    """The run's ground-truth triples with the names of the task's official record, as they are
    (our own ground truth strips them; both lists have the same triples in the same order)."""
    task = stored_task(store, run_id)
    if task is None or not task.graph:
        return []
    return [t.model_dump() for t in OfficialGroundTruth.from_task(task).triples]


def judge_sides(store: Store, run_id: str, judge: str | None = None, *, official_names: bool = False) -> JudgeSides:
    """The run's ground truth, prediction and the latest score's decisions (by ``judge``, or by
    whichever judge scored it last); empty decisions when it has no such score.
    ``official_names``: the ground truth with the official record's names, unstripped."""
    gt = official_gt(store, run_id) if official_names else stored_ground_truth(store, run_id)
    pred, _ = stored_prediction(store, run_id)
    sides = JudgeSides(run_id=run_id, gt=gt, pred=pred)
    scores = [s for s in store.scores(run_id) if judge is None or s.judge == judge]
    if not scores:
        return sides
    latest = scores[-1]
    sides.judge = latest.judge
    for v in stored_verdicts(store, latest.id):
        sides.covered[v.gt_index] = v.covered
        sides.gt_support[v.gt_index] = sorted({e for e in v.evidence if 0 <= e < len(pred)}) if v.covered else []
    by_pred: dict[int, set[int]] = defaultdict(set)
    for g, preds in sides.gt_support.items():
        for p in preds:
            by_pred[p].add(g)
    sides.pred_support = {p: sorted(by_pred[p]) for p in range(len(pred))}
    sides.valid = {p: bool(by_pred[p]) for p in range(len(pred))}
    return sides


def triple_text(t: dict[str, Any]) -> str:
    return f"({t.get('head', '')}, {t.get('relation', '')}, {t.get('tail', '')})"


def _yes_no(value: bool | None) -> str:
    return "" if value is None else YES if value else NO


def _csv_text(header: list[str], rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


def _config(run: Run) -> str:
    from ..scoring.aggregate import config_key  # (aggregate imports the scorers; read it only when needed)

    return config_key(run)


def _started(run: Run) -> tuple[str, str]:
    return (str(run.created_at), run.id)


def sample_numbers(store: Store, judge: str | None = None) -> dict[str, tuple[str, str, int]]:
    """Per run that is a meta-eval sample (a stored score, by ``judge`` when given; not cancelled
    by a person): its configuration, task and sample index, numbered per configuration and task
    in the order the runs were started."""
    scored = {s.run_id for s in store.scores() if judge is None or s.judge == judge}
    groups: dict[tuple[str, str], list[Run]] = defaultdict(list)
    for run in store.list_runs():
        if run.id in scored and not is_cancelled(run):
            groups[(_config(run), run.task_id)].append(run)
    out = {}
    for (config, task_id), runs in groups.items():
        for i, run in enumerate(sorted(runs, key=_started)):
            out[run.id] = (config, task_id, i)
    return out


def not_a_sample(store: Store, run_id: str, judge: str | None = None) -> str | None:
    """Why the run is not a meta-eval sample (None: it is one)."""
    run = store.get_run(run_id)
    if is_cancelled(run):
        return f"run {run_id} is not a sample of the meta-eval: a person cancelled it"
    if not any(judge is None or s.judge == judge for s in store.scores(run_id)):
        return f"run {run_id} is not a sample of the meta-eval: it has no stored score" + (f" by {judge}" if judge else "")
    return None


def human_cells(store: Store, run_id: str, side: Side, annotator: str | None = None) -> tuple[dict[int, tuple[bool | None, str]], dict[str, int]]:
    """index -> (human label, comment) of one side of a run, and how many items each step of the
    rule decided. By default each labelled or adjudicated item's final label
    (``human_label.item_finals``): its adjudication with the adjudicator's comment, else the
    labels' strict majority; an open tie has no label and says so in its comment. With
    ``annotator``: that person's own labels and notes only (no counts)."""
    if annotator is not None:
        if side == "coverage":
            return {r.gt_index: (r.covered, r.note) for r in store.labels(run_id=run_id, annotator=annotator)}, {}
        return {r.pred_index: (r.valid, r.note) for r in store.pred_labels(run_id=run_id, annotator=annotator)}, {}
    finals = item_finals(store, side, [run_id])
    return {i: (f.label, f.comment or f.note()) for (_, i), f in finals.items()}, tally(finals.values())


@dataclass
class OfficialExport:
    """What ``export_official_report`` wrote: the runs, and what filled ``human_label``."""

    runs: list[str]
    human: LabelTally


def export_official(
    store: Store, out_dir: str | Path, *, run_ids: list[str] | None = None, judge: str | None = None, annotator: str | None = None,
) -> list[str]:
    """``export_official_report``, returning only the run ids written."""
    return export_official_report(store, out_dir, run_ids=run_ids, judge=judge, annotator=annotator).runs


def export_official_report(
    store: Store, out_dir: str | Path, *, run_ids: list[str] | None = None, judge: str | None = None, annotator: str | None = None,
) -> OfficialExport:
    """Write both CSVs for each sample (``run_ids``, or every run with a stored score by
    ``judge`` / any judge that a person did not cancel) as ``<qid>_sample<i>.csv``, and
    ``vibesearch_runs.json`` beside them (the runs, and under ``human_label`` the rule that
    filled that column). ``human_label`` and ``human_comment`` hold each item's final label
    (``human_cells``), or ``annotator``'s own labels when one is named. A named run that is not a
    sample (no such score, or cancelled: ``not_a_sample``) is skipped."""
    numbers = sample_numbers(store, judge)
    if run_ids is None:
        run_ids = [r.id for r in store.list_runs() if r.id in numbers]
    for rid in run_ids:
        store.get_run(rid)  # RunNotFound for an unknown id
    chosen = [rid for rid in run_ids if rid in numbers]
    configs = sorted({numbers[rid][0] for rid in chosen})
    manifests: dict[str, dict[str, str]] = defaultdict(dict)
    tallies: dict[str, LabelTally] = {}
    whole = LabelTally(annotator)
    staged: list[tuple[str, str]] = []
    for rid in chosen:
        config, task_id, index = numbers[rid]
        out = "" if len(configs) == 1 else folder_name(config)
        name = sample_stem(task_id, index)
        manifests[out][name] = rid
        sides = judge_sides(store, rid, judge, official_names=True)
        cov, cov_counts = human_cells(store, rid, "coverage", annotator)
        val, val_counts = human_cells(store, rid, "validity", annotator)
        for counted in (tallies.setdefault(out, LabelTally(annotator)), whole):
            counted.add("coverage", cov_counts)
            counted.add("validity", val_counts)
        gt_rows = []
        for i, t in enumerate(sides.gt):
            label, note = cov.get(i, (None, ""))
            support = "\n".join(triple_text(sides.pred[p]) for p in sides.gt_support.get(i, []))
            gt_rows.append([i, t.get("head", ""), t.get("relation", ""), t.get("tail", ""), _yes_no(sides.covered.get(i)), support,
                            _yes_no(label), note])
        pred_rows = []
        for p, t in enumerate(sides.pred):
            plabel, pnote = val.get(p, (None, ""))
            support = "\n".join(triple_text(sides.gt[g]) for g in sides.pred_support.get(p, []) if g < len(sides.gt))
            pred_rows.append([p, t.get("head", ""), t.get("relation", ""), t.get("tail", ""), _yes_no(sides.valid.get(p)), support,
                              _yes_no(plabel), pnote])
        staged.append((_at(out, f"{GT_DIR}/{name}.csv"), _csv_text(GT_HEADER, gt_rows)))
        staged.append((_at(out, f"{PRED_DIR}/{name}.csv"), _csv_text(PRED_HEADER, pred_rows)))
    with StagedFolder(out_dir) as folder:  # every file lands or none does (OutputFileError names it)
        for relative, text in staged:
            folder.write(relative, text, encoding="utf-8-sig")
        for sub, names in manifests.items():
            manifest = {"runs": dict(sorted(names.items())), "human_label": tallies[sub].header()}
            folder.write(_at(sub, MANIFEST), json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return OfficialExport(chosen, whole)


def _at(sub: str, name: str) -> str:
    return f"{sub}/{name}" if sub else name




def _label_value(text: str, where: str) -> bool | None:
    value = text.strip().lower()
    if not value:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    shown = text if len(text) <= 40 else text[:40] + "…"
    raise MetaEvalError(f"{where}: human_label {shown!r} is not one of 是/否, yes/no, y/n, 1/0, true/false (or blank)")


def _read_rows(path: Path) -> list[list[str]]:
    try:
        text = read_text(path)  # a regular, size-capped UTF-8 file; the byte-order mark dropped
    except InputFileError as exc:
        raise MetaEvalError(str(exc)) from None
    try:
        return list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as exc:
        raise MetaEvalError(f"{path}: not a readable CSV: {str(exc)[:120]}") from None


class _Names:
    """Which run a file of one meta-eval folder stands for: its name in the folder's
    ``vibesearch_runs.json``, else a run id, else ``<qid>_sample<i>`` numbered again."""

    def __init__(self, store: Store, folder: Path):
        self.store, self.folder = store, folder
        self.manifest = self._read_manifest(folder / MANIFEST)
        self._numbered: dict[str, list[str]] | None = None

    @staticmethod
    def _read_manifest(path: Path) -> dict[str, str]:
        if not path.exists():
            return {}
        try:
            value = read_json(path)  # strictly: a repeated key, NaN, a NUL ... are refused
        except InputFileError as exc:
            raise MetaEvalError(f"{path}: not readable: {str(exc)[:200]}") from None
        runs = value.get("runs") if isinstance(value, dict) else None
        if not isinstance(runs, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in runs.items()):
            raise MetaEvalError(f"{path}: expected {{\"runs\": {{file name: run id}}}}")
        return runs

    def _exists(self, rid: str) -> bool:
        try:
            self.store.get_run(rid)
        except RunNotFound:
            return False
        return True

    def run_id(self, path: Path) -> str:
        stem = path.stem
        if stem in self.manifest:
            rid = self.manifest[stem]
            if not self._exists(rid):
                raise MetaEvalError(f"{path}: run {rid!r} ({MANIFEST} names it for this file) is not in this database")
            return rid
        if self._exists(stem):  # a file named after its run (written before sample names)
            return stem
        if _SAMPLE_NAME.match(stem):
            if self._numbered is None:
                self._numbered = defaultdict(list)
                for rid, (_config, task_id, index) in sample_numbers(self.store).items():
                    self._numbered[sample_stem(task_id, index)].append(rid)
            found = self._numbered.get(stem, [])
            if len(found) == 1:
                return found[0]
            if found:
                raise MetaEvalError(
                    f"{path}: {stem!r} is a sample of {len(found)} configurations in this database; "
                    f"keep the {MANIFEST} the export wrote beside the CSVs"
                )
            raise MetaEvalError(f"{path}: no run in this database is sample {stem!r} (and there is no {MANIFEST} naming it)")
        raise MetaEvalError(f"{path}: run {stem!r} (the file's name) is not in this database")


def _read_side(store: Store, path: Path, header: list[str], annotator: str, side: str, names: _Names) -> list[dict[str, Any]]:
    rows = _read_rows(path)
    if not rows or rows[0] != header:
        got = ",".join(rows[0]) if rows else "(empty file)"
        raise MetaEvalError(f"{path}: row 1: header {got[:200]!r} is not the expected {','.join(header)!r}")
    rid = names.run_id(path)
    sides = judge_sides(store, rid)
    size = len(sides.gt) if side == "gt" else len(sides.pred)
    key = header[0]
    if side == "gt":
        earlier: dict[int, tuple[bool, list[int]]] = {
            r.gt_index: (r.covered, _ints(r.evidence_json)) for r in store.labels(run_id=rid, annotator=annotator)
        }
    else:
        earlier = {r.pred_index: (r.valid, _ints(r.evidence_json)) for r in store.pred_labels(run_id=rid, annotator=annotator)}
    seen: set[int] = set()
    out = []
    for n, row in enumerate(rows[1:], start=2):
        where = f"{path}: row {n}"
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise MetaEvalError(f"{where}: {len(row)} cells, expected {len(header)}")
        raw = row[0].strip()
        if not raw.isdigit() or int(raw) >= size:
            raise MetaEvalError(f"{where}: {key} {raw[:40]!r} is not an index of this run (it has {size} {'ground-truth' if side == 'gt' else 'predicted'} triples)")
        index = int(raw)
        if index in seen:
            raise MetaEvalError(f"{where}: {key} {index} appears twice")
        seen.add(index)
        value = _label_value(row[6], where)
        if len(row[7]) > MAX_COMMENT:
            raise MetaEvalError(f"{where}: human_comment is longer than {MAX_COMMENT} characters")
        if "\x00" in row[7]:
            raise MetaEvalError(f"{where}: human_comment holds a NUL character (\\u0000), which cannot be stored")
        if value is None:
            continue
        if index in earlier and earlier[index][0] == value:
            evidence = earlier[index][1]
        elif value and side == "gt" and sides.covered.get(index):
            evidence = sides.gt_support.get(index, [])
        elif value and side == "pred" and sides.valid.get(index):
            evidence = sides.pred_support.get(index, [])
        else:
            evidence = []
        rec: dict[str, Any] = {"run_id": rid, "annotator": annotator, "evidence": evidence, "note": row[7]}
        if side == "gt":
            rec.update(gt_index=index, covered=value)
        else:
            rec.update(pred_index=index, valid=value)
        out.append(rec)
    return out


def _ints(text: str | None) -> list[int]:
    value = json.loads(text or "[]")
    return [int(x) for x in value] if isinstance(value, list) else []


def read_official(store: Store, root: str | Path, annotator: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every filled label of a meta-eval folder, checked (nothing is written): the coverage labels
    (``Store.put_labels`` dicts) and the validity labels (``Store.put_pred_labels`` dicts)."""
    root = Path(root)
    try:
        annotator = annotator_name(annotator)
    except PersonNameError as exc:
        raise MetaEvalError(f"--annotator: {exc}") from None
    if not root.is_dir():
        raise MetaEvalError(f"{root}: not a folder")
    coverage: list[dict[str, Any]] = []
    validity: list[dict[str, Any]] = []
    for folder in _meta_folders(root):
        names = _Names(store, folder)
        gt_files = sorted((folder / GT_DIR).glob("*.csv")) if (folder / GT_DIR).is_dir() else []
        pred_files = sorted((folder / PRED_DIR).glob("*.csv")) if (folder / PRED_DIR).is_dir() else []
        coverage += [rec for f in gt_files for rec in _read_side(store, f, GT_HEADER, annotator, "gt", names)]
        validity += [rec for f in pred_files for rec in _read_side(store, f, PRED_HEADER, annotator, "pred", names)]
    return coverage, validity


def _has_csvs(folder: Path) -> bool:
    return any((folder / side).is_dir() and any((folder / side).glob("*.csv")) for side in (GT_DIR, PRED_DIR))


def _meta_folders(root: Path) -> list[Path]:
    """``root`` when it holds the two sides, else its sub-folders that do (an export of several
    configurations, one sub-folder each)."""
    if _has_csvs(root):
        return [root]
    subs = sorted(d for d in root.iterdir() if d.is_dir() and _has_csvs(d))
    if not subs:
        raise MetaEvalError(f"{root}: no CSV files in {GT_DIR}/ or {PRED_DIR}/ (nor in a sub-folder's)")
    return subs


def import_official(store: Store, root: str | Path, annotator: str) -> tuple[int, int]:
    """Read a filled meta-eval folder and store its labels in one transaction (all or nothing).
    Returns (coverage labels, validity labels) stored."""
    coverage, validity = read_official(store, root, annotator)
    return put_labels_bulk(store, coverage, validity)
