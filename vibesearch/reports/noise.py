"""The noise floor's three-way split (``scoring.noise_split``) as a table and a sentence, for every
format that shows it: the report (Markdown, HTML, CSV), the site and the app's Leaderboard."""

from __future__ import annotations

from typing import Any

PART_LABELS = {"user": "user (simulator)", "agent": "agent", "judge": "judge", "combined": "combined"}
HEADERS = ["noise", "F1 SD", "95% interval", "note"]


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.2f}"


def noise_rows(noise: dict[str, Any]) -> list[list[str]]:
    """One row per part (user, agent, judge, combined): its F1 standard deviation and interval in
    percentage points, or "not measured" with the reason."""
    rows = []
    for part, label in PART_LABELS.items():
        got = noise.get(part) or {}
        interval = got.get("interval")
        shown = "–" if not interval else f"{_pct(interval[0])}–{_pct(interval[1])}"
        note = got.get("note") or (f"not measured: {got['why']}" if got.get("why") else "")
        rows.append([label, _pct(got.get("estimate")) if got.get("estimate") is not None else "not measured", shown, note])
    return rows


def noise_note(noise: dict[str, Any]) -> str:
    """How the split is made, in one paragraph."""
    s = noise.get("settings") or {}
    dof = s.get("dof") or {}
    return ("How much one run's F1 moves, in percentage points (standard deviations): the user's part from runs of a task "
            "and configuration with and without the user fixed, the agent's from runs with the user fixed less the judge's, "
            "the judge's from repeated judgements of one graph (vibesearch score --repeat K); combined is all three. "
            f"Variance components; 95% intervals: {s.get('method', 'cluster bootstrap')} ({s.get('resamples')} resamples, "
            f"seed {s.get('seed')}); degrees of freedom: {dof.get('combined', 0)} across runs, {dof.get('user_fixed', 0)} with "
            f"the user fixed, {dof.get('judge', 0)} across judgements. A difference inside the combined noise is a tie.")


def split_text(noise: dict[str, Any], *, percent: bool = False) -> str:
    """One line: "user 0.012 [0.000, 0.031] · agent … · judge …" (F1 standard deviations, 0–1;
    ``percent``: in percentage points, "user 1.20 [0.00, 3.10]"), "not measured" where a part
    cannot be estimated."""
    parts = []

    def shown(x: float) -> str:
        return f"{100 * x:.2f}" if percent else f"{x:.3f}"

    for part in ("user", "agent", "judge"):
        got = noise.get(part) or {}
        if got.get("estimate") is None:
            parts.append(f"{part} not measured")
            continue
        interval = got.get("interval")
        parts.append(f"{part} {shown(got['estimate'])}" + (f" [{shown(interval[0])}, {shown(interval[1])}]" if interval else ""))
    return " · ".join(parts)
