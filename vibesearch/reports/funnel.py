"""The error analysis (``results.analysis``: the funnel and the section-5 measures) as tables:
``analysis_tables`` gives (title, headers, rows, note) once; Markdown (``analysis_markdown``),
HTML (``html.analysis_html``, every cell escaped) and CSV (``analysis_csv``: the numbers as fractions,
intervals as two columns, text cells spreadsheet-safe) are made from the analysis dict.
Shares are percentages in Markdown and HTML."""

from __future__ import annotations

import csv
import io
from typing import Any, Sequence

from .._files import csv_safe
from ..results.funnel import BUCKETS

Table = tuple[str, list[str], list[list[Any]], str]
BUCKET_HEADERS = ["not asked", "not seen", "not written", "judged not covered", "covered"]
# each bucket's colour wherever a funnel is drawn (the app's bars and per-triple list, the site):
# grey for never asked, warm tones darkening towards the judge, green for covered
BUCKET_COLOURS = dict(zip(BUCKETS, ["#b0b0b0", "#f2c14e", "#f08a4b", "#d1495b", "#2e9e5b"]))
FUNNEL_NOTE = (
    "Each ground-truth triple is counted once, in the first bucket that applies (a triple the judge covered is "
    "'covered' whatever the earlier tests say); the five counts sum to the ground truth. Cells: count, share in % "
    "and its 95% bootstrap interval (runs resampled; one run: its triples)."
)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _ci(interval: list[float] | None) -> str:
    return "" if not interval else f" [{100 * interval[0]:.1f}–{100 * interval[1]:.1f}]"


def _cell(row: dict[str, Any], bucket: str) -> str:
    share = (row.get("shares") or {}).get(bucket) or {}
    return f"{row[bucket]} ({_pct(share.get('share'))}%{_ci(share.get('ci'))})"


def _funnel_rows(rows: list[dict[str, Any]]) -> list[list[Any]]:
    return [[r["group"], r["n_runs"], r["n_gt"], *(_cell(r, b) for b in BUCKETS),
             r["seen_unknown"] or "", r["unassigned"] or ""] for r in rows]


FUNNEL_HEADERS = ["group", "runs", "GT triples", *BUCKET_HEADERS, "seen unknown", "unassigned"]


