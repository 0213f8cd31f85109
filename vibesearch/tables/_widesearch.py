"""WideSearch's published layout, read as it is: ``widesearch.jsonl`` + ``widesearch_gold/<id>.csv``.

A record holds ``instance_id``, ``query``, ``language`` and ``evaluation`` - a JSON-encoded string
(a plain object is accepted too) with ``unique_columns``, ``required`` and ``eval_pipeline``. Each
pipeline entry's first metric decides our column rule:

| WideSearch                                | here                                   |
|-------------------------------------------|----------------------------------------|
| ``number_near`` (criterion = tolerance)    | ``number`` with that tolerance         |
| ``date_near``                             | ``date``, 31-day window                |
| ``url_match``                             | ``url``                                |
| ``in_match``                              | ``contains``                           |
| ``llm_judge`` (criterion = grading rule)  | ``llm`` with that rule                 |
| ``exact_match`` after ``extract_number``  | ``number``, tolerance 0                |
| ``exact_match`` after ``norm_date``       | ``date``, window 0                     |
| ``exact_match`` otherwise                 | ``exact``                              |

A required column without a pipeline entry is checked with ``exact`` (key columns need none:
their cells count as right once rows are aligned). Column display names come from the gold CSV's
headers, which normalise to the required names; extra gold columns are ignored. A repeated key
in the gold CSV is a warning (the first row is kept), as WideSearch drops such rows too.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .._files import InputFileError, is_regular_file, parse_json, read_text, short
from ..tasks import TaskProblem
from ..tasks import ID_PATTERN, MAX_ID_CHARS
from ..tasks.loader import problems_from_validation
from ._gold_csv import read_gold_csv
from ._normalise import norm_header
from .models import TableColumn, TableTask

PREPROCESSORS = {"norm_str", "extract_number", "norm_date"}
METRICS = {"exact_match", "number_near", "date_near", "url_match", "in_match", "llm_judge"}
_ID = re.compile(ID_PATTERN)
DEFAULT_LLM_RULE = "Right when the answer states the same thing as the reference value (wording may differ)."


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _column_rule(name: str, item: Any, field: str, file: str, iid: str, problems: list[TaskProblem]) -> dict[str, Any] | None:
    """Our column fields (metric, tolerance, window_days, rule) for one pipeline entry."""
    if not isinstance(item, dict):
        problems.append(TaskProblem(file, field, "expected an object with 'preprocess', 'metric', 'criterion'", iid))
        return None
    pre = _as_list(item.get("preprocess"))
    metrics = _as_list(item.get("metric"))
    bad = [p for p in pre if p not in PREPROCESSORS]
    if bad:
        problems.append(TaskProblem(file, field + ".preprocess", f"unknown preprocessor(s) {bad}; known: {sorted(PREPROCESSORS)}", iid))
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        problems.append(TaskProblem(file, field + ".metric", f"unknown metric(s) {unknown}; known: {sorted(METRICS)}", iid))
    if not metrics:
        problems.append(TaskProblem(file, field + ".metric", "no metric given", iid))
    if bad or unknown or not metrics:
        return None
    if len(metrics) > 1:
        problems.append(TaskProblem(file, field + ".metric", f"several metrics {metrics}; the first ({metrics[0]}) is used", iid, warning=True))
    metric, criterion = metrics[0], item.get("criterion")
    if metric == "number_near":
        try:
            tol = float(criterion) if criterion is not None else 0.0
        except (TypeError, ValueError):
            problems.append(TaskProblem(file, field + ".criterion", f"number_near needs a numeric tolerance, got {criterion!r}", iid))
            return None
        if tol < 0:
            problems.append(TaskProblem(file, field + ".criterion", "the tolerance must not be negative", iid))
            return None
        return {"metric": "number", "tolerance": tol}
    if metric == "date_near":
        return {"metric": "date", "window_days": 31}
    if metric == "url_match":
        return {"metric": "url"}
    if metric == "in_match":
        return {"metric": "contains"}
    if metric == "llm_judge":
        rule = criterion.strip() if isinstance(criterion, str) and criterion.strip() else DEFAULT_LLM_RULE
        return {"metric": "llm", "rule": rule}
    if "extract_number" in pre:
        return {"metric": "number", "tolerance": 0.0}
    if "norm_date" in pre:
        return {"metric": "date", "window_days": 0}
    return {"metric": "exact"}


def _str_list(value: Any, field: str, file: str, iid: str, problems: list[TaskProblem]) -> list[str] | None:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        problems.append(TaskProblem(file, field, "expected a non-empty list of column names", iid))
        return None
    return [norm_header(v) for v in value]


def widesearch_record_to_task(
    record: dict[str, Any], file: str, base_dir: Path, *, source_file: str | None = None
) -> tuple[TableTask | None, list[TaskProblem]]:
    """One WideSearch record as a table task (``file`` names it in problems, ``source_file`` is
    the task file it is read from, for the task)."""
    problems: list[TaskProblem] = []
    iid = record.get("instance_id")
    if not isinstance(iid, str) or not iid.strip():
        return None, [TaskProblem(file, "instance_id", "expected a non-empty string")]
    if len(iid) > MAX_ID_CHARS or not _ID.match(iid):
        # the id names the gold file: letters, digits, '_', '.', '-' only
        return None, [TaskProblem(file, "instance_id", f"expected an id of letters, digits, '_', '.' and '-' of at most {MAX_ID_CHARS} characters, got {short(iid)}")]
    ev = record.get("evaluation")
    if isinstance(ev, str):
        try:
            ev = parse_json(ev, file, field="evaluation")
        except InputFileError as exc:
            return None, [TaskProblem(file, "evaluation", f"not valid JSON inside the string: {exc.message}", iid)]
    if not isinstance(ev, dict):
        return None, [TaskProblem(file, "evaluation", "expected a JSON-encoded object", iid)]
    unique = _str_list(ev.get("unique_columns"), "evaluation.unique_columns", file, iid, problems)
    required = _str_list(ev.get("required"), "evaluation.required", file, iid, problems)
    pipeline = ev.get("eval_pipeline") or {}
    if not isinstance(pipeline, dict):
        problems.append(TaskProblem(file, "evaluation.eval_pipeline", "expected an object (column -> pipeline)", iid))
    if unique is None or required is None or not isinstance(pipeline, dict):
        return None, problems
    not_required = [u for u in unique if u not in required]
    if not_required:
        return None, problems + [TaskProblem(file, "evaluation.unique_columns", f"{not_required} not in 'required'", iid)]
    pipeline = {norm_header(k): v for k, v in pipeline.items()}
    strays = [k for k in pipeline if k not in required]
    if strays:
        problems.append(TaskProblem(file, "evaluation.eval_pipeline", f"entries for columns not required: {strays}; ignored", iid, warning=True))

    gold_path = base_dir / "widesearch_gold" / f"{iid}.csv"
    if not is_regular_file(gold_path):
        return None, problems + [TaskProblem(file, "gold", f"no gold table: {gold_path} does not exist", iid)]
    try:
        header = next(iter(read_text(gold_path).splitlines()), "")
    except InputFileError as exc:
        return None, problems + [TaskProblem(str(gold_path), exc.field, exc.message, iid)]
    display = {norm_header(h): h.strip() for h in next(csv.reader([header]), [])}
    columns: list[dict[str, Any]] = []
    for name in required:
        if name not in display:
            problems.append(TaskProblem(str(gold_path), "header", f"no column normalising to {short(name)} (the header has {len(display)} columns)", iid))
            continue
        spec: dict[str, Any] = {"name": display[name], "metric": "exact"}
        if name in pipeline:
            rule = _column_rule(display[name], pipeline[name], f"evaluation.eval_pipeline.{name}", file, iid, problems)
            if rule is None:
                continue
            spec.update(rule)
        elif name not in unique:
            problems.append(TaskProblem(file, "evaluation.eval_pipeline", f"no entry for column {name!r}; exact match is used", iid, warning=True))
        columns.append(spec)
    if any(not p.warning for p in problems):
        return None, problems
    try:
        cols = [TableColumn.model_validate(c) for c in columns]
    except ValidationError as exc:
        return None, problems + problems_from_validation(file, exc, iid, root=TableColumn, prefix="evaluation")
    key = [display[u] for u in unique]
    rows, csv_problems = read_gold_csv(gold_path, cols, key, task_id=iid, field="gold", duplicates_are_errors=False)
    problems.extend(csv_problems)
    if rows is None or any(not p.warning for p in problems):
        return None, problems
    data = {
        "id": iid,
        "language": record.get("language"),
        "query": record.get("query"),
        "columns": [c.model_dump() for c in cols],
        "primary_key": key,
        "gold": f"widesearch_gold/{iid}.csv",
        "rows": rows,
        "origin": "widesearch",
        "source_file": source_file,
    }
    try:
        tt = TableTask.model_validate(data)
    except ValidationError as exc:
        return None, problems + problems_from_validation(file, exc, iid, root=TableTask)
    return tt, problems


def parse_widesearch_records(path: Path, records: list[Any]) -> tuple[list[TableTask], list[TaskProblem]]:
    """Every task of a ``widesearch.jsonl``; a bad record is reported and skipped, the rest load."""
    tasks: list[TableTask] = []
    problems: list[TaskProblem] = []
    for i, record in enumerate(records, start=1):
        file = f"{path}:{i}" if path.suffix == ".jsonl" else str(path)
        if not isinstance(record, dict):
            problems.append(TaskProblem(file, "", "expected a JSON object"))
            continue
        tt, probs = widesearch_record_to_task(record, file, path.parent, source_file=str(path))
        problems.extend(probs)
        if tt is not None:
            tasks.append(tt)
    return tasks, problems
