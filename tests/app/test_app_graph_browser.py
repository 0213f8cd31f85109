"""The graph picture's filters in Chromium (issue 14): on a finished, scored run, "Missed ground
truth only" leaves only the missed ground-truth triples in the plot (its legend and its traces),
"Invalid predictions only" only the invalid predictions, and picking an entity shows its
neighbourhood. One app subprocess for the module; the run is started through the API."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from browser_kit import fill, shows, tab
from gradio_client import Client
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

JAPAN = "daily-en-japan-heritage-trip"
SHOTS = Path(os.environ.get("VIBESEARCH_GRAPH_SHOTS", "/tmp/graph_shots"))
PLOT = "#vs-runs-graph .js-plotly-plot"


@pytest.fixture(scope="module")
def scored_run(app_server) -> str:
    """A finished run of the fake ReAct agent, scored by the offline judge (all four categories)."""
    client = Client(app_server.url, verbose=False)
    try:
        run_id = client.predict(JAPAN, "react", "rules", "fake/app-agent", "", "", "offline", 0, api_name="/start_run")
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            status = client.predict(run_id, api_name="/run_status")
            if not status["live"] and (status["scores"] or status["status"] != "finished"):
                break
            time.sleep(0.5)
        assert status["status"] == "finished" and status["scores"], status
        return run_id
    finally:
        client.close()


def legend_texts(page: Page) -> list[str]:
    """The legend's entries as drawn (SVG text has no innerText: its text content is read)."""
    return page.locator(f"{PLOT} .legendtext").evaluate_all("els => els.map(e => e.textContent)")


def wait_groups(page: Page, groups: list[str]) -> None:
    """Wait until the plot's drawn traces belong to exactly these categories (nodes aside)."""
    page.wait_for_function(
        """([sel, want]) => {
            const el = document.querySelector(sel);
            if (!el || !el.data) return false;
            const got = [...new Set(el.data.map(t => t.legendgroup).filter(Boolean))].sort();
            return JSON.stringify(got) === JSON.stringify(want);
        }""",
        arg=[PLOT, sorted(groups)],
    )


def test_missed_only_shows_only_the_missed_triples(pages, scored_run):
    page = pages()
    tab(page, "Runs")
    fill(page, "vs-runs-id", scored_run)
    page.click("#vs-runs-open")
    expect(page.locator(PLOT)).to_be_visible()
    wait_groups(page, ["gt_covered", "gt_missed", "pred_invalid", "pred_valid"])
    before = legend_texts(page)
    missed = next(t for t in before if t.startswith("ground truth: missed"))

    page.locator("#vs-runs-graph-show").get_by_label("Missed ground truth only").check()
    wait_groups(page, ["gt_missed"])
    expect(page.locator(f"{PLOT} .legendtext")).to_have_count(2)
    assert legend_texts(page)[0] == missed  # the same count as in the full picture
    assert re.fullmatch(r"entities \(\d+\)", legend_texts(page)[1])
    shows(page, "vs-runs-graph", "showing missed ground truth only")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#vs-runs-graph").screenshot(path=str(SHOTS / "app_runs_graph_missed.png"))

    page.locator("#vs-runs-graph-show").get_by_label("Invalid predictions only").check()
    wait_groups(page, ["pred_invalid"])
    assert legend_texts(page)[0].startswith("predicted: invalid")

    page.locator("#vs-runs-graph-focus input").click()  # the most connected entity comes first
    first = page.get_by_role("option").first
    name = re.sub(r" \(\d+\)$", "", first.inner_text().strip())
    first.click()
    expect(page.locator("#vs-runs-graph-show").get_by_label("One entity's neighbourhood")).to_be_checked()
    shows(page, "vs-runs-graph", "neighbourhood of")
    shows(page, "vs-runs-graph", name[:20])
    page.locator("#vs-runs-graph").screenshot(path=str(SHOTS / "app_runs_graph_focus.png"))

    page.locator("#vs-runs-graph-show").get_by_label("All triples").check()
    wait_groups(page, ["gt_covered", "gt_missed", "pred_invalid", "pred_valid"])
    assert legend_texts(page) == before
    page.locator("#vs-runs-graph").screenshot(path=str(SHOTS / "app_runs_graph_all.png"))


def node_on_screen(page: Page) -> dict:
    """Where the most connected entity is drawn (page coordinates), and its node key."""
    return page.evaluate(
        """sel => {
            const gd = document.querySelector(sel);
            const tr = gd.data.find(t => (t.name || '').startsWith('entities'));
            let i = 0;
            tr.marker.size.forEach((s, k) => { if (s > tr.marker.size[i]) i = k; });
            const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, r = gd.getBoundingClientRect();
            return {x: r.left + xa._offset + xa.l2p(tr.x[i]), y: r.top + ya._offset + ya.l2p(tr.y[i]), key: tr.customdata[i]};
        }""",
        PLOT,
    )


def test_clicking_an_entity_shows_its_neighbourhood(pages, scored_run):
    page = pages()
    tab(page, "Runs")
    fill(page, "vs-runs-id", scored_run)
    page.click("#vs-runs-open")
    expect(page.locator(PLOT)).to_be_visible()
    wait_groups(page, ["gt_covered", "gt_missed", "pred_invalid", "pred_valid"])
    page.locator(PLOT).scroll_into_view_if_needed()  # the mouse reaches only what is in the viewport
    node = node_on_screen(page)
    page.mouse.move(node["x"] - 5, node["y"] - 5)
    page.mouse.move(node["x"], node["y"])  # plotly picks the point under the pointer on hover, then the click
    page.mouse.click(node["x"], node["y"])
    expect(page.locator("#vs-runs-graph-show").get_by_label("One entity's neighbourhood")).to_be_checked()
    shows(page, "vs-runs-graph", "neighbourhood of")
    page.wait_for_function(  # every drawn triple touches the clicked entity: fewer nodes than before
        """([sel, n]) => {
            const gd = document.querySelector(sel);
            const tr = gd && gd.data && gd.data.find(t => (t.name || '').startsWith('entities'));
            return tr && tr.x.length < n;
        }""",
        arg=[PLOT, 60],
    )
