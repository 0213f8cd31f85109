"""`vibesearch labels calibrate` through the real CLI: per-category agreement, several judges in one table."""

import json

import pytest
from typer.testing import CliRunner

from vibesearch.labels.calibration import load_cases


@pytest.fixture
def cli(monkeypatch):
    from vibesearch.cli.main import app

    monkeypatch.setenv("COLUMNS", "200")  # a wide table so the cells are not cut
    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


def test_offline_judge_on_the_labelled_set_per_category(cli, cases_path, capsys):
    out = cli("labels", "calibrate", cases_path, "--judge", "offline", "--json")
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    (offline,) = report["judges"]
    cases = load_cases(cases_path)
    assert report["n"] == offline["n"] == len(cases) >= 150
    # the default judge never calls a labelled negative covered
    assert offline["false_covered"] == 0 and offline["confusion"]["fp"] == 0 and offline["precision"] == 1.0
    assert offline["cost_usd"] is None and offline["calls"] == 0 and offline["seconds"] >= 0
    cats = offline["by_category"]
    for needed in ("units", "dates", "abbreviation", "alias", "inverse relation", "list", "two-hop", "part-of", "chinese"):
        labels = [c.covered for c in cases if c.category == needed]
        assert True in labels and False in labels, f"{needed} needs positives and negatives"
        assert cats[needed]["n"] == len(labels)
    # per-category agreement adds up to the overall figure
    agree = sum(v["agreement"] * v["n"] for v in cats.values())
    assert agree == pytest.approx(offline["agreement"] * offline["n"])
    assert offline["agreement"] >= 0.9  # measured 0.923 (193/209) when the rules were extended
    with capsys.disabled():
        print(f"\noffline judge on {offline['n']} cases: agreement {offline['agreement']:.3f}, kappa {offline['kappa']:.3f}")
        for name, v in cats.items():
            print(f"  {name:24s} n={v['n']:3d}  agreement {v['agreement']:.3f}")


def test_two_judges_in_one_table(cli, cases_path, fake, tmp_path):
    import litellm

    litellm.register_model({"fake/priced-judge": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6,
                                                  "litellm_provider": "fake", "mode": "chat"}})

    def says_covered(req):  # a judge that says "covered, by P0" to everything
        return fake.Reply(content=json.dumps({"verdicts": [{"index": 0, "covered": True, "rule": 1, "evidence": [0]}]}))

    model = fake.register("priced-judge", says_covered)
    small = tmp_path / "cases.jsonl"
    lines = cases_path.read_text(encoding="utf-8").splitlines()
    small.write_text("\n".join(json.loads(x) and x for x in lines[:20]) + "\n", encoding="utf-8")
    n_neg = sum(1 for x in lines[:20] if not json.loads(x)["covered"])

    out = cli("labels", "calibrate", small, "--judge", "offline", "--judge", model, "--json")
    assert out.exit_code == 0, out.output
    offline, llm = json.loads(out.stdout)["judges"]
    assert (offline["judge"], llm["judge"]) == ("offline", model)
    assert llm["recall"] == 1.0 and llm["false_covered"] == n_neg  # yes to everything: every negative is a false covered
    assert llm["calls"] == 20 and llm["cost_usd"] is not None and llm["cost_usd"] > 0
    assert set(llm["by_category"]) == set(offline["by_category"])

    table = cli("labels", "calibrate", small, "--judge", "offline", "--judge", model)
    assert table.exit_code == 0, table.output
    text = table.stdout
    assert "offline judge" in text and f"LLM judge {model}" in text
    for col in ("agreement %", "kappa", "precision %", "recall %", "false covered", "time s", "cost USD"):
        assert col in text
    offline_row = next(line for line in text.splitlines() if line.strip("│ ").startswith("offline judge"))
    assert "n/a" in offline_row  # no cost offline


def test_bad_case_file_names_the_line(cli, tmp_path):
    bad = tmp_path / "cases.jsonl"
    bad.write_text('{"id": "a", "gt": {"head": "x", "relation": "r", "tail": "y"}, "covered": true}\n{"id": "a", "gt": {"head": "x", "relation": "r", "tail": "y"}, "covered": false}\n')
    out = cli("labels", "calibrate", bad, "--judge", "offline", "--json")
    assert out.exit_code == 1 and "cases.jsonl:2" in out.output and "duplicate" in out.output
