"""The HTML report is light: its figures are inline SVG, nothing is fetched, and a store of 11 runs
made with the offline defaults (baseline agent, rule-based user, offline judge) gives a page under
1 MB (it was 4.9 MB when plotly.js was embedded)."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from vibesearch._svg_chart import bar_chart, hbar_chart, scatter_chart

TASK = "daily-en-japan-heritage-trip"


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> str:
    from vibesearch.cli.main import app

    tmp = tmp_path_factory.mktemp("light")
    db, out = tmp / "r.db", tmp / "r.html"
    runner = CliRunner()
    for args in (["run", TASK, "--runs", "11", "--json", "--db", db], ["score", "--all", "--db", db],
                 ["report", "--format", "html", "--out", out, "--db", db]):
        res = runner.invoke(app, [str(a) for a in args])
        assert res.exit_code == 0, res.output
    return out.read_text(encoding="utf-8")


def test_eleven_offline_runs_make_a_page_under_one_megabyte(page):
    assert "11 of 11 runs scored" in page
    assert len(page.encode()) < 1_000_000


def test_nothing_is_fetched_and_the_four_figures_are_inline_svg(page):
    assert not re.search(r"<script[^>]*\bsrc\s*=", page, re.I)
    assert not re.search(r"""\b(?:src|href)\s*=\s*["']?(?:https?:)?//""", page, re.I)
    for chart in ("f1-by-config", "precision-recall", "f1-by-compactions", "relation-coverage"):
        figure = re.search(rf'<figure class="chart" id="{chart}">(.*?)</figure>', page, re.S)
        assert figure and "<svg " in figure.group(1), chart
        assert re.search(r"<(?:rect|circle) [^>]*><title>", figure.group(1)), chart  # something drawn, with hover text
    points = re.search(r'id="precision-recall">(.*?)</figure>', page, re.S).group(1)
    assert points.count("<circle ") == 11  # one point per run


def test_chart_text_is_escaped():
    hostile = "<script>alert(1)</script>"
    drawn = (bar_chart("a", hostile, [hostile], [(hostile, [50.0])], value_title=hostile)
             + hbar_chart("b", "t", [hostile], [20.0], value_title="v", notes=[hostile])
             + scatter_chart("c", "t", [(hostile, [(10.0, 20.0, hostile)])], x_title="x", y_title="y"))
    assert "<script" not in drawn and "&lt;script&gt;" in drawn


def test_bars_scale_to_their_values_and_none_draws_nothing():
    drawn = bar_chart("a", "t", ["x", "y", "z"], [("s", [100.0, 50.0, None])], value_title="v")
    heights = [float(h) for h in re.findall(r'<rect [^>]*height="([\d.]+)"', drawn)]
    assert len(heights) == 2 and heights[0] == pytest.approx(2 * heights[1])
