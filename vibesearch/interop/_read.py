"""Reading official trajectory and final-extraction files, checked before anything is stored.

Everything a file holds is checked here — it is a regular UTF-8 JSON file within the size and
nesting limits, has no lone surrogate, its ``qid`` is a short id, its ``sample_idx`` a small whole
number, every turn has a known type and every tool call a name — so that an import that starts
writing never meets a bad value half-way.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .._files import InputFileError, check_tree, first_invalid, parse_json, read_json, short, whole_number
from ..tasks.models import MAX_ID_CHARS
from ._answer import is_cut

MAX_SAMPLE_IDX = 1_000_000


class ImportFileError(ValueError):
    pass


class Trajectory(BaseModel):
    path: str
    header: dict[str, Any]
    turns: list[dict[str, Any]]
    complete: bool = True  # False: an excerpt, turns are missing
    notes: list[str] = Field(default_factory=list)
    excerpt_info: dict[str, Any] = Field(default_factory=dict)  # an excerpt's own note and source

    @property
    def qid(self) -> str:
        return str(self.header.get("qid"))


def _read(path: Path) -> Any:
    try:
        return read_json(path)
    except InputFileError as exc:
        raise ImportFileError(str(exc)) from None


def _turns_from(value: Any, path: Path, field: str) -> list[dict[str, Any]]:
    if isinstance(value, str):
        try:
            value = parse_json(value, path, field=field)
        except InputFileError as exc:
            if "invalid JSON" not in exc.message:
                raise ImportFileError(str(exc)) from None
            try:
                value = ast.literal_eval(value)  # a Python repr of the list
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as err:
                raise ImportFileError(f"{path}: {field}: neither JSON nor a Python literal ({type(err).__name__})") from None
            try:
                check_tree(value, path, field=field)
            except InputFileError as err:
                raise ImportFileError(str(err)) from None
    if not isinstance(value, list):
        raise ImportFileError(f"{path}: {field}: expected a list of turns, got {type(value).__name__}")
    return value


def _check_turns(turns: list[Any], path: Path, field: str) -> None:
    for i, turn in enumerate(turns):
        where = f"{path}: {field}[{i}]"
        if not isinstance(turn, dict):
            raise ImportFileError(f"{where}: expected an object")
        if turn.get("type") not in ("user", "assistant"):
            raise ImportFileError(f"{where}.type: expected 'user' or 'assistant', got {short(turn.get('type'))}")
        calls = turn.get("tool_calls") or []
        if not isinstance(calls, list):
            raise ImportFileError(f"{where}.tool_calls: expected a list")
        for k, call in enumerate(calls):
            if not isinstance(call, dict) or not call.get("name"):
                raise ImportFileError(f"{where}.tool_calls[{k}]: expected an object with a 'name'")
            if not isinstance(call["name"], str) or len(call["name"]) > MAX_ID_CHARS:
                raise ImportFileError(f"{where}.tool_calls[{k}].name: expected a tool name, got {short(call['name'])}")


Share = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]


class FileMetrics(BaseModel):
    """The official judge's figures a trajectory's header carries: each a share from 0 to 1 (other
    keys are kept as they are)."""

    model_config = ConfigDict(extra="allow")
    node_precision: Share | None = None
    node_recall: Share | None = None
    node_f1: Share | None = None
    triplet_precision: Share | None = None
    triplet_recall: Share | None = None
    triplet_f1: Share | None = None


def _check_metrics(metrics: Any, path: Path) -> None:
    if metrics is None:
        return
    if not isinstance(metrics, dict):
        raise ImportFileError(f"{path}: metrics: expected an object of the official judge's figures, got {short(metrics)}")
    try:
        FileMetrics.model_validate(metrics, strict=False)
    except ValidationError as exc:
        field, message = first_invalid(exc)
        raise ImportFileError(f"{path}: metrics.{field}: {message}, got {short(metrics.get(field))}") from None


def _check_header(header: dict[str, Any], path: Path) -> None:
    qid = header.get("qid")
    if qid is None or qid == "":
        raise ImportFileError(f"{path}: qid: missing")
    if isinstance(qid, bool) or not isinstance(qid, (str, int)) or len(str(qid)) > MAX_ID_CHARS:
        raise ImportFileError(f"{path}: qid: expected an id of at most {MAX_ID_CHARS} characters, got {short(qid)}")
    if header.get("sample_idx") is not None:
        try:
            header["sample_idx"] = whole_number(header["sample_idx"], path, "sample_idx", high=MAX_SAMPLE_IDX)
        except InputFileError as exc:
            raise ImportFileError(str(exc)) from None
    _check_metrics(header.get("metrics"), path)


def read_trajectory(path: str | Path) -> Trajectory:
    path = Path(path)
    data = _read(path)
    if not isinstance(data, dict):
        raise ImportFileError(f"{path}: expected a JSON object (an official trajectory)")
    notes: list[str] = []
    complete = True
    excerpt_info: dict[str, Any] = {}
    if isinstance(data.get("turns"), list):
        header = {k: v for k, v in data.items() if k != "turns"}
        turns = data["turns"]
        field = "turns"
    elif isinstance(data.get("header"), dict):
        header = dict(data["header"])
        field = "first_turns_condensed"
        turns = _turns_from(data.get("first_turns_condensed", []), path, field)
        tail = data.get("last_turn_tail")
        if isinstance(tail, dict):
            turns = turns + [
                {
                    "type": tail.get("type", "assistant"),
                    "content": tail.get("content_tail_verbatim", tail.get("content", "")),
                    "tool_calls": tail.get("tool_calls") or [],
                    "_tail_of_last_turn": True,
                }
            ]
        complete = False
        excerpt_info = {k: data[k] for k in ("_helper_note", "source") if k in data}
        notes.append(
            f"excerpt: only {len(turns)} turns are in this file (the first turns"
            + (" and the tail of the last one" if isinstance(tail, dict) else "")
            + "); the turns in between were cut, so our counts cannot reproduce the file's stats"
        )
    elif "triplets" in data and "qid" in data:
        raise ImportFileError(
            f"{path}: this is a final-extraction file, not a trajectory: pass it with --extraction "
            "beside the trajectory of the same qid (nothing was imported)"
        )
    else:
        raise ImportFileError(
            f"{path}: not an official trajectory (expected a 'turns' list, or an excerpt's 'header'); nothing was imported"
        )
    _check_header(header, path)
    _check_turns(turns, path, field)
    if any(is_cut(str(t.get("content", ""))) or any(is_cut(str(c.get("result", ""))) for c in t.get("tool_calls") or []) for t in turns):
        notes.append("long texts in this file were cut (marked); every turn and tool call is kept as it is")
    return Trajectory(path=str(path), header=header, turns=turns, complete=complete, notes=notes, excerpt_info=excerpt_info)


def read_extraction(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    data = _read(path)
    if not isinstance(data, dict) or not isinstance(data.get("triplets"), list) or not data.get("qid"):
        raise ImportFileError(f"{path}: expected a final-extraction file {{qid, total, triplets: [...]}}")
    qid = data["qid"]
    if isinstance(qid, bool) or not isinstance(qid, (str, int)) or len(str(qid)) > MAX_ID_CHARS:
        raise ImportFileError(f"{path}: qid: expected an id of at most {MAX_ID_CHARS} characters, got {short(qid)}")
    return data
