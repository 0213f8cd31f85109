"""Markdown, CSV and JSON renderings of a report (see ``build.build_report``).

Scores are shown as percentages (the paper's convention) in Markdown and HTML; CSV and JSON
keep fractions. The CSV holds one section per table: a ``# <table>`` row, a header row, the
rows, then an empty row.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Sequence

from .funnel import analysis_csv_sections, analysis_markdown, write_sections
from ..judges.judge_failures import MARK as FAILED  # the judge failed on some batches, or left triples unscored
from .noise import HEADERS as NOISE_HEADERS
from .noise import noise_note, noise_rows


def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.2f}"


def num(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value)}"
    return f"{value:.{digits}f}"


def money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"


ONE_TASK = "1 task"


def ci(interval: list[float] | None, tasks: int | None = None) -> str:
    """A 95% interval over tasks as percentages, "lo–hi" ("–" when there is none; ``ONE_TASK``
    for a row of one task, whose resampled tasks are all the same one: a zero-width interval)."""
    if tasks == 1:
        return ONE_TASK
    return "–" if not interval else f"{100 * interval[0]:.2f}–{100 * interval[1]:.2f}"


def n_text(r: dict[str, Any]) -> str:
    """A score row's N: one number, or the range when tasks have different sample counts."""
    return f"{r['n_min']}" if r["n_min"] == r["n_max"] else f"{r['n_min']}–{r['n_max']}"


def tokens(r: dict[str, Any], key: str) -> str:
    """An interaction row's mean tokens: "n/a" for the offline baseline, "unknown" when a run kept no usage."""
    state = r.get("tokens", "recorded")
    return state if state != "recorded" or r.get(key) is None else num(r[key], 0)


def cost(r: dict[str, Any]) -> str:
    """An interaction row's mean cost per run ("n/a" when no run called a model)."""
    if r.get("cost_state") == "n/a":
        return "n/a"
    if r["cost_usd"] is not None or not r["cost_known_usd"]:
        return money(r["cost_usd"])
    return f"unknown (known part ${r['cost_known_usd']:.4f})"


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    if not rows:
        return "_(none)_\n"
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


MARK = "†"  # (``labels.judge_trust.MARK``)


def judge_cell(r: dict[str, Any]) -> str:
    """A score row's judge agreement in short: "92.50% (n 40)", or "not measured"."""
    if not r.get("judge_measured"):
        return "not measured"
    return f"{pct(r.get('judge_agreement'))}% (n {r.get('judge_n', 0)})"


