"""The Leaderboard tab in Chromium: the per-stage views (recall of the ground truth by stage, where
runs stall, F1 by stages reached) under the tables — the report's own rows over the same runs —
and, at 1366 and 1440 px, no number in the score and interaction tables broken across lines; a
configuration played on one task writes "1 task" where an interval over tasks would be.

The runs: the offline baseline with the rule-based user on two tasks (two runs each), and with the
scripted user on one task cut short, scored by the offline judge through the CLI."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from app_harness import run_cli as _cli
from browser_kit import grid_row, shows, tab, wait_ready
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

TASKS = "daily-en-japan-heritage-trip,pro-en-analysis-history"
SHORT_TASK = "daily-en-japan-heritage-trip"
SHOTS = Path(os.environ.get("VIBESEARCH_LEADERBOARD_SHOTS", "/tmp/leaderboard_shots"))

# every run of digits and number punctuation in a cell (a number, a percentage, an interval's end)
# must sit on one line and inside its cell: the page lists the numbers that do not
BROKEN_NUMBERS_JS = r"""
ids => {
  const broken = [];
  for (const id of ids) {
    for (const cell of document.querySelectorAll(`#${id} [role=gridcell]`)) {
      if (!cell.checkVisibility()) continue;
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent;
        for (const m of text.matchAll(/[0-9][0-9.,%]*/g)) {
          const tops = new Set();
          const edge = cell.getBoundingClientRect();
          let clipped = false;
          for (let i = m.index; i < m.index + m[0].length; i++) {
            const r = document.createRange();
            r.setStart(node, i); r.setEnd(node, i + 1);
            const box = r.getClientRects()[0];
            if (!box || box.width === 0) continue;
            tops.add(Math.round(box.top));
            if (box.left < edge.left - 0.5 || box.right > edge.right + 0.5) clipped = true;
          }
          if (tops.size > 1) broken.push(`${id}: ${m[0]} broken in "${text}"`);
          if (clipped) broken.push(`${id}: ${m[0]} runs out of its cell in "${text}"`);
        }
      }
    }
  }
  return broken;
}
"""


@pytest.fixture(scope="module")
def scored(app_server) -> dict:
    """The module's runs, scored; returns the report's per-stage figures over them."""
    from vibesearch.reports import build_report
    from vibesearch.store import open_db

    db = str(app_server.db)
    _cli("run", "--tasks", TASKS, "--runs", "2", "--db", db)
    _cli("run", "--tasks", SHORT_TASK, "--runs", "1", "--user", "direct", "--max-user-turns", "1", "--db", db)
    _cli("score", "--all", "--db", db)
    return build_report(open_db(app_server.db, writes=False))["stages"]


def _open(browser, url: str, width: int, height: int, locale: str = "en-US"):
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = ctx.new_page()
    page.goto(url)
    if locale == "en-US":
        wait_ready(page)
        tab(page, "Leaderboard")
    else:
        wait_ready(page, tab="运行")
        tab(page, "排行榜")
    page.click("#vs-lb-refresh")
    return ctx, page


def test_the_leaderboard_shows_the_per_stage_views(browser, app_server, scored):
    from vibesearch.reports.stages import reached_rows, recall_rows, stall_text

    ctx, page = _open(browser, app_server.url, 1366, 768)
    try:
        shows(page, "vs-lb-stages", "Recall by stage")
        rows = page.locator("#vs-lb-stage-recall tbody tr")
        expected = recall_rows(scored)
        assert expected, scored
        expect(rows).to_have_count(len(expected))
        for i, row in enumerate(expected):
            expect(rows.nth(i).locator("td")).to_have_text([str(c) for c in row])
        expect(page.locator("#vs-lb-stage-f1 tbody tr")).to_have_count(len(reached_rows(scored)))
        expect(page.locator("#vs-lb-stage-stall")).to_have_text(stall_text(scored))
        page.locator("#vs-lb-stages").scroll_into_view_if_needed()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "leaderboard_stages_1366.png"), full_page=True)
    finally:
        ctx.close()


@pytest.mark.parametrize("width", [1440, 1366])
def test_no_number_breaks_across_lines(browser, app_server, scored, width):
    ctx, page = _open(browser, app_server.url, width, 900)
    try:
        # the two-task configuration's interval, and the one-task configuration's "1 task"
        two = grid_row(page, "vs-lb-scores", re.compile(r"^baseline .*user rules$"), "all")
        expect(two.get_by_role("gridcell").filter(has_text=re.compile(r"^\s*\d+\.\d\d–\d+\.\d\d\s*$"))).to_have_count(2)
        one = grid_row(page, "vs-lb-scores", re.compile(r"^baseline .*user direct$"), "all")
        expect(one.get_by_role("gridcell").filter(has_text=re.compile(r"^\s*1 task\s*$"))).to_have_count(2)
        grid_row(page, "vs-lb-interaction", re.compile(r"^baseline .*user direct$"))
        broken = page.evaluate(BROKEN_NUMBERS_JS, ["vs-lb-scores", "vs-lb-interaction"])
        assert broken == []
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"leaderboard_{width}.png"), full_page=True)
    finally:
        ctx.close()


def test_a_chinese_browser_reads_the_tables_in_chinese(browser, app_server, scored):
    """The same tables in a zh-CN browser: Chinese headers, groups, "1 个任务" and per-stage views,
    the same rows' numbers, none broken across lines at 1366 px."""
    ctx, page = _open(browser, app_server.url, 1366, 900, locale="zh-CN")
    try:
        shows(page, "vs-lb-stages", "按阶段的召回率")
        expect(page.locator("#vs-lb-stage-recall tbody tr")).to_have_count(len(scored["stages"]))
        shows(page, "vs-lb-stage-stall", "运行在哪里停滞")
        expect(page.locator("#vs-lb-scores [role=columnheader]").first).to_contain_text("配置")
        one = grid_row(page, "vs-lb-scores", re.compile(r"^baseline .*user direct$"), "全部")
        expect(one.get_by_role("gridcell").filter(has_text=re.compile(r"^\s*1 个任务\s*$"))).to_have_count(2)
        grid_row(page, "vs-lb-interaction", re.compile(r"^baseline .*user direct$"))
        expect(page.locator("#vs-lb-scores")).to_contain_text("未与 baseline")  # the ranking mark: one shared task, not ranked
        shows(page, "vs-lb-summary", "个由离线评判给出的得分")
        assert page.evaluate(BROKEN_NUMBERS_JS, ["vs-lb-scores", "vs-lb-interaction"]) == []
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "leaderboard_zh_1366.png"), full_page=True)
    finally:
        ctx.close()
