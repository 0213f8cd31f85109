"""Every judge kind, described once: its label, whether it needs a model (and so that provider's
credentials), whether it is deterministic, and how to build it.

    judge_for("offline").deterministic           # True
    judge_for("openai/gpt-4o-mini").needs_model  # True: the LLM judge
    judge_for(model, official=True).kind          # "official": the official grader
    await judge_for(name).factory(name, settings).judge(truth, prediction) -> JudgeResult

The kinds are ``run.config.JudgeKind``; which kind a judge *name* picks is ``run.config.is_offline_judge``
(``"offline"``) and otherwise a model, judged by the LLM judge, or by the official grader under the
official profile. Adding a judge is one module and one ``register`` call here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

from ..run.config import JudgeKind, is_offline_judge

if TYPE_CHECKING:
    from ..config import Settings
    from .verdicts import JudgeResult

__all__ = ["JUDGES", "Judge", "JudgeDescription", "judge_for", "judge_label", "register"]


class Judge(Protocol):
    """A judge: one verdict per ground-truth triple on whether the prediction covers it."""

    async def judge(self, truth: Sequence[Any], prediction: Sequence[Any]) -> JudgeResult: ...


Factory = Callable[..., Judge]  # (name, settings, progress=None) -> Judge


@dataclass(frozen=True)
class JudgeDescription:
    kind: JudgeKind
    label: str  # how output names the judge; "{name}" is replaced by the judge name (its model)
    help: str
    needs_model: bool  # a litellm model string, so its provider's credentials
    deterministic: bool  # one graph gets the same verdicts every time (no judge noise to measure)
    # builds the judge; None for the official grader, which grades the official record through
    # ``official_grade.grade_official`` (its inputs are the official ground truth and answer text)
    factory: Factory | None

    @property
    def is_offline(self) -> bool:
        return self.kind == "offline"

    def label_for(self, name: str) -> str:
        return self.label.format(name=name)


JUDGES: dict[JudgeKind, JudgeDescription] = {}


def register(description: JudgeDescription) -> JudgeDescription:
    if description.kind in JUDGES:
        raise ValueError(f"judge kind {description.kind!r} is registered twice")
    JUDGES[description.kind] = description
    return description


def judge_for(name: str | None, *, official: bool = False) -> JudgeDescription:
    """The description of the judge a name picks: ``"offline"`` the offline judge, any other name a
    model, judged by the LLM judge (or, with ``official``, by the official grader)."""
    if is_offline_judge(name):
        return JUDGES["offline"]
    return JUDGES["official" if official else "llm"]


def judge_label(judge: str) -> str:
    """How a judge is named in output: offline scores always say so."""
    return judge_for(judge).label_for(judge)


class _Offline:
    async def judge(self, truth: Sequence[Any], prediction: Sequence[Any]) -> JudgeResult:
        from .offline import OfflineJudge

        return OfflineJudge().judge(truth, prediction)


@dataclass
class _LLM:
    model: str
    settings: Settings | None = None
    progress: Any = None

    async def judge(self, truth: Sequence[Any], prediction: Sequence[Any]) -> JudgeResult:
        from .llm_judge import judge_llm

        return await judge_llm(truth, prediction, model=self.model, settings=self.settings, progress=self.progress)


register(JudgeDescription(
    kind="offline", label="offline judge", help="rule-based matching, no model, no key (judges/offline/)",
    needs_model=False, deterministic=True, factory=lambda name, settings=None, progress=None: _Offline(),
))
register(JudgeDescription(
    kind="llm", label="LLM judge {name}", help="a litellm model string judges each ground-truth triple (judges/llm_judge.py)",
    needs_model=True, deterministic=False, factory=lambda name, settings=None, progress=None: _LLM(name, settings, progress),
))
register(JudgeDescription(
    kind="official", label="LLM judge {name}",
    help="the official harness's grader, in its layout, with a litellm model string (judges/official_*.py)",
    needs_model=True, deterministic=False, factory=None,
))