def score_rows(report: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    """The score table; with a minimum judge agreement, every score of a row whose judge is below
    it (or unmeasured) carries ``MARK`` (``judge_footnote`` says what it means). "judge failures":
    the samples whose judge failed on some batches, marked ``FAILED`` (``judge_failures_footnote``)."""
    padded = any(r.get("padded") is not None for r in report["scores"])  # official rows: a column of the 0 samples padded in
    headers = ["configuration", "profile", "group", "tasks", "runs", "N", "Avg P", "Avg R", "Avg F1", "Avg F1 95% CI",
               "Best P", "Best R", "Best F1", "Best F1 95% CI", "F1 SD", "Avg node F1", "Best node F1", "left out",
               "judge agreement", "judge failures"] + (["padded"] if padded else [])

    def mark(r: dict[str, Any], text: str) -> str:
        return text + MARK if r.get("judge_marked") and text != "–" else text

    rows = [
        [r["config"], r["profile"], r["group"], r["n_tasks"], r["n_runs"], n_text(r),
         *(mark(r, pct(r[k])) for k in ("avg_precision", "avg_recall", "avg_f1")), ci(r.get("avg_f1_ci"), r["n_tasks"]),
         *(mark(r, pct(r[k])) for k in ("best_precision", "best_recall", "best_f1")), ci(r.get("best_f1_ci"), r["n_tasks"]), pct(r.get("sd_f1")),
         mark(r, pct(r["avg_node_f1"])), mark(r, pct(r["best_node_f1"])), r["left_out"], judge_cell(r),
         f"{r['judge_failures']} {FAILED}" if r.get("judge_failures") else "0"]
        + ([num(r.get("padded"))] if padded else [])
        for r in report["scores"]
    ]
    return headers, rows


def judge_agreement_lines(report: dict[str, Any]) -> list[str]:
    """One line per judge × profile of the report: its agreement with the people's final labels
    (intervals in brackets) or "not measured", flagged where the minimum agreement marks it; then
    the open ties left out and the footnote."""
    out = []
    ties: dict[str, int] = {}
    for t in report.get("judge_agreement") or []:
        flag = f" {MARK}" if t.get("marked") else ""
        out.append(f"{t.get('judge_label') or t['judge']} · {t['profile']}: {t['text']}{flag}")
        ties = t.get("open_ties") or ties
    if any(ties.values()):
        out.append("Left out as open ties (an even split of labels nobody adjudicated): "
                   + ", ".join(f"{n} on the {side} side" for side, n in ties.items()) + ".")
    if report.get("judge_footnote"):
        out.append(report["judge_footnote"])
    return out


def padding_note(report: dict[str, Any]) -> str:
    """Which N the official numbers used (given with --num-samples, or each configuration's most
    samples of a task), and how many 0 samples each configuration's tasks were padded with."""
    if not report.get("summary"):
        return ""
    n = report.get("num_samples")
    parts = [f"{s['config']} ({s['profile']}): N = {s['num_samples']}, 0 samples added "
             + (", ".join(f"{t} {k}" for t, k in s["padded"].items()) or "none")
             for s in report["summary"]]
    said = f"N = {n} (--num-samples)" if n is not None else "N = the most samples any task of the configuration has (--num-samples N sets it)"
    return (f" Official profile: every task graded on {said}; a cancelled or missing run is a 0 sample, as the official run grades "
            "it — " + "; ".join(parts) + ".")


def where_note(report: dict[str, Any]) -> str:
    """The filters the report was made with ("" without any)."""
    where = report.get("where") or {}
    if not where:
        return ""
    return "Only runs with " + "; ".join(f"{k} = {' or '.join(v)}" for k, v in where.items()) + "."


def interval_note(report: dict[str, Any]) -> str:
    """How the intervals and the spread in the score table were made."""
    b = report.get("intervals")
    if not b:
        return ""
    return (f"95% intervals: {b['method']} ({b['resamples']} resamples, seed {b['seed']}); JSON and CSV hold them for "
            "P and R too. F1 SD: the spread of F1 across a task's samples, pooled over tasks with two or more "
            "samples (– when none has two). N: samples per task.")


def profile_note(report: dict[str, Any]) -> str:
    """One sentence naming the profiles of the numbers and the runs left out."""
    profiles = ", ".join(report["profiles"]) or "none"
    text = (f"Profiles of these numbers: {profiles}. Official profile: Best@N takes every metric from the run with the best "
            "triplet F1 and a failed run counts 0; vibesearch profile: each metric's own best run.")
    if report["left_out"]:
        text += f" Left out (not samples): {len(report['left_out'])} run(s) cancelled by a person."
    return text + padding_note(report)


def interaction_rows(report: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    headers = ["configuration", "profile", "runs", "#Asst", "#User", "#Asst/#User", "tool calls", "tool calls / user turn",
               "compactions", "input tokens", "output tokens", "cost / run"]
    rows = [
        [r["config"], r["profile"], r["n_runs"], num(r["asst"]), num(r["user"]), num(r["asst_per_user"]), num(r["tool_calls"]),
         num(r["tool_calls_per_user_turn"]), "unknown" if r["compactions"] is None else num(r["compactions"]), tokens(r, "input_tokens"),
         tokens(r, "output_tokens"), cost(r)]
        for r in report["interaction"]
    ]
    return headers, rows


def run_rows(report: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    """One row per run; stages and user turns are counted from 1 (the opening is stage 1, user turn 1)."""
    headers = ["run", "task", "configuration", "profile", "F1", "reached", "user turns", "termination"]
    rows = [
        [r["run_id"], r["task_id"], r["config"], r["profile"], pct(r["f1"]) + (FAILED if r.get("judge_failure") else ""),
         r.get("last_stage", "–"), r["user_turns"], r["termination"] or "–"]
        for r in report["runs"]
    ]
    return headers, rows


def web_section(report: dict[str, Any]) -> list[str]:
    """The runs that recorded or replayed their web (docs/web.md), with a replay's misses: the
    requests its recording did not hold (an unseen query answered by BM25, an unseen URL)."""
    rows = [[r["run_id"], r["task_id"], r.get("web_recorded", 0), r.get("web_replayed", 0), r.get("web_replay_misses", 0)]
            for r in report["runs"] if r.get("web_recorded") or r.get("web_replayed")]
    if not rows:
        return []
    return ["### The web of the runs\n", "Replay misses: requests the recording did not hold (docs/web.md).\n",
            _md_table(["run", "task", "recorded exchanges", "replayed requests", "replay misses"], rows)]


def stage_sections(report: dict[str, Any]) -> list[str]:
    """The per-stage views (``results.stage_view``) as markdown sections (rows from ``reports.stages``)."""
    from .stages import REACHED_HEADERS, RECALL_HEADERS, RECALL_NOTE, has_stages, reached_rows, recall_rows, stall_text

    st = report.get("stages")
    if not st or not has_stages(st):
        return []
    return [
        "### Recall by stage\n",
        RECALL_NOTE + "\n",
        _md_table(RECALL_HEADERS, recall_rows(st)),
        stall_text(st) + "\n",
        "### F1 by stages reached\n",
        _md_table(REACHED_HEADERS, reached_rows(st)),
    ]


def to_markdown(report: dict[str, Any]) -> str:
    e = report["errors"]
    parts = [
        "# VibeSearch report\n",
        f"Judge: **{report['judge_label']}** · {report['n_scored']} of {report['n_runs']} runs scored · "
        f"generated {report['generated_at']} from `{report['database']}`\n",
        "Scores are percentages. Avg@N: mean over a task's N runs, then over tasks; "
        "Best@N: each task's best run, then the mean over tasks.\n",
        profile_note(report) + "\n",
        *([where_note(report) + "\n"] if report.get("where") else []),
        "## Scores (Avg@N / Best@N)\n",
        interval_note(report) + "\n",
        _md_table(*score_rows(report)),
        *([report["judge_failures_footnote"] + "\n"] if report.get("judge_failures_footnote") else []),
        "### The judge's agreement with people\n",
        "Measured on the stored human labels (final label: an adjudication, else the strict majority); "
        "95% bootstrap intervals in brackets.\n",
        *(f"- {line}" for line in judge_agreement_lines(report)),
        "",
        "### Noise: user, agent, judge\n",
        noise_note(report["noise"]) + "\n",
        _md_table(NOISE_HEADERS, noise_rows(report["noise"])),
        "## Interaction\n",
        "Under the official profile #Asst and #User are the official harness' counts (the opening query, the triple "
        "request and the extraction answer included, [DONE] not).\n",
        _md_table(*interaction_rows(report)),
        "## Error analysis\n",
        "### F1 by compaction count\n",
        _md_table(["compactions", "runs", "mean F1", "mean recall"],
                  [[b["bin"], b["n_runs"], pct(b["mean_f1"]), pct(b["mean_recall"])] for b in e["f1_by_compactions"]]),
        "### F1 by user turns\n",
        _md_table(["user turns", "runs", "mean F1", "mean recall"],
                  [[b["bin"], b["n_runs"], pct(b["mean_f1"]), pct(b["mean_recall"])] for b in e["f1_by_user_turns"]]),
        "### Termination\n",
        _md_table(["termination", "runs"], [[k, v] for k, v in e["termination"].items()]),
        "### Ground-truth relations, least covered first\n",
        _md_table(["relation", "GT triples", "covered", "coverage", "runs", "runs that produced it"],
                  [[r["relation"], r["n_gt"], r["n_covered"], pct(r["coverage"]), r["runs"],
                    f"{r['runs_produced']}" + (" (never)" if r["never_produced"] else "")] for r in e["relation_coverage"][:30]]),
    ]
    parts += stage_sections(report)
    g = e["generation"]
    parts += [
        "### Over- and under-generation\n",
        f"Mean share of invalid predicted triples: {pct(g['mean_invalid_share'])}% · "
        f"runs with more than {pct(g['over_generation_threshold'])}% invalid: {len(g['over_generation_runs'])} · "
        f"under-generation ({g['under_generation_rule']}): {len(g['under_generation_runs'])} · "
        f"empty predictions: {g['empty_predictions']}\n",
    ]
    if report.get("analysis"):
        parts.append(analysis_markdown(report["analysis"]))
    parts += ["## Runs\n", "Stages and user turns are counted from 1: the opening query is stage 1 and user turn 1.\n",
              _md_table(*run_rows(report))]
    if report["unscored_runs"]:
        parts.append(f"\nRuns without a score by this judge: {', '.join(report['unscored_runs'])}\n")
    parts += web_section(report)
    if report["left_out"]:
        parts += ["### Runs left out (not samples)\n",
                  _md_table(["run", "task", "configuration", "profile", "reason"],
                            [[r["run_id"], r["task_id"], r["config"], r["profile"], r["reason"]] for r in report["left_out"]])]
    return "\n".join(parts)


def to_csv(report: dict[str, Any]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)

    def section(name: str, rows: list[dict[str, Any]]) -> None:
        write_sections(w, [(name, rows)])  # text is never a formula

    def flat(row: dict[str, Any]) -> dict[str, Any]:  # an interval as two columns
        out: dict[str, Any] = {}
        for k, v in row.items():
            if k.endswith("_ci"):
                out[f"{k}_low"], out[f"{k}_high"] = (v[0], v[1]) if v else (None, None)
            else:
                out[k] = v
        return out

    e = report["errors"]
    w.writerow([f"# judge: {report['judge_label']}", f"profiles: {'; '.join(report['profiles']) or 'none'}"])
    section("scores", [flat(r) for r in report["scores"]])
    section("interaction", report["interaction"])
    section("official_summary", report["summary"])
    section("left_out", report["left_out"])
    section("f1_by_compactions", e["f1_by_compactions"])
    section("f1_by_user_turns", e["f1_by_user_turns"])
    section("termination", [{"termination": k, "runs": v} for k, v in e["termination"].items()])
    section("relation_coverage", e["relation_coverage"])
    section("recall_by_stage", report.get("stages", {}).get("stages", []))
    section("f1_by_stages_reached", report.get("stages", {}).get("f1_by_stages_reached", []))
    section("over_generation_runs", e["generation"]["over_generation_runs"])
    section("under_generation_runs", e["generation"]["under_generation_runs"])
    section("runs", report["runs"])
    section("judge_agreement", [{"judge": t["judge"], "profile": t["profile"], "measured": t["measured"], "marked": t["marked"],
                                 **{f"{side}_{k}": (t[side] or {}).get(k) for side in ("coverage", "validity")
                                    for k in ("n", "agreement", "kappa", "ac1", "prevalence")},
                                 **{f"{side}_human_ceiling": ((t[side] or {}).get("human_ceiling") or {}).get("agreement")
                                    for side in ("coverage", "validity")},
                                 **{f"{side}_{k}_{end}": ((t[side] or {}).get(k) or [None, None])[i] for side in ("coverage", "validity")
                                    for k in ("agreement_ci", "kappa_ci") for i, end in enumerate(("low", "high"))}}
                                for t in report.get("judge_agreement") or []])
    section("noise", [{"part": p, "estimate": n["estimate"], "interval_low": (n["interval"] or [None, None])[0],
                       "interval_high": (n["interval"] or [None, None])[1], "variance": n["variance"], "why": n["why"], "note": n.get("note")}
                      for p, n in ((p, (report.get("noise") or {}).get(p)) for p in ("user", "agent", "judge", "combined")) if n])
    if report.get("analysis"):
        write_sections(w, [(f"analysis_{name}", rows) for name, rows in analysis_csv_sections(report["analysis"])])
    return buf.getvalue()


def to_json(report: dict[str, Any]) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2, default=str)
