"""Ranking configurations only where the data tell them apart (``scoring.noise_rank``), on
hand-made records: a clear gap is ranked with its interval, a gap inside the noise is marked as
such, and too few shared tasks are not ranked at all."""

from __future__ import annotations

from vibesearch.scoring.aggregate import RunRecord
from vibesearch.scoring.noise_rank import rank_marks


def _records(config: str, f1s: dict[str, list[float]]) -> list[RunRecord]:
    return [RunRecord.model_construct(run_id=f"{config}-{task}-{i}", task_id=task, subset="pro", language="en", config=config,
                                      agent="react", agent_model=config, user="rules", simulator_model=None, source="live",
                                      status="finished", f1=f1)
            for task, values in f1s.items() for i, f1 in enumerate(values)]


def test_a_clear_gap_is_ranked_and_a_gap_inside_the_noise_is_not():
    tasks = ("t1", "t2", "t3", "t4")
    a = _records("A", {t: [v] for t, v in zip(tasks, (0.8, 0.7, 0.9, 0.6))})
    b = _records("B", {t: [v] for t, v in zip(tasks, (0.5, 0.4, 0.6, 0.3))})
    # C: two runs per task, averaged per task first: 0.56, 0.36, 0.66, 0.26
    c = _records("C", {t: [v - 0.02, v + 0.02] for t, v in zip(tasks, (0.56, 0.36, 0.66, 0.26))})
    marks = rank_marks(a + b + c)
    profile = a[0].profile
    assert marks[("A", profile)].startswith("above C: ΔF1 +0.290 [+0.240, +0.340]")
    assert marks[("C", profile)].startswith("inside the noise vs B: ΔF1 +0.010 [-0.040, +0.060]")
    assert marks[("B", profile)] == ""


def test_too_few_shared_tasks_are_not_ranked():
    a = _records("A", {"t1": [0.9], "t2": [0.8]})
    d = _records("D", {"t1": [0.1], "t9": [0.1]})
    marks = rank_marks(a + d)
    assert marks[("A", a[0].profile)] == "not ranked against D: 1 shared task(s)"
