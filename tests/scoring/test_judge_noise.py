"""The judge's noise, measured (issue 37 §3): ``score --repeat K`` stores K judgements of a graph
through the real CLI and a fake judge that samples (a seeded RNG flips some of its verdicts), and
``report --format json`` splits the noise three ways (user, agent, judge) with intervals; a
difference inside the combined noise is a tie."""

from __future__ import annotations

import json
import random
import re
import statistics
from collections import defaultdict

import pytest
from scoring_helpers import T
from typer.testing import CliRunner

from vibesearch.config import Settings
from vibesearch.protocol import build_config
from vibesearch.scoring.aggregate import RunRecord
from vibesearch.scoring.noise_rank import pair_comparisons, rank_marks
from vibesearch.scoring.noise_split import Observation, noise_margin, noise_split
from vibesearch.store import Store

LINE = re.compile(r"^\[(R|P)(\d+)\] (.*) \| (.*) \| (.*)$", re.M)
GT = [T(f"Entity {i}", "relation", f"value {i}") for i in range(12)]


@pytest.fixture
def cli():
    from vibesearch.cli.main import app

    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


def sampling_judge(fake, seed: int = 11, flip: float = 0.2) -> str:
    """A judge that reads the prompt as a careful model would (covered when a shown prediction has
    the same text) but samples: each verdict is flipped with probability ``flip``, drawn from one
    RNG seeded once, so repeated judgements of one graph differ, the same way on every test run
    (calls come one at a time: --concurrency 1)."""
    rng = random.Random(seed)

    def handler(req):
        found = LINE.findall(req.last_user)
        gts = {int(i): (h, r, t) for kind, i, h, r, t in found if kind == "R"}
        preds = {int(i): (h, r, t) for kind, i, h, r, t in found if kind == "P"}
        out = []
        for i, g in gts.items():
            ev = [j for j, p in preds.items() if p == g]
            covered = bool(ev) != (rng.random() < flip)
            out.append({"index": f"R{i}", "covered": covered, "evidence": [f"P{j}" for j in ev] if covered else [], "rationale": "sampled"})
        return fake.Reply(content=json.dumps({"verdicts": out}))

    return fake.register(f"sampling-{seed}", handler)


def _runs(store: Store, make_run) -> list[str]:
    """Three tasks, four runs each of one configuration (a simulator user): two with a shared
    simulator seed (the user fixed), two without; each run's graph covers a different share."""
    fixed = build_config(Settings(db=":memory:"), seed=7, user="simulator", simulator_model="sim")
    free = build_config(Settings(db=":memory:"), user="simulator", simulator_model="sim")
    ids = []
    for t, task in enumerate(("t1", "t2", "t3")):
        for k, config in enumerate((fixed, fixed, free, free)):
            hit = 3 + (k * 3 + t * 2) % 8  # ground-truth triples the graph states
            pred = GT[:hit] + [T(f"Noise {i}", "other", "x") for i in range(3)]
            ids.append(make_run(store, GT, pred, task_id=task, user="simulator", simulator_model="sim", run_config=config))
    return ids


def test_repeat_stores_every_judgement_and_the_report_splits_the_noise(cli, tmp_db, make_run, fake):
    store = Store(tmp_db)
    ids = _runs(store, make_run)
    judge = sampling_judge(fake)
    out = cli("score", "--all", "--judge", judge, "--repeat", 3, "--concurrency", 1, "--json", "--db", tmp_db)
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)
    assert len(rows) == 3 * len(ids)
    # every run: three stored judgements, one repeat set, places 1..3
    for rid in ids:
        stored = store.scores(rid)
        assert len(stored) == 3 and len({s.repeat_set for s in stored}) == 1 and stored[0].repeat_set is not None
        assert [s.repeat_index for s in stored] == [1, 2, 3]
    by_set: dict[str, list[float]] = defaultdict(list)
    for s in store.scores():
        by_set[s.repeat_set].append(s.f1)
    assert any(len(set(v)) > 1 for v in by_set.values())  # the judge's sampling shows
    assert "over 3 judgements" in out.stderr

    report = json.loads(cli("report", "--format", "json", "--judge", judge, "--db", tmp_db).stdout)
    noise = report["noise"]
    for part in ("user", "agent", "judge", "combined"):
        assert {"estimate", "interval", "variance", "why"} <= set(noise[part]), part
        assert noise[part]["estimate"] is not None and noise[part]["why"] is None, part
        low, high = noise[part]["interval"]
        assert 0 <= low <= high
    # the judge's part is the pooled spread of the repeat sets, computed here from the stored rows
    pooled = sum(sum((x - statistics.fmean(v)) ** 2 for x in v) for v in by_set.values()) / sum(len(v) - 1 for v in by_set.values())
    assert noise["judge"]["variance"] == pytest.approx(pooled)
    assert noise["judge"]["interval"][0] <= noise["judge"]["estimate"] <= noise["judge"]["interval"][1]
    assert noise["settings"]["dof"]["judge"] == 2 * len(ids)
    # none was floored at 0 here: the three parts add up to the combined variance
    assert noise["user"]["variance"] > 0 and noise["agent"]["variance"] > 0
    assert noise["user"]["variance"] + noise["agent"]["variance"] + noise["judge"]["variance"] == pytest.approx(noise["combined"]["variance"])
    # the run's score is its latest judgement; the earlier ones are in its repeat set
    run = next(r for r in report["runs"] if r["run_id"] == ids[0])
    assert run["f1"] == store.scores(ids[0])[-1].f1 and run["judgements"] == [s.f1 for s in store.scores(ids[0])]
    md = cli("report", "--judge", judge, "--db", tmp_db).stdout
    assert "Noise: user, agent, judge" in md and "| judge |" in md


