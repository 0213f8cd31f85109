"""Scoring one answer against a table task (the WideSearch procedure).

1. Take the first table of the answer (``parse.py``). None: the task scores 0.
2. Headers are normalised (case, spaces, ``*`` ignored) and matched with the columns. Headers
   still unmatched are paired by the judge model when one is set; if any column is then missing
   or any header is left over, the task scores 0 and the reason names them.
3. Answer rows whose primary key repeats an earlier row are dropped (first kept, noted). A row
   with an empty key cell cannot be aligned and counts as an extra row.
4. Rows are aligned with gold rows on the normalised key; then key cells are compared by their
   column's rule (numbers, dates, ...); then the judge model pairs the remaining key spellings.
5. Each cell of an aligned row is checked by its column's rule (``cells.py``); key cells count as
   right; ``llm`` columns go to the judge model in one batched call per column (without a judge
   they fall back to a normalised exact/contains match, and the notes say so).
6. A row is right when all its cells are. Row precision = right rows / answer rows, recall =
   right rows / gold rows; item precision = right cells / (answer rows x columns), recall = right
   cells / (gold rows x columns). Success needs all four to be 1.

Nothing here raises on a malformed answer: every problem ends as a score with a stored reason.
"""

from __future__ import annotations

import asyncio
from typing import TypeVar

from .._aio import run_sync
from ..config import Settings, get_settings
from ..judges.registry import judge_for
from . import _judge
from ._normalise import norm_header, norm_text
from .cells import check_cell, exact_match, loose_match
from .models import CellVerdict, RowVerdict, TableScore, TableTask
from .parse import parse_answer_table

T = TypeVar("T")


def judge_model(judge: str | None) -> str | None:
    """The model string of a judge setting, or None for the offline judge."""
    if judge is None or not judge.strip() or judge_for(judge.strip()).is_offline:
        return None
    return judge.strip()


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def score_table(tt: TableTask, answer_text: str | None, *, judge: str = "offline", settings: Settings | None = None) -> TableScore:
    """Score one answer text (sync wrapper of ``score_table_async``)."""
    return run_sync(score_table_async(tt, answer_text, judge=judge, settings=settings))


def _missing_rows(tt: TableTask, gold_idx: list[int], score: TableScore) -> None:
    gold = tt.gold_rows()
    for gi in gold_idx:
        row = gold[gi]
        key = tt.row_key(row)
        score.rows.append(RowVerdict(key=key, gold_key=key, status="missing", note="not in the answer"))
        r = len(score.rows) - 1
        for col in tt.columns:
            score.cells.append(
                CellVerdict(row=r, row_key=key, column=col.name, predicted=None, gold=row[col.name], right=False, rule=col.metric)
            )


def _zero(score: TableScore, tt: TableTask, reason: str) -> TableScore:
    score.reason = reason + (("; " + "; ".join(score.notes)) if score.notes else "")
    _missing_rows(tt, list(range(len(tt.gold_rows()))), score)
    return score


async def _match_headers(
    tt: TableTask, headers: list[str], model: str | None, settings: Settings, notes: list[str]
) -> tuple[dict[int, str], str | None]:
    """Answer column index -> task column name, or a reason why the header does not match."""
    by_key = {c.key: c.name for c in tt.columns}
    assigned: dict[int, str] = {}
    for i, h in enumerate(headers):
        name = by_key.get(norm_header(h))
        if name is not None and name not in assigned.values():
            assigned[i] = name
    left = [i for i in range(len(headers)) if i not in assigned]
    missing = [c.name for c in tt.columns if c.name not in assigned.values()]
    if left and missing and model:
        written = [headers[i] for i in left]
        try:
            mapping = await _judge.map_headers(written, missing, model=model, settings=settings)
        except Exception as exc:  # noqa: BLE001 - a failed judge call leaves the header unmatched
            mapping = {}
            notes.append(f"the judge model could not map the headers ({type(exc).__name__})")
        for i in left:
            target = mapping.get(headers[i])
            if target is not None and target not in assigned.values():
                assigned[i] = target
                notes.append(f"header {headers[i]!r} mapped to column {target!r} by the judge model")
        left = [i for i in range(len(headers)) if i not in assigned]
        missing = [c.name for c in tt.columns if c.name not in assigned.values()]
    if left or missing:
        parts = []
        if missing:
            parts.append(f"missing column(s) {missing}")
        if left:
            parts.append(f"unexpected header(s) {[headers[i] for i in left]}")
        how = "" if model else " (no judge model is set to map differing headers)"
        return assigned, "the answer's header does not match the required columns: " + "; ".join(parts) + how
    return assigned, None


def _key_cells_agree(tt: TableTask, row: dict[str, str], gold: dict[str, str]) -> bool:
    for k in tt.primary_key:
        col = tt.column(k)
        ok, _ = check_cell(col, row[k], gold[k])
        if not ok:
            return False
    return True


