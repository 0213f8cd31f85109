"""``vibesearch compare --a … --b …``: two configurations task by task, the paired interval and
the noise floor, on hand-built scored runs (both engines) against hand-worked numbers."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from vibesearch.config import Settings
from vibesearch.protocol import build_config
from vibesearch.run import EndEvent
from vibesearch.run.scores import RunScore
from vibesearch.labels.config_compare import ConfigCompareError, compare_configs
from vibesearch.store import Store
from vibesearch.store.scores import record_score


def _snapshot(task_id: str) -> dict:
    return {"id": task_id, "subset": "pro", "language": "en",
            "persona": {"background": "b", "initial_query": "q", "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]},
            "graph": [{"head": "a", "relation": "r", "tail": "b"}], "extra": {}}


def _runs(store: Store, f1s: dict[str, list[float]], *, seed: int | None = None, **fields) -> None:
    config = build_config(Settings(db=":memory:"), seed=seed, user=fields.get("user"), simulator_model=fields.get("simulator_model"))
    for task_id, values in f1s.items():
        for f1 in values:
            run = store.create_run(task_id, task_json=_snapshot(task_id), status="finished", run_config=config, **fields)
            store.append(run.id, EndEvent(termination="done"))
            record_score(store, RunScore(run_id=run.id, judge="offline", protocol="vibesearch", precision=f1, recall=f1, f1=f1,
                                         n_gt=1, n_pred=1, n_covered=1, n_valid=1))


@pytest.fixture
def store(db_url):
    store = Store(db_url)
    _runs(store, {"t1": [0.4, 0.6], "t2": [0.5, 0.5]}, agent="baseline", user="rules")
    _runs(store, {"t1": [0.7, 0.7], "t2": [0.6, 0.8]}, agent="react", agent_model="m", user="simulator", simulator_model="s")
    _runs(store, {"t1": [0.6], "t2": [0.4]}, agent="react", agent_model="m2", user="rules")
    _runs(store, {"t1": [0.3, 0.5]}, seed=7, agent="react", agent_model="m3", user="simulator", simulator_model="s")
    return store


def test_a_difference_outside_the_noise_is_ranked(store):
    result = compare_configs(store, {"agent": "baseline"}, {"agent": "react", "agent_model": "m"})
    assert [(r["task"], round(r["b_minus_a"], 6)) for r in result["tasks"]] == [("t1", 0.2), ("t2", 0.2)]
    assert result["difference"]["b_minus_a"] == pytest.approx(0.2) and result["difference"]["ci"] == pytest.approx([0.2, 0.2])
    assert not result["inside_noise"] and result["verdict"] == "B scores higher than A"
    a, b = result["a"]["noise"], result["b"]["noise"]
    assert a["sd"] == pytest.approx(0.1) and a["sd_user_fixed"] == pytest.approx(0.1) and a["user_share"] == pytest.approx(0.0)
    assert b["sd"] == pytest.approx(0.1) and b["sd_user_fixed"] is None  # a sampling simulator without a seed


def test_a_difference_inside_the_noise_is_not_ranked(store):
    result = compare_configs(store, {"agent": "baseline"}, {"agent_model": "m2"})
    assert result["difference"]["b_minus_a"] == pytest.approx(0.0)
    assert result["difference"]["ci"] == pytest.approx([-0.1, 0.1])
    assert result["inside_noise"] and result["verdict"].startswith("inside the noise floor")


def test_runs_sharing_a_simulator_seed_count_as_the_user_fixed(store):
    result = compare_configs(store, {"agent_model": "m3"}, {"agent": "baseline"})
    noise = result["a"]["noise"]
    assert noise["sd"] == pytest.approx(math.sqrt(0.02)) and noise["sd_user_fixed"] == pytest.approx(math.sqrt(0.02))


def test_bad_configurations_are_one_clear_error(store):
    with pytest.raises(ConfigCompareError, match="unknown key 'colour'"):
        compare_configs(store, {"colour": "x"}, {"agent": "baseline"})
    with pytest.raises(ConfigCompareError, match="has no finished persona run"):
        compare_configs(store, {"agent": "endpoint"}, {"agent": "baseline"})


def test_the_cli_compares_two_configurations(tmp_path):
    db = tmp_path / "c.db"
    store = Store(db)
    _runs(store, {"t1": [0.4, 0.6], "t2": [0.5, 0.5]}, agent="baseline", user="rules")
    _runs(store, {"t1": [0.6], "t2": [0.4]}, agent="react", agent_model="m2", user="rules")
    cmd = [sys.executable, "-m", "vibesearch.cli.main", "compare", "--a", "agent=baseline", "--b", "agent_model=m2", "--db", str(db)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "inside the noise floor" in done.stdout and "noise floor A: F1 sd across runs 0.100" in done.stdout
    as_json = json.loads(subprocess.run([*cmd, "--json"], capture_output=True, text=True, timeout=120).stdout)
    assert as_json["inside_noise"] is True
    both = subprocess.run([sys.executable, "-m", "vibesearch.cli.main", "compare", "r1", "--a", "agent=x", "--db", str(db)], capture_output=True, text=True, timeout=120)
    assert both.returncode == 1 and "not both" in both.stderr


def test_one_shared_task_is_not_ranked(store):
    result = compare_configs(store, {"agent_model": "m3"}, {"agent": "baseline"})  # m3 played t1 only
    assert result["difference"]["tasks"] == 1 and result["inside_noise"]
    assert result["verdict"].startswith("not ranked: 1 shared task")


def test_the_configurations_offered_and_the_reader_limit(store):
    from vibesearch.labels.config_compare import configurations

    found = configurations(store)
    assert found[0][1] == 4 and sum(n for _, n in found) == 12
    assert {"agent": "react", "agent_model": "m3", "user": "simulator", "simulator_model": "s", "protocol": "vibesearch"} in [c for c, _ in found]
    assert {"agent": "baseline", "agent_model": "", "user": "rules", "simulator_model": "", "protocol": "vibesearch"} in [c for c, _ in found]
    # a reader who may read only the baseline's runs sees one configuration, and B as having none
    only_baseline = lambda run: run.agent == "baseline"  # noqa: E731
    assert [c["agent"] for c, _ in configurations(store, only_baseline)] == ["baseline"]
    with pytest.raises(ConfigCompareError, match="configuration B .* has no finished persona run"):
        compare_configs(store, {"agent": "baseline"}, {"agent_model": "m"}, may_read=only_baseline)
