"""The Play tab's Web choice in Chromium: under "Models and options", choosing "replay the web
recorded for this task" for a ReAct run of a task with nothing recorded and pressing Start shows
the server's one-line refusal, and no run starts (docs/web.md "In the app"). The recorded-then-replayed path
is driven through the page's handlers in ``test_app_play_web.py``."""

from __future__ import annotations

import pytest
from browser_kit import choose, options, shows
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

JAPAN = "daily-en-japan-heritage-trip"


def test_replay_of_a_task_with_nothing_recorded_is_refused_on_the_page(pages):
    page = pages()
    choose(page, "vs-task", JAPAN)
    page.get_by_label("ReAct agent with a model").check()
    options(page, **{"vs-agent-model": "fake/app-agent"})  # opens "Models and options"
    choose(page, "vs-web", "task")  # "replay the web recorded for this task"
    expect(page.locator("#vs-web input")).to_have_value("replay the web recorded for this task")
    page.click("#vs-start")
    toast = page.locator(".toast-body.error").filter(has_text=f"nothing is recorded for the runs of task {JAPAN}")
    expect(toast).to_be_visible()
    shows(page, "vs-play-status", "Choose a task and press")  # no run was started
