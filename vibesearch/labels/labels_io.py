"""Human labels to and from files: CSV or JSONL, one label per row.

Columns / keys: ``run_id, gt_index, annotator, covered, evidence, note, created_at`` and, on
export, the ground-truth triple's text ``head, relation, tail`` and the item's final human label
``final_label`` with the step of the one rule that gave it, ``final_from`` (``adjudication``,
``majority``, or ``open tie``, whose ``final_label`` is empty; ``human_label.item_finals``) — all
five ignored on import; any other column or key is refused (a misspelt one would otherwise be
dropped unseen). Each row is one annotator's label, so a file read back stores every person's
labels, and a reader who wants one label per item takes ``final_label``.

* CSV: every cell is text: ``covered`` is ``true``/``false`` (also 1/0, yes/no), ``evidence`` the
  predicted indices separated by spaces (or a JSON list); each row has exactly the header's cells.
* JSONL: each value has its JSON type: ``covered`` a boolean (``"true"`` is refused),
  ``gt_index`` a whole number, ``evidence`` a list of whole numbers, the rest text.
* The annotator's name is normalised by ``vibesearch._names.annotator_name`` (surrounding and
  repeated whitespace dropped; empty, multi-line and control characters refused) in a CSV cell; a
  JSONL value must already be in that form (``" ann "`` is refused there); no text may hold a NUL
  character.
* One file labels an item (run, ground-truth triple, annotator) once: a row repeating an earlier
  row is dropped, one contradicting it is refused.
* On import, ``gt_index`` must be a triple of the run's ground truth and every ``evidence`` index
  one of the run's predicted triples (its latest graph).

Importing replaces the label of the same (run, triple, annotator). Every row is checked before
anything is written, and all of them are written in one transaction
(``store._labels_bulk.put_labels_bulk``): a bad row stores nothing, and the error names the file,
the row (``file:N``, N counting the CSV header as row 1, or the JSONL line) and the field.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Collection, Literal

from .._files import csv_safe, write_output, InputFileError, parse_json, parse_jsonl, read_text, short, whole_number
from .._gc import collector_paused
from .._names import PersonNameError, annotator_name
from ..store import RunNotFound, Store
from ..scoring.stored import stored_ground_truth, stored_prediction
from ..store import put_labels_bulk
from ._csv_rows import csv_rows
from .human_label import item_finals

FIELDS = ["run_id", "gt_index", "annotator", "covered", "evidence", "note", "created_at", "head", "relation", "tail", "final_label", "final_from"]
MAX_INDEX = 1_000_000  # ground-truth and predicted triple indices
REQUIRED = ("run_id", "gt_index", "annotator", "covered")
_TRUE = ("true", "1", "yes", "y", "covered")
_FALSE = ("false", "0", "no", "n", "not covered", "uncovered")


class LabelFileError(ValueError):
    pass


def export_labels(
    store: Store, path: str | Path, fmt: Literal["csv", "jsonl"], run_id: str | None = None, *, run_ids: Collection[str] | None = None
) -> int:
    """Write the coverage labels (of ``run_id``, else of every run, or only of ``run_ids`` when
    given) with the triple text and each item's final label; returns how many were written."""
    rows = [r for r in store.labels(run_id=run_id) if run_ids is None or r.run_id in run_ids]
    finals = item_finals(store, "coverage", sorted({r.run_id for r in rows}))
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
            "final_label": finals[(r.run_id, r.gt_index)].label,
            "final_from": finals[(r.run_id, r.gt_index)].source,
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
            final = "" if rec["final_label"] is None else "true" if rec["final_label"] else "false"
            writer.writerow({**cells, "covered": "true" if rec["covered"] else "false", "evidence": " ".join(map(str, rec["evidence"])),
                             "final_label": final})
        text = buf.getvalue()
    else:
        raise ValueError(f"unknown label format {fmt!r} (csv or jsonl)")
    write_output(path, text)
    return len(records)


def _bool(value: Any, where: str, typed: bool) -> bool:
    if isinstance(value, bool):
        return value
    if typed:  # JSONL: a JSON boolean, never the text of one
        raise LabelFileError(f"{where}: covered: expected true or false (a JSON boolean, without quotes), got {short(value)}")
    if isinstance(value, str) and len(value) <= 20:
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    raise LabelFileError(f"{where}: covered: expected true or false, got {short(value)}")


