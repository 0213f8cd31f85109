"""A campaign's labels written out: one row per label, with whether the campaign was blind
(``blind``: its annotators saw no judge's verdict before labelling), the triple's text, the annotator,
the item's adjudication, its final human label and the step of the one rule that gave it
(``final_from``: ``adjudication``, ``majority``, or ``open tie`` with no final label;
``human_label``), and the adjudications the current one replaced
(how many, and each one's label, adjudicator, comment, campaign, time, and when and by whom it
was replaced, oldest first). JSONL or CSV, chosen by the file's suffix; in CSV the history is one
cell of JSON text. The file is written whole (to a temporary file renamed into place) or not at
all."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from .._files import csv_safe, write_text_atomic
from ..store import Store
from ..store.tables import AdjudicationHistoryRow, CampaignRow, LabelRow, PredLabelRow
from .campaigns import CampaignError, item_labels, item_texts

FIELDS = [
    "campaign", "blind", "run_id", "side", "index", "head", "relation", "tail", "annotator", "label", "evidence", "note",
    "labelled_at", "adjudicated_label", "adjudicator", "adjudication_comment", "adjudicated_at", "final_label",
    "final_from", "adjudication_replaced", "adjudication_history",
]


def _replaced(old: AdjudicationHistoryRow) -> dict[str, Any]:
    """One replaced adjudication as the export writes it."""
    return {
        "label": old.label, "adjudicator": old.adjudicator, "comment": old.comment, "campaign": old.campaign,
        "adjudicated_at": old.created_at.isoformat() if old.created_at else "",
        "replaced_at": old.replaced_at.isoformat() if old.replaced_at else "", "replaced_by": old.replaced_by,
    }


def export_rows(store: Store, campaign: CampaignRow) -> list[dict[str, Any]]:
    """One record per label of the campaign's items, in queue order then by annotator."""
    texts = {rid: item_texts(store, rid) for rid in campaign.run_ids()}
    rows_of: dict[tuple[str, str, int, str], LabelRow | PredLabelRow] = {}
    for rid in campaign.run_ids():
        for lab in store.labels(run_id=rid):
            rows_of[(rid, "coverage", lab.gt_index, lab.annotator)] = lab
        for plab in store.pred_labels(run_id=rid):
            rows_of[(rid, "validity", plab.pred_index, plab.annotator)] = plab
    out: list[dict[str, Any]] = []
    for entry in item_labels(store, campaign):
        it = entry.item
        side_texts = texts[it.run_id][it.side]
        triple = side_texts[it.index] if it.index < len(side_texts) else {}
        adj = entry.adjudication
        history = [_replaced(old) for old in entry.history]
        final, final_from = entry.final_from
        for name in sorted(entry.labels):
            row = rows_of[(it.run_id, it.side, it.index, name)]
            out.append({
                "campaign": campaign.name, "blind": campaign.blind, "run_id": it.run_id, "side": it.side, "index": it.index,
                "head": str(triple.get("head", "")), "relation": str(triple.get("relation", "")), "tail": str(triple.get("tail", "")),
                "annotator": name, "label": entry.labels[name], "evidence": json.loads(row.evidence_json or "[]"),
                "note": row.note, "labelled_at": row.created_at.isoformat() if row.created_at else "",
                "adjudicated_label": adj.label if adj else None, "adjudicator": adj.adjudicator if adj else "",
                "adjudication_comment": adj.comment if adj else "",
                "adjudicated_at": adj.created_at.isoformat() if adj and adj.created_at else "",
                "final_label": final, "final_from": final_from,
                "adjudication_replaced": entry.replaced, "adjudication_history": history,
            })
    return out


def _cell(key: str, value: Any) -> str:
    if key == "adjudication_history":  # a list of records: JSON text in one cell
        return csv_safe(json.dumps(value, ensure_ascii=False)) if value else ""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return csv_safe(value) if isinstance(value, str) else str(value)  # text is never a formula


def export_campaign(store: Store, campaign: CampaignRow, path: str | Path) -> int:
    """Write the campaign's labels to ``path`` (``.jsonl`` or ``.csv``); returns how many."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".csv"):
        raise CampaignError(f"{path}: the export file must end in .jsonl or .csv, not {suffix or '(no suffix)'!r}")
    if path.is_dir():
        raise CampaignError(f"{path} is a folder; give a file name ending in .jsonl or .csv")
    rows = export_rows(store, campaign)
    if suffix == ".jsonl":
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    else:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        for r in rows:
            writer.writerow({k: _cell(k, v) for k, v in r.items()})
        text = buf.getvalue()
    try:
        write_text_atomic(path, text)
    except OSError as exc:
        raise CampaignError(f"{path}: cannot write the export: {exc.strerror or exc}") from None
    return len(rows)
