"""The one rule for reading input files (vibesearch/_files.py) and what the task loader does
with it: regular files only, a size cap, UTF-8 (a BOM accepted), bounded nesting and aliases,
no lone surrogates, short quotes in messages; unknown languages warned about, ids capped."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from vibesearch._files import InputFileError, check_tree, parse_json, parse_yaml, read_text, short, whole_number
from vibesearch.tasks import load_tasks, parse_task_file
from vibesearch.tasks.export import task_to_official

FUZZ = Path(__file__).resolve().parents[1] / "data" / "fuzz"
LOL = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)


def test_only_regular_files_are_read(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match="is a FIFO; only regular files are read"):
        read_text(fifo)  # returns at once: a FIFO is never opened
    with pytest.raises(InputFileError, match="is a device"):
        read_text("/dev/zero")
    with pytest.raises(InputFileError, match="is a folder; a file is expected here"):
        read_text(tmp_path)
    with pytest.raises(InputFileError, match="no such file"):
        read_text(tmp_path / "missing.json")


def test_the_size_cap(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(5000)
    with pytest.raises(InputFileError, match=r"is too large \(5000 bytes; the limit is 4000 bytes"):
        read_text(big, max_bytes=4000)
    assert len(read_text(big, max_bytes=5000)) == 5000


def test_utf8_with_or_without_bom(tmp_path):
    p = tmp_path / "a.json"
    p.write_bytes(b"\xef\xbb\xbf{}")
    assert read_text(p) == "{}"
    p.write_bytes('{"a": "caf\u00e9"}'.encode("latin-1"))
    with pytest.raises(InputFileError, match=r"line 1: not UTF-8 text \(byte 0xe9"):
        read_text(p)
    p.write_bytes("{}".encode("utf-16"))
    with pytest.raises(InputFileError, match="UTF-16"):
        read_text(p)


def test_nesting_is_bounded_without_recursion_errors():
    with pytest.raises(InputFileError, match="nested more than 100 levels"):
        parse_json("[" * 100_000 + "]" * 100_000, "x.json")
    with pytest.raises(InputFileError, match="x.json: line 1: nested more than 100 levels"):
        parse_yaml("a: " + "[" * 20_000 + "]" * 20_000, "x.json")
    with pytest.raises(InputFileError, match=r"a\.b\[0\]\[0\]"):
        parse_json('{"a": {"b": ' + "[" * 150 + "]" * 150 + "}}", "x.json")
    assert parse_json("[" * 99 + "]" * 99, "x.json") is not None  # 99 levels are fine
    with pytest.raises(InputFileError, match="nested more than 5 levels"):
        check_tree({"a": [[[[[1]]]]]}, "x", max_depth=5)


def test_yaml_alias_bombs_are_refused_quickly():
    for text in (LOL, LOL + "z: *i\n", "top: &t\n  " + LOL.replace("\n", "\n  ")):
        started = time.monotonic()
        with pytest.raises(InputFileError, match="aliases expand it to more than 1,000,000 values"):
            parse_yaml(text, "bomb.yaml")
        assert time.monotonic() - started < 2
    with pytest.raises(InputFileError, match="points into itself"):
        parse_yaml("a: &x [1, *x]", "loop.yaml")
    # ordinary aliases and merge keys still work
    data = parse_yaml("base: &b {x: 1}\nuse: *b\nmerged:\n  <<: *b\n  y: 2\n", "ok.yaml")
    assert data == {"base": {"x": 1}, "use": {"x": 1}, "merged": {"x": 1, "y": 2}}


def test_lone_surrogates_and_long_numbers_are_refused():
    with pytest.raises(InputFileError, match=r"x.json: turns\[1\].content: holds a lone surrogate"):
        parse_json('{"turns": [{}, {"content": "a\\ud800b"}]}', "x.json")
    with pytest.raises(InputFileError, match="a number has too many digits"):
        parse_json("[" + "1" * 5000 + "]", "x.json")


def test_short_quotes_never_walk_a_value():
    shared: list = ["lol"] * 9
    for _ in range(9):
        shared = [shared] * 9  # a billion leaves behind nine references
    started = time.monotonic()
    assert short(shared) == "a list of 9 items"
    assert short("x" * 10_000).endswith("(10000 characters)") and len(short("x" * 10_000)) < 100
    assert short(10**30) == "a 31-digit number"
    assert time.monotonic() - started < 2  # microseconds when nothing is walked; walking would take hours


@pytest.mark.parametrize("value, expected", [(3, 3), ("12", 12), (4.0, 4), (" 7 ", 7)])
def test_whole_numbers(value, expected):
    assert whole_number(value, "f.json", "sample_idx") == expected


@pytest.mark.parametrize("value", ["²", "٣", "9" * 5000, 10**30, -1, 1.5, True, [1], "three", None])
def test_not_whole_numbers(value):
    with pytest.raises(InputFileError, match="f.json: sample_idx: expected a whole number from 0 to"):
        whole_number(value, "f.json", "sample_idx")


# ---------------------------------------------------------------------- the task loader
def test_the_billion_laughs_in_a_task_file_is_a_problem_not_a_hang():
    started = time.monotonic()
    for name in ("lol_in_extra.yaml", "lol_in_subset.yaml", "lol_in_background.yaml"):
        tasks, problems = parse_task_file(FUZZ / "tasks" / name)
        assert not tasks and "aliases expand it" in problems[0].message
    assert time.monotonic() - started < 3


def test_json_and_yaml_with_a_bom_both_load():
    tasks = load_tasks([FUZZ / "valid" / "ours_bom.json", FUZZ / "valid" / "ours_bom.yaml"])
    assert sorted(t.id for t in tasks) == ["fuzz-ours-bom", "fuzz-ours-yaml"]


def test_an_unknown_language_is_warned_about_and_kept(tmp_path):
    path = FUZZ / "valid" / "official_klingon.json"
    (task,), problems = parse_task_file(path)
    assert task.language == "en" and task.extra["language_original"] == "klingon"
    (warning,) = problems
    assert warning.warning and warning.field == "language"
    assert str(warning).startswith(f"{path}: language: unknown language 'klingon'")
    assert task_to_official(task)["language"] == "klingon"  # exported as it came
    for name, lang in (("English", "en"), ("zh-CN", "zh"), ("Chinese", "zh"), ("中文", "zh"), ("", "en")):
        record = {**json.loads(path.read_text(encoding="utf-8")), "language": name}
        (p := tmp_path / "t.json").write_text(json.dumps(record), encoding="utf-8")
        (task,), problems = parse_task_file(p)
        assert task.language == lang and not problems and "language_original" not in task.extra


def test_the_unknown_language_warning_reaches_the_cli(cli):
    out = cli("tasks", "validate", str(FUZZ / "valid" / "official_klingon.json"))
    assert out.exit_code == 0
    assert f"warning: {FUZZ / 'valid' / 'official_klingon.json'}: language: unknown language 'klingon'" in out.stdout


@pytest.mark.parametrize("name, field", [("ours_id_201.json", "id"), ("ours_id_20k.json", "id"), ("official_task_id_20k.json", "task_id")])
def test_task_ids_are_capped(name, field):
    tasks, problems = parse_task_file(FUZZ / "tasks" / name)
    assert not tasks
    assert any(p.field == field and "at most 200 characters" in p.message for p in problems)
    assert all(len(str(p)) < 400 for p in problems)  # the id is not echoed whole
