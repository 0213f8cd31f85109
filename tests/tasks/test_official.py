"""The official VibeSearchBench format: loading, persona parsing, trigger kinds, export."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from vibesearch.tasks import (
    infer_trigger_kind,
    load_tasks,
    load_tasks_with_problems,
    official_to_task,
    parse_task_file,
    task_to_official,
)
from vibesearch.tasks.export import generated_persona_markdown
from vibesearch.tasks.loader import read_records

DATA = Path(__file__).resolve().parent / "data"
VARIANTS = DATA / "official_variants"
STAGE_HEADING = re.compile(r"^###\s*(Stage\s*\d+|阶段\s*\d+)", re.MULTILINE)


def _samples(shared_dir: Path) -> list[Path]:
    files = sorted((shared_dir / "data" / "official-format").glob("*.json"))
    assert len(files) == 2
    return files


def _one(path: Path):
    tasks, problems = parse_task_file(path)
    assert [p for p in problems if not p.warning] == []
    assert len(tasks) == 1
    return tasks[0], problems


def test_samples_load(shared_dir):
    for path in _samples(shared_dir):
        record = json.loads(path.read_text(encoding="utf-8"))
        task, problems = _one(path)
        assert problems == []
        assert task.origin == "official"
        assert task.id == record["task_id"]
        assert task.language == record["language"]
        assert task.stage_count() == len(STAGE_HEADING.findall(record["user_persona"]))
        assert len(task.graph) == len(record["triples"])
        assert task.persona_markdown == record["user_persona"]
        assert task.final_query == record["final_query"]
        assert task.sub_queries == record["sub_queries"] and task.user_queries == record["user_queries"]
        assert task.persona.initial_query == record["initial_query"]
        assert task.stages[0].line == record["initial_query"]
        assert task.subset == "daily" and task.extra["subset_inferred"] is True
        # the identity and behaviour sections, without their headings
        assert task.persona.background and "#" not in task.persona.background
        assert task.persona.background in record["user_persona"]
        assert task.persona.behavior and task.persona.behavior in record["user_persona"]
        assert task.source_file == str(path)


def test_sample_kinds(shared_dir):
    for path in _samples(shared_dir):
        task, _ = _one(path)
        kinds = [s.trigger.kind for s in task.stages]
        assert kinds[0] == "start"
        assert "start" not in kinds[1:]
        proactive = [i for i, s in enumerate(task.stages) if "proactively" in s.trigger.condition or "主动" in s.trigger.condition]
        assert len(proactive) >= 2
        assert all(kinds[i] == "asks" for i in proactive)
        assert kinds.count("asks") == len(proactive)
        assert "completes" in kinds and "mentions" in kinds


def test_sample_details(shared_dir):
    en, _ = _one(shared_dir / "data/official-format/task_sample_en_planet_moons.json")
    assert [s.trigger.kind for s in en.stages] == ["start", "mentions", "asks", "completes", "mentions", "asks"]
    assert en.stages[2].name == "Which planets matter"
    assert en.stages[2].line == "Honestly Saturn and Mars are the ones the kids always ask about."
    assert en.stages[0].fallback is None
    assert en.stages[3].fallback == '"Can you list the moons of Saturn and Mars first?"'
    assert ("Galilean moons", "discovered by", "Galileo Galilei") in [(t.head, t.relation, t.tail) for t in en.graph]
    zh, _ = _one(shared_dir / "data/official-format/task_sample_zh_tang_song_masters.json")
    assert [s.trigger.kind for s in zh.stages] == ["start", "mentions", "completes", "asks", "completes", "asks"]
    assert zh.stages[1].name == "八大家名单"
    assert zh.stages[1].line.startswith("对，就是唐宋八大家")
    assert ("苏轼", "父亲", "苏洵") in [(t.head, t.relation, t.tail) for t in zh.graph]


def test_samples_round_trip(shared_dir, tmp_path, cli):
    for path in _samples(shared_dir):
        task, _ = _one(path)
        record = task_to_official(task)
        # an official record goes back out unchanged
        assert record == json.loads(path.read_text(encoding="utf-8"))
        again, problems = official_to_task(json.loads(json.dumps(record)), str(path))
        assert problems == [] and again is not None
        assert again.model_dump() == task.model_dump()
        # and through the CLI and a file
        out = tmp_path / f"{task.id}.json"
        result = cli("tasks", "export", task.id, "--out", out, "--tasks", path)
        assert result.exit_code == 0, result.output
        reloaded, _ = _one(out)
        assert reloaded.model_dump() == task.model_dump()


def test_fenced_plain_label_variant():
    task, problems = _one(VARIANTS / "fenced_plain_labels.json")
    assert problems == []
    assert task.stage_count() == 4
    assert [s.trigger.kind for s in task.stages] == ["start", "mentions", "asks", "completes"]
    assert [s.name for s in task.stages] == ["Opening question", "The escapement", "What matters to me", "The full list"]
    assert task.stages[1].trigger.condition == "After the assistant mentions Christiaan Huygens"
    # a quoted line over two lines, and a line in quotation marks
    assert task.stages[1].line == "Huygens, right. And the anchor escapement, who came up with that one?"
    assert task.stages[2].line == "Mostly English longcase clocks, to be honest."
    assert task.persona.background.startswith("I'm a retired engineer")
    assert "```" not in task.persona.background and "```" not in task.persona.behavior
    assert task.persona.behavior == "Answer questions briefly; never name makers yourself."
    # extra fields: subset and domain are used, everything is kept
    assert task.subset == "pro" and "subset_inferred" not in task.extra
    assert task.domain == "horology" and task.extra["annotator_note"] == "kept as is"
    assert task.persona.initial_query == task.final_query == "final variant_en_clocks"
    record = task_to_official(task)
    assert record["annotator_note"] == "kept as is" and record["subset"] == "pro"
    assert record["user_persona"] == task.persona_markdown
    again, _ = official_to_task(record, "x.json")
    assert again.model_dump() == task.model_dump()


def test_fence_after_a_sentence(official_record):
    official_record["user_persona"] = "Here is the persona:\n```markdown\n" + official_record["user_persona"] + "```\n"
    task, problems = official_to_task(official_record, "t.json")
    assert problems == []
    assert task.stage_count() == 3 and [s.trigger.kind for s in task.stages] == ["start", "mentions", "asks"]
    assert task.persona.behavior == "Short messages; ignores equipment advice."


def test_chinese_variant_with_unknown_node(cli):
    path = VARIANTS / "zh_mixed_labels.jsonl"
    task, problems = _one(path)
    assert task.language == "zh"  # "zh-CN"
    assert [s.trigger.kind for s in task.stages] == ["start", "mentions", "asks", "completes"]
    assert task.stages[2].line == "好啊，活字印刷是谁发明的？"
    assert task.stages[0].fallback is None
    assert ("蔡伦", "朝代", "东汉") in [(t.head, t.relation, t.tail) for t in task.graph]
    # the triple naming an unknown node keeps the id as the name, with a warning
    assert (task.graph[-1].head, task.graph[-1].tail) == ("毕昇", "北宋")
    assert len(problems) == 1
    warning = problems[0]
    assert warning.warning and warning.task_id == "variant_zh_inventions"
    assert warning.field == "triples[3].tail_id" and "北宋" in warning.message
    result = cli("tasks", "validate", path)
    assert result.exit_code == 0
    assert f"warning: {path}: triples[3].tail_id: unknown node id '北宋'" in result.stdout
    assert result.stdout.strip().endswith("1 warning(s)")
    # integer ids survive the trip
    record = task_to_official(task)
    assert record["nodes"][0]["node_id"] == 1 and record["triples"][3]["tail_id"] == "北宋"
    again, _ = official_to_task(json.loads(json.dumps(record, ensure_ascii=False)), str(path))
    assert again.model_dump() == task.model_dump()


def test_ids_compare_by_equality(official_record):
    official_record["triples"][0]["head_id"] = "1"  # the node's id is the integer 1
    task, problems = official_to_task(official_record, "t.json")
    assert task is not None
    assert task.graph[0].head == "1"
    assert [(p.field, p.warning) for p in problems] == [("triples[0].head_id", True)]


def test_list_and_jsonl_files(tmp_path, official_record):
    second = dict(official_record, task_id="second_one", subset="pro")
    (tmp_path / "many.json").write_text(json.dumps([official_record, second]))
    (tmp_path / "more.jsonl").write_text(json.dumps(dict(official_record, task_id="third")) + "\n\n")
    tasks = load_tasks([tmp_path])
    assert sorted(t.id for t in tasks) == ["mini_official", "second_one", "third"]
    assert {t.id: t.subset for t in tasks}["second_one"] == "pro"


def test_missing_optional_fields(official_record):
    for key in ("initial_query", "sub_queries", "user_queries", "language"):
        official_record.pop(key)
    official_record["task_id"] = 42
    task, problems = official_to_task(official_record, "t.json")
    assert problems == []
    assert task.id == "42" and task.language == "en"
    assert task.persona.initial_query == official_record["final_query"]


def test_prefix_names_record_in_a_list(tmp_path, official_record):
    bad = dict(official_record, task_id="bad_one")
    bad["user_persona"] = official_record["user_persona"].replace("- **Line**: > Jupiter! Which of its moons can I spot?\n", "")
    (tmp_path / "two.json").write_text(json.dumps([official_record, bad]))
    tasks, problems = parse_task_file(tmp_path / "two.json")
    assert tasks == []
    assert [(p.field, p.task_id, p.stage) for p in problems] == [("[1].user_persona.stages[1].line", "bad_one", 2)]


@pytest.mark.parametrize(
    "condition, kind",
    [
        ("When the assistant proactively asks which planets the user cares about", "asks"),
        ("When the assistant proactively offers to build a timeline", "asks"),
        ("The assistant asks whether the user wants a table", "asks"),
        ("After the assistant asks which era matters most", "asks"),
        ("助手主动询问用户是否需要代表作时", "asks"),
        ("助手主动提出可以整理成表格时", "asks"),
        ("助手询问用户想去哪个城市时", "asks"),
        ("After the assistant lists the main moons of Saturn", "completes"),
        ("After the assistant has fully answered the previous question", "completes"),
        ("Once the assistant completes the comparison of all five models", "completes"),
        ("助手完整列出八位作家及其朝代之后", "completes"),
        ("助手完整回答了上一个问题之后", "completes"),
        ("助手给出每位作家的代表作之后", "completes"),
        ("After the assistant mentions Jupiter's large moons", "mentions"),
        ("After the assistant names the discoverers of Titan", "mentions"),
        ("助手提到“唐宋八大家”这个说法之后", "mentions"),
    ],
)
def test_infer_trigger_kind(condition, kind):
    assert infer_trigger_kind(condition, 3) == kind


def test_first_stage_is_always_start():
    assert infer_trigger_kind("When the assistant proactively asks anything", 0) == "start"


def test_our_task_survives_the_official_format(ours_task, tmp_path):
    from vibesearch.tasks import Task

    ours_task["title"] = "Weekend sky"
    ours_task["sources"] = ["https://example.org/sky"]
    task = Task.model_validate(ours_task)
    record = task_to_official(task)
    assert record["user_persona"] == generated_persona_markdown(task)
    assert STAGE_HEADING.findall(record["user_persona"]) and len(STAGE_HEADING.findall(record["user_persona"])) == 3
    assert {n["node_name"] for n in record["nodes"]} == {"Io", "Jupiter", "Galileo Galilei"}
    assert record["subset"] == "daily"
    path = tmp_path / "exported.json"
    path.write_text(json.dumps(record))
    back, problems = _one(path)
    assert problems == []
    assert back.origin == "official"
    assert back.persona.model_dump() == task.persona.model_dump()
    assert back.graph == task.graph
    for field in ("subset", "language", "domain", "title", "sources"):
        assert getattr(back, field) == getattr(task, field), field
    # from then on the record is official and goes round unchanged
    assert official_to_task(task_to_official(back), "x")[0].model_dump() == back.model_dump()


def test_chinese_task_gets_chinese_markdown(ours_task):
    from vibesearch.tasks import Task

    ours_task["language"] = "zh"
    task = Task.model_validate(ours_task)
    md = task_to_official(task)["user_persona"]
    assert md.startswith("# 核心身份") and "### 阶段2：Planets" in md and "- **台词**：> " in md
    back, problems = official_to_task(task_to_official(task), "x.json")
    assert problems == [] and back.persona.model_dump() == task.persona.model_dump()


def test_edited_official_task_exports_its_edits(shared_dir):
    task, _ = _one(shared_dir / "data/official-format/task_sample_en_planet_moons.json")
    task.persona.stages[2].line = "Mars, mostly."
    task.graph[0].tail = "Io (moon)"
    record = task_to_official(task)
    assert record["user_persona"] != task.persona_markdown
    back, _ = official_to_task(record, "x.json")
    assert back.stages[2].line == "Mars, mostly."
    assert back.graph == task.graph
    assert [s.trigger.kind for s in back.stages] == [s.trigger.kind for s in task.stages]


def test_official_record_with_our_typo_is_not_official(tmp_path, ours_task):
    ours_task["task_id"] = ours_task.pop("id")
    (tmp_path / "t.json").write_text(json.dumps(ours_task))
    _, problems = load_tasks_with_problems([tmp_path])
    assert {p.field for p in problems} >= {"id", "task_id"}


def test_read_records_shapes(tmp_path, official_record):
    (tmp_path / "a.jsonl").write_text(json.dumps(official_record) + "\n" + json.dumps(official_record) + "\n")
    records, is_list = read_records(tmp_path / "a.jsonl")
    assert len(records) == 2 and is_list
    (tmp_path / "b.json").write_text(json.dumps(official_record))
    assert read_records(tmp_path / "b.json")[1] is False
