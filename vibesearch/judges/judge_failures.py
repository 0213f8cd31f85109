"""A judge that fails is never a score: the error our profile raises, and what a stored score says
about the judge batches that failed.

    raise JudgeFailed.from_batches(judge, details["batches"])   # (None when every batch was judged)
    str(exc)         # "run 3f2a: judge openai/gpt-4o-mini failed after 5 attempts: APIConnectionError: ..."
    judge_gaps(row)  # a stored score's failed batches and unscored triples; .marked, .warning(run_id)

* ``JudgeFailed``: a judge call that still failed after its attempts (a model error after the
  client's retries, or an answer that never parsed, or held no verdict, after the judge's own
  attempts). Our profile's scorer raises it when any batch failed and nothing is stored. Its text
  is the one line every surface shows: ``vibesearch score`` after ``error:``, the app's Score
  button, the score panel of a run the app played or queued. The attempts are the requests made
  for the batch named; the cause is scrubbed of anything that looks like a key.
* ``judge_gaps``: under the official profile a batch that never answered is graded "not covered"
  (the official rule) and the score keeps the count (``details.judge.batches_failed``); a score
  of ours stored before failures were refused may hold unscored triples. Either is marked
  (``MARK``) wherever scores are aggregated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._secrets import scrub
from ..llm.client import LLMError
from ..store.tables import ScoreRow

MARK = "‡"  # beside a score some of whose judge batches failed, or whose judge left triples unscored
CAUSE_CHARS = 300  # what a line keeps of the cause
FAILURES_FOOTNOTE = (
    f"{MARK} Judge failures: the number of samples some of whose judge batches failed for good (under the official "
    "profile graded not covered, the official rule) or, in scores of our profile stored before a failed judge was "
    "refused, whose ground-truth triples were left unscored (recall over the scored ones). Score such runs again "
    "when the judge works."
)


def _one_line(text: str) -> str:
    line = " ".join(scrub(text).split())
    return line if len(line) <= CAUSE_CHARS else line[: CAUSE_CHARS - 1] + "…"


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


class JudgeFailed(LLMError):
    """A judge batch failed for good: no score is made from such a judgement.

    ``attempts``: the requests made for the (first) failed batch; ``failed`` of ``n_batches``
    batches failed; ``run_id``: the run being scored, once the scorer knows it (``for_run``)."""

    def __init__(self, judge: str, *, attempts: int, cause: str, failed: int = 1, n_batches: int = 1, run_id: str | None = None):
        self.judge, self.attempts, self.failed, self.n_batches, self.run_id = judge, attempts, failed, n_batches, run_id
        reason = _one_line(cause) or "no reason given"
        where = f"run {run_id}: " if run_id else ""
        batches = f" on {failed} of {n_batches} batches" if n_batches > 1 else ""
        super().__init__(f"{where}judge {judge} failed after {_plural(attempts, 'attempt')}{batches}: {reason}", cause=reason)

    def for_run(self, run_id: str) -> JudgeFailed:
        return JudgeFailed(self.judge, attempts=self.attempts, cause=self.cause, failed=self.failed, n_batches=self.n_batches, run_id=run_id)

    @classmethod
    def from_batches(cls, judge: str, batches: Sequence[Mapping[str, Any]]) -> JudgeFailed | None:
        """The failure of an LLM judgement from its per-batch details (``llm_judge.judge_llm``:
        a failed batch has ``unscored``, its ``cause`` and ``attempts``); None when none failed."""
        failed = [b for b in batches if "unscored" in b]
        if not failed:
            return None
        first = failed[0]
        return cls(judge, attempts=int(first.get("attempts") or 1), cause=str(first.get("cause") or first["unscored"]),
                   failed=len(failed), n_batches=len(batches))


@dataclass(frozen=True)
class JudgeGaps:
    """What a stored score says about its judge's failures."""

    failed: int = 0  # judge batches that failed for good (graded "not covered" under the official profile)
    n_batches: int = 0
    unscored: int = 0  # ground-truth triples the judge left undecided (only scores of ours stored before refusals)
    cause: str | None = None  # of the first failed batch

    @property
    def marked(self) -> bool:
        return self.failed > 0 or self.unscored > 0

    def note(self) -> str:
        """In short, for a score panel or a report ("" when nothing failed)."""
        parts = []
        if self.failed:
            parts.append(f"{self.failed} of {_plural(self.n_batches, 'judge batch', 'judge batches')} failed"
                         + ("" if self.unscored else " (graded not covered, the official rule)"))
        if self.unscored:
            parts.append(f"{_plural(self.unscored, 'ground-truth triple')} unscored")
        return "; ".join(parts)

    def warning(self, run_id: str) -> str:
        """The line ``vibesearch score`` prints after ``warning:`` for a stored score with failures."""
        return f"run {run_id}: {self.note()}" + (f": {_one_line(self.cause)}" if self.cause else "")

    def record(self) -> dict[str, Any]:
        return {"failed_batches": self.failed, "n_batches": self.n_batches, "unscored": self.unscored, "cause": self.cause}


def judge_gaps(score: ScoreRow) -> JudgeGaps:
    """The failed judge batches of a stored score: the official layout's ``details.judge`` (its
    ``batches_failed``, or for a score stored before that count its batches that never answered),
    else our LLM judge's ``details.batches`` (those left unscored); and its unscored triples."""
    details = score.details()
    official = details.get("judge")
    if isinstance(official, Mapping) and isinstance(official.get("batches"), list):
        batches = [b for b in official["batches"] if isinstance(b, Mapping)]
        lost = [b for b in batches if b.get("outcome") == "never answered"]
        failed = official.get("batches_failed")
        cause = official.get("failure_cause") or next((str(b["errors"][-1]) for b in lost if b.get("errors")), None)
        return JudgeGaps(int(failed) if isinstance(failed, int) else len(lost), len(batches), score.n_unscored, cause)
    batches = [b for b in details.get("batches") or [] if isinstance(b, Mapping)]
    gone = [b for b in batches if "unscored" in b]
    cause = (gone[0].get("cause") or gone[0].get("unscored")) if gone else None
    return JudgeGaps(len(gone), len(batches), score.n_unscored, str(cause) if cause else None)