def test_the_offline_judge_is_judged_once_and_its_noise_is_zero(cli, tmp_db, make_run):
    store = Store(tmp_db)
    rid = make_run(store, GT, GT[:5])
    out = cli("score", rid, "--repeat", 3, "--db", tmp_db)
    assert out.exit_code == 0, out.output
    assert "deterministic" in out.stderr and len(store.scores(rid)) == 1 and store.scores(rid)[0].repeat_set is None
    noise = json.loads(cli("report", "--format", "json", "--db", tmp_db).stdout)["noise"]
    assert noise["judge"]["estimate"] == 0 and noise["judge"]["interval"] == [0.0, 0.0] and "deterministic" in noise["judge"]["note"]
    # one run: nothing to split between user and agent, said as null with the reason
    assert noise["user"]["estimate"] is None and "two scored runs" in noise["user"]["why"]
    assert noise["agent"]["estimate"] is None and noise["combined"]["interval"] is None
    bad = cli("score", rid, "--repeat", 0, "--db", tmp_db)
    assert bad.exit_code == 1 and bad.output.strip().splitlines()[-1] == "error: --repeat must be at least 1"


def test_an_llm_judge_without_repeats_leaves_its_part_unmeasured():
    obs = [Observation(cluster=("c", "p", "t"), fixed=None, f1=f1) for f1 in (0.4, 0.6)]
    split = noise_split(obs)
    assert split["combined"]["estimate"] == pytest.approx(0.1414, abs=1e-4)
    assert split["judge"]["estimate"] is None and "--repeat" in split["judge"]["why"]
    assert split["agent"]["estimate"] is None and split["user"]["estimate"] is None


def _records(config: str, f1s: dict[str, list[float]]) -> list[RunRecord]:
    return [RunRecord.model_construct(run_id=f"{config}-{task}-{i}", task_id=task, subset="pro", language="en", config=config,
                                      agent="react", agent_model=config, user="simulator", simulator_model="s", source="live",
                                      status="finished", f1=f1, judge="fake/j", judgements=[], seed=None)
            for task, values in f1s.items() for i, f1 in enumerate(values)]


def test_a_difference_inside_the_combined_noise_is_a_tie_where_ranks_are_shown():
    # per task A is 0.03-0.035 above B every time (the paired interval excludes 0), but two runs of
    # one task differ by 0.2: the noise alone makes a mean difference of ±0.160 (1.96·√(3·(0.02/2+0.02/2))/3)
    a = _records("A", {"t1": [0.43, 0.63], "t2": [0.53, 0.73], "t3": [0.635, 0.835]})
    b = _records("B", {"t1": [0.4, 0.6], "t2": [0.5, 0.7], "t3": [0.6, 0.8]})
    comparison = next(c for c in pair_comparisons(a + b) if c["adjacent"])
    assert comparison["ci"][0] > 0  # the interval alone would rank A above B
    assert comparison["noise_margin"] == pytest.approx(noise_margin(0.02, [2, 2, 2], [2, 2, 2])) == pytest.approx(0.1600, abs=1e-4)
    assert comparison["standing"] == "inside the noise"
    assert rank_marks(a + b)[("A", a[0].profile)].startswith("inside the noise vs B: ΔF1 +0.032")
    # the same gap with runs that agree (no measured noise beyond it) is ranked
    a1 = _records("A", {"t1": [0.53], "t2": [0.63], "t3": [0.735]})
    b1 = _records("B", {"t1": [0.5], "t2": [0.6], "t3": [0.7]})
    assert next(c for c in pair_comparisons(a1 + b1) if c["adjacent"])["standing"] == "above"


