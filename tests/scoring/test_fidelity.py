"""The fidelity study on hand-built runs (people with a shadow, and simulator runs, written as
events through the store on both engines), each measure against numbers worked out by hand."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

from vibesearch.run import EndEvent, MessageEvent, StageEvent
from vibesearch.run.scores import RunScore
from vibesearch.scoring._bootstrap import bootstrap_mean
from vibesearch.scoring.fidelity import FidelityError, fidelity_report
from vibesearch.store import Store
from vibesearch.store.scores import record_score
from vibesearch.protocol import build_config
from vibesearch.config import Settings




def _snapshot(task_id: str) -> dict:
    kinds = ["start", "mentions", "asks"]
    return {
        "id": task_id, "subset": "daily", "language": "en",
        "persona": {"background": "b", "initial_query": "q", "stages": [
            {"name": f"s{i}", "trigger": {"kind": k, "condition": "c"}, "line": "l"} for i, k in enumerate(kinds)
        ]},
        "graph": [{"head": "a", "relation": "r", "tail": "b"}], "extra": {},
    }


def _stage(index: int, kind: str, *, advanced: bool = False, shadow: bool = False, said: str = "", by: str = "human") -> StageEvent:
    return StageEvent(
        stage_index=index, reply_kind=kind, advanced=advanced, shadow=shadow, decided_by="shadow" if shadow else by,  # type: ignore[arg-type]
        rationale=f"r (would have said: {said})" if said else None,
    )


def _run(store: Store, task_id: str, user: str, events: list, *, f1: float, shadow: str | None = None, simulator: str | None = None) -> str:
    settings = Settings(db=":memory:")
    config = build_config(settings, task_id=task_id, user=user, shadow=shadow, simulator_model=simulator)
    run = store.create_run(task_id, task_json=_snapshot(task_id), agent="baseline", user=user, status="finished",
                           simulator_model=simulator, run_config=config)
    for e in events:
        store.append(run.id, e)
    store.append(run.id, EndEvent(termination="done"))
    record_score(store, RunScore(run_id=run.id, judge="offline", protocol="vibesearch", precision=f1, recall=f1, f1=f1,
                                 n_gt=1, n_pred=1, n_covered=1, n_valid=1))
    return run.id


def _person_run(store: Store, task_id: str, f1: float, a2: str = "a2") -> str:
    a = lambda text: MessageEvent(role="assistant", content=text, final=True)  # noqa: E731
    u = lambda text: MessageEvent(role="user", content=text)  # noqa: E731
    return _run(store, task_id, "human", [
        _stage(0, "open"), u("q"), a("a1"),
        _stage(1, "disclose", advanced=True), _stage(1, "disclose", advanced=True, shadow=True, said="next please?"), u("tell me more about stage two"), a(a2),
        _stage(1, "push"), _stage(2, "disclose", advanced=True, shadow=True), u("Why? That is not what I asked?"), a("a3"),
        _stage(2, "disclose", advanced=True), _stage(2, "disclose", advanced=True, shadow=True), u("last one"), a("a4"),
        _stage(2, "done"), _stage(2, "push", shadow=True), u("[DONE]"),
    ], f1=f1, shadow="rules")


def _simulator_run(store: Store, task_id: str, f1: float) -> str:
    a = lambda text: MessageEvent(role="assistant", content=text, final=True)  # noqa: E731
    u = lambda text: MessageEvent(role="user", content=text)  # noqa: E731
    return _run(store, task_id, "rules", [
        _stage(0, "open", by="rules"), u("q"), a("a1"),
        _stage(1, "disclose", advanced=True, by="rules"), u("stage two please"), a("a2"),
        _stage(2, "disclose", advanced=True, by="rules"), u("and the third?"), a("a3"),
        _stage(2, "done", by="rules"), u("[DONE]"),
    ], f1=f1)


@pytest.fixture
def study(db_url):
    store = Store(db_url)
    person = _person_run(store, "t1", 0.6)
    _simulator_run(store, "t1", 0.4)
    _person_run(store, "t2", 0.5)
    _simulator_run(store, "t2", 0.7)
    return store, person


def test_decision_agreement_per_trigger_stage_and_reply_kind(study):
    store, _ = study
    report = fidelity_report(store, {"task": "t1"})
    (sim,) = report["simulators"]
    assert (sim["simulator"], sim["people_runs"], sim["simulator_runs"]) == ("rules", 1, 1)
    assert (sim["agreement"]["n"], sim["agreement"]["rate"]) == (4, 0.5)
    assert {r["trigger"]: (r["n"], r["rate"]) for r in sim["agreement_by_trigger"]} == {"mentions": (1, 1.0), "asks": (2, 0.5), "none": (1, 0.0)}
    assert {r["next_stage"]: r["rate"] for r in sim["agreement_by_stage"]} == {2: 1.0, 3: 0.5, None: 0.0}
    assert {r["person_kind"]: r["rate"] for r in sim["agreement_by_reply_kind"]} == {"disclose": 1.0, "push": 0.0, "done": 0.0}
    confusion = sim["confusion"]
    assert confusion["advanced"]["advanced"] == 2 and confusion["pushed"]["advanced"] == 1 and confusion["done"]["pushed"] == 1
    assert sum(sum(row.values()) for row in confusion.values()) == 4
    dis = sim["disagreements"]
    assert [(d["turn"], d["person"], d["shadow"]) for d in dis] == [(3, "pushed", "advanced"), (5, "done", "pushed")]
    assert dis[0]["agent_message"] == "a2" and dis[0]["person_reply"] == "Why? That is not what I asked?"


def test_pace_and_style_of_both_sides(study):
    store, _ = study
    (sim,) = fidelity_report(store, {"task": "t1"})["simulators"]
    person, simulator = sim["pace"]["person"], sim["pace"]["simulator"]
    assert person["turns_to_end"]["values"] == [5.0] and simulator["turns_to_end"]["values"] == [4.0]
    assert set(person["turns_to_stage"]) == {"2", "3"}
    assert person["turns_to_stage"]["2"]["values"] == [2.0] and person["turns_to_stage"]["3"]["values"] == [4.0]
    assert simulator["turns_to_stage"]["3"]["values"] == [3.0] and person["stages_reached"]["values"] == [3.0]
    style = sim["style"]
    assert style["person"]["replies"] == 3  # the "[DONE]" after the person's done is not a reply
    assert style["person"]["words_per_reply"]["mean"] == pytest.approx(5.0)  # 5 + 7 + 3 words
    assert style["person"]["asks_back"]["rate"] == pytest.approx(1 / 3)
    assert style["person"]["pushes_back"]["rate"] == pytest.approx(1 / 4)
    assert style["shadow"]["asks_back"]["rate"] == 1.0 and style["shadow"]["pushes_back"]["rate"] == pytest.approx(1 / 4)
    assert style["simulator"]["asks_back"]["rate"] == pytest.approx(1 / 2)


def test_the_outcome_gap_is_paired_by_task(study):
    store, _ = study
    (sim,) = fidelity_report(store)["simulators"]
    (gap,) = sim["outcome_gap"]
    assert gap["agent"] == "baseline" and gap["f1"]["tasks"] == 2
    assert gap["f1"]["person_minus_simulator"] == pytest.approx(0.0)  # (0.6 − 0.4 + 0.5 − 0.7) / 2
    assert gap["f1"]["ci"] == pytest.approx([-0.2, 0.2])  # two paired differences: the resampled means span both
    assert gap["stages_reached"]["person_minus_simulator"] == 0.0


def test_the_bootstrap_is_deterministic_and_covers_the_mean():
    values = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    first, second = bootstrap_mean(values), bootstrap_mean(values)
    assert first == second and first[0] <= 0.75 <= first[1]
    assert bootstrap_mean([0.3]) == pytest.approx([0.3, 0.3]) and bootstrap_mean([]) is None


def test_no_matching_people_is_one_clear_error(study):
    store, _ = study
    with pytest.raises(FidelityError, match="no finished run played by a person"):
        fidelity_report(store, {"task": "nope"})
    with pytest.raises(FidelityError, match="unknown filter"):
        fidelity_report(store, {"agent": "x"})


def test_the_cli_prints_json_and_writes_the_disagreements_as_safe_csv(study, tmp_path, db_url):
    store, person = study
    formula = _person_run(store, "t3", 0.1, a2="=HYPERLINK(\"http://x\")")  # text a spreadsheet would run
    out = tmp_path / "dis.csv"
    done = subprocess.run(
        [sys.executable, "-m", "vibesearch.cli.main", "fidelity", "--json", "--csv", str(out), "--db", db_url],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["simulators"][0]["agreement"]["rate"] == 0.5
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == 6 and {r["run_id"] for r in rows} >= {person, formula}
    cell = next(r["agent_message"] for r in rows if r["run_id"] == formula and r["turn"] == "3")
    assert cell == "'=HYPERLINK(\"http://x\")"  # shown as text, never run
    bad = subprocess.run(
        [sys.executable, "-m", "vibesearch.cli.main", "fidelity", "--filter", "nonsense", "--db", db_url],
        capture_output=True, text=True, timeout=120,
    )
    assert bad.returncode == 1 and len(bad.stderr.strip().splitlines()) == 1 and "key=value" in bad.stderr