async def score_table_async(
    tt: TableTask, answer_text: str | None, *, judge: str = "offline", settings: Settings | None = None
) -> TableScore:
    model = judge_model(judge)
    settings = settings or get_settings()
    gold = tt.gold_rows()
    score = TableScore(task_id=tt.id, judge=model or "offline", columns=tt.column_names, n_gold_rows=len(gold))
    notes = score.notes

    parsed = parse_answer_table(answer_text or "")
    if parsed is None:
        empty = not (answer_text or "").strip()
        return _zero(score, tt, "the answer is empty" if empty else "no Markdown table found in the answer")
    notes.extend(parsed.notes)
    assigned, problem = await _match_headers(tt, parsed.headers, model, settings, notes)
    if problem:
        return _zero(score, tt, problem)
    score.parsed = True

    # ---------------------------------------------------------------- answer rows
    answer: list[dict[str, str]] = [{name: cells[i] for i, name in assigned.items()} for cells in parsed.rows]
    counted: list[int] = []  # answer rows that count (duplicates dropped)
    seen: dict[tuple[str, ...], int] = {}
    row_of: dict[int, int] = {}  # answer index -> index in score.rows
    for ai, row in enumerate(answer):
        key = tuple(norm_text(row[k]) for k in tt.primary_key)
        display = tt.row_key(row)
        if not any(norm_text(v) for v in row.values()):
            notes.append(f"answer row {ai + 1} is empty and was skipped")
            continue
        if all(key) and key in seen:
            score.rows.append(RowVerdict(key=display, status="duplicate", note=f"repeats the key of answer row {seen[key] + 1}; dropped"))
            notes.append(f"answer row {ai + 1} repeats the key {display!r}; dropped (the first one is kept)")
            row_of[ai] = len(score.rows) - 1
            for col in tt.columns:
                score.cells.append(
                    CellVerdict(row=row_of[ai], row_key=display, column=col.name, predicted=row[col.name], gold=None,
                                right=False, rule=col.metric, note="duplicate row, not counted")
                )
            continue
        if all(key):
            seen[key] = ai
        else:
            notes.append(f"answer row {ai + 1} has an empty primary-key cell; it cannot be aligned")
        counted.append(ai)
        score.rows.append(RowVerdict(key=display, status="extra", note="" if all(key) else "empty primary-key cell"))
        row_of[ai] = len(score.rows) - 1

    # ---------------------------------------------------------------- alignment
    gold_by_key = {tuple(norm_text(g[k]) for k in tt.primary_key): gi for gi, g in enumerate(gold)}
    match: dict[int, int] = {}  # answer index -> gold index
    for ai in counted:
        key = tuple(norm_text(answer[ai][k]) for k in tt.primary_key)
        gi = gold_by_key.get(key)
        if all(key) and gi is not None:
            match[ai] = gi
    alignable = [ai for ai in counted if ai not in match and all(norm_text(answer[ai][k]) for k in tt.primary_key)]
    if any(tt.column(k).metric != "exact" for k in tt.primary_key):
        for ai in alignable:
            for gi in range(len(gold)):
                if gi not in match.values() and _key_cells_agree(tt, answer[ai], gold[gi]):
                    match[ai] = gi
                    score.rows[row_of[ai]].note = "aligned by the key columns' rules"
                    break
    alignable = [ai for ai in alignable if ai not in match]
    free_gold = [gi for gi in range(len(gold)) if gi not in match.values()]
    if model and alignable and free_gold:
        a_keys = {tt.row_key(answer[ai]): ai for ai in alignable}
        g_keys = {tt.row_key(gold[gi]): gi for gi in free_gold}
        try:
            mapping = await _judge.map_keys(list(a_keys), list(g_keys), model=model, settings=settings)
        except Exception as exc:  # noqa: BLE001 - a failed judge call leaves those rows unaligned
            mapping = {}
            notes.append(f"the judge model could not map row keys ({type(exc).__name__})")
        for a_key, g_key in mapping.items():
            ai, gi = a_keys[a_key], g_keys[g_key]
            match[ai] = gi
            score.rows[row_of[ai]].note = f"key mapped to {g_key!r} by the judge model"

    # ---------------------------------------------------------------- cells
    pending: dict[str, list[tuple[int, str, str]]] = {}
    for ai in counted:
        r = row_of[ai]
        rv = score.rows[r]
        gi = match.get(ai)
        if gi is None:
            rv.status = "extra"
            if not rv.note:
                rv.note = "not in the gold table"
            for col in tt.columns:
                score.cells.append(CellVerdict(row=r, row_key=rv.key, column=col.name, predicted=answer[ai][col.name], gold=None, right=False, rule=col.metric))
            continue
        rv.status = "matched"
        rv.gold_key = tt.row_key(gold[gi])
        for col in tt.columns:
            pred, ref = answer[ai][col.name], gold[gi][col.name]
            if col.name in tt.primary_key:
                right, note, rule = True, "", "key"
            elif col.metric == "llm":
                right, note, rule = False, "", "llm"
                ok, _ = exact_match(pred, ref)
                if ok or not norm_text(pred):
                    right, note = ok, ("equal after normalisation" if ok else "empty answer cell")
                elif model:
                    pending.setdefault(col.name, []).append((len(score.cells), pred, ref))
                else:
                    right, note = loose_match(pred, ref)
                    note = "offline fallback: " + note
            else:
                right, note = check_cell(col, pred, ref)
                rule = col.metric
            score.cells.append(CellVerdict(row=r, row_key=rv.key, column=col.name, predicted=pred, gold=ref, right=right, rule=rule, note=note))

    llm_cols = [c for c in tt.columns if c.metric == "llm" and c.name not in tt.primary_key]
    if llm_cols and not model and any(rv.status == "matched" for rv in score.rows):
        names = ", ".join(repr(c.name) for c in llm_cols)
        notes.append(f"column(s) {names} are graded by a judge model, but none is set: a normalised exact/contains match was used instead")
    if pending:
        await _grade_pending(tt, pending, score, model or "", settings)

    # ---------------------------------------------------------------- numbers
    _missing_rows(tt, [gi for gi in range(len(gold)) if gi not in match.values()], score)
    by_row: dict[int, list[CellVerdict]] = {}
    for cell in score.cells:
        by_row.setdefault(cell.row, []).append(cell)
    for rv_i, rv in enumerate(score.rows):
        if rv.status == "matched":
            cells = by_row.get(rv_i, [])
            rv.n_right = sum(c.right for c in cells)
            rv.right = rv.n_right == len(cells)
    n_cols = len(tt.columns)
    score.n_pred_rows = len(counted)
    score.n_right_rows = sum(1 for rv in score.rows if rv.status == "matched" and rv.right)
    score.n_right_cells = sum(rv.n_right for rv in score.rows if rv.status == "matched")
    p_rows, g_rows = score.n_pred_rows, score.n_gold_rows
    score.row_precision = score.n_right_rows / p_rows if p_rows else 0.0
    score.row_recall = score.n_right_rows / g_rows if g_rows else 0.0
    score.row_f1 = f1(score.row_precision, score.row_recall)
    score.item_precision = score.n_right_cells / (p_rows * n_cols) if p_rows else 0.0
    score.item_recall = score.n_right_cells / (g_rows * n_cols) if g_rows else 0.0
    score.item_f1 = f1(score.item_precision, score.item_recall)
    score.success = score.row_precision == score.row_recall == score.item_precision == score.item_recall == 1.0
    score.reason = _reason(score)
    return score


