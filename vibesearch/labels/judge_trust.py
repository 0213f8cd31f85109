"""A judge's measured agreement with people, to show beside every number it produced.

``judge_trust(store)`` reads the stored labels once and gives, per (judge, profile label) — the
same key as the agreement report's rows and the score tables' ``profile`` column — its agreement
with the final human labels (``_final_label``: adjudication, else strict majority; open ties left
out) on the coverage side, and on the validity side when predicted triples were labelled: percent
agreement and Cohen's kappa, each with its 95% bootstrap interval (``_bootstrap``), and the number
of items compared. The numbers are ``agreement.judge_rows``'s, the same computation as
``vibesearch labels agreement``; nothing is measured twice.

Beside each side's agreement: the judge's Gwet's AC1, the share of the positive label among the
people's labels of its items, and the *human ceiling* of the side (people against each other on
the items two or more of them labelled; ``_human_ceiling``).

A judge with no item compared on the coverage side is *not measured*. With a threshold (the
setting ``VIBESEARCH_MIN_JUDGE_AGREEMENT``, or a command's ``--min-judge-agreement``), a judge is
*flagged* when it is not measured or when a measured side's agreement is below the threshold;
its numbers then carry ``MARK`` and the view prints ``TrustTable.footnote()``. The threshold may
be relative to the human ceiling (``ceiling-0.02``, a ``CeilingMargin``): each side's minimum is
then that side's ceiling less the margin; with no coverage ceiling (no item labelled by two
people) every judge is treated as not measured, and a validity side without a ceiling is not
gated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Union

from ..store import Store
from .agreement import judge_rows
from ..scoring.profile import profile_label

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
    ac1: float | None = None
    ac1_ci: list[float] | None = None
    prevalence: float | None = None  # the share of the positive label among the people's labels of these items
    human_ceiling: dict[str, Any] | None = None  # the side's people-against-people agreement (``_human_ceiling``)

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "agreement": self.agreement, "kappa": self.kappa,
                "agreement_ci": self.agreement_ci, "kappa_ci": self.kappa_ci, "ac1": self.ac1, "ac1_ci": self.ac1_ci,
                "prevalence": self.prevalence, "human_ceiling": self.human_ceiling}


@dataclass(frozen=True)
class CeilingMargin:
    """``--min-judge-agreement ceiling-0.02``: a judge must agree with the people at least as
    often as they agree with each other (the side's human ceiling), less ``margin`` (a share)."""

    margin: float

    def __str__(self) -> str:
        return "ceiling" if self.margin == 0 else f"ceiling-{self.margin:g}"


@dataclass(frozen=True)
class SideMinimums:
    """A relative threshold resolved per side: ``coverage`` None when no coverage ceiling could
    be computed (every judge then counts as not measured), ``validity`` None: not gated."""

    coverage: float | None
    validity: float | None


Threshold = Union[float, CeilingMargin, None]


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

    def below(self, threshold: float | SideMinimums | None) -> bool:
        """Whether the judge's numbers are to be marked: never without a threshold; otherwise when
        it is not measured (or, relative to the ceiling, no coverage ceiling exists) or a measured
        side's agreement is below its minimum."""
        if threshold is None:
            return False
        if self.coverage is None:
            return True
        if isinstance(threshold, SideMinimums):
            if threshold.coverage is None:
                return True
            pairs = [(self.coverage, threshold.coverage), (self.validity, threshold.validity)]
        else:
            pairs = [(self.coverage, threshold), (self.validity, threshold)]
        # "at least" the minimum: a ceiling less a margin is not exact in binary floating point
        return any(side.agreement is None or side.agreement < minimum - 1e-9 for side, minimum in pairs
                   if side is not None and minimum is not None)

    def text(self, *, intervals: bool = True) -> str:
        """One line: "coverage agreement 92.50% [85.00, 97.50], κ 0.810 [0.620, 0.940], n 40; validity …",
        or "not measured"."""
        if self.coverage is None:
            return NOT_MEASURED
        parts = [f"coverage {side_text(self.coverage, intervals=intervals)}"]
        if self.validity is not None:
            parts.append(f"validity {side_text(self.validity, intervals=intervals, positive='valid')}")
        return "; ".join(parts)

    def as_dict(self, threshold: float | SideMinimums | None = None) -> dict[str, Any]:
        return {"judge": self.judge, "profile": self.profile, "measured": self.measured,
                "coverage": self.coverage.as_dict() if self.coverage else None,
                "validity": self.validity.as_dict() if self.validity else None,
                "open_ties": dict(self.open_ties), "text": self.text(), "marked": self.below(threshold)}


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.2f}"


