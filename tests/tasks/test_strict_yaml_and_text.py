"""YAML input says no more than JSON can (issue item 13): a key given twice, ``!!binary`` (a
``bytes`` id a text field would quietly decode), ``!!set``/``!!omap``/``!!pairs``, ``.nan`` and
``.inf`` are refused with the file and the line or field. No text of a task, its corpus or any
other input file may hold a NUL character (PostgreSQL cannot store one), and a corpus line is
read as strictly as a task file."""

from __future__ import annotations

import json

import pytest
import yaml

from vibesearch._files import InputFileError, parse_json, parse_jsonl, parse_yaml
from vibesearch.tasks import TaskLoadError, get_task, load_corpus
from vibesearch.tasks.loader import parse_task_file

TASK = {
    "id": "strict-yaml", "subset": "daily", "language": "en",
    "persona": {"background": "b", "initial_query": "q", "behavior": "short",
                "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]},
    "graph": [{"head": "a", "relation": "r", "tail": "b"}],
}
BODY = yaml.safe_dump(TASK, sort_keys=False)


def _problems(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    tasks, problems = parse_task_file(path)
    assert not tasks and problems
    return path, " | ".join(str(p) for p in problems)


@pytest.mark.parametrize(("text", "expected"), [
    (BODY.replace("id: strict-yaml", "id: !!binary c3RyaWN0LXlhbWw="), "line 1: !!binary (bytes) is not accepted"),
    (BODY + "extra: {blob: !!binary AAEC}\n", "!!binary (bytes) is not accepted"),
    (BODY + "extra: !!set {a, b}\n", "!!set is not accepted"),
    (BODY + "extra: !!omap [a: 1]\n", "!!omap is not accepted"),
    (BODY + "extra: !!pairs [a: 1]\n", "!!pairs is not accepted"),
    (BODY + "subset: pro\n", "the key 'subset' appears twice in one mapping"),
    (BODY.replace("  behavior: short\n", "  behavior: short\n  behavior: long\n"), "line 8: the key 'behavior' appears twice"),
    (BODY.replace("tail: b", "tail: .nan"), "graph[0].tail: nan is not a finite number"),
    (BODY.replace("tail: b", "tail: -.inf"), "graph[0].tail: -inf is not a finite number"),
    (BODY.replace("behavior: short", 'behavior: "sh\\0ort"'), "persona.behavior: holds a NUL character"),
])
def test_yaml_task_refusals_name_the_file_and_place(tmp_path, text, expected):
    path, said = _problems(tmp_path, "t.yaml", text)
    assert str(path) in said and expected in said, said


def test_yaml_that_json_could_say_still_loads(tmp_path):
    """The same task loads, and a merge key may still be overridden by the mapping it is merged into."""
    path = tmp_path / "ok.yaml"
    path.write_text(BODY, encoding="utf-8")
    assert [t.id for t in parse_task_file(path)[0]] == ["strict-yaml"]
    assert parse_yaml("a: &x {k: 1, j: 2}\nb:\n  <<: *x\n  k: 3\n", "m.yaml") == {"a": {"k": 1, "j": 2}, "b": {"k": 3, "j": 2}}


@pytest.mark.parametrize(("field", "path"), [
    ("persona.background", ("persona", "background")),
    ("graph[0].head", ("graph", 0, "head")),
    ("persona.stages[0].line", ("persona", "stages", 0, "line")),
])
def test_a_nul_in_a_task_text_is_refused_naming_the_field(tmp_path, field, path):
    data = json.loads(json.dumps(TASK))
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] += "\x00"
    file, said = _problems(tmp_path, "t.json", json.dumps(data))
    assert f"{file}: {field}: holds a NUL character" in said, said


def test_a_nul_anywhere_in_json_or_yaml_input_is_refused():
    with pytest.raises(InputFileError, match=r"f.json: line 4.a\[1\]: holds a NUL character"):
        parse_json('{"a": ["ok", "no\\u0000"]}', "f.json", field="line 4")
    with pytest.raises(InputFileError, match=r"f.json: a key holds a NUL character"):
        parse_json('{"k\\u0000": 1}', "f.json")
    with pytest.raises(InputFileError, match=r"f.yaml: k: holds a NUL character"):
        parse_yaml('k: "a\\0b"\n', "f.yaml")


def test_jsonl_lines_end_only_at_line_breaks_json_knows():
    """U+2028 inside a JSON string is text, not the end of the line (str.splitlines says it is)."""
    text = json.dumps({"note": "a\u2028b\x85c"}, ensure_ascii=False) + "\r\n" + json.dumps({"n": 2}) + "\n"
    assert parse_jsonl(text, "f.jsonl") == [(1, {"note": "a\u2028b\x85c"}), (2, {"n": 2})]


DOC = {"url": "https://example.org/a", "title": "A", "text": "a text", "facts": [{"head": "a", "relation": "r", "tail": "b"}]}


@pytest.mark.parametrize(("line", "expected"), [
    (json.dumps(DOC).replace('"title": "A"', '"title": "A", "title": "B"'), "line 2: cannot read the corpus: invalid JSON: the key 'title' appears twice"),
    (json.dumps(DOC).replace('"tail": "b"', '"tail": NaN'), "line 2: cannot read the corpus: invalid JSON: NaN is not a number JSON allows"),
    (json.dumps(DOC).replace('"tail": "b"', '"tail": 1e309'), "line 2: cannot read the corpus: invalid JSON: the number '1e309' is too large"),
    (json.dumps({**DOC, "text": "nul\u0000"}), "line 2.text: cannot read the corpus: holds a NUL character"),
])
def test_a_corpus_line_is_read_strictly(tmp_path, line, expected):
    (tmp_path / "docs.jsonl").write_text(json.dumps(DOC) + "\n" + line + "\n", encoding="utf-8")
    (tmp_path / "t.json").write_text(json.dumps({**TASK, "corpus": "docs.jsonl"}), encoding="utf-8")
    task = get_task("strict-yaml", [tmp_path / "t.json"])
    with pytest.raises(TaskLoadError) as err:
        load_corpus(task)
    assert f"{tmp_path / 'docs.jsonl'}: {expected}" in str(err.value), str(err.value)
