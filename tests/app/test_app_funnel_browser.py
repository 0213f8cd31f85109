"""Where each fact was lost (issue 41) in Chromium at 1366×768.

Runs: an opened run shows each ground-truth triple in its bucket, with the five counts (they sum
to the ground truth and equal ``vibesearch analyse``'s for that run); a click on a triple scrolls
the transcript to the user turn it names. A Chinese task's funnel speaks Chinese. Leaderboard: one
funnel bar per configuration, its counts those of ``results.analysis.series_funnels``, its legend
in the browser's language.

The runs: the offline baseline with the rule-based user on one English and one Chinese task, and
with the scripted user cut short after one turn (stages never asked: "not asked"), scored by the
offline judge, all through the CLI."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from app_harness import run_cli as _cli
from browser_kit import fill, tab, wait_ready
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

EN, ZH = "daily-en-japan-heritage-trip", "daily-zh-traditional-festivals"
BUCKETS = ("not_asked", "not_seen", "not_written", "judged_not_covered", "covered")
SHOTS = Path(os.environ.get("VIBESEARCH_FUNNEL_SHOTS", "/tmp/funnel_shots"))
PLOT = "#vs-lb-funnel .js-plotly-plot"


@pytest.fixture(scope="module")
def analysed(app_server) -> dict:
    """The module's runs, scored; ``vibesearch analyse --json --triples`` over them (each run's
    funnel), and the leaderboard's series funnels."""
    import json

    from vibesearch.results.analysis import series_funnels
    from vibesearch.scoring import collect_runs
    from vibesearch.store import open_db

    db = str(app_server.db)
    _cli("run", "--tasks", f"{EN},{ZH}", "--runs", "1", "--db", db)
    _cli("run", "--tasks", EN, "--runs", "1", "--user", "direct", "--max-user-turns", "1", "--db", db)
    _cli("score", "--all", "--db", db)
    runs = {r["run_id"]: r for r in json.loads(_cli("analyse", "--json", "--triples", "--db", db))["runs"]}
    store = open_db(app_server.db, writes=False)
    series = series_funnels(store, collect_runs(store)[0])
    return {"runs": runs, "series": series}


def _open(browser, url: str, locale: str = "en-US") -> tuple:
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, locale=locale)
    page = ctx.new_page()
    page.goto(url)
    wait_ready(page, tab="Play" if locale.startswith("en") else "运行")
    return ctx, page


def _open_run(page: Page, run_id: str, runs_tab: str = "Runs") -> None:
    tab(page, runs_tab)
    fill(page, "vs-runs-id", run_id)
    page.click("#vs-runs-open")
    expect(page.locator("#vs-runs-funnel")).to_have_attribute("data-n-gt", re.compile(r"^\d+$"))


def _counts_shown(page: Page) -> dict[str, int]:
    return {b: int(page.locator(f"#vs-runs-funnel .vs-funnel-count[data-bucket={b}]").get_attribute("data-count") or -1) for b in BUCKETS}


def _in_chat_view(page: Page, turn: int) -> bool:
    """Whether user turn ``turn``'s anchor is inside the transcript's scrolled box and the window."""
    return page.evaluate(
        """turn => {
            const mark = document.getElementById('vs-runs-turn-' + turn);
            if (!mark) return false;
            let box = mark.parentElement;
            while (box && !(box.scrollHeight > box.clientHeight + 2 && getComputedStyle(box).overflowY !== 'visible')) box = box.parentElement;
            const r = mark.getBoundingClientRect(), b = box ? box.getBoundingClientRect() : {top: 0, bottom: window.innerHeight};
            return r.top >= b.top - 1 && r.top <= b.bottom && r.top >= 0 && r.top <= window.innerHeight;
        }""",
        turn,
    )


def _chat_to_top(page: Page) -> None:
    """Scroll the transcript's own box back to its first message."""
    page.evaluate(
        """() => {
            let box = document.getElementById('vs-runs-turn-1').parentElement;
            while (box && !(box.scrollHeight > box.clientHeight + 2 && getComputedStyle(box).overflowY !== 'visible')) box = box.parentElement;
            box.scrollTop = 0;
        }"""
    )
    assert _in_chat_view(page, 1)


