"""Human labels to and from files: CSV or JSONL, one label per row.

Columns / keys: ``run_id, gt_index, annotator, covered, evidence, note, created_at`` and, on
export, the ground-truth triple's text ``head, relation, tail`` (ignored on import).
In CSV, ``covered`` is ``true``/``false`` (also 1/0, yes/no) and ``evidence`` the predicted
indices separated by spaces (a JSON list is accepted too). Importing replaces the label of the
same (run, triple, annotator); a bad row stops the import with an error naming the line.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from pathlib import Path
from typing import Any, Collection, Literal

from .._files import csv_plain, csv_safe, write_output, InputFileError, parse_json, parse_jsonl, read_text, short, whole_number
from ..store import RunNotFound, Store
from ._stored import stored_ground_truth

FIELDS = ["run_id", "gt_index", "annotator", "covered", "evidence", "note", "created_at", "head", "relation", "tail"]
MAX_INDEX = 1_000_000  # ground-truth and predicted triple indices


class LabelFileError(ValueError):
    pass


def export_labels(
    store: Store, path: str | Path, fmt: Literal["csv", "jsonl"], run_id: str | None = None, *, run_ids: Collection[str] | None = None
) -> int:
    """Write the coverage labels (of ``run_id``, else of every run, or only of ``run_ids`` when
    given) with the triple text; returns how many were written."""
    rows = [r for r in store.labels(run_id=run_id) if run_ids is None or r.run_id in run_ids]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    graphs: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        if r.run_id not in graphs:
            graphs[r.run_id] = stored_ground_truth(store, r.run_id)

    def part(r: Any, key: str) -> str:
        graph = graphs[r.run_id]
        triple = graph[r.gt_index] if 0 <= r.gt_index < len(graph) else {}
        return str(triple.get(key, ""))

    records = [
        {
            "run_id": r.run_id,
            "gt_index": r.gt_index,
            "annotator": r.annotator,
            "covered": r.covered,
            "evidence": json.loads(r.evidence_json or "[]"),
            "note": r.note,
            "created_at": r.created_at.isoformat() if r.created_at else "",
            "head": part(r, "head"),
            "relation": part(r, "relation"),
            "tail": part(r, "tail"),
        }
        for r in rows
    ]
    if fmt == "jsonl":
        text = "".join(json.dumps(rec, ensure_ascii=False) + "\n" for rec in records)
    elif fmt == "csv":
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=FIELDS)
        writer.writeheader()
        for rec in records:
            cells = {k: csv_safe(v) if isinstance(v, str) else v for k, v in rec.items()}  # never a formula
            writer.writerow({**cells, "covered": "true" if rec["covered"] else "false", "evidence": " ".join(map(str, rec["evidence"]))})
        text = buf.getvalue()
    else:
        raise ValueError(f"unknown label format {fmt!r} (csv or jsonl)")
    write_output(path, text)
    return len(records)


def _bool(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (str, int)) and not (isinstance(value, str) and len(value) > 20):
        text = str(value).strip().lower()
        if text in ("true", "1", "yes", "y", "covered"):
            return True
        if text in ("false", "0", "no", "n", "not covered", "uncovered"):
            return False
    raise LabelFileError(f"{where}: covered: expected true or false, got {short(value)}")


def _index(value: Any, where: str, field: str) -> int:
    try:
        return whole_number(value, "", field, high=MAX_INDEX)
    except InputFileError as exc:
        raise LabelFileError(f"{where}: {field}: {exc.message}") from None


def _evidence(value: Any, where: str) -> list[int]:
    if value in (None, ""):
        return []
    if isinstance(value, list):
        items = value
    elif isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                items = parse_json(text, "", field="evidence")
            except InputFileError as exc:
                raise LabelFileError(f"{where}: evidence: {exc.message}") from None
            if not isinstance(items, list):
                raise LabelFileError(f"{where}: evidence: expected a list of predicted-triple indices")
        else:
            items = text.replace(",", " ").split()
    else:
        raise LabelFileError(f"{where}: evidence: expected predicted-triple indices, got {short(value)}")
    if len(items) > MAX_INDEX:
        raise LabelFileError(f"{where}: evidence: too many indices ({len(items)})")
    return [_index(x, where, "evidence") for x in items]


def _text(value: Any, where: str, field: str, limit: int) -> str:
    if isinstance(value, (dict, list, bool)) or value is None:
        raise LabelFileError(f"{where}: {field}: expected text, got {short(value)}")
    text = str(value)
    if len(text) > limit:
        raise LabelFileError(f"{where}: {field}: longer than {limit} characters")
    return text


def _parse_record(rec: dict[str, Any], where: str) -> dict[str, Any]:
    missing = [k for k in ("run_id", "gt_index", "annotator", "covered") if rec.get(k) in (None, "")]
    if missing:
        raise LabelFileError(f"{where}: missing {', '.join(missing)}")
    created = None
    if rec.get("created_at"):
        try:
            created = datetime.fromisoformat(_text(rec["created_at"], where, "created_at", 64))
        except ValueError:
            raise LabelFileError(f"{where}: created_at: not an ISO date-time: {short(rec['created_at'])}") from None
    note = rec.get("note")
    return {
        "run_id": _text(rec["run_id"], where, "run_id", 200),
        "gt_index": _index(rec["gt_index"], where, "gt_index"),
        "annotator": _text(rec["annotator"], where, "annotator", 200),
        "covered": _bool(rec["covered"], where),
        "evidence": _evidence(rec.get("evidence"), where),
        "note": "" if note in (None, "") else _text(note, where, "note", 100_000),
        "created_at": created,
    }


def read_label_file(path: str | Path) -> list[dict[str, Any]]:
    """Every label of a CSV or JSONL file, checked (``LabelFileError`` names the file and line)."""
    path = Path(path)
    try:
        text = read_text(path)
        if path.suffix.lower() == ".csv":
            rows = [
                (n, {k: csv_plain(v) if isinstance(v, str) else v for k, v in rec.items()})
                for n, rec in enumerate(csv.DictReader(io.StringIO(text, newline=""), strict=True), start=2)
            ]
        else:
            rows = parse_jsonl(text, path)
    except InputFileError as exc:
        raise LabelFileError(str(exc)) from None
    except csv.Error as exc:
        raise LabelFileError(f"{path}: not a readable CSV: {str(exc)[:120]}") from None
    out = []
    for n, rec in rows:
        if not isinstance(rec, dict):
            raise LabelFileError(f"{path}:{n}: expected a JSON object")
        out.append(_parse_record(rec, f"{path}:{n}"))
    if not out:
        raise LabelFileError(f"{path}: no labels in the file")
    return out


def import_labels(store: Store, path: str | Path) -> int:
    """Read and check every row first, then store them all in one transaction: a bad row, an
    unknown run or a failing write stores nothing."""
    return store_labels(store, read_label_file(path), path)


def store_labels(store: Store, records: list[dict[str, Any]], path: str | Path) -> int:
    """Store labels read by ``read_label_file`` (from ``path``) in one transaction, once every
    run they name is known to be in the database."""
    for rec in records:
        try:
            store.get_run(rec["run_id"])
        except RunNotFound:
            raise LabelFileError(f"{path}: run {short(rec['run_id'])} is not in this database") from None
    return store.put_labels(records)
