"""A judge's measured agreement with the people (``labels.judge_trust``) and the footnotes under
the scores, in the browser's language: English is the text ``labels`` wrote (the app's English
output, unchanged); Chinese is worded here from the same figures (a row's ``as_dict``) and the
templates in ``_words_drawn.TRUST``, since ``labels`` stays English. The footnotes are read back
from their English (one of ``judge_trust``'s three forms, or ``FAILURES_FOOTNOTE``).
"""

from __future__ import annotations

import re
from typing import Any

from ..judges.judge_failures import FAILURES_FOOTNOTE
from ._words import Lang, zh_text
from ._words_drawn import FAILURES_ZH


def profile_words(label: str, lang: Lang) -> str:
    """A profile's label ("vibesearch profile", "official protocol, own prompts" or "…, <prompts>") in ``lang``."""
    head, sep, prompts = label.partition(", ")
    if sep and head == "official protocol":
        return zh_text("official protocol, {prompts}", lang).format(prompts=zh_text(prompts, lang))
    return zh_text(label, lang)


def _pct(x: Any) -> str:
    return "n/a" if x is None else f"{100 * x:.2f}"


def _kappa(x: Any) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _ci(ci: Any, fmt: Any) -> str:
    return f" [{fmt(ci[0])}, {fmt(ci[1])}]" if ci else ""


def _ceiling(c: dict[str, Any] | None) -> str:
    if not c:
        return zh_text("human ceiling: none (no item labelled by two or more people)", "zh")
    return zh_text("human ceiling: people agree {agree} with each other (n {items} items, {pairs} pairs), AC1 {ac1}", "zh").format(
        agree=f"{_pct(c.get('agreement'))}%{_ci(c.get('ci'), _pct)}", items=c.get("n_items", 0), pairs=c.get("n_pairs", 0),
        ac1=_kappa(c.get("ac1")))


def _side(s: dict[str, Any], positive: str) -> str:
    return zh_text("agreement {agree}, κ {kappa}, AC1 {ac1}, n {n}, \"{positive}\" {prev}% of the people's labels; {ceiling}", "zh").format(
        agree=f"{_pct(s.get('agreement'))}%" + _ci(s.get("agreement_ci"), _pct), kappa=_kappa(s.get("kappa")) + _ci(s.get("kappa_ci"), _kappa),
        ac1=_kappa(s.get("ac1")) + _ci(s.get("ac1_ci"), _kappa), n=s.get("n", 0), positive=zh_text(positive, "zh"),
        prev=_pct(s.get("prevalence")), ceiling=_ceiling(s.get("human_ceiling")))


def trust_text(row: dict[str, Any], lang: Lang) -> str:
    """One judge × profile's line (a ``JudgeTrust.as_dict``): its ``text`` in English, the same
    figures worded in Chinese."""
    if lang != "zh":
        return str(row["text"])
    if not row.get("coverage"):
        return zh_text("not measured", "zh")
    parts = [zh_text("coverage {side}", "zh").format(side=_side(row["coverage"], "covered"))]
    if row.get("validity"):
        parts.append(zh_text("validity {side}", "zh").format(side=_side(row["validity"], "valid")))
    return "；".join(parts)


_ABSOLUTE = re.compile(r"(?P<mark>\S+) the judge behind these numbers agrees with the people's labels less than (?P<pct>[0-9.]+)% "
                       r"of the time, or its agreement was never measured \(no stored labels of its runs\)\.")
_NO_CEILING = re.compile(r"(?P<mark>\S+) --min-judge-agreement (?P<t>\S+): no human ceiling can be computed .*")
_RELATIVE = re.compile(r"(?P<mark>\S+) the judge behind these numbers agrees with the people's labels less often than people agree "
                       r"with each other less (?P<points>[0-9.]+) points \((?P<t>[^:]+): (?P<cov>[0-9.]+)% on the coverage side"
                       r"(?:, (?P<val>[0-9.]+)% on the validity side|; the validity side has no ceiling and is not gated)\), "
                       r"or its agreement was never measured\.")


def footnote_text(note: str, lang: Lang) -> str:
    """A footnote under the scores (``judge_trust``'s "†" or the judge failures' "‡") in ``lang``;
    a text of neither form stays as it is."""
    if lang != "zh" or not note:
        return note
    if note == FAILURES_FOOTNOTE:
        return FAILURES_ZH
    say = lambda key: zh_text(key, "zh")  # noqa: E731 - a short alias
    if found := _ABSOLUTE.fullmatch(note):
        return say("{mark} below {pct}% of the time, or never measured").format(**found.groupdict())
    if found := _NO_CEILING.fullmatch(note):
        return say("{mark} --min-judge-agreement {t}: no human ceiling").format(**found.groupdict())
    if found := _RELATIVE.fullmatch(note):
        g = found.groupdict()
        sides = say("{cov}% on the coverage side").format(cov=g["cov"])
        sides += say(", {val}% on the validity side").format(val=g["val"]) if g["val"] else say("; the validity side is not gated")
        return say("{mark} below the ceiling less {points} points ({t}: {sides}), or never measured").format(
            mark=g["mark"], points=g["points"], t=g["t"], sides=sides)
    return note