def test_the_runs_tab_shows_each_triple_in_its_bucket_and_jumps_to_its_turn(browser, app_server, analysed):
    full = next(r for r in analysed["runs"].values() if r["task_id"] == EN and r["not_asked"] == 0)
    ctx, page = _open(browser, app_server.url)
    try:
        _open_run(page, full["run_id"])
        box = page.locator("#vs-runs-funnel")
        expect(box).to_have_attribute("data-n-gt", str(full["n_gt"]))
        shown = _counts_shown(page)
        assert shown == {b: full[b] for b in BUCKETS}
        assert sum(shown.values()) == full["n_gt"]
        expect(box.locator(".vs-funnel-triple")).to_have_count(full["n_gt"])
        for b in BUCKETS:  # each triple sits in the bucket analyse gives it
            want = sorted(t["gt_index"] + 1 for t in full["triples"] if t["bucket"] == b)
            got = sorted(int(v) for v in box.locator(f".vs-funnel-triple[data-bucket={b}]").evaluate_all("els => els.map(e => e.value)"))
            assert got == want, b
        expect(box).to_contain_text("Where each fact was lost")
        expect(box).to_contain_text("not written")

        # a triple first shown late in the run: its line links to that turn; a click scrolls the transcript there
        def turn_of(t: dict) -> int | None:
            return (t["sighting"] or {}).get("turn") or (t["disclosed"] or {}).get("turn")

        late = max((t for t in full["triples"] if turn_of(t)), key=turn_of)
        turn = turn_of(late)
        assert turn is not None and turn > 2
        _chat_to_top(page)
        assert not _in_chat_view(page, turn)  # the transcript shows its start, not that turn
        line = page.locator(f"#vs-runs-funnel-gt-{late['gt_index'] + 1} [data-turn='{turn}']").first
        line.scroll_into_view_if_needed()
        page.screenshot(path=str(_shot("runs_funnel_en.png")))
        line.click()
        expect(page.locator("#vs-runs-chat")).to_have_attribute("data-shown-turn", str(turn))
        page.wait_for_function("turn => { const m = document.getElementById('vs-runs-turn-' + turn); return !!m; }", arg=turn)
        assert _in_chat_view(page, turn)
        page.screenshot(path=str(_shot("runs_funnel_en_jumped.png")))

        # an earlier turn: the transcript goes back to it
        early = min((t for t in full["triples"] if turn_of(t)), key=turn_of)
        page.locator(f"#vs-runs-funnel-gt-{early['gt_index'] + 1} [data-turn]").first.click()
        expect(page.locator("#vs-runs-chat")).to_have_attribute("data-shown-turn", str(turn_of(early)))
        assert _in_chat_view(page, turn_of(early))
    finally:
        ctx.close()


def test_a_run_cut_short_loses_its_facts_as_never_asked(browser, app_server, analysed):
    short = next(r for r in analysed["runs"].values() if r["not_asked"] > 0)
    ctx, page = _open(browser, app_server.url)
    try:
        _open_run(page, short["run_id"])
        expect(page.locator("#vs-runs-funnel")).to_have_attribute("data-n-gt", str(short["n_gt"]))
        assert _counts_shown(page) == {b: short[b] for b in BUCKETS}
        never = page.locator("#vs-runs-funnel .vs-funnel-triple[data-bucket=not_asked]")
        expect(never).to_have_count(short["not_asked"])
        expect(never.first).to_contain_text("its stage was never disclosed")
        expect(never.first.locator("[data-turn]")).to_have_count(0)  # nothing to jump to
    finally:
        ctx.close()


def test_a_chinese_task_and_browser_get_the_funnel_in_chinese(browser, app_server, analysed):
    zh = next(r for r in analysed["runs"].values() if r["task_id"] == ZH)
    ctx, page = _open(browser, app_server.url, locale="zh-CN")
    try:
        _open_run(page, zh["run_id"], runs_tab="运行记录")
        box = page.locator("#vs-runs-funnel")
        expect(box).to_have_attribute("data-n-gt", str(zh["n_gt"]))
        assert _counts_shown(page) == {b: zh[b] for b in BUCKETS}
        expect(box).to_contain_text("每个事实在哪里丢失")
        expect(box).to_contain_text("已覆盖")
        box.scroll_into_view_if_needed()
        page.screenshot(path=str(_shot("runs_funnel_zh.png")))
        tab(page, "排行榜")  # opening the tab draws it
        _wait_bars(page, len(analysed["series"]))
        names = page.locator(f"{PLOT} .legendtext").evaluate_all("els => els.map(e => e.textContent)")
        assert names == ["未问到", "未看到", "未写出", "判为未覆盖", "已覆盖"]
        page.locator("#vs-lb-funnel").scroll_into_view_if_needed()
        page.screenshot(path=str(_shot("leaderboard_funnel_zh.png")))
    finally:
        ctx.close()


def _wait_bars(page: Page, n_series: int) -> None:
    """The funnel plot holds its five bucket traces, each with one bar per series."""
    page.wait_for_function(
        """([sel, n]) => {
            const el = document.querySelector(sel);
            return !!(el && el.data && el.data.length === 5 && el.data.every(t => t.y && t.y.length === n));
        }""",
        arg=[PLOT, n_series],
    )
    # and no update of it is still on its way (the tab's own refresh and the button's run one after the other)
    expect(page.locator("#vs-lb-funnel [data-testid=status-tracker]").first).to_have_class(re.compile(r"\bhide\b"))


def test_the_leaderboard_draws_a_funnel_bar_per_configuration(browser, app_server, analysed):
    series = analysed["series"]
    assert len(series) == 2  # the rule-based user and the scripted one
    ctx, page = _open(browser, app_server.url)
    try:
        tab(page, "Leaderboard")
        page.click("#vs-lb-refresh")
        _wait_bars(page, len(series))
        data = page.evaluate("sel => document.querySelector(sel).data.map(t => ({name: t.name, x: t.x, text: t.text}))", PLOT)
        assert [t["name"] for t in data] == ["not asked", "not seen", "not written", "judged not covered", "covered"]
        for k, row in enumerate(series):
            assert [t["text"][k] for t in data] == [str(row[b]) if row[b] else "" for b in BUCKETS]
            assert abs(sum(t["x"][k] for t in data) - 100) < 1e-6
        assert sum(series[0][b] for b in BUCKETS) == series[0]["n_gt"]
        page.locator("#vs-lb-funnel").scroll_into_view_if_needed()
        page.screenshot(path=str(_shot("leaderboard_funnel_en.png")))
    finally:
        ctx.close()


def _shot(name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS / name