def analysis_tables(a: dict[str, Any]) -> list[Table]:
    """Every table of the analysis, in reading order."""
    f = a["funnel"]
    tables: list[Table] = [
        ("Where each fact was lost (all runs)", FUNNEL_HEADERS, _funnel_rows([f["all"]]), FUNNEL_NOTE),
        ("… by configuration", FUNNEL_HEADERS, _funnel_rows(f["config"]), ""),
        ("… by language", FUNNEL_HEADERS, _funnel_rows(f["language"]), ""),
        ("… by task", FUNNEL_HEADERS, _funnel_rows(f["task"]), ""),
        ("… by stage", FUNNEL_HEADERS, _funnel_rows(f["stage"]),
         "'seen unknown': triples of runs that kept no tool text (the not-seen test skipped); 'unassigned': triples "
         "no stage's words match (the not-asked test skipped)."),
        ("Compactions (Comp.%, F1 by compaction count)", ["configuration", "runs", "Comp.%", "F1 0", "F1 1", "F1 ≥2"],
         [[r["config"], r["runs"], _pct(r["comp_pct"]) + _ci(r["comp_pct_ci"]),
           *(_pct(b["mean_f1"]) + f" (n {b['n_runs']})" for b in r["f1_by_compactions"][:3])] for r in a["compactions"]], ""),
        ("F1 by user turns (≤10 / 11–15 / >15)", ["configuration", "bins"],
         [[r["config"], " · ".join(f"{b['bin']}: {_pct(b['mean_f1'])} (n {b['n_runs']})" for b in r["bins"])] for r in a["user_turn_bins"]], ""),
    ]
    for key, title in (("perfunctory_rate", "Perfunctory rate"), ("redirect_rate", "Redirect rate")):
        kind = key.split("_")[0]
        tables.append((title, ["configuration", "subset", "runs", "decisions", kind, "rate %"],
                       [[r["config"], r["subset"], r["runs"], r["decisions"], r[kind], _pct(r["rate"]) + _ci(r["ci"])] for r in a[key]],
                       "The user's decisions after the opening, pooled over the runs; interval: runs resampled."))
    tables.append(("[DONE] reach and termination", ["configuration", "runs", "[DONE] %", "termination"],
                   [[r["config"], r["runs"], _pct(r["share"]) + _ci(r["ci"]), ", ".join(f"{k} {v}" for k, v in r["termination"].items())]
                    for r in a["done_reach"]], ""))
    rc = a["relation_coverage"]
    tables.append(("Relation coverage: structural vs factual", ["kind", "relations", "GT triples", "covered", "coverage %"],
                   [[k, v.get("relations", 0), v.get("n_gt", 0), v.get("covered", 0), _pct(v.get("coverage"))] for k, v in rc["split"].items()], ""))
    tables.append(("Relations, least covered first", ["relation", "structural", "GT triples", "covered", "coverage %", "runs that produced it"],
                   [[r["relation"], "yes" if r["structural"] else "", r["n_gt"], r["n_covered"], _pct(r["coverage"]), r["runs_produced"]]
                    for r in rc["relations"][:30]], ""))
    tables.append(("Invalid predictions by type", ["configuration", "predicted", "invalid",
                                                   *(f"{k} (n / invalid %)" for k in ("bibliographic", "subjective", "never_retrieved", "other", "unknown"))],
                   [[r["config"], r["n_pred"], r["n_invalid"],
                     *(f"{t['n']} / {_pct(t['invalid_rate'])}" for t in r["types"].values())] for r in a["invalid_types"]],
                   "invalid %: the type's predictions that no covered triple rests on."))
    g = a["generation"]
    tables.append(("Over- and under-generation", ["measure", "value"], [
        ["mean share of invalid predicted triples %", _pct(g["mean_invalid_share"])],
        [f"runs over {_pct(g['over_generation_threshold'])}% invalid", len(g["over_generation_runs"])],
        [f"under-generation ({g['under_generation_rule']})", len(g["under_generation_runs"])],
        ["empty predictions", g["empty_predictions"]]], ""))
    tables.append(("Tool calls per run by tool", ["configuration", "subset", "runs", "all tools", "per tool"],
                   [[r["config"], r["subset"], r["runs"], _num(r["mean_tool_calls"]),
                     ", ".join(f"{t} {_num(v)}" for t, v in r["per_tool"].items())] for r in a["tool_calls"]], ""))
    tables.append(("Recall with and without a visit", ["configuration", "subset", "runs with a visit", "recall %", "runs without", "recall %"],
                   [[r["config"], r["subset"], r["with_visit"]["runs"], _pct(r["with_visit"]["mean_recall"]),
                     r["without_visit"]["runs"], _pct(r["without_visit"]["mean_recall"])] for r in a["recall_by_visit"]], ""))
    return tables


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _md(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    if not rows:
        return "_(none)_\n"
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def unscored_note(a: dict[str, Any]) -> str:
    """Say how many runs were left out for having no score from the judge, and how to score them."""
    unscored = int(a["n_runs"]) - int(a["n_analysed"])
    if unscored <= 0:
        return ""
    return f"{unscored} run(s) have no score from this judge and are left out: `vibesearch score --all` scores them."


def analysis_markdown(a: dict[str, Any], *, level: int = 2) -> str:
    h = "#" * level
    parts = [f"{h} Error analysis: the funnel and the paper's section-5 measures\n",
             f"{a['n_analysed']} scored run(s) of {a['n_runs']} analysed (docs/analysis.md defines each measure).\n"]
    if note := unscored_note(a):
        parts.append(note + "\n")
    for title, headers, rows, note in analysis_tables(a):
        parts += [f"{h}# {title}\n", *([note + "\n"] if note else []), _md(headers, rows)]
    return "\n".join(parts)


def _flat_funnel(kind: str, row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": kind, **{k: row[k] for k in ("group", "n_runs", "n_gt", *BUCKETS, "seen_unknown", "unassigned")}}
    for b in BUCKETS:
        share = (row.get("shares") or {}).get(b) or {}
        ci = share.get("ci") or [None, None]
        out.update({f"{b}_share": share.get("share"), f"{b}_ci_low": ci[0], f"{b}_ci_high": ci[1]})
    return out


def analysis_csv_sections(a: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The analysis as (section, rows of plain values): the funnel groups and runs, then each measure."""
    f = a["funnel"]
    funnel = [_flat_funnel("all", f["all"])] + [_flat_funnel(k, r) for k in ("config", "language", "task", "stage") for r in f[k]]
    runs = [{**{k: r[k] for k in ("run_id", "task_id", "config", "language", "subset", "seen_method")},
             **{k: v for k, v in _flat_funnel("run", {**r, "group": r["run_id"], "n_runs": 1}).items() if k not in ("kind", "group", "n_runs")}}
            for r in a["runs"]]
    comp = [{"config": r["config"], "runs": r["runs"], "comp_pct": r["comp_pct"], **{f"f1_{b['bin']}": b["mean_f1"] for b in r["f1_by_compactions"]}}
            for r in a["compactions"]]
    turns = [{"config": r["config"], "bin": b["bin"], "runs": b["n_runs"], "mean_f1": b["mean_f1"], "mean_recall": b["mean_recall"]}
             for r in a["user_turn_bins"] for b in r["bins"]]
    rates = [{"measure": key, **{k: v for k, v in r.items() if k != "ci"}, "ci_low": (r["ci"] or [None, None])[0], "ci_high": (r["ci"] or [None, None])[1]}
             for key in ("perfunctory_rate", "redirect_rate") for r in a[key]]
    done = [{"config": r["config"], "runs": r["runs"], "done": r["done"], "share": r["share"],
             "termination": "; ".join(f"{k} {v}" for k, v in r["termination"].items())} for r in a["done_reach"]]
    invalid = [{"config": r["config"], "type": k, **t} for r in a["invalid_types"] for k, t in r["types"].items()]
    tools = [{"config": r["config"], "subset": r["subset"], "runs": r["runs"], "tool": t, "mean_calls": v}
             for r in a["tool_calls"] for t, v in r["per_tool"].items()]
    visits = [{"config": r["config"], "subset": r["subset"], "visit": side, "runs": r[side]["runs"], "mean_recall": r[side]["mean_recall"]}
              for r in a["recall_by_visit"] for side in ("with_visit", "without_visit")]
    return [("funnel", funnel), ("funnel_runs", runs), ("compactions", comp), ("user_turn_bins", turns), ("reply_rates", rates),
            ("done_reach", done), ("relation_coverage", a["relation_coverage"]["relations"]), ("invalid_types", invalid),
            ("tool_calls", tools), ("recall_by_visit", visits)]


def write_sections(w: Any, sections: list[tuple[str, list[dict[str, Any]]]]) -> None:
    """Each section as a ``# name`` row, a header row, the rows and an empty row; text cells never
    start a formula (``csv_safe``), numbers stay numbers."""
    for name, rows in sections:
        w.writerow([f"# {name}"])
        if rows:
            keys = list(rows[0].keys())
            w.writerow(keys)
            for r in rows:
                w.writerow([csv_safe(v) if isinstance(v, str) else v for v in (r.get(k) for k in keys)])
        w.writerow([])


def analysis_csv(a: dict[str, Any]) -> str:
    buf = io.StringIO()
    write_sections(csv.writer(buf), analysis_csv_sections(a))
    return buf.getvalue()
