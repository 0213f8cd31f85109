"""Vote files in and out (``vibesearch votes import`` / ``votes export``; docs/votes.md).

* JSONL: one vote a line, ``{"run_a", "run_b", "winner", "voter"}`` and optionally ``reason``,
  ``attention`` (the side an attention item expects), ``campaign``, ``created_at`` (ISO). Each
  value has its JSON type (text); the voter's name must already be in its one form.
* CSV: the same columns, a header first; every cell text; a cell the export guarded against
  spreadsheet formulas (``_files.csv_safe``) reads back as it was. The voter's name is taken as
  written too (a padded one is refused, as in JSONL).
* The export adds ``task_id``, ``config_a`` and ``config_b`` (the configurations' labels, as the
  leaderboard names them: ``scoring.aggregate.config_key``); the import ignores those three and
  refuses any other unknown key or column.
* Arena's battle format (export only): a JSON list of battles ``{"model_a", "model_b", "winner"}``
  as Chatbot Arena writes them (``winner`` ``model_a``, ``model_b``, ``tie`` or
  ``tie (bothbad)``), the models being the configurations' labels, with ``judge`` (the voter),
  ``question_id`` (the task), ``tstamp`` and the runs.

An import is all or nothing: every row is read and checked (``labels.votes.check_votes``: a known
run, one task, not a run against itself, a known winner, a voter in its one form, no vote twice —
in the file or already stored) before any is stored, in one transaction. The first bad row is
refused with the file and its line (``file:N``; a CSV's header is line 1).
"""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from .._files import InputFileError, csv_safe, parse_jsonl, read_text, short
from ..scoring.aggregate import config_key
from ..store import Store, VoteRow
from ._csv_rows import csv_rows
from .votes import MAX_REASON_CHARS, VoteError, check_votes, voter_name, winner_of

ExportFormat = Literal["jsonl", "csv", "arena"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("jsonl", "csv", "arena")
FIELDS = ["run_a", "run_b", "winner", "voter", "reason", "attention", "campaign", "created_at"]
EXPORT_ONLY = ["task_id", "config_a", "config_b"]
REQUIRED = ("run_a", "run_b", "winner", "voter")
ARENA_WINNER = {"a": "model_a", "b": "model_b", "tie": "tie", "both_bad": "tie (bothbad)"}


def _text(rec: dict[str, Any], key: str, limit: int) -> str | None:
    value = rec.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise VoteError(f"{key}: expected text, got {short(value)}")
    if "\x00" in value:
        raise VoteError(f"{key}: holds a NUL character (\\u0000), which cannot be stored")
    if len(value) > limit:
        raise VoteError(f"{key}: longer than {limit} characters")
    return value


def _vote(rec: Any) -> dict[str, Any]:
    """One row as a vote's fields (not yet checked against the store)."""
    if not isinstance(rec, dict):
        raise VoteError("expected a JSON object")
    unknown = [k for k in rec if k not in FIELDS and k not in EXPORT_ONLY]
    if unknown:
        raise VoteError(f"{short(str(unknown[0]), 40)}: not a vote field (the fields are {', '.join(FIELDS)})")
    missing = [k for k in REQUIRED if rec.get(k) is None or (rec.get(k) == "" and k != "voter")]
    if missing:
        raise VoteError(f"{missing[0]}: missing" + (f" (and {', '.join(missing[1:])})" if missing[1:] else ""))
    out: dict[str, Any] = {"run_a": _text(rec, "run_a", 200), "run_b": _text(rec, "run_b", 200),
                           "winner": winner_of(rec["winner"]), "voter": voter_name(rec["voter"]),
                           "reason": _text(rec, "reason", MAX_REASON_CHARS) or "", "campaign": _text(rec, "campaign", 200)}
    attention = rec.get("attention")
    out["attention"] = None if attention in (None, "") else winner_of(attention)
    stamp = _text(rec, "created_at", 64)
    if stamp is not None:
        try:
            out["created_at"] = datetime.fromisoformat(stamp)
        except ValueError:
            raise VoteError(f"created_at: not an ISO date-time: {short(stamp)}") from None
    return out


def read_vote_file(path: str | Path) -> list[dict[str, Any]]:
    """Every vote of a JSONL or CSV file (by its suffix), each row read on its own (``VoteError``
    names the file and line); each vote carries ``line``, the line it came from."""
    path = Path(path)
    try:
        text = read_text(path)
        rows = (csv_rows(text, path, columns=FIELDS + EXPORT_ONLY, required=REQUIRED, noun="vote", error=VoteError)
                if path.suffix.lower() == ".csv" else parse_jsonl(text, path))
    except InputFileError as exc:
        raise VoteError(str(exc)) from None
    out = []
    for n, rec in rows:
        try:
            out.append({**_vote(rec), "line": n})
        except VoteError as exc:
            raise VoteError(f"{path}:{n}: {exc}") from None
    if not out:
        raise VoteError(f"{path}: no votes in the file")
    return out


def import_votes(store: Store, path: str | Path) -> int:
    """Read, check and store every vote of a file, all or none; returns how many were stored."""
    votes = read_vote_file(path)
    rows = check_votes(store, votes, lambda v: f"{path}:{v['line']}")
    return store.add_votes(rows)


def _records(store: Store, votes: list[VoteRow]) -> list[dict[str, Any]]:
    runs = {rid: store.get_run(rid) for rid in sorted({v.run_a for v in votes} | {v.run_b for v in votes})}
    return [{"run_a": v.run_a, "run_b": v.run_b, "winner": v.winner, "voter": v.voter, "reason": v.reason,
             "attention": v.attention, "campaign": v.campaign, "created_at": v.created_at.isoformat() if v.created_at else "",
             "task_id": runs[v.run_a].task_id, "config_a": config_key(runs[v.run_a]), "config_b": config_key(runs[v.run_b])}
            for v in votes]


def export_votes(store: Store, fmt: ExportFormat, *, campaign: str | None = None) -> str:
    """Every stored vote (of one campaign) as the text of a JSONL, CSV or Arena battle file."""
    records = _records(store, store.votes(campaign=campaign))
    if fmt == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=FIELDS + EXPORT_ONLY, lineterminator="\n")
        writer.writeheader()
        for r in records:
            writer.writerow({k: csv_safe(v) if isinstance(v, str) else "" if v is None else v for k, v in r.items()})
        return buf.getvalue()
    if fmt == "arena":
        battles = [{"model_a": r["config_a"], "model_b": r["config_b"], "winner": ARENA_WINNER[r["winner"]],
                    "judge": r["voter"], "question_id": r["task_id"], "anony": True,
                    "tstamp": datetime.fromisoformat(r["created_at"]).timestamp() if r["created_at"] else None,
                    "run_a": r["run_a"], "run_b": r["run_b"]} for r in records]
        return json.dumps(battles, ensure_ascii=False, indent=1) + "\n"
    raise ValueError(f"unknown vote format {fmt!r} ({', '.join(EXPORT_FORMATS)})")
