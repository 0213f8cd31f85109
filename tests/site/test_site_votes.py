"""Preference votes on the site (issue 42): ``site build`` publishes the votes between published
runs in rows.json with each voter a pseudonym and no reason, and the leaderboard shows a preference
column (Bradley–Terry rating with its 95% interval) beside F1 only when there are votes; ``site
verify`` recomputes every rating from the bundled votes and refuses an edited one."""

from __future__ import annotations

import html
import json
import re
import shutil
import sqlite3

import pytest

VOTERS = [f"Person {c}" for c in "ABCDEFGH"]
REASON = "the left one understood my budget-7731"


@pytest.fixture(scope="module")
def voted_site(site_db, tmp_path_factory):
    """A copy of the module's database with votes between the two configurations' runs of each task
    (the rules user's run preferred by six of the eight voters), and its site."""
    from vibesearch.labels.votes import cast_vote
    from vibesearch.site import build_site
    from vibesearch.store import Store

    folder = tmp_path_factory.mktemp("voted")
    db = folder / "voted.db"
    # SQLite's backup: the module's database may still hold commits in its write-ahead log (its
    # store is open in this process), which a copy of the file alone would leave behind
    src, dst = sqlite3.connect(site_db.path), sqlite3.connect(db)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()
    store = Store(db)
    task_of = {r.id: r.task_id for r in store.list_runs()}
    direct = {task_of[r]: r for r in site_db.direct_runs}
    pairs = [(r, direct[task_of[r]]) for r in site_db.rules_runs if task_of[r] in direct]
    assert pairs
    for k, voter in enumerate(VOTERS):
        for rules, other in pairs:
            # sides alternate; the rules run wins for all but two voters
            a, b = (rules, other) if k % 2 else (other, rules)
            rules_side = "a" if a == rules else "b"
            winner = rules_side if k < 6 else ("tie" if k == 6 else {"a": "b", "b": "a"}[rules_side])
            cast_vote(store, a, b, winner, voter, reason=REASON)
    out = folder / "site"
    build_site(store, out, include_studies=True)
    return out


def _checked(page: str) -> dict[str, str]:
    return {html.unescape(c): html.unescape(v) for c, v in re.findall(r'data-check="([^"]*)" data-value="([^"]*)"', page)}


def test_without_votes_there_is_no_preference_column(built_site):
    results = json.loads((built_site / "results.json").read_text(encoding="utf-8"))
    assert results["preference"] is None
    assert json.loads((built_site / "rows.json").read_text(encoding="utf-8"))["votes"] == []
    index = (built_site / "index.html").read_text(encoding="utf-8")
    assert "Preference (BT" not in index and "preference." not in index


def test_the_leaderboard_shows_each_rating_with_its_interval(voted_site):
    results = json.loads((voted_site / "results.json").read_text(encoding="utf-8"))
    pref = results["preference"]
    assert pref["votes"] == pref["battles"] == 2 * len(VOTERS)
    ratings = pref["ratings"]
    assert len(ratings) == 2
    best, worst = ratings
    assert "user rules" in best["label"] and best["rating"] > 0 > worst["rating"]
    assert (best["wins"], best["losses"], best["ties"]) == (12, 2, 2)
    assert best["ci"][0] <= best["rating"] <= best["ci"][1]
    index = (voted_site / "index.html").read_text(encoding="utf-8")
    leaderboard = index.split('id="leaderboard"', 1)[1].split("</table>", 1)[0]
    heads = re.findall(r"<th[^>]*>(.*?)</th>", leaderboard)
    assert heads[heads.index("Avg F1 95% CI") + 1] == "Preference (BT, 95% CI)"
    shown = _checked(leaderboard)
    for k, r in enumerate(ratings):
        assert float(shown[f"preference.ratings[{k}].rating"]) == pytest.approx(r["rating"])
        assert float(shown[f"preference.ratings[{k}].ci[0]"]) == pytest.approx(r["ci"][0])
        assert float(shown[f"preference.ratings[{k}].ci[1]"]) == pytest.approx(r["ci"][1])
    # the by-subset table has no preference column
    groups = index.split('id="leaderboard-groups"', 1)[1].split("</table>", 1)[0]
    assert "Preference" not in groups


def test_voters_are_pseudonyms_and_reasons_are_not_published(voted_site):
    votes = json.loads((voted_site / "rows.json").read_text(encoding="utf-8"))["votes"]
    assert len(votes) == 2 * len(VOTERS)
    assert [v["voter"] for v in votes[::2]] == [f"voter-{k + 1}" for k in range(len(VOTERS))]
    assert {v["reason"] for v in votes} == {""}
    for path in voted_site.rglob("*"):
        if path.is_file() and path.suffix != ".gz":
            text = path.read_text(encoding="utf-8")
            assert "budget-7731" not in text and "Person A" not in text, path


def test_verify_recomputes_the_ratings_and_refuses_an_edited_one(cli, voted_site, tmp_path):
    res = cli("site", "verify", voted_site)
    assert res.exit_code == 0, res.output
    # a rating edited on the page (its shown text and its value)
    page = tmp_path / "page"
    shutil.copytree(voted_site, page)
    index = page / "index.html"
    text = index.read_text(encoding="utf-8")
    edited = re.sub(r'(data-check="preference\.ratings\[0\]\.rating" data-value=")[^"]*"', r'\g<1>2.5"', text, count=1)
    assert edited != text
    index.write_text(edited, encoding="utf-8")
    res = cli("site", "verify", page)
    assert res.exit_code == 1 and "index.html" in res.output and "preference.ratings[0].rating" in res.output, res.output
    # a rating edited in results.json
    data = tmp_path / "data"
    shutil.copytree(voted_site, data)
    results = json.loads((data / "results.json").read_text(encoding="utf-8"))
    results["preference"]["ratings"][1]["ci"][0] = -9.0
    (data / "results.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    res = cli("site", "verify", data)
    assert res.exit_code == 1 and "preference.ratings[1].ci[0]" in res.output and "rows.json" in res.output, res.output
    # a vote flipped in rows.json changes the ratings it gives
    flipped = tmp_path / "flipped"
    shutil.copytree(voted_site, flipped)
    rows = json.loads((flipped / "rows.json").read_text(encoding="utf-8"))
    rows["votes"][0]["winner"] = {"a": "b", "b": "a"}[rows["votes"][0]["winner"]]
    (flipped / "rows.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    res = cli("site", "verify", flipped)
    assert res.exit_code == 1 and "preference" in res.output, res.output
