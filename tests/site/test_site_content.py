"""What `vibesearch site build` writes: the report's own numbers, the results bundle, only the
runs named, escaped text, no secrets, nothing fetched from elsewhere."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from vibesearch.site import json_script, read_json_script, safe_href


def _files(out):
    return sorted(p for p in out.rglob("*") if p.is_file())


def _contents(path) -> bytes:
    """What a file holds once unpacked: a gzipped file's JSON, and a page with the replay data
    it embeds (gzipped when large) spelled out, so nothing hides from a search."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        return gzip.decompress(data)
    if path.suffix == ".html" and b'id="run-events"' in data:
        embedded = read_json_script(data.decode("utf-8"), "run-events")
        return data + json.dumps(embedded, ensure_ascii=False).encode("utf-8")
    return data


def test_no_secret_of_the_database_reaches_the_site(built_site, site_db):
    assert site_db.secrets
    for path in _files(built_site):
        data = _contents(path)
        for secret in site_db.secrets:
            assert secret.encode() not in data, f"{secret!r} in {path.relative_to(built_site)}"


def test_markup_is_escaped_in_every_page(built_site, site_db):
    from site_data import IMG, SCRIPT

    pages = [p for p in _files(built_site) if p.suffix == ".html"]
    for path in pages:
        text = path.read_text(encoding="utf-8")
        assert "<script>window.__pwned" not in text and "<img" not in text, path
        assert 'href="javascript' not in text.lower(), path
    xss = (built_site / "runs" / f"{site_db.xss_run}.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in xss
    assert "\\u003cscript\\u003ewindow.__pwned" in xss  # in the replay's data
    events = read_json_script(xss, "run-events")
    assert any(e.get("content", "").startswith(f"Here: {SCRIPT} {IMG}") for e in events)
    assert '<span class="unlinked">javascript:alert(1)</span>' in xss


def test_embedded_data_is_safe_and_large_data_is_compressed():
    value = {"text": "</script><!-- & \u2028", "list": list(range(50))}
    small = json_script("d", value)
    assert "</script><!--" not in small[:-len("</script>")] and read_json_script(small, "d") == value
    big = {"text": "x</script>" * 50_000}
    packed = json_script("d", big)
    assert 'data-encoding="gzip-base64"' in packed and len(packed) < 20_000
    assert read_json_script(packed, "d") == big
    assert safe_href("https://a.example/x") and safe_href("HTTP://a.example") and not safe_href("javascript:alert(1)")
    assert not safe_href(" data:text/html,x") and not safe_href("vbscript:x") and not safe_href("")


def test_the_numbers_are_the_reports_own(built_site, site_db):
    from vibesearch.reports import build_report
    from vibesearch.store import Store

    results = json.loads((built_site / "results.json").read_text(encoding="utf-8"))
    report = build_report(Store(site_db.path))
    key = lambda r: (r["config"], r["profile"], r["group"])  # noqa: E731
    ours = {key(r): r for r in results["scores"]}
    theirs = {key(r): r for r in report["scores"]}
    assert ours.keys() == theirs.keys() and len(ours) >= 6
    for k, row in theirs.items():
        for field in ("avg_f1", "best_f1", "avg_precision", "best_recall", "avg_f1_ci", "best_f1_ci", "n_runs", "left_out"):
            assert ours[k][field] == pytest.approx(row[field]), (k, field)
    assert [r["asst"] for r in results["interaction"]] == pytest.approx([r["asst"] for r in report["interaction"]])
    assert results["summary"] == report["summary"] and results["per_item"] == report["per_item"]
    line = next(t for t in results["judge_agreement"] if t["judge"] == "offline")
    assert line["measured"] and line["coverage"]["n"] == 24 and 0 < line["coverage"]["agreement"] < 1
    index = (built_site / "index.html").read_text(encoding="utf-8")
    assert "coverage agreement" in index and "id=\"agreement-coverage\"" in index
    # beside the judges: the people's own agreement (ann and bob labelled the same 12 triples of 2 runs alike)
    ceiling = results["label_agreement"]["human_ceiling"]
    assert ceiling["agreement"] == 1.0 and ceiling["n_items"] == 24 and ceiling["n_pairs"] == 24
    assert results["label_agreement"]["prevalence"]["n"] == 24 and "ac1" in results["label_agreement"]["judges"][0]
    assert 'data-check="label_agreement.human_ceiling.agreement"' in index and 'data-check="label_agreement.judges[0].ac1"' in index
    assert "human ceiling: people agree 100.00%" in index  # in the judge's agreement line too
    assert "not ranked against" in index or "inside the noise" in index or "above " in index  # the noise-floor marks


def test_the_comparisons_are_the_compare_commands(built_site, site_db):
    """The site's table of rules-user against direct-user runs says what `vibesearch compare` says
    (same tasks, same per-task F1, the same paired interval), and each adjacent pair gives a mark."""
    from vibesearch.labels.config_compare import compare_configs
    from vibesearch.store import Store

    results = json.loads((built_site / "results.json").read_text(encoding="utf-8"))
    pair = next(c for c in results["comparisons"] if c["upper"].endswith("user rules") and c["lower"].endswith("user direct")
                and c["upper"].startswith("baseline"))
    theirs = compare_configs(Store(site_db.path), {"agent": "baseline", "user": "rules"}, {"agent": "baseline", "user": "direct"}, judge="offline")
    assert pair["shared_tasks"] == theirs["difference"]["tasks"] == 2
    assert pair["delta_f1"] == pytest.approx(-theirs["difference"]["b_minus_a"])
    assert pair["ci"] == pytest.approx([-theirs["difference"]["ci"][1], -theirs["difference"]["ci"][0]])
    assert pair["standing"] == ("inside the noise" if theirs["inside_noise"] else "above")
    by_task = {t["task"]: t for t in theirs["tasks"]}
    for t in pair["tasks"]:
        assert (t["upper_f1"], t["lower_f1"]) == pytest.approx((by_task[t["task"]]["a"], by_task[t["task"]]["b"]))
        assert len(t["upper_runs"]) == len(t["lower_runs"]) == 1
    assert {r for t in pair["tasks"] for r in t["upper_runs"]} == set(site_db.rules_runs)
    marks = {(m["config"], m["profile"]): m["mark"] for m in results["noise_marks"]}
    for c in results["comparisons"]:
        if c["adjacent"]:
            assert c["lower"] in marks[(c["upper"], c["profile"])]
    index = (built_site / "index.html").read_text(encoding="utf-8")
    i = results["comparisons"].index(pair)
    assert f'id="comparison-{i}-tasks"' in index and f'data-check="comparisons[{i}].delta_f1"' in index
    assert "?compare=" not in index  # built without --app-url: no link to a live app


def test_the_bundle_holds_what_it_names(built_site, site_db):
    from vibesearch import __version__
    from vibesearch.site.bundle import content_hash, sha256_file

    results = json.loads((built_site / "results.json").read_text(encoding="utf-8"))
    assert results["vibesearch_version"] == __version__
    for key in ("summary", "per_item", "scores", "interaction", "noise_marks", "left_out", "tasks", "runs", "label_agreement"):
        assert key in results
    ids = {r["run_id"] for r in results["runs"]}
    expected = {*site_db.rules_runs, *site_db.direct_runs, site_db.xss_run} | ({site_db.imported_run} if site_db.imported_run else set())
    assert ids == expected
    for task in results["tasks"]:
        assert content_hash(json.loads((built_site / task["file"]).read_text(encoding="utf-8"))) == task["sha256"]
    assert {t["id"] for t in results["tasks"]} >= {"daily-en-japan-heritage-trip", "pro-en-analysis-history", "xss-task"}
    live = next(r for r in results["runs"] if r["run_id"] == site_db.rules_runs[0])
    assert live["run_config"]["agent"]["kind"] == "baseline" and live["task_sha256"]
    for r in results["runs"]:
        for rel in (r["page"], r["sample_file"], r["events_file"]):
            assert (built_site / rel).is_file()
    sums = dict(reversed(line.split("  ", 1)) for line in (built_site / "SHA256SUMS").read_text().splitlines())
    listed = {p.relative_to(built_site).as_posix() for p in _files(built_site)} - {"SHA256SUMS"}
    assert set(sums) == listed
    assert all(sha256_file(built_site / rel) == digest for rel, digest in sums.items())


def test_no_page_refers_to_anything_outside_the_site(built_site):
    for path in _files(built_site):
        if path.suffix != ".html":
            continue
        text = path.read_text(encoding="utf-8")
        assert re.findall(r"\bsrc\s*=\s*[\"']", text) == [], path  # nothing is loaded from anywhere
        assert "<link" not in text and "@import" not in text and "url(" not in text, path
        assert "default-src 'none'" in text  # and the page's policy forbids any fetch
        for href in re.findall(r'href="([^"]*)"', text):  # links are relative, or http(s) links a person may follow
            assert href.startswith(("http://", "https://")) or "://" not in href and not href.startswith(("//", "javascript")), href


def test_only_the_runs_named_are_published(cli, site_db, tmp_path):
    pick = site_db.rules_runs[0]
    out = tmp_path / "one"
    res = cli("site", "build", out, "--db", site_db.path, "--runs", pick, "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["runs"] == 1
    assert [p.stem for p in (out / "runs").iterdir()] == [pick]
    assert {r["run_id"] for r in json.loads((out / "results.json").read_text())["runs"]} == {pick}
    others = [*site_db.direct_runs, *site_db.rules_runs[1:], site_db.xss_run]
    assert not any(o.encode() in _contents(p) for p in _files(out) for o in others)
    assert cli("site", "verify", out).exit_code == 0

    res = cli("site", "build", tmp_path / "direct", "--db", site_db.path, "--runs", "user=direct")
    assert res.exit_code == 0, res.output
    assert sorted(p.stem for p in (tmp_path / "direct" / "runs").iterdir()) == sorted(site_db.direct_runs)

    res = cli("site", "build", tmp_path / "camp", "--db", site_db.path, "--campaign", site_db.campaign)
    assert res.exit_code == 0, res.output
    assert sorted(p.stem for p in (tmp_path / "camp" / "runs").iterdir()) == sorted([site_db.rules_runs[0], site_db.direct_runs[0]])
    assert cli("site", "verify", tmp_path / "camp").exit_code == 0

    res = cli("site", "build", tmp_path / "study", "--db", site_db.path, "--study", "played study")
    assert res.exit_code == 0, res.output
    assert [p.stem for p in (tmp_path / "study" / "runs").iterdir()] == [site_db.rules_runs[1]]  # the study's one play
    assert cli("site", "verify", tmp_path / "study").exit_code == 0
    res = cli("site", "build", tmp_path / "none", "--db", site_db.path, "--study", "played study", "--runs", "user=direct")
    assert res.exit_code == 1 and "no run to publish" in res.output  # filters given together must all hold


def test_a_study_play_is_published_only_when_asked_for(cli, site_db, tmp_path):
    # issue 39: `site build` published every study's plays by default
    play = site_db.rules_runs[1]  # the played study's one play
    out = tmp_path / "default"
    res = cli("site", "build", out, "--db", site_db.path, "--json")
    assert res.exit_code == 0, res.output
    assert not (out / "runs" / f"{play}.html").exists()
    assert {r["run_id"] for r in json.loads((out / "results.json").read_text())["runs"]} == (
        {site_db.rules_runs[0], *site_db.direct_runs, site_db.xss_run} | ({site_db.imported_run} if site_db.imported_run else set()))
    assert not any(play.encode() in _contents(p) for p in _files(out))  # not in any file: no page, no bundle, no rows
    assert cli("site", "verify", out).exit_code == 0
    res = cli("site", "build", tmp_path / "named", "--db", site_db.path, "--runs", play)  # naming it is not enough
    assert res.exit_code == 1 and "is a study's play" in res.output and "--include-studies" in res.output
    res = cli("site", "build", tmp_path / "filtered", "--db", site_db.path, "--runs", "user=rules")
    assert res.exit_code == 0 and {p.stem for p in (tmp_path / "filtered" / "runs").iterdir()} == {site_db.rules_runs[0], site_db.xss_run}
    res = cli("site", "build", tmp_path / "all", "--db", site_db.path, "--runs", "user=rules", "--include-studies")
    assert res.exit_code == 0 and {p.stem for p in (tmp_path / "all" / "runs").iterdir()} == {*site_db.rules_runs, site_db.xss_run}


@pytest.mark.parametrize("args, needle", [
    (["--runs", "nosuchrun"], "no run 'nosuchrun'"),
    (["--runs", "colour=blue"], "unknown key"),
    (["--campaign", "nope"], "no campaign named 'nope'"),
    (["--study", "nope"], "no study named 'nope'"),
    (["--study", "site study"], "no run to publish"),
    (["--app-url", "javascript:alert(1)"], "--app-url"),
])
def test_a_selection_that_names_nothing_is_one_line(cli, site_db, tmp_path, args, needle):
    res = cli("site", "build", tmp_path / "x", "--db", site_db.path, *args)
    assert res.exit_code == 1 and needle in res.output and len(res.output.strip().splitlines()) == 1, res.output
    assert not (tmp_path / "x").exists()


def test_the_live_app_links_and_a_rebuild_replaces_the_site(cli, site_db, tmp_path):
    out = tmp_path / "s"
    assert cli("site", "build", out, "--db", site_db.path, "--runs", site_db.rules_runs[1], "--include-studies").exit_code == 0
    (out / "stale.txt").write_text("old", encoding="utf-8")
    res = cli("site", "build", out, "--db", site_db.path, "--runs", site_db.rules_runs[0], "--app-url", "https://vibes.example/")
    assert res.exit_code == 0, res.output
    assert not (out / "stale.txt").exists()
    page = (out / "runs" / f"{site_db.rules_runs[0]}.html").read_text(encoding="utf-8")
    assert f'href="https://vibes.example/?run={site_db.rules_runs[0]}"' in page
    # a task played once by each of two configurations links to the live app's comparison of the two runs
    res = cli("site", "build", out, "--db", site_db.path, "--runs", ",".join(site_db.rules_runs + site_db.direct_runs),
              "--app-url", "https://vibes.example/", "--include-studies")
    assert res.exit_code == 0, res.output
    index = (out / "index.html").read_text(encoding="utf-8")
    links = set(re.findall(r'href="https://vibes\.example/\?compare=([^",]+),([^"]+)"', index))
    expected = {(r, d) for r in site_db.rules_runs for d in site_db.direct_runs if _same_task(out, r, d)}
    assert links == expected and len(expected) == 2
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging folder left behind


def _same_task(out, a: str, b: str) -> bool:
    runs = {r["run_id"]: r["task_id"] for r in json.loads((out / "results.json").read_text(encoding="utf-8"))["runs"]}
    return runs[a] == runs[b]


def test_a_published_endpoint_url_keeps_no_user_or_password():
    from vibesearch.site.build import _public_config

    config = {"agent": {"kind": "endpoint", "endpoint_url": "https://me:sk-live-123@agent.example:8443/v1?token=abc#f"}}
    assert _public_config(config)["agent"]["endpoint_url"] == "https://agent.example:8443/v1"
    assert _public_config({"agent": {"endpoint_url": None}}) == {"agent": {"endpoint_url": None}}


def test_an_unscored_run_shows_its_own_graph(built_site, site_db):
    if site_db.imported_run is None:
        pytest.skip("the shared official trajectories are not beside the repository")
    page = (built_site / "runs" / f"{site_db.imported_run}.html").read_text(encoding="utf-8")
    assert '<svg id="graph"' in page and 'data-category="pred_unjudged"' in page


def test_a_folder_that_is_not_a_site_is_never_replaced(cli, site_db, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("precious", encoding="utf-8")
    res = cli("site", "build", mine, "--db", site_db.path, "--runs", site_db.rules_runs[0])
    assert res.exit_code == 1 and "not a site built by vibesearch" in res.output, res.output
    assert [p.name for p in mine.iterdir()] == ["thesis.tex"]
    assert [p.name for p in tmp_path.iterdir()] == ["mine"]
    (tmp_path / "empty").mkdir()
    assert cli("site", "build", tmp_path / "empty", "--db", site_db.path, "--runs", site_db.rules_runs[0]).exit_code == 0
