"""The static site in Chromium from file://: the leaderboard sorts, a run page replays its events
to the end and shows its graph and missed triples, markup in a task / reply / triple never runs,
and no page asks the network for anything."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
# expect's timeout is one setting for the whole process (the last module imported sets it), so it
# is the same as tests/app/browser_kit.py's: a lower one here shortened every app test's waits
WAIT_MS = 90_000
expect.set_options(timeout=WAIT_MS)


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    pg.set_default_timeout(WAIT_MS)
    pg.requests = []
    pg.errors = []
    pg.on("request", lambda req: pg.requests.append(req.url))
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    yield pg
    ctx.close()


def _column(pg, table: str, col: int) -> list[str]:
    return pg.locator(f"#{table} tbody tr").evaluate_all(f"rows => rows.map(r => r.cells[{col}].textContent.trim())")


def _no_network(pg) -> None:
    remote = [u for u in pg.requests if u.split(":", 1)[0].lower() in ("http", "https", "ws", "wss")]
    assert not remote, remote
    assert pg.requests and all(u.startswith(("file://", "data:", "about:")) for u in pg.requests), pg.requests


def test_the_leaderboard_sorts_by_a_column(page, built_site, site_db):
    page.goto((built_site / "index.html").as_uri())
    expect(page.locator("#leaderboard tbody tr")).to_have_count(3)  # rules, direct, the markup run's react config
    expect(page.locator("#judge-agreement")).to_contain_text("coverage agreement")
    headers = page.locator("#leaderboard thead th").all_inner_texts()
    col = headers.index("Avg F1")
    before = _column(page, "leaderboard", col)
    page.locator("#leaderboard thead th").nth(col).click()
    expect(page.locator("#leaderboard thead th").nth(col)).to_have_attribute("aria-sort", "ascending")
    ascending = _column(page, "leaderboard", col)
    assert [float(x) for x in ascending] == sorted(float(x) for x in before)
    page.locator("#leaderboard thead th").nth(col).click()
    expect(page.locator("#leaderboard thead th").nth(col)).to_have_attribute("aria-sort", "descending")
    descending = _column(page, "leaderboard", col)
    assert descending == ascending[::-1] and descending != ascending
    assert before != ascending or before != descending  # the order changed
    # by a text column too
    page.locator("#leaderboard thead th").nth(0).click()
    names = _column(page, "leaderboard", 0)
    assert names == sorted(names, key=str.lower)
    page.screenshot(path="/tmp/site_leaderboard.png", full_page=True)
    assert not page.errors
    _no_network(page)


def test_a_run_page_replays_to_the_end_and_shows_its_graph(page, built_site, site_db):
    run_id = site_db.rules_runs[0]
    page.goto((built_site / "index.html").as_uri())
    page.locator("#runs a", has_text=run_id).click()
    expect(page).to_have_title(f"Run {run_id}")
    position = page.locator("#replay-position")
    expect(page.locator("#replay-state")).to_have_text("ready")
    total = position.inner_text().split(" / ")[1]
    assert int(total) > 10
    page.click("#replay-step")
    expect(position).to_have_text(f"1 / {total}")
    expect(page.locator("#replay-log > *")).to_have_count(1)  # the opening stage decision
    page.select_option("#replay-speed", "16")
    page.click("#replay-play")
    expect(page.locator("#replay-state")).to_have_text("playing")
    expect(position).to_have_text(f"{total} / {total}")
    expect(page.locator("#replay-state")).to_have_text("ended")
    assert page.locator("#replay-log .msg").count() > 4
    assert page.locator("#replay-stepper li.reached").count() >= 2
    expect(page.locator("#graph")).to_be_visible()
    assert page.locator("#graph path").count() > 20
    expect(page.locator("#missed-triples")).to_be_attached()
    assert page.locator("#missed-triples li").count() >= 1
    expect(page.locator("#verdicts")).to_contain_text("covered")
    page.click("#replay-reset")
    expect(position).to_have_text(f"0 / {total}")
    page.screenshot(path="/tmp/site_run_page.png", full_page=False)
    assert not page.errors
    _no_network(page)


def test_an_imported_run_has_its_page(page, built_site, site_db):
    if site_db.imported_run is None:
        pytest.skip("the shared official trajectories are not beside the repository")
    page.goto((built_site / "runs" / f"{site_db.imported_run}.html").as_uri())
    total = page.locator("#replay-position").inner_text().split(" / ")[1]
    page.select_option("#replay-speed", "16")
    page.click("#replay-play")
    expect(page.locator("#replay-position")).to_have_text(f"{total} / {total}")
    expect(page.locator("#replay-log details.tool").first).to_be_attached()
    assert not page.errors
    _no_network(page)


def test_markup_from_a_task_reply_or_triple_never_runs(page, built_site, site_db):
    from site_data import SCRIPT

    page.goto((built_site / "runs" / f"{site_db.xss_run}.html").as_uri())
    expect(page.locator("#persona")).to_contain_text(SCRIPT)  # shown as text
    total = page.locator("#replay-position").inner_text().split(" / ")[1]
    page.click("#replay-play")
    expect(page.locator("#replay-position")).to_have_text(f"{total} / {total}")
    expect(page.locator("#replay-log")).to_contain_text("window.__pwned=1")
    page.locator("#replay-log details.tool").first.locator("summary").click()  # open the folded tool call
    page.locator("#conversation details.tool").first.locator("summary").click()
    expect(page.locator("#missed-triples")).to_contain_text("javascript:alert(1)")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("img").count() == 0  # no markup became an element
    assert page.locator("a[href^='javascript']").count() == 0
    assert page.locator("a[href='https://example.org/ok']").count() == 1
    _no_network(page)


def test_a_large_replay_is_unpacked_in_the_browser(page, site_db, tmp_path, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    from vibesearch.site import _html, build_site
    from vibesearch.store import Store

    monkeypatch.setattr(_html, "COMPRESS_ABOVE", 1_000)  # every replay's data is "large"
    out = tmp_path / "packed"
    rid = site_db.rules_runs[1]
    with ThreadPoolExecutor(1) as pool:
        pool.submit(build_site, Store(site_db.path), out, runs=[rid], include_studies=True).result()
    html = (out / "runs" / f"{rid}.html").read_text(encoding="utf-8")
    assert 'data-encoding="gzip-base64"' in html
    page.goto((out / "runs" / f"{rid}.html").as_uri())
    expect(page.locator("#replay-state")).to_have_text("ready")
    total = page.locator("#replay-position").inner_text().split(" / ")[1]
    page.select_option("#replay-speed", "16")
    page.click("#replay-play")
    expect(page.locator("#replay-position")).to_have_text(f"{total} / {total}")
    assert int(total) > 10 and page.locator("#replay-log .msg").count() > 4
    assert not page.errors
    _no_network(page)