def _stored(store: Store, f1s: dict[str, list[float]], **fields) -> None:
    from vibesearch.run import EndEvent
    from vibesearch.run.scores import RunScore
    from vibesearch.store import record_score

    snapshot = {"persona": {"background": "b", "initial_query": "q", "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]},
                "graph": [{"head": "a", "relation": "r", "tail": "b"}], "extra": {}, "subset": "pro", "language": "en"}
    for task_id, values in f1s.items():
        for f1 in values:
            run = store.create_run(task_id, task_json={**snapshot, "id": task_id}, status="finished", **fields)
            store.append(run.id, EndEvent(termination="done"))
            record_score(store, RunScore(run_id=run.id, judge="offline", protocol="vibesearch", precision=f1, recall=f1, f1=f1,
                                         n_gt=1, n_pred=1, n_covered=1, n_valid=1))


def test_compare_calls_a_difference_inside_the_combined_noise_a_tie(cli, tmp_db):
    from vibesearch.labels.config_compare import compare_configs

    store = Store(tmp_db)
    # B is 0.05 above A on both tasks (the interval is [0.05, 0.05]), but two runs of a task differ
    # by 0.4: the noise alone makes ±0.392 (1.96·√(2·(0.08/2 + 0.08/2))/2)
    _stored(store, {"t1": [0.3, 0.7], "t2": [0.4, 0.8]}, agent="baseline", user="rules")
    _stored(store, {"t1": [0.35, 0.75], "t2": [0.45, 0.85]}, agent="react", agent_model="m", user="rules")
    result = compare_configs(store, {"agent": "baseline"}, {"agent": "react"})
    assert result["difference"]["ci"] == pytest.approx([0.05, 0.05]) and result["difference"]["noise_margin"] == pytest.approx(0.392)
    assert result["inside_noise"] and "within the combined noise (±39.20 F1 points)" in result["verdict"]
    split = result["a"]["noise"]["split"]  # the rules user is fixed, the offline judge deterministic: all of it is the agent's
    assert split["judge"]["estimate"] == 0 and split["user"]["estimate"] == 0
    assert split["agent"]["estimate"] == pytest.approx(0.2828, abs=1e-4)
    from vibesearch.app.compare_view import configs_html  # the Compare tab's block says the same

    # in percentage points, as every other surface writes F1
    assert "within the combined noise (±39.20 F1 points)" in configs_html(result) and "agent 28.28" in configs_html(result)
    out = cli("compare", "--a", "agent=baseline", "--b", "agent=react", "--db", tmp_db)
    assert out.exit_code == 0, out.output
    assert "inside the noise floor" in out.stdout and "split (F1 sd, 95% interval): user 0.000 [0.000, 0.000] · agent 0.283" in out.stdout


def test_a_repeat_set_whose_last_judgement_fails_stores_nothing(cli, tmp_db, make_run, fake):
    """The judge answers two judgements of a graph, then fails for good on the third: a failed
    judge is never a score, so none of the run's three judgements is stored (not two of three)."""
    store = Store(tmp_db)
    rid = make_run(store, GT, GT[:5])
    calls = {"n": 0}

    def handler(req):
        calls["n"] += 1
        if calls["n"] > 2:
            return fake.Reply(content="this is not the JSON the judge was asked for")
        found = LINE.findall(req.last_user)
        out = [{"index": f"R{i}", "covered": False, "evidence": [], "rationale": "no"} for kind, i, *_ in found if kind == "R"]
        return fake.Reply(content=json.dumps({"verdicts": out}))

    judge = fake.register("third-fails", handler)
    out = cli("score", rid, "--judge", judge, "--repeat", 3, "--concurrency", 1, "--db", tmp_db)
    assert out.exit_code == 1, out.output
    assert f"error: run {rid}: judge {judge} failed after" in out.output
    assert calls["n"] > 2  # the third judgement was asked for (and its answers never parsed)
    assert [s for s in Store(tmp_db).scores() if s.run_id == rid] == []
