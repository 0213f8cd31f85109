"""`vibesearch site verify`: a fresh site passes; any edited number fails naming the file and the
number, any other changed byte fails naming the file — always one line, exit 1, no traceback."""

from __future__ import annotations

import gzip
import json
import re
import shutil

import pytest


@pytest.fixture
def copy(built_site, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(built_site, out)
    return out


def _fails(cli, out, *needles):
    res = cli("site", "verify", out)
    assert res.exit_code == 1, res.output
    text = res.output.strip()
    assert len(text.splitlines()) == 1, text
    assert text.startswith("error: ") and "Traceback" not in text
    for needle in needles:
        assert needle in text, text
    return text


def _edit_json(path, change):
    if path.suffix == ".gz":  # the bundled events
        data = json.loads(gzip.decompress(path.read_bytes()))
        change(data)
        path.write_bytes(gzip.compress(json.dumps(data, ensure_ascii=False).encode()))
        return
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def test_a_fresh_site_verifies(cli, built_site):
    res = cli("site", "verify", built_site)
    assert res.exit_code == 0, res.output
    assert "every number recomputed" in res.output


def test_an_edited_score_in_a_sample_file_is_named(cli, copy, site_db):
    rid = site_db.rules_runs[0]

    def bump(data):
        data["records"][0]["record"]["f1"] = 0.123456

    _edit_json(copy / "samples" / f"{rid}.json", bump)
    line = _fails(cli, copy, f"samples/{rid}.json", "records[0].f1", "0.123456")
    assert "verdicts give" in line


def test_a_flipped_verdict_is_caught_by_the_numbers_it_gives(cli, copy, site_db):
    rid = site_db.direct_runs[0]

    def flip(data):
        verdict = next(v for v in data["records"][0]["verdicts"] if v["covered"])
        verdict["covered"] = False

    _edit_json(copy / "samples" / f"{rid}.json", flip)
    _fails(cli, copy, f"samples/{rid}.json", "records[0].precision", "its verdicts give")  # precision is checked first


def test_a_byte_changed_without_a_number_is_named_by_its_file(cli, copy, site_db):
    rid = site_db.rules_runs[1]
    path = copy / "samples" / f"{rid}.json"

    def reword(data):
        data["records"][0]["verdicts"][0]["rationale"] += " (edited)"

    _edit_json(path, reword)
    _fails(cli, copy, f"samples/{rid}.json", "sha256", "SHA256SUMS")


def test_an_edited_leaderboard_figure_is_named(cli, copy):
    _edit_json(copy / "results.json", lambda d: d["scores"][1].update(avg_f1=0.5))
    _fails(cli, copy, "results.json", "scores[1].avg_f1", "0.5")


def test_an_edited_comparison_is_named(cli, copy):
    results = json.loads((copy / "results.json").read_text(encoding="utf-8"))
    i = next(i for i, c in enumerate(results["comparisons"]) if c["tasks"])
    _edit_json(copy / "results.json", lambda d: d["comparisons"][i]["tasks"][0].update(difference=0.123))
    _fails(cli, copy, "results.json", f"comparisons[{i}].tasks[0].difference", "0.123")


def test_a_flipped_label_is_caught_by_the_agreement_it_gives(cli, copy):
    """rows.json is recomputed, not trusted: one person's label flipped on an item both
    annotators agreed on changes the judge's agreement, and verify names that figure."""
    def flip(d):
        both = {}
        for row in d["coverage_labels"]:
            both.setdefault((row["run_id"], row["gt_index"]), []).append(row)
        rows = next(rows for rows in both.values() if len(rows) == 2)
        for row in rows:  # both of them: the final label flips
            row["covered"] = not row["covered"]

    _edit_json(copy / "rows.json", flip)
    _fails(cli, copy, "results.json", "agreement is", "recomputed from rows.json")


def test_an_edited_agreement_figure_in_the_page_is_named(cli, copy):
    page = copy / "index.html"
    edited, n = re.subn(r'(data-check="label_agreement\.judges\[0\]\.agreement" data-value=")[^"]*(")', r"\g<1>0.5\g<2>",
                        page.read_text(encoding="utf-8"), count=1)
    assert n == 1
    page.write_text(edited, encoding="utf-8")
    _fails(cli, copy, "index.html", "label_agreement.judges[0].agreement", "0.5")


@pytest.mark.parametrize("check", ["label_agreement.human_ceiling.agreement", "label_agreement.judges[0].ac1",
                                   "label_agreement.prevalence.share"])
def test_an_edited_ceiling_ac1_or_prevalence_in_the_page_is_named(cli, copy, check):
    page = copy / "index.html"
    edited, n = re.subn(rf'(data-check="{re.escape(check)}" data-value=")[^"]*(")', r"\g<1>0.123\g<2>",
                        page.read_text(encoding="utf-8"), count=1)
    assert n == 1
    page.write_text(edited, encoding="utf-8")
    _fails(cli, copy, "index.html", check, "0.123")


def test_an_edited_ceiling_in_results_is_named(cli, copy):
    _edit_json(copy / "results.json", lambda d: d["label_agreement"]["human_ceiling"].update(agreement=0.9))
    _fails(cli, copy, "results.json", "label_agreement.human_ceiling.agreement", "recomputed from rows.json")


def test_a_number_edited_in_a_page_is_named(cli, copy):
    page = copy / "index.html"
    text = page.read_text(encoding="utf-8")
    edited, n = re.subn(r'(data-check="scores\[0\]\.best_f1" data-value=")[^"]*(")', r"\g<1>0.987\g<2>", text, count=1)
    assert n == 1
    page.write_text(edited, encoding="utf-8")
    _fails(cli, copy, "index.html", "scores[0].best_f1", "0.987")


def test_edited_events_change_the_interaction_figures(cli, copy, site_db):
    rid = site_db.rules_runs[0]

    def drop_tool_calls(events):
        events[:] = [e for e in events if e["data"]["kind"] != "tool_call"]

    _edit_json(copy / "events" / f"{rid}.json.gz", drop_tool_calls)
    _fails(cli, copy, "results.json", "interaction")


def test_a_missing_or_an_extra_file_is_named(cli, copy, tmp_path):
    (copy / "notes.txt").write_text("hello", encoding="utf-8")
    _fails(cli, copy, "notes.txt", "not listed")
    (copy / "notes.txt").unlink()
    sums = (copy / "SHA256SUMS").read_text(encoding="utf-8")
    (copy / "SHA256SUMS").write_text(sums + "0" * 64 + "  runs/gone.html\n", encoding="utf-8")
    _fails(cli, copy, "runs/gone.html", "missing")


def test_what_is_not_a_site_is_one_line(cli, tmp_path):
    _fails(cli, tmp_path / "nowhere", "no such folder")
    (tmp_path / "empty").mkdir()
    _fails(cli, tmp_path / "empty", "results.json")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "results.json").write_text("{not json", encoding="utf-8")
    _fails(cli, tmp_path / "bad", "results.json", "not valid JSON")
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "results.json").write_text('{"runs": [{"run_id": 1}]}', encoding="utf-8")
    _fails(cli, tmp_path / "odd")


