"""Loading table tasks: our format (inline rows, gold CSV), WideSearch's layout, the bundled tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _table_fixtures import IVY_GOLD, README_EVALUATION, write_widesearch

from vibesearch.config import BUNDLED_TABLE_TASKS
from vibesearch.tables import (
    gold_markdown,
    is_table_task_path,
    load_table_corpus,
    load_table_tasks,
    load_table_tasks_with_problems,
    score_table,
    table_task_from_task,
    table_task_to_task,
)
from vibesearch.tables import norm_text
from vibesearch.tasks import TaskLoadError, load_corpus


def _task_json(**overrides) -> dict:
    data = {
        "id": "t1",
        "language": "en",
        "query": "q",
        "columns": [{"name": "Name"}, {"name": "Year", "metric": "number"}],
        "primary_key": ["Name"],
        "gold": "t1.csv",
    }
    data.update(overrides)
    return data


def _write(folder: Path, data: dict, csv: str | None = "Name,Year,Comment\nA,1900,x\nB,1901,\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{data.get('id', 'task')}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    if csv is not None:
        (folder / "t1.csv").write_text(csv, encoding="utf-8")
    return path


def _errors(paths) -> list[str]:
    _, problems = load_table_tasks_with_problems(paths)
    return [str(p) for p in problems if not p.warning]


# ---------------------------------------------------------------------- our format
def test_our_format_with_gold_csv(tmp_path):
    path = _write(tmp_path, _task_json())
    (tt,) = load_table_tasks([path])
    assert tt.rows == [{"Name": "A", "Year": "1900"}, {"Name": "B", "Year": "1901"}]  # extra CSV column ignored
    assert tt.source_file == str(path)


def test_unknown_field_is_named(tmp_path):
    path = _write(tmp_path, _task_json(colums=[]))
    (err,) = _errors([path])
    # the task loader's rule: an unknown field is named, with the field meant
    assert str(path) in err and "colums: unknown field (did you mean 'columns'?)" in err
    with pytest.raises(TaskLoadError):
        load_table_tasks([path])


@pytest.mark.parametrize(
    "overrides, field, words",
    [
        ({"columns": [{"name": "Name"}, {"name": "Year", "metric": "llm"}]}, "columns[1]", "needs a grading 'rule'"),
        ({"columns": [{"name": "Name"}, {"name": "Year", "metric": "fuzzy"}]}, "columns[1].metric", "Input should be"),
        ({"columns": [{"name": "Name"}, {"name": "Year", "tolerance": -1}]}, "columns[1].tolerance", "greater than or equal"),
        ({"primary_key": ["Nam"]}, "", "primary_key: 'Nam' is not one of the columns"),
        ({"columns": [{"name": "Name"}, {"name": "name "}]}, "", "same name once normalised"),
        ({"language": "fr"}, "language", "Input should be"),
        ({"gold": None}, "", "give the gold table"),
        ({"rows": [{"Name": "A", "Year": 1}]}, "gold", "not both"),
        ({"gold": None, "rows": [{"Name": "A"}]}, "", "rows[0]: missing column(s) ['Year']"),
        ({"gold": None, "rows": [{"Name": "A", "Year": 1, "Yr": 2}]}, "", "unknown column(s) ['Yr']"),
        ({"gold": None, "rows": [{"Name": "A", "Year": 1}, {"Name": " a", "Year": 2}]}, "", "repeats rows[0]"),
        ({"corpus": "corpus/none.jsonl"}, "corpus", "no such file"),
    ],
)
def test_bad_task_fields(tmp_path, overrides, field, words):
    path = _write(tmp_path, _task_json(**overrides))
    errors = _errors([path])
    assert errors, "expected a problem"
    assert any(words in e and f": {field}" in e and str(path) in e for e in errors), errors


@pytest.mark.parametrize(
    "csv, words",
    [
        ("Name,When\nA,1900\n", "no column 'Year'"),
        ("Name,Year\nA,1900\na ,1901\n", "t1.csv:3"),  # duplicate key, with the CSV line
        ("Name,Year\n,1900\n", "primary-key cell is empty"),
        ("Name,Year\n", "has no rows"),
    ],
)
def test_bad_gold_csv(tmp_path, csv, words):
    path = _write(tmp_path, _task_json(), csv=csv)
    errors = _errors([path])
    assert any(words in e for e in errors), errors


def test_missing_gold_csv(tmp_path):
    path = _write(tmp_path, _task_json(), csv=None)
    assert any("cannot read the gold CSV" in e for e in _errors([path]))


def test_folder_scan_skips_other_files_and_reports_duplicates(tmp_path):
    _write(tmp_path / "a", _task_json())
    _write(tmp_path / "b", _task_json())
    (tmp_path / "notes.json").write_text('{"hello": 1}', encoding="utf-8")
    tasks, problems = load_table_tasks_with_problems([tmp_path])
    assert [t.id for t in tasks] == ["t1"]
    assert any(p.warning and "not a table task" in p.message for p in problems)
    assert any(not p.warning and "duplicate task id 't1'" in p.message for p in problems)
    assert "no such file or folder" in _errors([tmp_path / "nope"])[0]


# ---------------------------------------------------------------------- WideSearch layout
def test_widesearch_layout_loads_unchanged(widesearch_dir):
    (tt,) = load_table_tasks([widesearch_dir])
    assert tt.id == "ws_en_999" and tt.origin == "widesearch" and tt.language == "en"
    assert tt.column_names == ["University", "Founded", "State"]  # display names from the gold CSV; Notes ignored
    assert tt.primary_key == ["University"]
    assert tt.column("Founded").metric == "number" and tt.column("Founded").tolerance == 0.0
    assert tt.column("State").metric == "exact"
    assert len(tt.rows) == 4 and tt.rows[0] == {"University": "Harvard University", "Founded": "1636", "State": "Massachusetts"}
    # the file itself loads the same way
    assert load_table_tasks([widesearch_dir / "widesearch.jsonl"])[0].rows == tt.rows
    # the published query is the request as is
    task = table_task_to_task(tt)
    assert task.persona.stages[0].line == tt.query
    answer = "| university | FOUNDED | state |\n|---|---|---|\n" + "\n".join(
        f"| {r['University']} | {r['Founded']} | {r['State']} |" for r in tt.rows
    )
    assert score_table(tt, answer).success


def test_widesearch_metric_mapping(tmp_path):
    ev = {
        "unique_columns": ["name"],
        "required": ["name", "share", "born", "site", "role", "bio", "code", "day"],
        "eval_pipeline": {
            "share": {"preprocess": ["extract_number"], "metric": ["number_near"], "criterion": 0.1},
            "born": {"preprocess": ["norm_date"], "metric": ["date_near"]},
            "site": {"metric": ["url_match"]},
            "role": {"preprocess": ["norm_str"], "metric": ["in_match"]},
            "bio": {"metric": ["llm_judge"], "criterion": "Same person and same main achievement."},
            "code": {"preprocess": ["extract_number"], "metric": ["exact_match"]},
            "day": {"preprocess": ["norm_date"], "metric": ["exact_match", "llm_judge"]},
        },
    }
    gold = "Name,Share,Born,Site,Role,Bio,Code,Day\nAda,12%,1815-12-10,https://a.org,mathematician,wrote notes,7,1843-01-01\n"
    write_widesearch(tmp_path, [{"instance_id": "ws_zh_001", "language": "zh", "query": "q", "evaluation": ev}], {"ws_zh_001": gold})
    (tt,), problems = load_table_tasks_with_problems([tmp_path])
    got = {c.name: (c.metric, c.tolerance, c.window_days, c.rule) for c in tt.columns}
    assert got["Share"] == ("number", 0.1, 31, None)
    assert got["Born"][0] == "date" and got["Born"][2] == 31
    assert got["Site"][0] == "url" and got["Role"][0] == "contains"
    assert got["Bio"] == ("llm", 0.0, 31, "Same person and same main achievement.")
    assert got["Code"][:2] == ("number", 0.0)
    assert got["Day"][0] == "date" and got["Day"][2] == 0
    assert any(p.warning and "several metrics" in p.message for p in problems)


@pytest.mark.parametrize(
    "mutate, words",
    [
        (lambda r: r.update(evaluation="{not json"), "evaluation: not valid JSON"),
        (lambda r: r["evaluation"].update(required=[]), "evaluation.required: expected a non-empty list"),
        (lambda r: r["evaluation"].update(unique_columns=["city"]), "['city'] not in 'required'"),
        (lambda r: r["evaluation"]["eval_pipeline"]["state"].update(metric=["fuzzy"]), "evaluation.eval_pipeline.state.metric: unknown metric"),
        (lambda r: r["evaluation"]["eval_pipeline"]["founded"].update(criterion="ten"), "needs a numeric tolerance"),
        (lambda r: r["evaluation"]["required"].append("motto"), "no column normalising to 'motto'"),
        (lambda r: r.update(instance_id="ws_en_404"), "no gold table"),
        (lambda r: r.update(language="fr"), "language"),
    ],
)
def test_widesearch_problems_name_file_and_field(tmp_path, mutate, words):
    record = {"instance_id": "ws_en_999", "language": "en", "query": "q", "evaluation": json.loads(json.dumps(README_EVALUATION))}
    mutate(record)
    path = write_widesearch(tmp_path, [record], {"ws_en_999": IVY_GOLD})
    errors = _errors([tmp_path])
    # the file named is the jsonl (with its line) or, for header problems, the gold CSV
    assert any(words in e and (f"{path}:1" in e or "widesearch_gold/ws_en_999.csv" in e) for e in errors), errors


def test_widesearch_duplicate_gold_key_is_a_warning(tmp_path):
    record = {"instance_id": "ws_en_999", "language": "en", "query": "q", "evaluation": README_EVALUATION}
    write_widesearch(tmp_path, [record], {"ws_en_999": IVY_GOLD + "harvard university,1700,Nowhere,\n"})
    (tt,), problems = load_table_tasks_with_problems([tmp_path])
    assert len(tt.rows) == 4 and tt.rows[0]["Founded"] == "1636"
    assert any(p.warning and "repeats line 2" in p.message for p in problems)


# ---------------------------------------------------------------------- bundled tasks
def test_bundled_tasks_load_and_gold_answers_score_one():
    tasks = load_table_tasks()
    assert {t.id for t in tasks} >= {"university-groups", "galilean-moons", "tang-song-masters"}
    assert any(t.language == "zh" for t in tasks)
    assert is_table_task_path(BUNDLED_TABLE_TASKS)
    for tt in tasks:
        s = score_table(tt, "Here you go:\n\n```markdown\n" + gold_markdown(tt) + "\n```")
        assert s.success, (tt.id, s.reason)
        assert s.row_f1 == 1 and s.item_f1 == 1


def test_bundled_corpora_state_every_gold_cell_and_hold_distractors():
    for tt in load_table_tasks():
        docs = load_table_corpus(tt)
        assert len(docs) >= 8, tt.id
        texts = [norm_text(d.title + " " + d.text) for d in docs]
        for row in tt.gold_rows():
            for col, value in row.items():
                assert any(norm_text(value) in t for t in texts), (tt.id, col, value)
        key_col = tt.primary_key[0]
        keys = [norm_text(r[key_col]) for r in tt.gold_rows()]
        distractors = [d for d in docs if not d.facts]
        assert len(distractors) >= 3, tt.id
        # a distractor states no gold row's facts: it names at most one gold key in passing
        assert any(sum(k in norm_text(d.text) for k in keys) <= 1 for d in distractors), tt.id


def test_table_task_to_task_round_trip():
    for tt in load_table_tasks():
        task = table_task_to_task(tt)
        assert task.kind == "table" and task.table is tt and task.extra == {} and task.subset == "daily"
        line = task.persona.stages[0].line
        assert task.persona.stages[0].trigger.kind == "start" and task.final_query == line
        assert all(name in line for name in tt.column_names) and "Markdown" in line
        non_key = [c for c in tt.columns if c.name not in tt.primary_key]
        assert len(task.graph) == len(tt.gold_rows()) * len(non_key)
        assert len(load_corpus(task)) == len(load_table_corpus(tt))  # the corpus path resolves
        snap = json.loads(json.dumps(task.model_dump(mode="json")))
        back = table_task_from_task(snap)
        assert back.rows == tt.rows and back.columns == tt.columns
    with pytest.raises(ValueError, match="not a table task"):
        table_task_from_task({"extra": {}})


def test_table_tasks_loaded_from_the_bundled_folder_are_of_kind_table(settings):
    from vibesearch.cli import resolve_tasks

    tasks = [table_task_to_task(tt) for tt in load_table_tasks([BUNDLED_TABLE_TASKS])]
    assert tasks and all(t.kind == "table" and t.table is not None for t in tasks)
    # the same through the CLI's --tasks resolution, by folder and by id
    by_folder = resolve_tasks([str(BUNDLED_TABLE_TASKS)], settings)
    assert {t.id for t in by_folder} == {t.id for t in tasks} and all(t.kind == "table" for t in by_folder)
    (by_id,) = resolve_tasks(["galilean-moons"], settings)
    assert by_id.kind == "table" and by_id.table is not None and by_id.table.id == "galilean-moons"


def test_a_repeated_instance_id_in_one_widesearch_file_is_an_error(tmp_path):
    record = {"instance_id": "ws_en_999", "language": "en", "query": "q", "evaluation": README_EVALUATION}
    write_widesearch(tmp_path, [record, dict(record, query="again")], {"ws_en_999": IVY_GOLD})
    tasks, problems = load_table_tasks_with_problems([tmp_path])
    assert tasks == []
    assert any(not p.warning and "duplicate task id 'ws_en_999' (twice in this file)" in p.message for p in problems)


def test_folder_scans_skip_hidden_files_like_the_task_loader(tmp_path):
    _write(tmp_path, _task_json())
    _write(tmp_path / ".trash", _task_json(id="t2"))
    tasks, problems = load_table_tasks_with_problems([tmp_path])
    assert [t.id for t in tasks] == ["t1"] and not [p for p in problems if not p.warning]
