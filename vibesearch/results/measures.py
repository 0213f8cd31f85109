"""The paper's section-5 measures over a set of runs (docs/analysis.md: each one's definition, its
source in the paper, and where ours differs). Most are grouped by configuration, and the interaction
ones by configuration and subset, as the paper's tables are.

* ``compactions`` (Table 14, Table 5's Comp.%): the share of runs that compacted at least once, and
  F1 by compaction count (``scoring.errors.f1_by_compactions``);
* ``user_turn_bins`` (Table 15): F1 by user turns, ≤10 / 11–15 / >15;
* ``perfunctory_rate`` / ``redirect_rate`` (Table 16): the user's decisions of that kind over all
  its decisions after the opening, pooled over the runs;
* ``done_reach`` (appendix E.2): the share of runs that ended on the user's completion signal, and
  the termination kinds;
* ``relation_coverage`` (Table 17): each ground-truth relation's coverage, and the split between
  structural relations (the ones organising the graph: a dimension, a phase, a part) and the rest;
* ``invalid_types`` (Table 18): each predicted triple typed — bibliographic metadata, a subjective
  judgement, knowledge never retrieved (no tool result named its head and tail: the funnel's "not
  seen" test applied to predictions), or other — with each type's invalid rate;
* ``generation``: over- and under-generation (``scoring.errors.generation_errors``);
* ``tool_calls`` (appendix D): mean calls per run of each tool;
* ``recall_by_visit`` (appendix E.1): mean recall of the runs with at least one visit and without.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from functools import lru_cache
from statistics import mean
from typing import Any, Callable, Iterable

import numpy as np

from ..judges.offline import norm
from ..run.scores import Verdict
from ..scoring.aggregate import RunRecord
from ..scoring.bootstrap import bootstrap_mean, resampled_intervals
from ..scoring.errors import (
    PAPER_USER_TURN_BINS,
    f1_by_compactions,
    f1_by_user_turns,
    generation_errors,
    relation_coverage_of,
    termination_types,
)
from .funnel import PAGE_TOOLS, RunFunnel

ALL = "all"
# words of a relation that organises the graph rather than states a fact (Table 17's split)
STRUCTURAL_WORDS = (
    "dimension", "aspect", "category", "categories", "phase", "stage", "includes", "include", "including", "contains",
    "has part", "part of", "component", "consists of", "comprises", "subfield", "branch", "subtopic", "topic", "theme",
    "type of", "kind of", "member of", "has member", "belongs to", "covers", "case",
    "维度", "方面", "类别", "分类", "阶段", "包含", "包括", "组成", "构成", "分支", "主题", "属于", "下设", "部分", "案例",
)
BIBLIOGRAPHIC_WORDS = (
    "author", "authored", "doi", "journal", "volume", "issue", "page", "pages", "publisher", "published in", "publication",
    "isbn", "issn", "cited", "citation", "venue", "proceedings", "arxiv", "edition",
    "作者", "期刊", "卷", "页", "页码", "出版", "发表于", "引用", "刊载", "出版社",
)
SUBJECTIVE_WORDS = (
    "importance", "important", "significance", "significant", "key contribution", "core contribution", "contribution",
    "innovation", "novelty", "impact", "influence", "strength", "weakness", "advantage", "limitation", "value", "best",
    "notable", "famous", "recommended", "evaluation", "assessment", "highlight",
    "重要", "意义", "贡献", "创新", "影响", "价值", "优势", "局限", "著名", "推荐", "评价", "亮点",
)
# the words that make a tail a judgement (the relation may carry any of SUBJECTIVE_WORDS)
SUBJECTIVE_TAIL_WORDS = ("importance", "important", "significance", "significant", "key contribution", "core contribution",
                         "innovation", "novelty", "重要", "意义", "核心贡献", "创新")
INVALID_TYPES = ("bibliographic", "subjective", "never_retrieved", "other", "unknown")


@lru_cache(maxsize=65536)
def _has_word(text: str, words: tuple[str, ...]) -> bool:
    padded = f" {norm(text)} "
    return any((w in padded) if not w.isascii() else (f" {w} " in padded) for w in words)


def is_structural(relation: str) -> bool:
    return _has_word(relation.replace("_", " "), STRUCTURAL_WORDS)


def prediction_type(triple: tuple[str, str, str], seen: bool | None) -> str:
    """A predicted triple's type, the first that applies: bibliographic (its relation names a
    citation field), subjective (its relation or tail judges), never_retrieved (no tool result
    named its head and tail), unknown (the run kept no tool text), other."""
    _, relation, tail = triple
    if _has_word(relation.replace("_", " "), BIBLIOGRAPHIC_WORDS):
        return "bibliographic"
    if _has_word(relation.replace("_", " "), SUBJECTIVE_WORDS) or _has_word(tail, SUBJECTIVE_TAIL_WORDS):
        return "subjective"
    if seen is None:
        return "unknown"
    return "other" if seen else "never_retrieved"


def _by(records: Iterable[RunRecord], key: Callable[[RunRecord], Any]) -> dict[Any, list[RunRecord]]:
    out: dict[Any, list[RunRecord]] = defaultdict(list)
    for r in records:
        out[key(r)].append(r)
    return dict(sorted(out.items(), key=lambda kv: str(kv[0])))


def _with_all(records: list[RunRecord], key: Callable[[RunRecord], Any], row: Callable[[list[RunRecord]], dict[str, Any]],
              names: tuple[str, ...]) -> list[dict[str, Any]]:
    """``row`` for each group of ``key`` and for every run (``ALL``), each named by ``names``."""
    out = []
    for label, recs in _by(records, key).items():
        parts = label if isinstance(label, tuple) else (label,)
        out.append({**dict(zip(names, parts)), **row(recs)})
    if records:
        out.append({**dict.fromkeys(names, ALL), **row(records)})
    return out


def _ratio(nums: list[float], dens: list[float]) -> dict[str, Any]:
    """A pooled ratio over runs, with its interval resampling the runs."""
    num, den = np.asarray(nums, dtype=float), np.asarray(dens, dtype=float)
    if not den.sum():
        return {"rate": None, "ci": None}

    def stats(idx: Any) -> list[Any]:
        d = den[idx].sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return [np.where(d > 0, num[idx].sum(axis=1) / d, np.nan)]

    cis = resampled_intervals(len(num), stats)
    return {"rate": float(num.sum() / den.sum()), "ci": cis[0] if cis else None}


def _reply_rate(kind: str) -> Callable[[list[RunRecord]], dict[str, Any]]:
    def row(recs: list[RunRecord]) -> dict[str, Any]:
        decided = [r for r in recs if sum(r.stats.reply_kinds.values())]
        nums = [float(r.stats.reply_kinds.get(kind, 0)) for r in decided]
        dens = [float(sum(r.stats.reply_kinds.values())) for r in decided]
        return {"runs": len(recs), "runs_with_decisions": len(decided), "decisions": int(sum(dens)), kind: int(sum(nums)),
                **_ratio(nums, dens)}
    return row


def _compactions(recs: list[RunRecord]) -> dict[str, Any]:
    known = [r for r in recs if r.stats.compactions is not None]
    flags = [1.0 if (r.stats.compactions or 0) > 0 else 0.0 for r in known]
    return {"runs": len(recs), "runs_known": len(known), "comp_pct": mean(flags) if flags else None,
            "comp_pct_ci": bootstrap_mean(flags), "mean_compactions": mean(r.stats.compactions or 0 for r in known) if known else None,
            "f1_by_compactions": f1_by_compactions(recs)}


def _done(recs: list[RunRecord]) -> dict[str, Any]:
    flags = [1.0 if r.stats.termination == "done" else 0.0 for r in recs]
    return {"runs": len(recs), "done": int(sum(flags)), "share": mean(flags) if flags else None, "ci": bootstrap_mean(flags),
            "termination": termination_types(recs)}


def _tool_calls(recs: list[RunRecord]) -> dict[str, Any]:
    tools = sorted({t for r in recs for t in r.stats.tool_calls_by_tool})
    return {"runs": len(recs), "mean_tool_calls": mean(r.stats.tool_calls for r in recs) if recs else None,
            "per_tool": {t: mean(r.stats.tool_calls_by_tool.get(t, 0) for r in recs) for t in tools}}


def _visits(recs: list[RunRecord]) -> dict[str, Any]:
    scored = [r for r in recs if r.scored and r.recall is not None]
    out: dict[str, Any] = {}
    for label, group in (("with_visit", [r for r in scored if any(r.stats.tool_calls_by_tool.get(t, 0) for t in PAGE_TOOLS)]),
                         ("without_visit", [r for r in scored if not any(r.stats.tool_calls_by_tool.get(t, 0) for t in PAGE_TOOLS)])):
        recalls = [float(r.recall or 0.0) for r in group]
        out[label] = {"runs": len(group), "mean_recall": mean(recalls) if recalls else None, "ci": bootstrap_mean(recalls)}
    return out


def relation_rows(funnels: list[tuple[RunRecord, RunFunnel]]) -> dict[str, Any]:
    """Each ground-truth relation's coverage (``relation_coverage_of``) marked structural or not,
    and the two kinds' coverage over their judged triples."""
    def graded() -> Iterable[tuple[list[dict[str, Any]], list[dict[str, Any]], list[Verdict]]]:
        for _, f in funnels:
            gt = [{"head": t.head, "relation": t.relation, "tail": t.tail} for t in f.fates]
            pred = [{"head": h, "relation": r, "tail": t} for h, r, t in f.prediction]
            verdicts = [Verdict(gt_index=t.gt_index, covered=None if t.verdict == "unscored" else t.verdict == "covered") for t in f.fates]
            yield gt, pred, verdicts

    rows = relation_coverage_of(graded())
    split: dict[str, Counter[str]] = {"structural": Counter(), "factual": Counter()}
    for row in rows:
        row["structural"] = is_structural(row["relation"])
        side = split["structural" if row["structural"] else "factual"]
        side["relations"] += 1
        side["n_gt"] += row["n_gt"]
        side["judged"] += row["n_gt"] - row["n_unscored"]
        side["covered"] += row["n_covered"]
    summary = {k: {**dict(c), "coverage": c["covered"] / c["judged"] if c["judged"] else None} for k, c in split.items()}
    return {"relations": rows, "split": summary}


