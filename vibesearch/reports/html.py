"""A self-contained HTML report: the tables plus its figures drawn as inline SVG (no script, nothing fetched)."""

from __future__ import annotations

import html
from typing import Any, Sequence

from .._svg_chart import STYLE as CHART_STYLE
from .._svg_chart import bar_chart, hbar_chart, scatter_chart
from .noise import HEADERS as NOISE_HEADERS
from .noise import noise_note, noise_rows
from .funnel import analysis_tables, unscored_note
from .stages import stages_html
from .text import interaction_rows, interval_note, judge_agreement_lines, pct, profile_note, run_rows, score_rows, where_note


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    if not rows:
        return "<p><em>(none)</em></p>"
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def analysis_html(a: dict[str, Any]) -> str:
    """The error analysis' tables (``funnel.analysis_tables``), every cell escaped."""
    parts = ["<div id='analysis'>", "<h2>Error analysis: the funnel and the paper's section-5 measures</h2>",
             f"<p class='note'>{a['n_analysed']} scored run(s) of {a['n_runs']} analysed (docs/analysis.md defines each measure).</p>"]
    if note := unscored_note(a):
        parts.append(f"<p class='note'>{html.escape(note)}</p>")
    for title, headers, rows, note in analysis_tables(a):
        parts += [f"<h3>{html.escape(title)}</h3>", *([f"<p class='note'>{html.escape(note)}</p>"] if note else []), _table(headers, rows)]
    return "\n".join(parts + ["</div>"])


def figures_html(report: dict[str, Any]) -> list[str]:
    """The report's four figures as inline SVG (``_svg_chart``): no script, nothing fetched."""
    groups = ["all", "subset pro", "subset daily"]
    configs = sorted({f"{r['config']} · {r['profile']}" for r in report["scores"]})
    by_group = {g: {f"{r['config']} · {r['profile']}": r for r in report["scores"] if r["group"] == g} for g in groups}
    series = [(g, [100 * by_group[g][c]["avg_f1"] if c in by_group[g] and by_group[g][c]["avg_f1"] is not None else None for c in configs])
              for g in groups]
    out = [bar_chart("f1-by-config", "F1 by configuration and subset", configs, series, value_title="Avg@N F1 (%)")]

    points = []
    for config in sorted({r["config"] for r in report["runs"]}):
        runs = [r for r in report["runs"] if r["config"] == config and r["f1"] is not None]
        points.append((config, [(100 * r["recall"], 100 * r["precision"], f"{r['task_id']} · run {r['run_id']}") for r in runs]))
    out.append(scatter_chart("precision-recall", "Precision vs recall, one point per run", points, x_title="recall (%)", y_title="precision (%)"))

    bins = report["errors"]["f1_by_compactions"]
    out.append(bar_chart("f1-by-compactions", "F1 by compaction count", [str(b["bin"]) for b in bins],
                         [("mean F1", [None if b["mean_f1"] is None else 100 * b["mean_f1"] for b in bins])],
                         value_title="mean F1 (%)", category_title="compactions in the run", notes=[f"{b['n_runs']} runs" for b in bins]))

    rel = [r for r in report["errors"]["relation_coverage"] if r["coverage"] is not None][:25]
    out.append(hbar_chart("relation-coverage", "Ground-truth relations, least covered first", [r["relation"] for r in rel],
                          [100 * r["coverage"] for r in rel], value_title="coverage (%)", notes=[f"{r['n_covered']}/{r['n_gt']}" for r in rel]))
    return out


_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}
table{border-collapse:collapse;margin:1em 0;font-size:14px}th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}.note{color:#555}
td.num,th.num{text-align:right;white-space:nowrap}td.text,th.text{text-align:left}"""


def to_html(report: dict[str, Any]) -> str:
    charts = figures_html(report)
    e = report["errors"]
    body = [
        "<h1>VibeSearch report</h1>",
        f"<p class='note'>Judge: <b>{html.escape(report['judge_label'])}</b> · {report['n_scored']} of {report['n_runs']} runs scored · "
        f"generated {html.escape(report['generated_at'])}. Scores are percentages.</p>",
        f"<p class='note'>{html.escape(profile_note(report))}</p>",
        *([f"<p class='note'>{html.escape(where_note(report))}</p>"] if report.get("where") else []),
        "<h2>Scores (Avg@N / Best@N)</h2>", f"<p class='note'>{html.escape(interval_note(report))}</p>", _table(*score_rows(report)),
        *([f"<p class='note' id='judge-failures'>{html.escape(report['judge_failures_footnote'])}</p>"] if report.get("judge_failures_footnote") else []),
        "<h3>The judge's agreement with people</h3>",
        "<ul id='judge-agreement'>" + "".join(f"<li>{html.escape(line)}</li>" for line in judge_agreement_lines(report)) + "</ul>",
        "<h3>Noise: user, agent, judge</h3>", f"<p class='note'>{html.escape(noise_note(report['noise']))}</p>",
        _table(NOISE_HEADERS, noise_rows(report["noise"])),
        "<h2>Interaction</h2>", _table(*interaction_rows(report)),
        "<h2>Charts</h2>", *charts,
        "<h2>Error analysis</h2>",
        "<h3>F1 by user turns</h3>",
        _table(["user turns", "runs", "mean F1"], [[b["bin"], b["n_runs"], pct(b["mean_f1"])] for b in e["f1_by_user_turns"]]),
        "<h3>Termination</h3>", _table(["termination", "runs"], [[k, v] for k, v in e["termination"].items()]),
        "<h3>Relations never produced</h3>",
        _table(["relation", "GT triples", "runs"], [[r["relation"], r["n_gt"], r["runs"]] for r in e["relation_coverage"] if r["never_produced"]][:50]),
        "<h2>Stages</h2>", stages_html(report.get("stages")),
        *([analysis_html(report["analysis"])] if report.get("analysis") else []),
        "<h2>Runs</h2>", "<p class='note'>Stages and user turns are counted from 1: the opening query is stage 1 and user turn 1.</p>",
        _table(*run_rows(report)),
    ]
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>VibeSearch report</title>"
        f"<style>{_STYLE}\n{CHART_STYLE}</style></head><body>" + "\n".join(body) + "</body></html>"
    )
