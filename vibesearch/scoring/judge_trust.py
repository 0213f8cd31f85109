"""A judge's measured agreement with people, to show beside every number it produced.

``judge_trust(store)`` reads the stored labels once and gives, per (judge, profile label) — the
same key as the agreement report's rows and the score tables' ``profile`` column — its agreement
with the final human labels (``_final_label``: adjudication, else strict majority; open ties left
out) on the coverage side, and on the validity side when predicted triples were labelled: percent
agreement and Cohen's kappa, each with its 95% bootstrap interval (``_bootstrap``), and the number
of items compared. The numbers are ``agreement.judge_rows``'s, the same computation as
``vibesearch labels agreement``; nothing is measured twice.

A judge with no item compared on the coverage side is *not measured*. With a threshold (the
setting ``VIBESEARCH_MIN_JUDGE_AGREEMENT``, or a command's ``--min-judge-agreement``), a judge is
*flagged* when it is not measured or when a measured side's agreement is below the threshold;
its numbers then carry ``MARK`` and the view prints ``footnote(threshold)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..store import Store
from .agreement import judge_rows
from .profile import profile_label

MARK = "†"
NOT_MEASURED = "not measured"
Key = tuple[str, str]  # (judge, profile label)


@dataclass(frozen=True)
class SideAgreement:
    """One side's measured agreement of a judge with the final human labels."""

    n: int
    agreement: float | None
    kappa: float | None
    agreement_ci: list[float] | None = None
    kappa_ci: list[float] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "agreement": self.agreement, "kappa": self.kappa,
                "agreement_ci": self.agreement_ci, "kappa_ci": self.kappa_ci}


@dataclass(frozen=True)
class JudgeTrust:
    """What the labels say of one judge under one profile; ``coverage`` None: not measured."""

    judge: str
    profile: str
    coverage: SideAgreement | None = None
    validity: SideAgreement | None = None
    open_ties: dict[str, int] = field(default_factory=dict)  # per side: items left out as open ties

    @property
    def measured(self) -> bool:
        return self.coverage is not None

    def below(self, threshold: float | None) -> bool:
        """Whether the judge's numbers are to be marked: never without a threshold; otherwise when
        it is not measured or a measured side's agreement is below ``threshold``."""
        if threshold is None:
            return False
        if self.coverage is None:
            return True
        return any(side.agreement is None or side.agreement < threshold for side in (self.coverage, self.validity) if side is not None)

    def text(self, *, intervals: bool = True) -> str:
        """One line: "coverage agreement 92.50% [85.00, 97.50], κ 0.810 [0.620, 0.940], n 40; validity …",
        or "not measured"."""
        if self.coverage is None:
            return NOT_MEASURED
        parts = [f"coverage {side_text(self.coverage, intervals=intervals)}"]
        if self.validity is not None:
            parts.append(f"validity {side_text(self.validity, intervals=intervals)}")
        return "; ".join(parts)

    def as_dict(self, threshold: float | None = None) -> dict[str, Any]:
        return {"judge": self.judge, "profile": self.profile, "measured": self.measured,
                "coverage": self.coverage.as_dict() if self.coverage else None,
                "validity": self.validity.as_dict() if self.validity else None,
                "open_ties": dict(self.open_ties), "text": self.text(), "marked": self.below(threshold)}


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.2f}"


def _kappa(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def side_text(side: SideAgreement, *, intervals: bool = True) -> str:
    """"agreement 92.50% [85.00, 97.50], κ 0.810 [0.620, 0.940], n 40" (intervals in brackets)."""
    agree = f"agreement {_pct(side.agreement)}%"
    kappa = f"κ {_kappa(side.kappa)}"
    if intervals and side.agreement_ci:
        agree += f" [{_pct(side.agreement_ci[0])}, {_pct(side.agreement_ci[1])}]"
    if intervals and side.kappa_ci:
        kappa += f" [{_kappa(side.kappa_ci[0])}, {_kappa(side.kappa_ci[1])}]"
    return f"{agree}, {kappa}, n {side.n}"


def _side(row: dict[str, Any]) -> SideAgreement | None:
    if not row.get("n"):
        return None
    ci = row.get("ci") or {}
    return SideAgreement(n=int(row["n"]), agreement=row.get("agreement"), kappa=row.get("kappa"),
                         agreement_ci=ci.get("agreement"), kappa_ci=ci.get("kappa"))


class TrustTable:
    """Every measured judge × profile, and "not measured" for any other."""

    def __init__(self, entries: dict[Key, JudgeTrust], threshold: float | None = None):
        self.entries = entries
        self.threshold = threshold

    def of(self, judge: str | None, profile: str | None = None) -> JudgeTrust:
        """The entry of ``judge`` under ``profile``: a profile label as the score tables show it
        (``profile.profile_label``; None: the vibesearch profile)."""
        label = profile if profile is not None else profile_label("vibesearch")
        return self.entries.get((judge or "", label)) or JudgeTrust(judge or "", label)

    def flagged(self, judge: str | None, profile: str | None = None) -> bool:
        return self.of(judge, profile).below(self.threshold)

    def mark(self, judge: str | None, profile: str | None = None) -> str:
        """``MARK`` when the judge's numbers are flagged, else ""."""
        return MARK if self.flagged(judge, profile) else ""

    def rows(self, keys: Iterable[Key]) -> list[dict[str, Any]]:
        """``as_dict`` of each key (in the order given, once each)."""
        return [self.of(j, p).as_dict(self.threshold) for j, p in dict.fromkeys(keys)]


def judge_trust(store: Store, *, threshold: float | None = None, keep_run: Callable[[str], bool] | None = None) -> TrustTable:
    """Per (judge, profile label) its agreement with the final human labels over every labelled run
    (``keep_run``: only the runs it accepts), as a ``TrustTable`` that marks with ``threshold``."""
    coverage = judge_rows(store, "coverage", keep_run=keep_run)
    validity = judge_rows(store, "validity", keep_run=keep_run)
    ties = {"coverage": coverage["n_open_ties"], "validity": validity["n_open_ties"]}
    found: dict[Key, dict[str, SideAgreement | None]] = {}
    for side, report in (("coverage", coverage), ("validity", validity)):
        for row in report["judges"]:
            found.setdefault((row["judge"], row["profile"]), {})[side] = _side(row)
    entries = {key: JudgeTrust(key[0], key[1], sides.get("coverage"), sides.get("validity"), ties) for key, sides in found.items()}
    return TrustTable(entries, threshold)


def footnote(threshold: float | None) -> str:
    """What ``MARK`` means ("" without a threshold)."""
    if threshold is None:
        return ""
    return (f"{MARK} the judge behind these numbers agrees with the people's labels less than {100 * threshold:.2f}% "
            "of the time, or its agreement was never measured (no stored labels of its runs).")


def parse_threshold(value: float | str | None) -> float | None:
    """A threshold as a share: 0.985 or 98.5 (a percentage) both mean 98.5%; None or "" is none.
    ``ValueError`` for anything outside 0–100."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    x = float(value)
    if x != x or x < 0 or x > 100:
        raise ValueError(f"a minimum agreement is a share (0.985) or a percentage (98.5), not {value!r}")
    return x / 100 if x > 1 else x