# --------------------------------------------------------------------------- where each fact was lost (issue 41)
def _edit_check(path, check: str, value: str) -> None:
    edited, n = re.subn(rf'(data-check="{re.escape(check)}" data-value=")[^"]*(")', rf"\g<1>{value}\g<2>",
                        path.read_text(encoding="utf-8"), count=1)
    assert n == 1, check
    path.write_text(edited, encoding="utf-8")


def test_an_edited_funnel_count_on_the_front_page_is_named(cli, copy):
    _edit_check(copy / "index.html", "funnel[0].covered", "9999")
    _fails(cli, copy, "index.html", "funnel[0].covered", "9999")


def test_an_edited_funnel_count_on_a_run_page_is_named(cli, copy):
    import html

    for page in sorted((copy / "runs").glob("*.html")):
        found = re.search(r'data-check="(funnel_run:[^"]*\.not_written)"', page.read_text(encoding="utf-8"))
        if found:
            check = html.unescape(found.group(1))
            _edit_check(page, check, "77")
            _fails(cli, copy, f"runs/{page.name}", check, "77")
            return
    pytest.fail("no run page shows a funnel")


def test_an_edited_funnel_in_results_is_named(cli, copy):
    _edit_json(copy / "results.json", lambda d: d["funnel"][0].update(not_seen=d["funnel"][0]["not_seen"] + 3))
    _fails(cli, copy, "results.json", "funnel[0].not_seen", "recomputed from rows.json")