def _kappa(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def ceiling_text(ceiling: dict[str, Any] | None, *, intervals: bool = True) -> str:
    """"human ceiling: people agree 95.00% [90.00, 100.00] with each other (n 30 items, 30 pairs),
    AC1 0.900", or that no item was labelled by two people."""
    if not ceiling:
        return "human ceiling: none (no item labelled by two or more people)"
    agree = f"{_pct(ceiling.get('agreement'))}%"
    if intervals and ceiling.get("ci"):
        agree += f" [{_pct(ceiling['ci'][0])}, {_pct(ceiling['ci'][1])}]"
    return (f"human ceiling: people agree {agree} with each other (n {ceiling.get('n_items', 0)} items, {ceiling.get('n_pairs', 0)} pairs), "
            f"AC1 {_kappa(ceiling.get('ac1'))}")


def prevalence_text(prevalence: dict[str, Any] | None) -> str:
    """"\"covered\" in 11.11% of 9 final human labels" (a side's ``prevalence``)."""
    prev = prevalence or {}
    return f"\"{prev.get('label', 'covered')}\" in {_pct(prev.get('share'))}% of {prev.get('n', 0)} final human labels"


def side_text(side: SideAgreement, *, intervals: bool = True, positive: str = "covered") -> str:
    """"agreement 92.50% [85.00, 97.50], κ 0.810 [0.620, 0.940], AC1 0.900 [0.800, 0.960], n 40,
    "covered" 20.00% of the people's labels; people agree 95.00% …" (intervals in brackets)."""
    agree = f"agreement {_pct(side.agreement)}%"
    kappa = f"κ {_kappa(side.kappa)}"
    ac1 = f"AC1 {_kappa(side.ac1)}"
    if intervals and side.agreement_ci:
        agree += f" [{_pct(side.agreement_ci[0])}, {_pct(side.agreement_ci[1])}]"
    if intervals and side.kappa_ci:
        kappa += f" [{_kappa(side.kappa_ci[0])}, {_kappa(side.kappa_ci[1])}]"
    if intervals and side.ac1_ci:
        ac1 += f" [{_kappa(side.ac1_ci[0])}, {_kappa(side.ac1_ci[1])}]"
    return (f"{agree}, {kappa}, {ac1}, n {side.n}, \"{positive}\" {_pct(side.prevalence)}% of the people's labels; "
            f"{ceiling_text(side.human_ceiling, intervals=intervals)}")


def _side(row: dict[str, Any], ceiling: dict[str, Any] | None) -> SideAgreement | None:
    if not row.get("n"):
        return None
    ci = row.get("ci") or {}
    return SideAgreement(n=int(row["n"]), agreement=row.get("agreement"), kappa=row.get("kappa"),
                         agreement_ci=ci.get("agreement"), kappa_ci=ci.get("kappa"), ac1=row.get("ac1"), ac1_ci=ci.get("ac1"),
                         prevalence=(row.get("prevalence") or {}).get("human"), human_ceiling=ceiling)


class TrustTable:
    """Every measured judge × profile, and "not measured" for any other. ``threshold`` as given
    (a share, a ``CeilingMargin`` or None); ``minimum`` the same resolved against ``ceilings``
    (each side's human ceiling, None where none could be computed)."""

    def __init__(self, entries: dict[Key, JudgeTrust], threshold: Threshold = None,
                 ceilings: dict[str, dict[str, Any] | None] | None = None):
        self.entries = entries
        self.threshold = threshold
        self.ceilings = dict(ceilings or {})
        self.minimum: float | SideMinimums | None
        if isinstance(threshold, CeilingMargin):
            cov, val = self.ceilings.get("coverage"), self.ceilings.get("validity")
            self.minimum = SideMinimums(cov["agreement"] - threshold.margin if cov else None,
                                        val["agreement"] - threshold.margin if val else None)
        else:
            self.minimum = threshold

    def given(self) -> float | str | None:
        """The threshold as the command was given it, for a JSON report: 0.985, "ceiling-0.02" or None."""
        return str(self.threshold) if isinstance(self.threshold, CeilingMargin) else self.threshold

    def footnote(self) -> str:
        """What ``MARK`` means ("" without a threshold); relative to the ceiling, the minimum each
        side came to, or in one line that no ceiling could be computed."""
        t = self.threshold
        if t is None:
            return ""
        if not isinstance(t, CeilingMargin):
            return footnote(t)
        low = self.minimum
        assert isinstance(low, SideMinimums)
        if low.coverage is None:
            return (f"{MARK} --min-judge-agreement {t}: no human ceiling can be computed (fewer than 2 annotators on shared "
                    "items), so every judge is treated as unmeasured.")
        sides = f"{100 * low.coverage:.2f}% on the coverage side"
        sides += f", {100 * low.validity:.2f}% on the validity side" if low.validity is not None else \
            "; the validity side has no ceiling and is not gated"
        return (f"{MARK} the judge behind these numbers agrees with the people's labels less often than people agree with each "
                f"other less {100 * t.margin:.2f} points ({t}: {sides}), or its agreement was never measured.")

    def of(self, judge: str | None, profile: str | None = None) -> JudgeTrust:
        """The entry of ``judge`` under ``profile``: a profile label as the score tables show it
        (``profile.profile_label``; None: the vibesearch profile)."""
        label = profile if profile is not None else profile_label("vibesearch")
        return self.entries.get((judge or "", label)) or JudgeTrust(judge or "", label)

    def flagged(self, judge: str | None, profile: str | None = None) -> bool:
        return self.of(judge, profile).below(self.minimum)

    def mark(self, judge: str | None, profile: str | None = None) -> str:
        """``MARK`` when the judge's numbers are flagged, else ""."""
        return MARK if self.flagged(judge, profile) else ""

    def rows(self, keys: Iterable[Key]) -> list[dict[str, Any]]:
        """``as_dict`` of each key (in the order given, once each)."""
        return [self.of(j, p).as_dict(self.minimum) for j, p in dict.fromkeys(keys)]


def judge_trust(store: Store, *, threshold: Threshold = None, keep_run: Callable[[str], bool] | None = None) -> TrustTable:
    """Per (judge, profile label) its agreement with the final human labels over every labelled run
    (``keep_run``: only the runs it accepts), with each side's human ceiling, as a ``TrustTable``
    that marks with ``threshold``."""
    coverage = judge_rows(store, "coverage", keep_run=keep_run)
    validity = judge_rows(store, "validity", keep_run=keep_run)
    ties = {"coverage": coverage["n_open_ties"], "validity": validity["n_open_ties"]}
    ceilings = {"coverage": coverage["human_ceiling"], "validity": validity["human_ceiling"]}
    found: dict[Key, dict[str, SideAgreement | None]] = {}
    for side, report in (("coverage", coverage), ("validity", validity)):
        for row in report["judges"]:
            found.setdefault((row["judge"], row["profile"]), {})[side] = _side(row, ceilings[side])
    entries = {key: JudgeTrust(key[0], key[1], sides.get("coverage"), sides.get("validity"), ties) for key, sides in found.items()}
    return TrustTable(entries, threshold, ceilings)


def footnote(threshold: float | None) -> str:
    """What ``MARK`` means under an absolute threshold ("" without one); ``TrustTable.footnote``
    also says it relative to the human ceiling."""
    if threshold is None:
        return ""
    return (f"{MARK} the judge behind these numbers agrees with the people's labels less than {100 * threshold:.2f}% "
            "of the time, or its agreement was never measured (no stored labels of its runs).")


_CEILING = re.compile(r"ceiling(?:-(?P<margin>[0-9]*\.?[0-9]+))?")


def _share(value: float | str, what: str) -> float:
    """0.985 or 98.5 (a percentage) both mean 0.985; ``ValueError`` outside 0–100."""
    x = float(value)
    if x != x or x < 0 or x > 100:
        raise ValueError(what)
    return x / 100 if x > 1 else x


def parse_threshold(value: float | str | None) -> Threshold:
    """A threshold as a share: 0.985 or 98.5 (a percentage) both mean 98.5%; ``ceiling`` or
    ``ceiling-0.02`` (``ceiling-2``: points) relative to the human ceiling (a ``CeilingMargin``);
    None or "" is none. ``ValueError`` for anything else."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    text = str(value).strip().lower()
    if text.startswith("ceiling"):
        found = _CEILING.fullmatch(text)
        if not found:
            raise ValueError(f"relative to the human ceiling it is ceiling-0.02 (a share) or ceiling-2 (points), not {value!r}")
        margin = found.group("margin")
        return CeilingMargin(_share(margin, f"a margin below the ceiling is a share or points up to 100, not {value!r}") if margin else 0.0)
    try:
        return _share(value, f"a minimum agreement is a share (0.985), a percentage (98.5) or ceiling-0.02, not {value!r}")
    except ValueError:
        raise ValueError(f"a minimum agreement is a share (0.985), a percentage (98.5) or ceiling-0.02, not {value!r}") from None
