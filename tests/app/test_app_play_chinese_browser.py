"""A Chinese task in Play, played by a person: the card, the stepper, the reply kinds' help, the
turn line and the decision's choices speak the task's language (``app/_words.py``); an English
task keeps English. Looked at with a CJK font (fonts-noto-cjk)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser_kit import choose, fill, no_chat_toolbar, shows, start
from playwright.sync_api import expect

from vibesearch.store import Store

pytestmark = pytest.mark.browser
ZH = "daily-zh-traditional-festivals"
SHOTS = Path(os.environ.get("VIBESEARCH_PLAY_SHOTS", "/tmp/play_shots"))


def test_a_chinese_task_is_played_in_chinese(pages, app_server):
    page = pages()
    choose(page, "vs-task", ZH)
    page.get_by_label("Me — I play the persona").check()
    decision = page.locator("#vs-decision")
    rid = start(page)
    shows(page, "vs-your-turn", "轮到你了")
    assert "轮到你了" not in page.locator("#vs-human-card").inner_text()  # said once, above the controls
    expect(decision.get_by_label("透露下一阶段", exact=True)).to_be_visible()  # the choices follow the task
    shows(page, "vs-your-turn", "轮到你了")
    shows(page, "vs-human-card", "下一阶段 2")
    shows(page, "vs-stepper", "阶段：已透露 1 / 11")
    expect(page.locator("#vs-send")).to_be_enabled()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "play_chinese.png"), full_page=True)
    decision.get_by_label("追问（条件未满足）", exact=True).check()
    fill(page, "vs-human-msg", "能再具体一点吗？")
    page.click("#vs-send")
    expect(page.locator("#vs-play-chat")).to_contain_text("能再具体一点吗？")
    no_chat_toolbar(page, "vs-play-chat")  # no Clear (清空对话) or Share in a Chinese browser either
    sent = [ev.data for ev in Store(app_server.db).events(rid) if getattr(ev.data, "role", "") == "user"]
    assert any("能再具体一点吗？" in str(getattr(d, "content", "")) for d in sent)
    # an English task again: English choices
    page.click("#vs-stop")
    page.click("#vs-stop-yes")
    choose(page, "vs-task", "daily-en-japan-heritage-trip")
    page.get_by_label("Me — I play the persona").check()
    start(page)
    expect(decision.get_by_label("push (trigger not met)", exact=True)).to_be_visible()
    page.click("#vs-stop")
    page.click("#vs-stop-yes")


def test_a_chinese_browser_gets_the_chinese_labels(browser, app_server):
    from browser_kit import wait_ready

    ctx = browser.new_context(locale="zh-CN", viewport={"width": 1366, "height": 900})
    try:
        page = ctx.new_page()
        page.goto(app_server.url)
        wait_ready(page, tab="运行")
        for name in ("运行", "运行记录", "标注", "排行榜", "对比", "研究"):
            expect(page.get_by_role("tab", name=name, exact=True)).to_be_visible()
        expect(page.locator("#vs-start")).to_have_text("开始")
        expect(page.locator("#vs-stop")).to_have_text("停止")
        expect(page.get_by_text("回放已保存的运行", exact=True)).to_be_visible()
        # the form's choices and hints too (their values, which the server reads, are unchanged)
        expect(page.locator("#vs-user").get_by_label("我——由我扮演角色", exact=True)).to_be_visible()
        expect(page.locator("#vs-agent").get_by_label("离线基线（检索 + 理想阅读器）", exact=True)).to_be_checked()
        page.get_by_text("模型与选项", exact=True).click()
        expect(page.get_by_text("评判模型（留空：离线评判）", exact=True)).to_be_visible()
        page.screenshot(path=str(SHOTS / "play_chinese_browser.png"), full_page=True)
        page.get_by_role("tab", name="运行记录", exact=True).click()
        expect(page.locator("#vs-runs-refresh")).to_have_text("刷新")
        expect(page.get_by_text("运行（点击一行打开）", exact=True)).to_be_visible()
        page.screenshot(path=str(SHOTS / "runs_chinese_browser.png"), full_page=True)
        page.get_by_role("tab", name="标注", exact=True).click()
        expect(page.get_by_text("开始标注", exact=True)).to_be_visible()
        page.screenshot(path=str(SHOTS / "label_chinese_browser.png"), full_page=True)
        page.get_by_role("tab", name="排行榜", exact=True).click()
        expect(page.get_by_text("评分所用的评判", exact=True)).to_be_visible()
        page.get_by_role("tab", name="对比", exact=True).click()
        expect(page.get_by_text("对比配置", exact=True).first).to_be_visible()
        page.screenshot(path=str(SHOTS / "compare_chinese_browser.png"), full_page=True)
    finally:
        ctx.close()
