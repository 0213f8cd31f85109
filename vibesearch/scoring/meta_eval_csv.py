"""The official meta-evaluation CSVs, written and read back.

One folder, two sides, one file per run (``<name>`` is the run id):

    OUT/gt_recall_check/<name>.csv       gt_index, head, relation, tail, model_covered,
                                         supporting_pred_triples, human_label, human_comment
    OUT/pred_precision_check/<name>.csv  pred_index, head, relation, tail, model_valid,
                                         supporting_gt_triples, human_label, human_comment

UTF-8 with a byte-order mark, ``是``/``否`` in the model columns, supporting triples written
``(head, relation, tail)`` one per line inside the cell: the layout of the public benchmark's
``scripts/generate_meta_eval_csv.py``, so files made by either tool can be filled the same way.

The model columns come from the run's latest score (by ``judge`` when given). A predicted triple
is valid for the judge when it supports at least one ground-truth triple the judge called
covered; its supporting ground-truth triples are those.

Reading back, ``human_label`` may be 是/否, yes/no, y/n, 1/0 or true/false (any case); a blank
cell means "not labelled". The supporting indices a person agreed with are not in the file:
a label that keeps the annotator's earlier decision keeps its earlier evidence; a "yes" where the
judge also said yes takes the judge's supporting triples; anything else has none. Every file is
checked before anything is written, and all labels are stored in one transaction.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._files import InputFileError, read_text
from ..store import RunNotFound, Store
from ._stored import stored_ground_truth, stored_prediction
from .metrics import stored_verdicts

GT_DIR = "gt_recall_check"
PRED_DIR = "pred_precision_check"
GT_HEADER = ["gt_index", "head", "relation", "tail", "model_covered", "supporting_pred_triples", "human_label", "human_comment"]
PRED_HEADER = ["pred_index", "head", "relation", "tail", "model_valid", "supporting_gt_triples", "human_label", "human_comment"]
YES, NO = "是", "否"
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


def judge_sides(store: Store, run_id: str, judge: str | None = None) -> JudgeSides:
    """The run's ground truth, prediction and the latest score's decisions (by ``judge``, or by
    whichever judge scored it last); empty decisions when it has no such score."""
    gt = stored_ground_truth(store, run_id)
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


def _write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8-sig", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)


def export_official(
    store: Store, out_dir: str | Path, *, run_ids: list[str] | None = None, judge: str | None = None, annotator: str | None = None
) -> list[str]:
    """Write both CSVs for each run (``run_ids``, or every run with a stored score by ``judge`` /
    any judge); ``annotator``'s labels fill ``human_label`` and ``human_comment``. Returns the
    run ids written."""
    if run_ids is None:
        scored = {s.run_id for s in store.scores() if judge is None or s.judge == judge}
        run_ids = [r.id for r in store.list_runs() if r.id in scored]
    out = Path(out_dir)
    for rid in run_ids:
        store.get_run(rid)  # RunNotFound for an unknown id
        sides = judge_sides(store, rid, judge)
        cov = {r.gt_index: r for r in store.labels(run_id=rid, annotator=annotator)} if annotator else {}
        val = {r.pred_index: r for r in store.pred_labels(run_id=rid, annotator=annotator)} if annotator else {}
        gt_rows = []
        for i, t in enumerate(sides.gt):
            label = cov.get(i)
            support = "\n".join(triple_text(sides.pred[p]) for p in sides.gt_support.get(i, []))
            gt_rows.append([i, t.get("head", ""), t.get("relation", ""), t.get("tail", ""), _yes_no(sides.covered.get(i)), support,
                            _yes_no(label.covered) if label else "", label.note if label else ""])
        pred_rows = []
        for p, t in enumerate(sides.pred):
            plabel = val.get(p)
            support = "\n".join(triple_text(sides.gt[g]) for g in sides.pred_support.get(p, []) if g < len(sides.gt))
            pred_rows.append([p, t.get("head", ""), t.get("relation", ""), t.get("tail", ""), _yes_no(sides.valid.get(p)), support,
                              _yes_no(plabel.valid) if plabel else "", plabel.note if plabel else ""])
        _write_csv(out / GT_DIR / f"{rid}.csv", GT_HEADER, gt_rows)
        _write_csv(out / PRED_DIR / f"{rid}.csv", PRED_HEADER, pred_rows)
    return list(run_ids)


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


def _read_side(store: Store, path: Path, header: list[str], annotator: str, side: str) -> list[dict[str, Any]]:
    rows = _read_rows(path)
    if not rows or rows[0] != header:
        got = ",".join(rows[0]) if rows else "(empty file)"
        raise MetaEvalError(f"{path}: row 1: header {got[:200]!r} is not the expected {','.join(header)!r}")
    rid = path.stem
    try:
        store.get_run(rid)
    except RunNotFound:
        raise MetaEvalError(f"{path}: run {rid!r} (the file's name) is not in this database") from None
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
    if not annotator.strip():
        raise MetaEvalError("--annotator: a name is needed")
    if not root.is_dir():
        raise MetaEvalError(f"{root}: not a folder")
    gt_files = sorted((root / GT_DIR).glob("*.csv")) if (root / GT_DIR).is_dir() else []
    pred_files = sorted((root / PRED_DIR).glob("*.csv")) if (root / PRED_DIR).is_dir() else []
    if not gt_files and not pred_files:
        raise MetaEvalError(f"{root}: no CSV files in {GT_DIR}/ or {PRED_DIR}/")
    coverage = [rec for f in gt_files for rec in _read_side(store, f, GT_HEADER, annotator, "gt")]
    validity = [rec for f in pred_files for rec in _read_side(store, f, PRED_HEADER, annotator, "pred")]
    return coverage, validity


def import_official(store: Store, root: str | Path, annotator: str) -> tuple[int, int]:
    """Read a filled meta-eval folder and store its labels in one transaction (all or nothing).
    Returns (coverage labels, validity labels) stored."""
    coverage, validity = read_official(store, root, annotator)
    return store.put_both_labels(coverage, validity)
