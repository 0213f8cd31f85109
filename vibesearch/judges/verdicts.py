"""What a judge returns: one verdict per ground-truth triple (``run.scores.Verdict``, the domain
value a score holds), and the result of judging a graph."""

from __future__ import annotations

from typing import Any, Sequence

from pydantic import BaseModel, Field

from ..run.scores import Verdict

__all__ = ["JudgeResult", "Verdict", "majority_verdicts"]


class JudgeResult(BaseModel):
    """A judge's verdicts on one (ground truth, prediction) pair, plus how it got them."""

    judge: str  # "offline" or the judge model string
    verdicts: list[Verdict]
    details: dict[str, Any] = Field(default_factory=dict)

    @property
    def n_unscored(self) -> int:
        return sum(1 for v in self.verdicts if v.covered is None)


def majority_verdicts(scores: Sequence[Sequence[Verdict] | JudgeResult]) -> list[Verdict]:
    """One verdict per ground-truth triple from several judges' verdicts on the same run.

    Each judge votes covered / not covered; unscored verdicts do not vote. The majority wins; a
    tie counts as *not covered* (the judges' own rule: when in doubt, not covered). A triple no
    judge scored stays unscored. The evidence of a covered majority is the union of the evidence
    of the judges that voted covered; the rule is the most common rule among them.
    """
    lists = [s.verdicts if isinstance(s, JudgeResult) else list(s) for s in scores]
    by_index: dict[int, list[Verdict]] = {}
    for verdicts in lists:
        for v in verdicts:
            by_index.setdefault(v.gt_index, []).append(v)
    out: list[Verdict] = []
    for index in sorted(by_index):
        votes = [v for v in by_index[index] if v.covered is not None]
        yes = [v for v in votes if v.covered]
        no = len(votes) - len(yes)
        if not votes:
            out.append(Verdict(gt_index=index, covered=None, rationale="no judge scored this triple"))
            continue
        covered = len(yes) > no
        evidence = sorted({e for v in yes for e in v.evidence}) if covered else []
        rules = [v.rule for v in yes if v.rule is not None]
        rule = max(set(rules), key=rules.count) if covered and rules else None
        out.append(
            Verdict(
                gt_index=index,
                covered=covered,
                rule=rule,
                evidence=evidence,
                rationale=f"majority of {len(votes)} judges: {len(yes)} covered, {no} not covered",
            )
        )
    return out
