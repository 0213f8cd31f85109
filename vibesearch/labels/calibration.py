"""Measuring a judge on a labelled case file.

One case a line::

    {"id": "alias-01", "gt": {"head", "relation", "tail"}, "pred": [{"head", "relation", "tail"}, ...],
     "covered": true, "evidence": [0]}

(extra keys such as ``category`` and ``note`` are kept for reading). ``covered`` is a JSON boolean
and ``evidence`` whole numbers from 0, as typed (``"yes"``, ``1`` or ``-0.0`` is refused naming the
line and field). Each case is judged on its
own; the report gives percent agreement with the labels, Cohen's kappa, precision and recall of
"covered", the number of false "covered", the confusion matrix, agreement per category, the
time taken and the cost (USD as litellm reports it; none for the offline judge), the ids the
judge got wrong, and for cases both call covered how often the evidence overlaps. ``compare``
runs several judges on one file.
A case the judge left unscored counts as a disagreement and is listed separately.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field, StrictBool, StrictInt, ValidationError

from .._files import InputFileError, first_invalid, parse_jsonl, read_text, short
from ..config import Settings, get_settings
from ..tasks.models import Triple
from .agreement import cohen_kappa, confusion
from ..scoring.metrics import run_sync
from ..judges.offline import OfflineJudge
from ..judges.registry import judge_for
from ..judges.verdicts import Verdict


class Case(BaseModel):
    id: str
    gt: Triple
    pred: list[Triple] = Field(default_factory=list)
    covered: StrictBool  # a JSON true/false: "yes" or 1 is refused, not read as a label
    evidence: list[Annotated[StrictInt, Field(ge=0)]] = Field(default_factory=list)  # -0.0 or 1.0 is not an index
    category: str = ""
    note: str = ""


class CaseFileError(ValueError):
    pass


def load_cases(path: str | Path) -> list[Case]:
    """The cases of a JSONL file; ``CaseFileError`` names the file, line and field of a bad one."""
    path = Path(path)
    try:
        lines = parse_jsonl(read_text(path), path)
    except InputFileError as exc:
        raise CaseFileError(str(exc)) from None
    cases, seen = [], set()
    for n, record in lines:
        try:
            case = Case.model_validate(record)
        except ValidationError as exc:
            where, message = first_invalid(exc)
            raise CaseFileError(f"{path}:{n}: {where + ': ' if where else ''}{message}") from None
        if case.id in seen:
            raise CaseFileError(f"{path}:{n}: duplicate case id {short(case.id)}")
        seen.add(case.id)
        cases.append(case)
    if not cases:
        raise CaseFileError(f"{path}: no cases")
    return cases


async def _judge_cases(cases: list[Case], judge: str, settings: Settings) -> tuple[list[Verdict], list[dict[str, Any]]]:
    """The judge's verdict on each case, and the details of each model call (none offline)."""
    if judge_for(judge).is_offline:
        offline = OfflineJudge()
        return [offline.judge([c.gt], c.pred).verdicts[0] for c in cases], []
    from ..judges.llm_judge import judge_llm

    sem = asyncio.Semaphore(max(1, settings.judge_concurrency))
    details: list[dict[str, Any]] = []

    async def one(case: Case) -> Verdict:
        if not case.pred:
            return Verdict(gt_index=0, covered=False, rationale="no predicted triples")
        async with sem:
            result = await judge_llm([case.gt], case.pred, model=judge, settings=settings)
        details.append(result.details)
        return result.verdicts[0]

    return list(await asyncio.gather(*(one(c) for c in cases))), details


def _cost(judge: str, details: list[dict[str, Any]]) -> float | None:
    """Total USD reported by litellm for the judge's calls; None offline or when any call's cost is unknown."""
    if not judge_for(judge).needs_model or any(d.get("cost_usd") is None for d in details):
        return None
    return round(sum(float(d["cost_usd"]) for d in details), 6)


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def calibrate(path: str | Path, *, judge: str = "offline", settings: Settings | None = None,
              cases: list[Case] | None = None) -> dict[str, Any]:
    settings = settings or get_settings()
    cases = cases if cases is not None else load_cases(path)
    start = time.perf_counter()
    verdicts, details = run_sync(_judge_cases(cases, judge, settings))
    seconds = time.perf_counter() - start
    human = [c.covered for c in cases]
    said = [bool(v.covered) for v in verdicts]
    disagreements = [c.id for c, v in zip(cases, verdicts) if v.covered is None or v.covered != c.covered]
    unscored = [c.id for c, v in zip(cases, verdicts) if v.covered is None]
    both = [(c, v) for c, v in zip(cases, verdicts) if c.covered and v.covered]
    overlap = [bool(set(c.evidence) & set(v.evidence)) for c, v in both]
    by_category: dict[str, list[bool]] = {}
    for c, v in zip(cases, verdicts):
        by_category.setdefault(c.category or "-", []).append(v.covered == c.covered)
    conf = confusion(human, said)
    return {
        "judge": judge,
        "file": str(path),
        "n": len(cases),
        "agreement": (len(cases) - len(disagreements)) / len(cases),
        "kappa": cohen_kappa(human, said),
        "precision": _ratio(conf["tp"], conf["tp"] + conf["fp"]),  # of the judge's "covered"
        "recall": _ratio(conf["tp"], conf["tp"] + conf["fn"]),
        "false_covered": conf["fp"],
        "confusion": conf,
        "seconds": round(seconds, 3),
        "cost_usd": _cost(judge, details),
        "calls": sum(int(d.get("calls", 0)) for d in details),
        "disagreements": disagreements,
        "unscored": unscored,
        "evidence_overlap": (sum(overlap) / len(overlap)) if overlap else None,
        "by_category": {k: {"n": len(v), "agreement": sum(v) / len(v)} for k, v in sorted(by_category.items())},
        "verdicts": [
            {"id": c.id, "label": c.covered, "judge": v.covered, "rule": v.rule, "evidence": v.evidence, "rationale": v.rationale}
            for c, v in zip(cases, verdicts)
        ],
    }


def compare(path: str | Path, judges: list[str], *, settings: Settings | None = None) -> dict[str, Any]:
    """Several judges on one case file: one report each (the file is read and checked once)."""
    if not judges:
        raise CaseFileError("name at least one judge (--judge offline or a model)")
    cases = load_cases(path)
    seen: list[str] = []
    for j in judges:
        if j not in seen:
            seen.append(j)
    return {"file": str(path), "n": len(cases),
            "judges": [calibrate(path, judge=j, settings=settings, cases=cases) for j in seen]}


def dump(report: dict[str, Any]) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2)
