"""The site's front page: the leaderboard and the tables that go with it.

Every figure is a cell of ``bundle.derive``'s output (the report's functions) — the page formats
it and says where it came from (``data-check``), so ``site verify`` can recompute each one. The
score table sorts by any column (``_assets.SORT_JS``, on each number's raw value).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from ..reports.noise import HEADERS as NOISE_HEADERS
from ..reports.noise import noise_note, noise_rows
from ..reports.stages import stages_html
from ..reports.text import ci, interval_note, judge_agreement_lines
from ..judges.judge_failures import FAILURES_FOOTNOTE
from ..judges.judge_failures import MARK as FAILED
from ..judges.registry import judge_label
from ._assets import SORT_JS
from ._html import esc, link, number, page
from .funnel_html import funnel_table

SCORE_COLUMNS = [  # (header, key, percentage?)
    ("tasks", "n_tasks", False), ("runs", "n_runs", False), ("N", "n", False),
    ("Avg P", "avg_precision", True), ("Avg R", "avg_recall", True), ("Avg F1", "avg_f1", True),
    ("Best P", "best_precision", True), ("Best R", "best_recall", True), ("Best F1", "best_f1", True),
    ("F1 SD", "sd_f1", True), ("Avg node F1", "avg_node_f1", True), ("Best node F1", "best_node_f1", True),
    ("left out", "left_out", False),
    # samples some of whose judge batches failed for good (official profile: graded not covered) or
    # whose judge left triples unscored (scores of ours stored before a failed judge was refused)
    (f"judge failures {FAILED}", "judge_failures", False),
]
INTERACTION_COLUMNS = [
    ("runs", "n_runs", 0), ("#Asst", "asst", 1), ("#User", "user", 1), ("#Asst/#User", "asst_per_user", 2),
    ("tool calls", "tool_calls", 1), ("tools / user turn", "tool_calls_per_user_turn", 2), ("compactions", "compactions", 2),
    ("input tokens", "input_tokens", 0), ("output tokens", "output_tokens", 0), ("cost (USD)", "cost_usd", 4),
]


def _th(text: str, cls: str = "") -> str:
    return f'<th{f" class={chr(34)}{cls}{chr(34)}" if cls else ""}>{esc(text)}</th>'


def _preference_cell(ratings: list[dict[str, Any]], config: str) -> str:
    """A configuration's Bradley–Terry rating from the votes with its 95% interval, each number
    checked by ``site verify`` against the ratings recomputed from rows.json's votes."""
    k = next((k for k, r in enumerate(ratings) if r["label"] == config), None)
    if k is None:
        return '<td class="text">no votes</td>'
    at = f"preference.ratings[{k}]"
    ci = ratings[k].get("ci")
    interval = (f" [{number(ci[0], f'{at}.ci[0]', pct=False)}, {number(ci[1], f'{at}.ci[1]', pct=False)}]" if ci else "")
    return f"<td>{number(ratings[k]['rating'], f'{at}.rating', pct=False)}{interval}</td>"


