"""The tasks shipped in personas/: valid, rich enough to play, and backed by their corpora."""

from __future__ import annotations

import pytest

from vibesearch.config import BUNDLED_TASKS
from vibesearch.tasks import load_corpus, load_tasks_with_problems, official_to_task, task_to_official

TASKS, PROBLEMS = load_tasks_with_problems([BUNDLED_TASKS])
IDS = [t.id for t in TASKS]


def _task(task_id):
    return next(t for t in TASKS if t.id == task_id)


def test_every_bundled_file_validates(cli):
    result = cli("tasks", "validate", BUNDLED_TASKS)
    assert result.exit_code == 0, result.stdout
    assert result.stdout.startswith("OK: ")
    assert [p for p in PROBLEMS if not p.warning] == []


def test_both_subsets_and_languages_are_covered():
    combos = {(t.subset, t.language) for t in TASKS}
    assert combos >= {("pro", "en"), ("pro", "zh"), ("daily", "en"), ("daily", "zh")}
    assert len(TASKS) >= 4


def test_the_analysis_history_task_exists():
    path = BUNDLED_TASKS / "pro-en-analysis-history.json"
    assert path.is_file() or (BUNDLED_TASKS / "pro-en-analysis-history.yaml").is_file()
    assert "pro-en-analysis-history" in IDS
    task = _task("pro-en-analysis-history")
    assert (task.subset, task.language) == ("pro", "en")


@pytest.mark.parametrize("task_id", IDS)
def test_stages(task_id):
    task = _task(task_id)
    kinds = [s.trigger.kind for s in task.stages]
    assert len(kinds) >= 8
    assert set(kinds) == {"start", "mentions", "asks", "completes"}
    assert kinds.count("asks") >= 2
    for i, stage in enumerate(task.stages[1:], start=2):
        assert stage.cues, f"stage {i} ({stage.name}) has no cues"
        assert all(c.strip() for c in stage.cues)


@pytest.mark.parametrize("task_id", IDS)
def test_graph_is_backed_by_the_corpus(task_id):
    task = _task(task_id)
    assert len(task.graph) >= 40
    docs = load_corpus(task)
    assert len(docs) >= 20
    assert len({d.url for d in docs}) == len(docs), "corpus urls repeat"
    missing = []
    for triple in task.graph:
        backing = [d for d in docs if triple in d.facts]
        if not any(triple.tail.casefold() in d.text.casefold() for d in backing):
            missing.append(triple.text())
    assert missing == [], f"{len(missing)} triples lack a document stating them: {missing[:5]}"


@pytest.mark.parametrize("task_id", IDS)
def test_exports_to_the_official_format(task_id):
    task = _task(task_id)
    back, problems = official_to_task(task_to_official(task), "export.json")
    assert [p for p in problems if not p.warning] == []
    assert back.persona == task.persona and back.graph == task.graph
    assert (back.subset, back.language, back.domain) == (task.subset, task.language, task.domain)