def invalid_rows(funnels: list[tuple[RunRecord, RunFunnel]]) -> list[dict[str, Any]]:
    """Per configuration (and ``ALL``): each prediction type's count, invalid count, invalid rate
    and share of the invalid predictions."""
    tallies: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: {"n": Counter(), "invalid": Counter()})
    for r, f in funnels:
        for triple, valid, seen in zip(f.prediction, f.prediction_valid, f.prediction_seen):
            kind = prediction_type(triple, seen)
            for label in (r.config, ALL):
                tallies[label]["n"][kind] += 1
                tallies[label]["invalid"][kind] += not valid
    out = []
    for label in sorted(tallies, key=lambda x: (x == ALL, x)):
        n, bad = tallies[label]["n"], tallies[label]["invalid"]
        total_bad = sum(bad.values())
        out.append({"config": label, "n_pred": sum(n.values()), "n_invalid": total_bad, "types": {
            k: {"n": n[k], "invalid": bad[k], "invalid_rate": bad[k] / n[k] if n[k] else None,
                "share_of_invalid": bad[k] / total_bad if total_bad else None} for k in INVALID_TYPES}})
    return out


def section_five(records: list[RunRecord], funnels: list[tuple[RunRecord, RunFunnel]]) -> dict[str, Any]:
    """Every measure of the module's list, keyed as ``analyse --json`` writes them."""
    by_config = (lambda r: r.config, ("config",))
    by_subset = (lambda r: (r.config, r.subset), ("config", "subset"))
    scored = [r for r in records if r.scored]
    return {
        "compactions": _with_all(records, by_config[0], _compactions, by_config[1]),
        "user_turn_bins": _with_all(scored, by_config[0], lambda recs: {"bins": f1_by_user_turns(recs, PAPER_USER_TURN_BINS)}, by_config[1]),
        "perfunctory_rate": _with_all(records, by_subset[0], _reply_rate("perfunctory"), by_subset[1]),
        "redirect_rate": _with_all(records, by_subset[0], _reply_rate("redirect"), by_subset[1]),
        "done_reach": _with_all(records, by_config[0], _done, by_config[1]),
        "relation_coverage": relation_rows(funnels),
        "invalid_types": invalid_rows(funnels),
        "generation": generation_errors(records),
        "tool_calls": _with_all(records, by_subset[0], _tool_calls, by_subset[1]),
        "recall_by_visit": _with_all(scored, by_subset[0], _visits, by_subset[1]),
    }