def _index(value: Any, where: str, field: str, typed: bool) -> int:
    # the common case first (an import may have hundreds of thousands of rows)
    if typed and type(value) is int and 0 <= value <= MAX_INDEX:
        return value
    if not typed and isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 7 and int(value) <= MAX_INDEX:
        return int(value)
    if typed and (isinstance(value, bool) or not isinstance(value, int)):
        raise LabelFileError(f"{where}: {field}: expected a whole number, got {short(value)}")
    try:
        return whole_number(value, "", field, high=MAX_INDEX)
    except InputFileError as exc:
        raise LabelFileError(f"{where}: {field}: {exc.message}") from None


def _evidence(value: Any, where: str, typed: bool) -> list[int]:
    if value is None or (value == "" and not typed):
        return []
    if isinstance(value, list):
        items = value
    elif isinstance(value, str) and not typed:
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
        raise LabelFileError(f"{where}: evidence: expected a list of predicted-triple indices, got {short(value)}")
    if len(items) > MAX_INDEX:
        raise LabelFileError(f"{where}: evidence: too many indices ({len(items)})")
    return [_index(x, where, "evidence", typed) for x in items]


def _text(value: Any, where: str, field: str, limit: int, typed: bool) -> str:
    if not isinstance(value, str) and (typed or isinstance(value, (dict, list, bool)) or value is None):
        raise LabelFileError(f"{where}: {field}: expected text, got {short(value)}")
    text = str(value)
    if "\x00" in text:
        raise LabelFileError(f"{where}: {field}: holds a NUL character (\\u0000), which cannot be stored")
    if len(text) > limit:
        raise LabelFileError(f"{where}: {field}: longer than {limit} characters")
    return text


def _name(value: Any, where: str, typed: bool) -> str:
    """The annotator's name in its one form. A CSV cell (a spreadsheet pads and re-spaces text) is
    normalised; a JSONL value, typed by a program, must already be in that form."""
    try:
        name = annotator_name(value)
    except PersonNameError as exc:
        raise LabelFileError(f"{where}: annotator: {exc}") from None
    if typed and name != value:
        raise LabelFileError(f"{where}: annotator: {short(value)} is not a name in its one form (write {short(name)}: "
                             "no surrounding or repeated whitespace, Unicode NFC)")
    return name


def _parse_record(rec: dict[str, Any], where: str, typed: bool) -> dict[str, Any]:
    """One row as a label; ``typed``: a JSONL row (each value its JSON type), else a CSV row (text,
    its columns already checked against the header)."""
    unknown = [k for k in rec if k not in FIELDS] if typed else []
    if unknown:
        raise LabelFileError(f"{where}: {short(str(unknown[0]), 40)}: not a label field (the fields are {', '.join(FIELDS)})")
    missing = [k for k in REQUIRED if rec.get(k) in (None, "")]
    if missing:
        raise LabelFileError(f"{where}: {missing[0]}: missing" + (f" (and {', '.join(missing[1:])})" if missing[1:] else ""))
    for key in ("head", "relation", "tail"):  # the export's copy of the triple: ignored, but never a NUL
        if isinstance(rec.get(key), str) and "\x00" in rec[key]:
            raise LabelFileError(f"{where}: {key}: holds a NUL character (\\u0000), which cannot be stored")
    created = None
    if rec.get("created_at"):
        stamp = _text(rec["created_at"], where, "created_at", 64, typed)
        try:
            created = datetime.fromisoformat(stamp)
        except ValueError:
            raise LabelFileError(f"{where}: created_at: not an ISO date-time: {short(stamp)}") from None
        if created.utcoffset() is None:  # a local time of no stated zone: which moment it was is a guess
            raise LabelFileError(f"{where}: created_at: {short(stamp)} names no time zone (write it as the export does, e.g. 2026-01-31T09:30:00+00:00)")
        try:  # stored in UTC: a moment at the calendar's edge may have none there
            created = created.astimezone(timezone.utc)
        except OverflowError:
            raise LabelFileError(f"{where}: created_at: {short(stamp)} is out of range (years 1 to 9999 in UTC)") from None
    note = rec.get("note")
    return {
        "run_id": _text(rec["run_id"], where, "run_id", 200, typed),
        "gt_index": _index(rec["gt_index"], where, "gt_index", typed),
        "annotator": _name(rec["annotator"], where, typed),
        "covered": _bool(rec["covered"], where, typed),
        "evidence": _evidence(rec.get("evidence"), where, typed),
        "note": "" if note in (None, "") else _text(note, where, "note", 100_000, typed),
        "created_at": created,
    }


