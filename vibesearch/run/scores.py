"""What scoring a run comes to, as a domain value: the figures, one verdict per ground-truth triple
and the details — what every scorer returns (``vibesearch.scoring.scorer``) and the one function
``vibesearch.store.record_score`` stores as rows.

A verdict's ``covered`` is ``True``/``False``, or ``None`` when the judge could not give one (its
output for that batch never parsed). ``evidence`` holds indices into the predicted graph exactly as
it was stored, so a verdict can be shown beside the triples it cites.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from .config import ProtocolProfile


class Verdict(BaseModel):
    gt_index: int
    covered: bool | None
    rule: int | None = None  # 1 same fact, 2 states more, 3 jointly, 4 by composition
    evidence: list[int] = Field(default_factory=list)
    rationale: str = ""


class Metrics(BaseModel):
    """Precision, recall and F1 with the counts they come from."""

    precision: float
    recall: float
    f1: float
    n_gt: int
    n_pred: int
    n_covered: int
    n_valid: int
    n_unscored: int = 0


class RunScore(Metrics):
    """One run scored by one judge under one profile."""

    run_id: str
    judge: str  # "offline" or the judge model string
    protocol: ProtocolProfile
    graph_id: int | None = None  # the stored graph that was scored (None: none, or a table task's answer)
    prompt_source: str | None = None  # where the judge's prompt came from (the official profile)
    details: dict[str, Any] = Field(default_factory=dict)
    verdicts: list[Verdict] = Field(default_factory=list)
