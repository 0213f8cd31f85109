"""A Chinese browser (locale zh-CN) walks every tab — Play with a Chinese task played by a person
(the persona header, the card, the status line, the Stop question), Runs with that run opened,
Label (and its New campaign form), Leaderboard, Compare, Study — and finds no English word in what the page shows, outside
proper names, model names, ids and units (``ALLOWED`` below, and the id patterns of ``_is_id``).

Each tab's screenshot is kept under ``VIBESEARCH_PLAY_SHOTS`` (default /tmp/play_shots) to be
looked at with a CJK font (fonts-noto-cjk)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from browser_kit import WAIT_MS, choose, shows, start, wait_ready
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser
ZH = "daily-zh-traditional-festivals"
SHOTS = Path(os.environ.get("VIBESEARCH_PLAY_SHOTS", "/tmp/play_shots"))

# proper names, product and format names, units and the keyboard's keys: English by nature
ALLOWED = {
    "VibeSearch", "vibesearch", "VibeSearchBench", "WideSearch", "OpenClaw", "OpenAI", "ReAct", "LLM", "litellm",
    "JSON", "JSONL", "YAML", "CSV", "CSVs", "zip", "PNG", "SVG", "HTML", "URL", "API", "ID",
    "Avg", "Best", "Row", "Item", "P", "R", "F1", "Shift", "Enter",  # the paper's metric names and keys
    "BT",  # Bradley–Terry, the preference model's name (as "F1" is a metric's)
    "official", "ours",  # the protocol profiles' names (values the CLI and the stored runs use)
    "worker",  # `vibesearch worker`: a command's name
    "Gradio",  # the "Use via API · Built with Gradio" footer
    "UTC",  # a time zone
    "zh", "en", "daily", "pro",  # a task's language code and subset name (ids, as in its file)
    "search", "visit", "fidelity", "csv",  # the agent's tool names (the counters' tool calls) and a CLI command shown as code
    "baseline", "human", "react", "llm", "rule", "endpoint", "openclaw", "paper",  # agent and user kind ids (the CLI's --agent/--user)
    "campaign", "create",  # `vibesearch campaign create`: a command's name
}
# Gradio's own status line over an event's outputs while it runs ("processing | 0.1/0.2s", "queue: 1/2 |"):
# Gradio writes it in English in every locale, without i18n. ``look`` waits for it to go; an event
# starting between that wait and the read (a step of the play) shows it again: it is left out.
GRADIO_STATUS = re.compile(r"^\s*(processing|queue: \d+/\d*) \|")


def _is_id(token: str) -> bool:
    """A run id, a task id, a model string, a path, a date or a number: not a word to translate."""
    return bool(re.search(r"\d|/|_|@|\.\w|^#|^[a-z]+(-[a-z0-9]+){2,}$", token))


def english_words(text: str) -> set[str]:
    found: set[str] = set()
    for token in re.split(r"[\s\u3000-\u303f\uff00-\uffef,;()\[\]{}<>\"'`·•—–…|=+*?!]+", text):
        if not re.search(r"[A-Za-z]{2}", token) or _is_id(token):
            continue
        for word in re.findall(r"[A-Za-z][A-Za-z'-]*[A-Za-z]", token):
            if word not in ALLOWED:
                found.add(word)
    return found


def visible(page: Page) -> str:
    """What the page shows now: the open tab's text plus any toast, and the shown value of each
    dropdown (a filter's "(any)"); an agent's tool calls (lines starting ⚙) are code, and the New
    campaign filter's list of keys ("键=值…：task, subset, …", typed as they are) ids: both left out."""
    values = page.locator("input[role=listbox]:visible, input[role=combobox]:visible").evaluate_all("els => els.map(e => e.value)")
    lines = page.locator("body").inner_text().splitlines() + values
    return "\n".join(line for line in lines if not line.lstrip().startswith(("⚙", "键=值")) and not GRADIO_STATUS.match(line))


def look(page: Page, name: str, left: dict[str, set[str]]) -> None:
    """Read the page once every event it waits on has answered: while one runs, Gradio's own status
    line ("processing | 0.1s", written by Gradio in English in every locale) stands over its outputs."""
    expect(page.locator(".progress-text:visible")).to_have_count(0)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"zh_walk_{name}.png"), full_page=True)
    text = visible(page)
    (SHOTS / f"zh_walk_{name}.txt").write_text(text)
    words = english_words(text)
    if words:
        left[name] = words