def _csv_rows(text: str, path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The rows of a CSV label file as (row number, header -> cell); the header counts as row 1."""
    return csv_rows(text, path, columns=FIELDS, required=REQUIRED, noun="label", error=LabelFileError)


def _same(label: dict[str, Any], key: str) -> Any:
    """A label's value as two rows are compared (evidence as a set of indices)."""
    return sorted(set(label[key])) if key == "evidence" else label[key]


def read_label_file(path: str | Path) -> list[dict[str, Any]]:
    """Every label of a CSV or JSONL file, checked (``LabelFileError`` names the file, row and
    field). Each label has ``put_labels``' keys and ``row``, the row it came from."""
    path = Path(path)
    # hundreds of thousands of small dicts and lists, none of them in a cycle: the collector's
    # searches would walk them again and again (a third of a large import's time), freeing nothing
    with collector_paused():
        return _read_labels(path)


def _read_labels(path: Path) -> list[dict[str, Any]]:
    typed = path.suffix.lower() != ".csv"
    try:
        text = read_text(path)
        rows = parse_jsonl(text, path) if typed else _csv_rows(text, path)
    except InputFileError as exc:
        raise LabelFileError(str(exc)) from None
    out: list[dict[str, Any]] = []
    first: dict[tuple[str, int, str], dict[str, Any]] = {}
    for n, rec in rows:
        where = f"{path}:{n}"
        if not isinstance(rec, dict):
            raise LabelFileError(f"{where}: expected a JSON object")
        label = {**_parse_record(rec, where, typed), "row": n}
        key = (label["run_id"], label["gt_index"], label["annotator"])
        earlier = first.get(key)
        if earlier is None:
            first[key] = label
            out.append(label)
            continue
        differs = next((k for k in ("covered", "evidence", "note") if _same(label, k) != _same(earlier, k)), None)
        if differs is not None:
            raise LabelFileError(
                f"{where}: {differs}: contradicts {'line' if typed else 'row'} {earlier['row']}, which labels the same item "
                f"(run {short(key[0])}, gt_index {key[1]}, annotator {short(key[2])})"
            )
        # the same label again (a file pasted twice): kept once
    if not out:
        raise LabelFileError(f"{path}: no labels in the file")
    return out


def import_labels(store: Store, path: str | Path) -> int:
    """Read and check every row first, then store them all in one transaction: a bad row, an
    unknown run or a failing write stores nothing."""
    return store_labels(store, read_label_file(path), path)


def check_against_runs(store: Store, records: list[dict[str, Any]], path: str | Path) -> None:
    """Refuse (``LabelFileError``) a label of a run not in the database, a ``gt_index`` past the
    run's ground truth and an ``evidence`` index past its predicted triples. Each run is read once."""
    sizes: dict[str, tuple[int, int]] = {}
    for rec in records:
        rid = rec["run_id"]
        where = f"{path}:{rec['row']}" if "row" in rec else str(path)
        if rid not in sizes:
            try:
                store.get_run(rid)
            except RunNotFound:
                raise LabelFileError(f"{where}: run_id: run {short(rid)} is not in this database") from None
            sizes[rid] = (len(stored_ground_truth(store, rid)), len(stored_prediction(store, rid)[0]))
        n_gt, n_pred = sizes[rid]
        if rec["gt_index"] >= n_gt:
            has = f"has {n_gt} ground-truth triples (0 to {n_gt - 1})" if n_gt else "has no ground-truth triples"
            raise LabelFileError(f"{where}: gt_index: {rec['gt_index']} is past the run's ground truth: run {short(rid)} {has}")
        for e in rec.get("evidence") or []:
            if e >= n_pred:
                has = f"has {n_pred} predicted triples (0 to {n_pred - 1})" if n_pred else "has no predicted triples"
                raise LabelFileError(f"{where}: evidence: {e} is past the run's predicted triples: run {short(rid)} {has}")


def store_labels(store: Store, records: list[dict[str, Any]], path: str | Path) -> int:
    """Store labels read by ``read_label_file`` (from ``path``) in one transaction, once every
    label is known to point at a run in the database and at triples the run has."""
    check_against_runs(store, records, path)
    return put_labels_bulk(store, records)[0]
