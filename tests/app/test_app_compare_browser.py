"""The Compare tab in Chromium: two stored runs of one persona (offline, one cut short), opened
from a ``?compare=A,B`` link and from the form; the stage table, the four coverage sets — checked
against ``labels.compare`` on the same database — and both graphs are shown."""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path

import pytest
from app_harness import run_cli as _cli
from browser_kit import choose, fill, shows, tab, wait_ready
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

TASK = "daily-en-japan-heritage-trip"
SHOTS = Path(os.environ.get("VIBESEARCH_COMPARE_SHOTS", "/tmp/compare_shots"))


@pytest.fixture(scope="module")
def two_runs(app_server) -> tuple[str, str]:
    db = str(app_server.db)
    short = json.loads(_cli("run", "--tasks", TASK, "--max-user-turns", "2", "--json", "--db", db))
    full = json.loads(_cli("run", "--tasks", TASK, "--json", "--db", db))
    _cli("score", "--all", "--db", db)
    return short[0]["run_id"], full[0]["run_id"]


def _expected(app_server, a: str, b: str) -> dict:
    from vibesearch.labels.compare import compare_runs
    from vibesearch.store import open_db

    return compare_runs(open_db(app_server.db, writes=False), a, b)


@contextlib.contextmanager
def _linked(browser, url: str, tab: str):
    """A new person opening the app at ``url`` (a deep link to ``tab``)."""
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    try:
        page = ctx.new_page()
        page.goto(url)
        wait_ready(page, tab=tab)
        yield page
    finally:
        ctx.close()


def test_a_compare_link_opens_both_runs_side_by_side(browser, app_server, two_runs):
    a, b = two_runs
    expected = _expected(app_server, a, b)
    with _linked(browser, f"{app_server.url}?compare={a},{b}", "Compare") as page:
        expect(page.locator("#vs-cmp-a input, #vs-cmp-a textarea").first).to_have_value(a)
        shows(page, "vs-cmp-stages", f"A = {a}")
        for key in ("both", "only_a", "only_b", "neither"):
            title = {"both": "Covered in both", "only_a": "Only in A", "only_b": "Only in B", "neither": "In neither"}[key]
            shows(page, f"vs-cmp-{key.replace('_', '-')}", f"{title} ({len(expected['coverage'][key])})")
        first_only_b = expected["coverage"]["only_b"][:1]
        if first_only_b:
            shows(page, "vs-cmp-only-b", f"#{first_only_b[0]['number']} ")
        for side in ("a", "b"):
            expect(page.locator(f"#vs-cmp-graph-{side} .js-plotly-plot")).to_be_visible()
        reached = expected["stages"][1]["b"]["reached_at"]
        expect(page.locator("#vs-cmp-stages tr").nth(2)).to_contain_text(re.compile(rf"2\. .*{reached or '–'}"))
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "compare_view.png"), full_page=True)


def test_the_form_compares_and_refuses_runs_of_different_tasks(pages, app_server, two_runs):
    a, b = two_runs
    page = pages()
    tab(page, "Compare")
    fill(page, "vs-cmp-a", b)
    fill(page, "vs-cmp-b", a)
    page.click("#vs-cmp-go")
    shows(page, "vs-cmp-status", f"Comparing {b} (A) with {a} (B).")
    fill(page, "vs-cmp-b", "no-such-run")
    page.click("#vs-cmp-go")
    shows(page, "vs-cmp-status", "No run no-such-run in this database.")


def test_the_run_pickers_fill_the_form(pages, app_server, two_runs):
    """Pick A from the list of readable runs: its id fills the box and B's list holds the other
    runs of A's task only; pick B and compare, no id typed."""
    a, b = two_runs
    page = pages()
    tab(page, "Compare")
    choose(page, "vs-cmp-pick-a", a)
    expect(page.locator("#vs-cmp-a textarea, #vs-cmp-a input").first).to_have_value(a)
    # B's list: the other runs of A's task, not A itself, no other task
    box = page.locator("#vs-cmp-pick-b input")
    box.click()
    listed = page.get_by_role("option")
    expect(listed.filter(has_text=b)).to_have_count(1)
    expect(listed.filter(has_text=a)).to_have_count(0)
    expect(listed.filter(has_text=re.compile(r"^\s*\S+ · (?!" + re.escape(TASK) + r" ·)"))).to_have_count(0)
    box.fill(b)  # the list narrows to B; the arrow key marks it, Enter takes it
    expect(listed).to_have_count(1)
    box.press("ArrowDown")
    expect(listed.first).to_have_class(re.compile(r"\bactive\b"))
    box.press("Enter")
    expect(page.locator("#vs-cmp-b textarea, #vs-cmp-b input").first).to_have_value(b)
    page.click("#vs-cmp-go")
    shows(page, "vs-cmp-status", f"Comparing {a} (A) with {b} (B).")
    shows(page, "vs-cmp-stages", f"A = {a}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "compare_pickers.png"), full_page=True)


def test_a_run_link_opens_the_run_in_runs(browser, app_server, two_runs):
    a, _ = two_runs
    with _linked(browser, f"{app_server.url}?run={a}", "Runs") as page:
        shows(page, "vs-runs-header", a)
    with _linked(browser, f"{app_server.url}?run=no-such-run", "Runs") as page:
        shows(page, "vs-runs-header", "No run no-such-run in this database.")


def test_two_configurations_compared_task_by_task(pages, app_server, two_runs):
    """The baseline against the fake ReAct agent on the same persona: the per-task row and the
    paired interval the page shows are those ``compare_configs`` gives on the same database."""
    from vibesearch.labels.config_compare import compare_configs
    from vibesearch.store import open_db

    db = str(app_server.db)
    json.loads(_cli("run", "--tasks", TASK, "--agent", "react", "--model", "fake/cmp-agent", "--json", "--db", db))
    _cli("score", "--all", "--db", db)
    spec = {"user": "rules", "simulator_model": "", "protocol": "vibesearch"}
    expected = compare_configs(open_db(app_server.db, writes=False), {"agent": "baseline", "agent_model": "", **spec},
                               {"agent": "react", "agent_model": "fake/cmp-agent", **spec})
    page = pages()
    tab(page, "Compare")
    choose(page, "vs-cmp-config-a", "baseline · user rules · vibesearch")
    choose(page, "vs-cmp-config-b", "react (fake/cmp-agent) · user rules · vibesearch")
    page.click("#vs-cmp-config-go")
    diff = expected["difference"]
    # in percentage points, as every other surface writes F1
    shows(page, "vs-cmp-verdict", f"B − A = {100 * diff['b_minus_a']:+.2f} [{100 * diff['ci'][0]:+.2f}, {100 * diff['ci'][1]:+.2f}] "
                                  f"F1 points over {diff['tasks']} task(s)")
    row = next(r for r in expected["tasks"] if r["task"] == TASK)
    expect(page.locator("#vs-cmp-configs tr", has_text=TASK)).to_contain_text(f"{100 * row['a']:.2f}")
    expect(page.locator("#vs-cmp-configs tr", has_text=TASK)).to_contain_text(f"{100 * row['b_minus_a']:+.2f}")
    shows(page, "vs-cmp-configs", "noise floor")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "compare_configs.png"), full_page=True)
    choose(page, "vs-cmp-config-b", "baseline · user rules · vibesearch")  # the same one twice
    page.click("#vs-cmp-config-go")
    shows(page, "vs-cmp-configs", "A and B are the same configuration")
