"""The Label tab's judge-comparison report (issue 13): for the loaded run (or every labelled run,
where the reader may read them all), each side's judges — per protocol profile — against the
human majority and against the annotator, with 95% bootstrap intervals and kappa's caveats in
words (``panels.agreement_side_html``, with Gwet's AC1 and the share of the positive label on
each side), beside the human ceiling (people against each other on the items two or more of them
labelled) and the prevalence of the positive label, the splits by language, subset and relation,
the P/R/F1 the labels give and Krippendorff's alpha. The numbers are ``labels.agreement.agreement_report``'s."""

from __future__ import annotations

import html
from typing import Any

from ..labels.judge_trust import ceiling_text, prevalence_text
from .panels import _pct_ci, agreement_side_html, judge_text

SIDE_TITLES = {"coverage": "Coverage — ground-truth triples covered?", "validity": "Validity — predicted triples valid?"}
SPLIT_WORDS = {"language": "language", "subset": "subset", "relation": "relation"}


def _esc(x: Any) -> str:
    return html.escape(str(x if x is not None else ""))


def side_of(report: dict[str, Any], side: str) -> dict[str, Any]:
    """One side of an ``agreement_report``: coverage at its top level, validity under ``validity``."""
    return report["validity"] if side == "validity" else {**report, "side": "coverage"}


def splits_html(side: dict[str, Any]) -> str:
    """Each judge's agreement and kappa per language, subset and relation (folded)."""
    parts = []
    for r in side["judges"]:
        for key, rows in (r.get("by") or {}).items():
            if len(rows) < 2:  # one group is the overall row again
                continue
            body = "".join(
                f"<tr><td>{_esc(g.get('group'))}</td><td class='vs-num'>{g['n']}</td>"
                f"<td class='vs-num'>{_pct_ci(g, 'agreement')}</td><td class='vs-num'>{_pct_ci(g, 'kappa', percent=False)}</td></tr>"
                for g in rows)
            parts.append(f"<div class='vs-muted'>{_esc(judge_text(r['judge']))} · {_esc(r.get('profile', ''))} · by {SPLIT_WORDS.get(key, key)}</div>"
                         f"<table><tr><th>{SPLIT_WORDS.get(key, key)}</th><th>items</th><th>agreement</th><th>Cohen's κ</th></tr>{body}</table>")
    if not parts:
        return ""
    return f"<details class='vs-splits'><summary>Split by language, subset and relation</summary><div class='vs-agree'>{''.join(parts)}</div></details>"


def report_html(report: dict[str, Any], *, annotator: str, first: str = "coverage", scope: str = "this run") -> str:
    """Both sides (``first`` on top): judge against the human majority, judge against
    ``annotator``, the splits; then the labels' P/R/F1 and the annotators' alpha."""
    blocks = []
    for side_name in (first, "validity" if first == "coverage" else "coverage"):
        side = side_of(report, side_name)
        if not side.get("n_items"):
            blocks.append(f"<div class='vs-card-title'>{SIDE_TITLES[side_name]}</div><div class='vs-muted'>No labels on this side yet.</div>")
            continue
        annotators = side.get("annotators") or []
        decided = side.get("n_adjudicated") or 0
        against = ("each judge's agreement with you (the only annotator)" if annotators == [annotator]
                   else "each judge against the final human label (an adjudication, else the strict majority)")
        if decided:  # an adjudication is the item's final label, majority or not
            against += f" ({decided} item(s) decided by an adjudication instead)"
        ties = side.get("n_open_ties") or 0
        if ties:  # an even split nobody resolved has no final label: it is not compared
            against += f" ({ties} open tie(s) left out: the labels split evenly and nobody adjudicated them)"
        head = (f"<div class='vs-card-title'>{SIDE_TITLES[side_name]}</div><div class='vs-muted'>{side['n_items']} labelled item(s) in "
                f"{side['n_runs']} run(s) by {len(annotators)} annotator(s) ({scope}); {against}:</div>")
        mine = ""
        if annotator in annotators and len(annotators) > 1:  # alone, the majority is their labels
            mine = ("<div class='vs-muted'>…and against your labels alone:</div>"
                    + agreement_side_html(side, against=annotator, elem_id=f"vs-label-agree-{side_name}-you"))
        alpha = side.get("human_alpha")
        alpha_line = f"<div class='vs-muted'>Krippendorff's α between annotators: {alpha:.2f}</div>" if alpha is not None else ""
        ceiling = (f"<div class='vs-muted vs-ceiling' id='vs-label-ceiling-{side_name}'>Beside it, the {_esc(ceiling_text(side.get('human_ceiling')))}; "
                   f"{_esc(prevalence_text(side.get('prevalence')))}.</div>")
        blocks.append(head + agreement_side_html(side, elem_id=f"vs-label-agree-{side_name}") + ceiling + mine + splits_html(side) + alpha_line)
    prf = "".join(
        f"<div class='vs-muted'>Run {_esc(p['run_id'])}, from the labels ({p['n_labelled']} of {p['n_gt']} ground-truth triples): "
        f"P {100 * p['human']['precision']:.1f} · R {100 * p['human']['recall']:.1f} · F1 {100 * p['human']['f1']:.1f}"
        + "".join(f" · {_esc(judge_text(name))}: F1 {100 * j['f1']:.1f}" for name, j in p["judges"].items()) + "</div>"
        for p in report.get("prf", [])[:20])
    return "<div class='vs-agree-report' id='vs-label-report'>" + "".join(f"<div class='vs-agree-side'>{b}</div>" for b in blocks) + prf + "</div>"
