"""JSON input is read strictly everywhere it comes in (tasks, corpus lines, labels, trajectories
…, all through ``_files.parse_json``): a key given twice in one object, NaN, Infinity and numbers
too large for a float are refused with the file and the place — not silently taken."""

from __future__ import annotations

import json

import pytest

from vibesearch._files import InputFileError, parse_json
from vibesearch.labels.labels_io import LabelFileError, read_label_file
from vibesearch.tasks.loader import parse_task_file

TASK = {
    "id": "strict", "subset": "daily", "language": "en",
    "persona": {"background": "b", "initial_query": "q", "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]},
    "graph": [{"head": "a", "relation": "r", "tail": "b"}],
}


@pytest.mark.parametrize(("text", "message"), [
    ('{"a": 1, "a": 2}', "the key 'a' appears twice"),
    ("[NaN]", "NaN is not a number JSON allows"),
    ('{"x": Infinity}', "Infinity is not a number JSON allows"),
    ('{"x": 1e309}', "the number '1e309' is too large"),
])
def test_parse_json_refuses_what_json_should_not_carry(text, message):
    with pytest.raises(InputFileError, match=message) as err:
        parse_json(text, "f.json", field="line 3")
    assert str(err.value).startswith("f.json: line 3: ")
    assert parse_json('{"a": [1.5, {"b": 2}]}', "f.json") == {"a": [1.5, {"b": 2}]}


def test_a_task_file_with_a_repeated_key_is_a_problem_naming_it(tmp_path):
    path = tmp_path / "t.json"
    text = json.dumps(TASK).replace('"subset": "daily"', '"subset": "daily", "subset": "pro"')
    path.write_text(text, encoding="utf-8")
    tasks, problems = parse_task_file(path)
    assert not tasks and "the key 'subset' appears twice" in str(problems[0]) and str(path) in str(problems[0])


def test_a_label_file_with_an_infinite_number_is_refused_naming_the_line(tmp_path):
    path = tmp_path / "labels.jsonl"
    good = {"run_id": "r", "gt_index": 0, "annotator": "ann", "covered": True}
    path.write_text(json.dumps(good) + "\n" + json.dumps(good)[:-1] + ', "evidence": [1e400]}\n', encoding="utf-8")
    with pytest.raises(LabelFileError, match=r"labels.jsonl: line 2: invalid JSON: the number '1e400' is too large"):
        read_label_file(path)
