"""The fidelity study on hand-built runs (people with a shadow, and simulator runs, written as
events through the store on both engines), each measure against numbers worked out by hand."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

from fidelity_runs import person_run, simulator_run

from vibesearch.scoring.bootstrap import bootstrap_mean
from vibesearch.labels.fidelity import FidelityError, fidelity_report
from vibesearch.store import Store




@pytest.fixture
def study(db_url):
    store = Store(db_url)
    person = person_run(store, "t1", 0.6)
    simulator_run(store, "t1", 0.4)
    person_run(store, "t2", 0.5)
    simulator_run(store, "t2", 0.7)
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
    formula = person_run(store, "t3", 0.1, a2="=HYPERLINK(\"http://x\")")  # text a spreadsheet would run
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
