"""Human labels to and from files: CSV or JSONL, one label per row.

Columns / keys: ``run_id, gt_index, annotator, covered, evidence, note, created_at``.
In CSV, ``covered`` is ``true``/``false`` (also 1/0, yes/no) and ``evidence`` the predicted
indices separated by spaces (a JSON list is accepted too). Importing replaces the label of the
same (run, triple, annotator); a bad row stops the import with an error naming the line.
"""

from __future__ import annotations

import csv
import json
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from ..store import RunNotFound, Store

FIELDS = ["run_id", "gt_index", "annotator", "covered", "evidence", "note", "created_at"]


class LabelFileError(ValueError):
    pass


def export_labels(store: Store, path: str | Path, fmt: Literal["csv", "jsonl"], run_id: str | None = None) -> int:
    rows = store.labels(run_id=run_id)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    records = [
        {
            "run_id": r.run_id,
            "gt_index": r.gt_index,
            "annotator": r.annotator,
            "covered": r.covered,
            "evidence": json.loads(r.evidence_json or "[]"),
            "note": r.note,
            "created_at": r.created_at.isoformat() if r.created_at else "",
        }
        for r in rows
    ]
    if fmt == "jsonl":
        with path.open("w", encoding="utf-8") as fh:
            for rec in records:
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    elif fmt == "csv":
        with path.open("w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=FIELDS)
            writer.writeheader()
            for rec in records:
                writer.writerow({**rec, "covered": "true" if rec["covered"] else "false", "evidence": " ".join(map(str, rec["evidence"]))})
    else:
        raise ValueError(f"unknown label format {fmt!r} (csv or jsonl)")
    return len(records)


def _bool(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes", "y", "covered"):
        return True
    if text in ("false", "0", "no", "n", "not covered", "uncovered"):
        return False
    raise LabelFileError(f"{where}: covered must be true or false, got {value!r}")


def _evidence(value: Any, where: str) -> list[int]:
    if value in (None, ""):
        return []
    if isinstance(value, list):
        items = value
    else:
        text = str(value).strip()
        items = json.loads(text) if text.startswith("[") else text.replace(",", " ").split()
    try:
        return [int(x) for x in items]
    except (TypeError, ValueError):
        raise LabelFileError(f"{where}: evidence must be predicted-triple indices, got {value!r}") from None


def _parse_record(rec: dict[str, Any], where: str) -> dict[str, Any]:
    missing = [k for k in ("run_id", "gt_index", "annotator", "covered") if rec.get(k) in (None, "")]
    if missing:
        raise LabelFileError(f"{where}: missing {', '.join(missing)}")
    try:
        gt_index = int(rec["gt_index"])
    except (TypeError, ValueError):
        raise LabelFileError(f"{where}: gt_index must be an integer, got {rec['gt_index']!r}") from None
    created = None
    if rec.get("created_at"):
        try:
            created = datetime.fromisoformat(str(rec["created_at"]))
        except ValueError:
            raise LabelFileError(f"{where}: created_at is not an ISO date-time: {rec['created_at']!r}") from None
    return {
        "run_id": str(rec["run_id"]),
        "gt_index": gt_index,
        "annotator": str(rec["annotator"]),
        "covered": _bool(rec["covered"], where),
        "evidence": _evidence(rec.get("evidence"), where),
        "note": str(rec.get("note") or ""),
        "created_at": created,
    }


def read_label_file(path: str | Path) -> list[dict[str, Any]]:
    path = Path(path)
    if not path.exists():
        raise LabelFileError(f"{path}: no such file")
    out = []
    if path.suffix.lower() == ".csv":
        with path.open(encoding="utf-8", newline="") as fh:
            for n, rec in enumerate(csv.DictReader(fh), start=2):
                out.append(_parse_record(rec, f"{path}:{n}"))
        return out
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LabelFileError(f"{path}:{n}: invalid JSON ({exc.msg})") from None
        if not isinstance(rec, dict):
            raise LabelFileError(f"{path}:{n}: expected a JSON object")
        out.append(_parse_record(rec, f"{path}:{n}"))
    return out


def import_labels(store: Store, path: str | Path) -> int:
    """Read every row first (nothing is written if any row is bad), then store them."""
    records = read_label_file(path)
    for rec in records:
        try:
            store.get_run(rec["run_id"])
        except RunNotFound:
            raise LabelFileError(f"{path}: run {rec['run_id']!r} is not in this database") from None
    for rec in records:
        store.put_label(
            rec["run_id"], rec["gt_index"], rec["annotator"], rec["covered"], rec["evidence"], rec["note"], rec["created_at"]
        )
    return len(records)
