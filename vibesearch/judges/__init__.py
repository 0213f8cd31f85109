"""Judges: who decides, for each ground-truth triple, whether a run's graph covers it.

The lowest of the four scoring rooms (``judges`` < ``scoring`` < ``results`` < ``labels``): a
judge knows a ground truth and a prediction, never a stored score, a report or a human label.

* ``offline/``: the offline judge and its matching rules (deterministic, no model).
* ``llm_judge`` (+ ``_judge_layout``: batches and windows, ``_judge_route``: the model's route):
  the LLM judge, by model string.
* ``official_judge``, ``official_parse``, ``official_grade``, ``official_metrics``: the official
  harness's grader (coverage call, strict parse of the answer, per-sample metrics; ``official_metrics``
  is here because the grader's own types live in it).
* ``registry``: each judge kind described once (``judge_for(name)``, ``judge_label``).
* ``verdicts``: what a judge returns (``JudgeResult``, ``Verdict``).
* ``judge_failures``: a judge call that failed, and the gaps it leaves in a stored score.
"""

from .registry import judge_label
from .verdicts import JudgeResult, Verdict, majority_verdicts

__all__ = ["JudgeResult", "Verdict", "judge_label", "majority_verdicts"]