def _score_table(derived: dict[str, Any], trust_text: dict[str, str], group: str, table_id: str,
                 preference: dict[str, Any] | None = None) -> str:
    """``preference``: the votes' ratings (``site_votes``), a column beside Avg F1 on the "all" rows."""
    marks = {(m["config"], m["profile"]): m["mark"] for m in derived["noise_marks"]}
    ratings = ((preference or {}).get("ratings") or []) if group == "all" else []
    rows = []
    for i, r in enumerate(derived["scores"]):
        if (r["group"] == "all") != (group == "all"):
            continue
        cells = [f'<td class="text">{esc(r["config"])}</td>', f'<td class="text">{esc(r["profile"])}</td>']
        if group != "all":
            cells.append(f'<td class="text">{esc(r["group"])}</td>')
        for _, key, share in SCORE_COLUMNS:
            cells.append(f"<td>{number(r.get(key), f'scores[{i}].{key}', pct=share)}</td>")
            if key == "avg_f1":
                cells.append(f'<td>{esc(ci(r.get("avg_f1_ci"), r.get("n_tasks")))}</td>')
                if ratings:
                    cells.append(_preference_cell(ratings, r["config"]))
            if key == "best_f1":
                cells.append(f'<td>{esc(ci(r.get("best_f1_ci"), r.get("n_tasks")))}</td>')
        if group == "all":
            mark = marks.get((r["config"], r["profile"]), "")
            cells.append(f'<td class="text noise">{esc(mark)}</td>')
        cells.append(f'<td class="text">{esc(trust_text.get(r["profile"], "not measured"))}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    heads = [_th("configuration", "text"), _th("profile", "text")] + ([_th("group", "text")] if group != "all" else [])
    for header, key, _share in SCORE_COLUMNS:
        heads.append(_th(header))
        if key == "avg_f1":
            heads.append(_th("Avg F1 95% CI"))
            if ratings:
                heads.append(_th("Preference (BT, 95% CI)"))
        if key == "best_f1":
            heads.append(_th("Best F1 95% CI"))
    heads += ([_th("vs the next configuration (noise floor)", "text")] if group == "all" else []) + [_th("judge agreement", "text")]
    if not rows:
        return f'<p class="note" id="{table_id}">No scored runs.</p>'
    return (f'<table class="sortable" id="{table_id}"><thead><tr>{"".join(heads)}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _interaction_table(derived: dict[str, Any]) -> str:
    rows = []
    for i, r in enumerate(derived["interaction"]):
        cells = [f'<td class="text">{esc(r["config"])}</td>', f'<td class="text">{esc(r["profile"])}</td>']
        for _, key, digits in INTERACTION_COLUMNS:
            value = r.get(key)
            if key.endswith("_tokens") and r.get("tokens") != "recorded":
                cells.append(f'<td>{esc(r.get("tokens"))}</td>')
            elif key == "cost_usd" and (r.get("cost_state") == "n/a" or value is None):
                cells.append(f'<td>{"n/a" if r.get("cost_state") == "n/a" else "unknown"}</td>')
            elif key == "compactions" and value is None:  # an imported trajectory whose file does not say
                cells.append("<td>unknown</td>")
            else:
                cells.append(f"<td>{number(value, f'interaction[{i}].{key}', pct=False, digits=digits)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    heads = [_th("configuration", "text"), _th("profile", "text")] + [_th(h) for h, _, _ in INTERACTION_COLUMNS]
    return (f'<table class="sortable" id="interaction"><thead><tr>{"".join(heads)}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            if rows else '<p class="note" id="interaction">No runs.</p>')


def _ceiling_note(report: dict[str, Any], at: str, positive: str) -> str:
    """A side's human ceiling (people against each other on the items two or more labelled; its
    AC1) and the prevalence of its positive label, every number checked by ``site verify``."""
    ceiling = report.get("human_ceiling")
    if ceiling:
        ci = ceiling.get("ci") or [None, None]
        people = (f"people agree with each other on {number(ceiling.get('agreement'), f'{at}.human_ceiling.agreement')}% "
                  f"[{number(ci[0], f'{at}.human_ceiling.ci[0]')}, {number(ci[1], f'{at}.human_ceiling.ci[1]')}] of "
                  f"{number(ceiling.get('n_items'), f'{at}.human_ceiling.n_items', pct=False)} items labelled by two or more "
                  f"({number(ceiling.get('n_pairs'), f'{at}.human_ceiling.n_pairs', pct=False)} pairs), Gwet's AC1 "
                  f"{number(ceiling.get('ac1'), f'{at}.human_ceiling.ac1', pct=False, digits=3)}")
    else:
        people = "no human ceiling: no item was labelled by two or more people"
    prev = report.get("prevalence") or {}
    return (f'<p class="note" id="ceiling-{"coverage" if positive == "covered" else "validity"}">Human ceiling: {people}. '
            f'"{positive}" in {number(prev.get("share"), f"{at}.prevalence.share")}% of the '
            f'{number(prev.get("n"), f"{at}.prevalence.n", pct=False)} final human labels.</p>')


def _agreement_tables(label_agreement: dict[str, Any]) -> str:
    out = []
    for side, report in (("coverage", label_agreement), ("validity", label_agreement.get("validity") or {})):
        judges = report.get("judges") or []
        if not report.get("n_items"):
            continue
        at = "label_agreement" + ("" if side == "coverage" else ".validity")
        rows = "".join(
            f'<tr><td class="text">{esc(judge_label(j.get("judge") or ""))}</td><td class="text">{esc(j.get("profile", ""))}</td>'
            f'<td>{number(j.get("n"), f"{at}.judges[{k}].n", pct=False)}</td><td>{number(j.get("agreement"), f"{at}.judges[{k}].agreement")}</td>'
            f'<td>{number(j.get("kappa"), f"{at}.judges[{k}].kappa", pct=False, digits=3)}</td>'
            f'<td>{number(j.get("ac1"), f"{at}.judges[{k}].ac1", pct=False, digits=3)}</td>'
            f'<td>{number((j.get("prevalence") or {}).get("judge"), f"{at}.judges[{k}].prevalence.judge")}</td></tr>'
            for k, j in enumerate(judges))
        alpha = report.get("human_alpha")
        positive = "covered" if side == "coverage" else "valid"
        out.append(f"<h3>{esc(side)} labels</h3><p class=\"note\">{report.get('n_items', 0)} labelled items, "
                   f"{report.get('n_final', 0)} with a final label, {report.get('n_open_ties', 0)} open ties, "
                   f"annotators: {esc(', '.join(report.get('annotators') or []))}"
                   + (f"; α between annotators {alpha:.3f}" if isinstance(alpha, (int, float)) else "") + "</p>"
                   + _ceiling_note(report, at, positive)
                   + f'<table id="agreement-{side}"><thead><tr><th class="text">judge</th><th class="text">profile</th><th>items</th>'
                   f"<th>agreement (%)</th><th>κ</th><th>Gwet's AC1</th><th>judge's “{positive}” (%)</th></tr></thead><tbody>{rows}</tbody></table>")
    return "".join(out) or '<p class="note">No labels among these runs.</p>'


def _interval(value: Any, ci: Any, *, pct: bool = True) -> str:
    if value is None:
        return "–"
    f = (lambda x: f"{100 * x:.1f}") if pct else (lambda x: f"{x:+.2f}")
    return f"{f(value)}" + (f" [{f(ci[0])}, {f(ci[1])}]" if ci else "")


def _fidelity_table(fidelity: dict[str, Any] | None) -> str:
    """People against the simulator (``vibesearch fidelity``): one row per simulator."""
    if not fidelity or not fidelity.get("simulators"):
        return '<p class="note" id="fidelity">No runs played by a person beside a shadow simulator among these runs.</p>'
    rows = []
    for sim in fidelity["simulators"]:
        agree = sim.get("agreement") or {}
        gaps = sim.get("outcome_gap") or []
        gap_text = "; ".join(
            f"{g.get('agent')}: F1 {_interval((g.get('f1') or {}).get('person_minus_simulator'), (g.get('f1') or {}).get('ci'), pct=False)}"
            f", stages {_interval((g.get('stages_reached') or {}).get('person_minus_simulator'), (g.get('stages_reached') or {}).get('ci'), pct=False)}"
            for g in gaps) or "–"
        rows.append(f'<tr><td class="text">{esc(sim.get("simulator"))}</td><td>{esc(sim.get("people_runs"))}</td>'
                    f'<td>{esc(sim.get("simulator_runs"))}</td><td>{esc(agree.get("n"))}</td>'
                    f'<td>{esc(_interval(agree.get("rate"), agree.get("ci")))}</td><td class="text">{esc(gap_text)}</td></tr>')
    return ('<table id="fidelity"><thead><tr><th class="text">shadow simulator</th><th>people runs</th><th>simulator runs</th>'
            '<th>turns compared</th><th>agreement with the person (%) [95% CI]</th>'
            '<th class="text">outcome gap, person − simulator [95% CI]</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


STANDING = {"above": "A ranked above B", "inside the noise": "inside the noise: not ranked", "not ranked": "not ranked: too few shared tasks"}


def _run_links(run_ids: list[str], stems: dict[str, str]) -> str:
    return ", ".join(f'<a href="runs/{esc(quote(stems[r]))}.html">{esc(r)}</a>' if r in stems else esc(r) for r in run_ids)


def _comparisons(derived: dict[str, Any], results: dict[str, Any], app_url: str | None) -> str:
    """Each configuration against those ranked below it in its profile that share a task with it
    (``noise_rank.pair_comparisons``; the next one down is the leaderboard's mark), task by task; with ``app_url``, a task played once by each side links to
    the live app's comparison of the two runs (``?compare=A,B``)."""
    stems = {r["run_id"]: r["page_stem"] for r in results["runs"]}
    blocks = []
    for i, c in enumerate(derived.get("comparisons") or []):
        rows = []
        for j, t in enumerate(c["tasks"]):
            live = ""
            if app_url and len(t["upper_runs"]) == 1 and len(t["lower_runs"]) == 1:
                pair = f'{t["upper_runs"][0]},{t["lower_runs"][0]}'
                live = link(f"{app_url.rstrip('/')}/?compare={quote(pair, safe=',')}", "compare in the live app")
            rows.append(f'<tr><td class="text">{esc(t["task"])}</td>'
                        f"<td>{number(t['upper_f1'], f'comparisons[{i}].tasks[{j}].upper_f1')}</td>"
                        f"<td>{number(t['lower_f1'], f'comparisons[{i}].tasks[{j}].lower_f1')}</td>"
                        f"<td>{number(t['difference'], f'comparisons[{i}].tasks[{j}].difference')}</td>"
                        f'<td class="text">{_run_links(t["upper_runs"], stems)}</td><td class="text">{_run_links(t["lower_runs"], stems)}</td>'
                        f'<td class="text">{live}</td></tr>')
        ci = c.get("ci")
        interval = f" [{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}]" if ci else ""
        shared = number(c["shared_tasks"], f"comparisons[{i}].shared_tasks", pct=False)
        if c["delta_f1"] is None:
            figure = f"no shared task ({shared})"
        else:
            figure = (f'ΔF1 (A − B) {number(c["delta_f1"], f"comparisons[{i}].delta_f1")}{esc(interval)} points'
                      f'{", 95% CI" if ci else ""} over {shared} shared task(s)')
        blocks.append(
            f'<div class="comparison" id="comparison-{i}"><h3>A: {esc(c["upper"])} vs B: {esc(c["lower"])} '
            f'<span class="note">({esc(c["profile"])})</span></h3>'
            f'<p>{esc(STANDING.get(c["standing"], c["standing"]))} · {figure}</p>'
            + (f'<details><summary>per task</summary><table class="sortable" id="comparison-{i}-tasks"><thead><tr>'
               f'{_th("task", "text")}{_th("F1 A")}{_th("F1 B")}{_th("A − B")}'
               f'{_th("runs of A", "text")}{_th("runs of B", "text")}{_th("", "text")}</tr></thead>'
               f'<tbody>{"".join(rows)}</tbody></table></details>' if rows else "")
            + "</div>")
    if not blocks:
        return '<p class="note" id="comparisons">One configuration per profile: nothing to compare.</p>'
    return ('<p class="note">Within each profile, each configuration against each one below it that played a '
            "task it played (and the next one down, the leaderboard's mark): the mean of the per-task F1 differences (a task's runs averaged first) with a paired bootstrap interval; "
            'an interval that contains 0, or a difference within the combined noise of the user, the agent and the judge, is inside the noise.</p><div id="comparisons">' + "".join(blocks) + "</div>")


def _runs_table(results: dict[str, Any]) -> str:
    rows = []
    for r in results["runs"]:
        href = f'runs/{quote(r["page_stem"])}.html'
        rows.append(f'<tr><td class="text"><a href="{esc(href)}">{esc(r["run_id"])}</a></td><td class="text">{esc(r["task_id"])}</td>'
                    f'<td class="text">{esc(r["config"])}</td><td class="text">{esc(r["status"])}</td><td class="text">{esc(r["source"])}</td>'
                    f'<td class="text">{esc(", ".join(r["scored_under"]) or "not scored")}</td></tr>')
    return ('<table class="sortable" id="runs"><thead><tr><th class="text">run</th><th class="text">task</th><th class="text">configuration</th>'
            '<th class="text">status</th><th class="text">source</th><th class="text">scored under</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _short_trust(t: dict[str, Any]) -> str:
    """A score row's judge agreement in short ("83.33% (n 24)"), the full line being under the table."""
    cov = t.get("coverage") or {}
    if not t.get("measured") or cov.get("agreement") is None:
        return "not measured"
    return f"{100 * cov['agreement']:.2f}% (n {cov.get('n', 0)})"


def _noise_section(noise: dict[str, Any] | None) -> str:
    """The noise floor's three-way split (``reports.noise``: the report's rows)."""
    if not noise:
        return ""
    rows = "".join("<tr>" + "".join(f'<td class="text">{esc(c)}</td>' for c in row) + "</tr>" for row in noise_rows(noise))
    return (f'<h3>Noise: user, agent, judge</h3><p class="note">{esc(noise_note(noise))}</p><table id="noise"><thead><tr>'
            + "".join(_th(h, "text") for h in NOISE_HEADERS) + f"</tr></thead><tbody>{rows}</tbody></table>")


def index_page(results: dict[str, Any], derived: dict[str, Any], *, app_url: str | None = None) -> str:
    lines = judge_agreement_lines({"judge_agreement": results["judge_agreement"], "judge_footnote": ""})
    trust_text = {t["profile"]: _short_trust(t) for t in results["judge_agreement"]}
    left = derived["left_out"]
    left_html = ('<table id="left-out"><thead><tr><th class="text">run</th><th class="text">task</th><th class="text">configuration</th>'
                 '<th class="text">profile</th><th class="text">reason</th></tr></thead><tbody>'
                 + "".join(f'<tr><td class="text">{esc(x["run_id"])}</td><td class="text">{esc(x["task_id"])}</td><td class="text">{esc(x["config"])}</td>'
                           f'<td class="text">{esc(x["profile"])}</td><td class="text">{esc(x["reason"])}</td></tr>' for x in left)
                 + "</tbody></table>") if left else '<p class="note" id="left-out">None: every run is a sample.</p>'
    live = f" · {link(app_url, 'the live app')}" if app_url else ""
    body = (
        "<h1>VibeSearch leaderboard</h1>"
        f'<p class="note">{results["n_runs"]} runs · judge: <b>{esc(results["judge_label"])}</b> · vibesearch {esc(results["vibesearch_version"])} · '
        f'built {esc(results["generated_at"])} · scores are percentages · click a column header to sort{live}</p>'
        f'<p class="note">{esc(interval_note({"intervals": results["intervals"]}))}</p>'
        "<h2>Scores (Avg@N / Best@N)</h2>" + _score_table(derived, trust_text, "all", "leaderboard", results.get("preference"))
        + (f'<p class="note" id="judge-failures">{esc(FAILURES_FOOTNOTE)}</p>' if any(r.get("judge_failures") for r in derived["scores"]) else "")
        + _noise_section(derived.get("noise"))
        + "<h3>The judge's agreement with people</h3><ul id=\"judge-agreement\">"
        + "".join(f"<li>{esc(line)}</li>" for line in lines) + "</ul>"
        + "<h3>By subset and language</h3>" + _score_table(derived, trust_text, "groups", "leaderboard-groups")
        + "<h2>Comparisons</h2>" + _comparisons(derived, results, app_url)
        + "<h2>Interaction</h2>" + _interaction_table(derived)
        + "<h2>By stage</h2>" + stages_html(results.get("stages"))
        + "<h2>Where each fact was lost</h2>" + funnel_table(results.get("funnel"))
        + f"<h2>Left out (not samples)</h2>{left_html}"
        + "<h2>Label agreement</h2>" + _agreement_tables(results.get("label_agreement") or {})
        + "<h2>People and the simulator</h2>" + _fidelity_table(results.get("fidelity"))
        + "<h2>Runs</h2>" + _runs_table(results)
        + '<p class="note">The numbers and the data they come from: <a href="results.json">results.json</a>, '
          'per-run files under <code>samples/</code> and <code>events/</code>, the runs, scores and labels behind the agreement and study figures in '
          '<a href="rows.json">rows.json</a>, checksums in <a href="SHA256SUMS">SHA256SUMS</a> '
          "(<code>vibesearch site verify DIR</code> recomputes them).</p>"
    )
    return page("VibeSearch leaderboard", body, scripts=f"<script>{SORT_JS}</script>")