def zh_tab(page: Page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()
    expect(page.get_by_role("tab", name=name, exact=True)).to_have_attribute("aria-selected", "true")


def test_a_chinese_browser_sees_no_english_on_any_tab(browser, app_server):
    ctx = browser.new_context(locale="zh-CN", viewport={"width": 1366, "height": 900})
    left: dict[str, set[str]] = {}
    try:
        page = ctx.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(app_server.url)
        wait_ready(page, tab="运行")
        choose(page, "vs-task", ZH)  # (an English task's persona is English: the task's own words)
        shows(page, "vs-persona", "开场问题")
        look(page, "play_form", left)
        page.locator("#vs-user").get_by_label("我——由我扮演角色", exact=True).check()
        rid = start(page)
        shows(page, "vs-your-turn", "轮到你了")
        look(page, "play_turn", left)
        page.click("#vs-stop")
        expect(page.locator("#vs-stop-yes")).to_be_visible()
        look(page, "play_stop_question", left)
        page.click("#vs-stop-yes")
        expect(page.locator("#vs-stop-yes")).to_be_hidden()
        shows(page, "vs-play-status", rid)
        look(page, "play_stopped", left)

        zh_tab(page, "运行记录")
        expect(page.locator("#vs-runs-table")).to_contain_text(rid)
        page.click("#vs-runs-open")  # no run id yet: the page's refusal, titled and worded in Chinese
        expect(page.locator(".toast-body.error")).to_contain_text("请先输入或点击一个运行编号")
        expect(page.locator(".toast-body.error .toast-title")).to_have_text("错误")
        look(page, "runs_refused", left)
        page.locator("#vs-runs-id").locator("textarea, input").fill(rid)
        page.click("#vs-runs-open")
        shows(page, "vs-runs-header", rid)
        look(page, "runs_opened", left)

        zh_tab(page, "标注")
        expect(page.locator("#vs-label-load")).to_be_visible()
        look(page, "label", left)
        page.locator("#vs-camp-new").get_by_text("新建标注活动（管理员）").click()  # the New campaign form: no login, no admin
        shows(page, "vs-camp-new-status", "只有管理员")
        look(page, "label_new_campaign", left)
        zh_tab(page, "排行榜")
        expect(page.locator("#vs-lb-refresh")).to_be_visible()
        shows(page, "vs-lb-summary", "次已结束或已评分的角色运行")  # the tab's figures, drawn for this browser
        look(page, "leaderboard", left)
        zh_tab(page, "对比")
        expect(page.locator("#vs-cmp-a")).to_be_visible()
        page.click("#vs-cmp-go")  # no run ids: the tab's own line, drawn for this browser
        shows(page, "vs-cmp-status", "请给出两个运行编号")
        page.click("#vs-cmp-config-go")  # no two configurations with finished runs: the block's line
        shows(page, "vs-cmp-configs", "请选择两个配置")
        look(page, "compare", left)
        zh_tab(page, "研究")
        look(page, "study", left)
    except AssertionError:
        print(app_server.logs()[-3000:])
        raise
    finally:
        ctx.close()
    report = "\n".join(f"{name}: {' '.join(sorted(words))}" for name, words in left.items())
    total = len(set().union(*left.values())) if left else 0
    assert not left, f"{total} English words left in a Chinese browser:\n{report}"
