"""Scoring stored runs of table tasks, aggregating over N runs, and the HTML view."""

from __future__ import annotations

import json

import pytest

from vibesearch.run import MessageEvent, StageEvent
from vibesearch.tables import (
    TableScore,
    aggregate_table_scores,
    get_table_task,
    gold_markdown,
    render_table_html,
    score_table,
    score_table_run,
    table_score_of,
    table_task_to_task,
)


def _run(store, tt, replies: list[str]) -> str:
    task = table_task_to_task(tt)
    run = store.create_run(task.id, task_json=task.model_dump(mode="json"), kind="table", user="direct")
    store.append(run.id, StageEvent(stage_index=0, reply_kind="open", decided_by="script"))
    store.append(run.id, MessageEvent(role="user", content=task.persona.stages[0].line))
    for i, reply in enumerate(replies):
        if i:
            store.append(run.id, MessageEvent(role="user", content="Please fix the table."))
        store.append(run.id, MessageEvent(role="assistant", content="", n_tool_calls=1))
        store.append(run.id, MessageEvent(role="assistant", content=reply, final=True))
    return run.id


def test_score_table_run_uses_the_last_reply_and_stores_everything(store):
    tt = get_table_task("galilean-moons")
    wrong = gold_markdown(tt).replace("| 5268 |", "| 6000 |")
    run_id = _run(store, tt, [wrong, "Sorry, corrected:\n\n" + gold_markdown(tt)])
    row = score_table_run(store, run_id)
    assert (row.precision, row.recall, row.f1) == (1.0, 1.0, 1.0)
    assert row.judge == "offline" and row.n_gt == 20 and row.n_pred == 20 and row.n_covered == 20
    (stored,) = store.scores(run_id)
    details = json.loads(stored.details_json)
    assert details["kind"] == "table" and details["success"] is True and details["row_f1"] == 1.0
    assert len(details["cells"]) == 20
    assert table_score_of(stored).success


def test_score_table_run_partial_and_no_reply(store):
    tt = get_table_task("galilean-moons")
    wrong = gold_markdown(tt).replace("| 5268 |", "| 6000 |")
    row = score_table_run(store, _run(store, tt, [wrong]))
    # one wrong cell of 20: item P = R = 19/20
    assert row.f1 == pytest.approx(19 / 20) and row.n_covered == 19
    details = table_score_of(row)
    assert not details.success and details.row_f1 == pytest.approx(3 / 4)
    (bad,) = [c for c in details.cells if not c.right]
    assert (bad.row_key, bad.column, bad.predicted, bad.gold) == ("Ganymede", "Mean diameter (km)", "6000", "5268")

    empty = score_table_run(store, _run(store, tt, []))
    assert empty.f1 == 0 and "the agent gave no reply" in table_score_of(empty).reason


def test_score_table_run_rejects_a_persona_run(store):
    from vibesearch.store import TaskSnapshotError
    from vibesearch.tasks import get_task

    task = get_task("daily-en-japan-heritage-trip")
    run = store.create_run(task.id, task_json=task.model_dump(mode="json"))
    with pytest.raises(ValueError, match="not a table task"):
        score_table_run(store, run.id)
    # a snapshot that is no task at all: the one error of an unreadable snapshot, naming the run
    broken = store.create_run("p", task_json={"id": "p", "extra": {}})
    with pytest.raises(TaskSnapshotError, match=f"run {broken.id}: its task snapshot cannot be read"):
        score_table_run(store, broken.id)


def _s(task_id: str, success: bool, row_f1: float, item_f1: float) -> TableScore:
    return TableScore(task_id=task_id, success=success, row_f1=row_f1, item_f1=item_f1)


def test_aggregate_avg_pass_max_by_hand():
    scores = {
        "A": [_s("A", True, 1.0, 1.0), _s("A", False, 0.5, 0.8)],
        "B": [_s("B", False, 0.0, 0.2), _s("B", False, 0.4, 0.6)],
    }
    agg = aggregate_table_scores(scores)
    # SR Avg@2: A (1+0)/2 = 0.5, B 0 -> mean 0.25; Pass@2: A 1, B 0 -> 0.5
    assert agg.sr_avg == pytest.approx(0.25) and agg.sr_pass == pytest.approx(0.5)
    # Row-F1 Avg@2: A 0.75, B 0.2 -> 0.475; Max@2: A 1.0, B 0.4 -> 0.7
    assert agg.row_f1_avg == pytest.approx(0.475) and agg.row_f1_max == pytest.approx(0.7)
    # Item-F1 Avg@2: A 0.9, B 0.4 -> 0.65; Max@2: A 1.0, B 0.6 -> 0.8
    assert agg.item_f1_avg == pytest.approx(0.65) and agg.item_f1_max == pytest.approx(0.8)
    assert (agg.n_tasks, agg.n_runs, agg.max_runs_per_task) == (2, 4, 2)
    # the same from a flat list grouped by task_id
    flat = aggregate_table_scores([s for runs in scores.values() for s in runs])
    assert flat.model_dump() == agg.model_dump()
    assert aggregate_table_scores([]).n_tasks == 0


def test_render_table_html_colours_cells_and_escapes():
    tt = get_table_task("galilean-moons")
    answer = gold_markdown(tt).replace("| 5268 |", "| <b>6000</b> |").replace("| Callisto |", "| Amalthea |")
    html = render_table_html(score_table(tt, answer))
    assert html.count("background:#f8d4d4") == 1 + 5  # one wrong cell + the five cells of the extra row
    assert "background:#d9f2d9" in html
    assert "&lt;b&gt;6000&lt;/b&gt;" in html and "<b>6000</b>" not in html
    assert 'data-status="missing"' in html and "Callisto" in html  # the missing gold row, greyed
    assert "gold: 5268" in html
    # right rows: Io, Europa (Ganymede has a wrong cell) -> Row-F1 2/4; right cells 5+5+4 = 14 of 20
    assert "Row-F1 50.0" in html and "Item-F1 70.0" in html
    zero = render_table_html(score_table(tt, "no table"))
    assert "no Markdown table" in zero and zero.count('data-status="missing"') == 4


def _old_style_snapshot(tt) -> dict:
    """A table task's snapshot as runs stored it before ``Task.kind``: the table in ``extra``."""
    data = table_task_to_task(tt).model_dump(mode="json")
    table = data.pop("table")
    data.pop("kind")
    data["extra"] = {"kind": "table", "table_task": table}
    return data


def test_a_run_stored_before_task_kind_still_reads_and_scores(store):
    from vibesearch.scoring import score_run
    from vibesearch.tasks import Task

    tt = get_table_task("galilean-moons")
    task = table_task_to_task(tt)
    run = store.create_run(task.id, task_json=_old_style_snapshot(tt), kind="table", user="direct")
    store.append(run.id, MessageEvent(role="user", content=task.persona.stages[0].line))
    store.append(run.id, MessageEvent(role="assistant", content=gold_markdown(tt), final=True))
    back = Task.model_validate(json.loads(store.get_run(run.id).task_json))
    assert back.kind == "table" and back.table is not None and back.table.rows == tt.rows
    # the scorer routes it to the table scorer (not the graph judge) and it scores one
    row = score_run(store, run.id)
    assert row.f1 == 1.0 and table_score_of(row).success
