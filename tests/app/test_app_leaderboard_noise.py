"""The Leaderboard tab shows the noise floor split three ways (user, agent, judge, with intervals)
and marks a difference inside the combined noise as a tie: its rendering function over a store
with repeated judgements."""

from __future__ import annotations

from vibesearch.app.leaderboard import tables
from vibesearch.run import EndEvent
from vibesearch.run.scores import RunScore
from vibesearch.store import record_score

SNAPSHOT = {"persona": {"background": "b", "initial_query": "q", "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]},
            "graph": [{"head": "a", "relation": "r", "tail": "b"}], "extra": {}, "subset": "pro", "language": "en"}


def _runs(store, model: str, judgements: dict[str, list[list[float]]]) -> None:
    """Runs of one configuration (rules user): per task, one run per list of F1s, each F1 one
    judgement of the run's graph by the same sampling judge (one repeat set per run)."""
    for task_id, runs in judgements.items():
        for f1s in runs:
            run = store.create_run(task_id, task_json={**SNAPSHOT, "id": task_id}, status="finished", agent="react", agent_model=model, user="rules")
            store.append(run.id, EndEvent(termination="done"))
            for k, f1 in enumerate(f1s, start=1):
                record_score(store, RunScore(run_id=run.id, judge="fake/j", protocol="vibesearch", precision=f1, recall=f1, f1=f1,
                                             n_gt=1, n_pred=1, n_covered=1, n_valid=1), (f"{run.id}-set", k))


def test_the_leaderboard_shows_the_three_way_noise_and_a_tie(app_ctx):
    # the latest judgement is each run's score: A's tasks 0.62, 0.52, 0.72 (runs 0.6/0.64 ...), B's 0.01 lower
    _runs(app_ctx.store, "a", {"t1": [[0.5, 0.7, 0.6], [0.7, 0.6, 0.64]], "t2": [[0.4, 0.5, 0.5], [0.6, 0.5, 0.54]],
                               "t3": [[0.8, 0.6, 0.7], [0.7, 0.8, 0.74]]})
    _runs(app_ctx.store, "b", {"t1": [[0.6, 0.5, 0.59], [0.7, 0.5, 0.63]], "t2": [[0.4, 0.6, 0.49], [0.5, 0.4, 0.53]],
                               "t3": [[0.7, 0.6, 0.69], [0.8, 0.7, 0.73]]})
    summary, score_rows, *_ = tables(app_ctx, "fake/j")
    assert "**Noise: user, agent, judge**" in summary
    lines = {line.split(" | ")[0].strip("| "): line for line in summary.splitlines() if line.startswith("| ")}
    # the judge's part from the repeat sets: each set's spread is real, so its SD and interval are numbers
    judge = lines["judge"].split(" | ")
    assert judge[1] != "not measured" and float(judge[1]) > 5 and "–" in judge[2]
    # the rules user cannot vary: the user's part is 0; the agent's is what is left of the runs' spread
    assert lines["user (simulator)"].split(" | ")[1] == "0.00" and lines["agent"].split(" | ")[1] != "not measured"
    mark = next(r[-1] for r in score_rows if r[0].startswith("react (a)") and r[2] == "all")
    assert mark.startswith("inside the noise vs react (b)") and "noise ±" in mark