async def _grade_pending(
    tt: TableTask, pending: dict[str, list[tuple[int, str, str]]], score: TableScore, model: str, settings: Settings
) -> None:
    sem = asyncio.Semaphore(max(1, settings.judge_concurrency))

    async def one(column: str, items: list[tuple[int, str, str]]) -> None:
        rule = tt.column(column).rule or "The answer must state the same fact as the reference."
        try:
            async with sem:
                verdicts = await _judge.grade_column(column, rule, items, model=model, settings=settings)
        except Exception as exc:  # noqa: BLE001 - fall back to the offline check
            verdicts = {}
            score.notes.append(f"the judge call for column {column!r} failed ({type(exc).__name__}); its cells were checked offline")
        unanswered = 0
        for idx, pred, ref in items:
            cell = score.cells[idx]
            if idx in verdicts:
                cell.right, cell.note = verdicts[idx][0], verdicts[idx][1] or "judged by the model"
            else:
                unanswered += 1
                ok, note = loose_match(pred, ref)
                cell.right, cell.note = ok, "no verdict from the judge model; offline fallback: " + note
        if unanswered:
            score.n_unscored_cells += unanswered

    await asyncio.gather(*(one(c, items) for c, items in pending.items()))


def _reason(score: TableScore) -> str:
    if score.success:
        head = f"all {score.n_gold_rows} gold rows present and every cell right"
    else:
        n = {s: sum(1 for r in score.rows if r.status == s) for s in ("matched", "extra", "missing", "duplicate")}
        wrong = sum(1 for c in score.cells if score.rows[c.row].status == "matched" and not c.right)
        head = (
            f"{score.n_gold_rows} gold row(s); the answer has {score.n_pred_rows} row(s): {n['matched']} aligned, "
            f"{n['extra']} not in the gold table, {n['missing']} gold row(s) missing; {wrong} wrong cell(s) in aligned rows"
        )
        if n["duplicate"]:
            head += f"; {n['duplicate']} duplicate row(s) dropped"
    return head + (("; " + "; ".join(score.notes)) if score.notes else "")
