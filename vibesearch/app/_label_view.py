"""The Label tab's view of one run and side (kept in ``gr.State``) and how it is drawn."""

from __future__ import annotations

import html
from dataclasses import dataclass, field, fields
from typing import Any

from rapidfuzz import fuzz

from ._words import Lang, say_in
from .panels import judge_text

SUGGESTED = 25  # supporting triples listed (most similar first) while the search box is empty
# a campaign card's fixed notes (in the browser's language: ``LabelView.lang``, ``_words_drawn.LABEL``)
REVIEW_NONE = "<b>Judge review</b> (this campaign is not blind): no judge has scored this run yet."
REVIEW_SAYS = "<b>Judge review</b> (this campaign is not blind) — the judge's verdict, for you to check: "
BLIND_NOTE = "Blind: the judges' verdicts on this triple appear once you have labelled it."
HIDDEN_NOTE = "The judges' verdicts on this triple appear once you have labelled it."


@dataclass
class LabelView:
    run_id: str | None = None
    annotator: str = ""
    side: str = "coverage"  # "coverage": ground-truth triples are labelled; "validity": predicted ones
    campaign: str | None = None  # items come from this campaign's queue
    # the judges' verdicts before a label: None, as the "show anyway" toggle says (one run of no blind
    # campaign); True, never (a blind campaign, or a run of one); False, on the card (a judge review)
    blind: bool | None = None
    idx: int = 0
    gt: list[dict] = field(default_factory=list)
    pred: list[dict] = field(default_factory=list)
    mine: dict[int, tuple[bool, list[int]]] = field(default_factory=dict)
    # judge → gt index → (covered, evidence, rule, rationale)
    verdicts: dict[str, dict[int, tuple[bool | None, list[int], str | None, str]]] = field(default_factory=dict)
    last: str = ""  # feedback on the label just given
    scope: str = "run"  # the judge comparison: over this run ("run") or every labelled run ("all")
    skipped: list[str] = field(default_factory=list)  # campaign item keys skipped (``s``), handed out last
    # the page's key presses (``_label_keys``): how many were handled, and which one's refusal the
    # page shows (0: a press that did not count; None: none)
    served: int = 0
    refusal_of: int | None = None
    lang: Lang = "en"  # the browser's language, for the card's fixed notes (set by the page's handlers)

    def take(self, other: LabelView) -> LabelView:
        """Show ``other`` (another run, side or campaign item) in this object: a page keeps one view
        object, so an event of the page already holding it sees the card it shows now. The page's
        presses and its language stay as they were."""
        for f in fields(self):
            if f.name not in ("served", "refusal_of", "lang"):
                setattr(self, f.name, getattr(other, f.name))
        return self

    @property
    def items(self) -> list[dict]:
        """The triples labelled on this side."""
        return self.gt if self.side == "coverage" else self.pred

    @property
    def support(self) -> list[dict]:
        """The triples ticked as evidence on this side."""
        return self.pred if self.side == "coverage" else self.gt

    def words(self) -> tuple[str, str]:
        return ("covered", "not covered") if self.side == "coverage" else ("valid", "invalid")


def card_id(v: LabelView) -> str:
    """The card the view shows, as the page names it: side, index, run, annotator — what a label is
    stored against ("" when it shows none)."""
    if not v.run_id or not v.items:
        return ""
    return f"{v.side}:{v.idx}:{v.run_id}:{v.annotator}"


def judge_says(v: LabelView, verdicts: dict[int, tuple[bool | None, list[int], str | None, str]], i: int) -> tuple[bool | None, list[int], str | None, str]:
    """A judge's decision on item ``i`` of the view's side. On the validity side a predicted triple
    is valid for the judge when it supports a ground-truth triple the judge called covered."""
    if v.side == "coverage":
        return verdicts.get(i, (None, [], None, ""))
    if not verdicts:
        return (None, [], None, "")
    support = sorted(g for g, (c, ev, _r, _w) in verdicts.items() if c and i in ev)
    return (bool(support), support, None, "")


def _esc(x: Any) -> str:
    return html.escape(str(x if x is not None else ""))


def _ttext(t: dict) -> str:
    return f"{t.get('head', '')} | {t.get('relation', '')} | {t.get('tail', '')}"


def triple_html(v: LabelView) -> str:
    """The card; ``data-card`` names it (``card_id``): each key press carries the card shown when it
    was pressed (``_label_keys``)."""
    say = say_in(v.lang)
    if not v.items:
        return f"<div class='vs-muted'>{say('Load a run to start labelling.')}</div>" if not v.run_id else \
            f"<div class='vs-muted'>{say('This run has no {kind} triples.').format(kind=say('ground-truth' if v.side == 'coverage' else 'predicted'))}</div>"
    t = v.items[v.idx]
    mine = v.mine.get(v.idx)
    yes, no = v.words()
    you = ""
    if mine is not None:
        you = f"<div>{say('Your label:')} <b class='{'vs-verdict-covered' if mine[0] else 'vs-verdict-missed'}'>{say(yes if mine[0] else no)}</b>"
        you += say(" · evidence {numbers}").format(numbers=", ".join(f"#{i + 1}" for i in mine[1])) + "</div>" if mine[1] else "</div>"
    kind = say("Ground-truth triple {n} of {total}" if v.side == "coverage" else "Predicted triple {n} of {total}").format(
        n=v.idx + 1, total=len(v.items))
    where = say(" · run {run} · campaign {campaign}").format(run=_esc(v.run_id), campaign=_esc(v.campaign)) if v.campaign else ""
    return (
        f"<div class='vs-card vs-triple' id='vs-label-triple' data-card='{_esc(card_id(v))}'><div class='vs-muted'>{kind}{where}</div>"
        f"<span class='vs-part'>{_esc(t['head'])}</span> — <span class='vs-part'>{_esc(t['relation'])}</span> → "
        f"<span class='vs-part'>{_esc(t['tail'])}</span>{you}{review_html(v)}</div>"
    )


def review_html(v: LabelView) -> str:
    """In a judge-review campaign (not blind), each judge's verdict on the card, marked as such."""
    if v.blind is not False or not v.items:
        return ""
    say = say_in(v.lang)
    if not v.verdicts:
        return f"<div class='vs-review' id='vs-label-review'>{say(REVIEW_NONE)}</div>"
    said = []
    for judge, verdicts in v.verdicts.items():
        covered, evidence, _rule, _why = judge_says(v, verdicts, v.idx)
        word = say({True: v.words()[0], False: v.words()[1], None: "unscored"}[covered])
        ev = say(" (evidence {numbers})").format(numbers=", ".join(f"#{i + 1}" for i in evidence)) if evidence else ""
        said.append(say("<b>{judge}</b> says <b>{word}</b>{evidence}").format(judge=_esc(judge_text(judge)), word=word, evidence=_esc(ev)))
    return f"<div class='vs-review' id='vs-label-review'>{say(REVIEW_SAYS)}" + say("; ").join(said) + "</div>"


def verdicts_hidden(v: LabelView, show_anyway: bool) -> bool:
    """Whether the judges' verdicts on the shown item are withheld: until it is labelled, unless the
    view is a judge review, or the toggle asks and the view is not blind (``LabelView.blind``)."""
    if v.idx in v.mine or v.blind is False:
        return False
    return bool(v.blind) or not show_anyway


def verdict_html(v: LabelView, show_anyway: bool) -> str:
    if not v.items:
        return ""
    say = say_in(v.lang)
    if not v.verdicts:
        return f"<div class='vs-muted'>{say('No judge has scored this run yet (score it in the Runs tab).')}</div>"
    if verdicts_hidden(v, show_anyway):
        if v.blind:
            return f"<div class='vs-muted' id='vs-label-blind'>{say(BLIND_NOTE)}</div>"
        return f"<div class='vs-muted'>{say(HIDDEN_NOTE)}</div>"
    parts = []
    for judge, verdicts in v.verdicts.items():
        covered, evidence, rule, why = judge_says(v, verdicts, v.idx)
        yes, no = v.words()
        word = say({True: yes, False: no, None: "unscored"}[covered])
        cls = {True: "vs-verdict-covered", False: "vs-verdict-missed", None: "vs-muted"}[covered]
        ev = say(" · evidence {numbers}").format(numbers=", ".join(f"#{i + 1}" for i in evidence)) if evidence else ""
        r = say(" · rule {rule}").format(rule=rule) if rule else ""
        parts.append(f"<div><b>{_esc(judge_text(judge))}</b>: <span class='{cls}'>{word}</span>{_esc(r)}{_esc(ev)}"
                     + (f"<div class='vs-muted'>{_esc(why[:400])}</div>" if why else "") + "</div>")
    return "<div class='vs-card'>" + "".join(parts) + "</div>"


def evidence_value(v: LabelView, i: int) -> str:
    """Supporting triple ``i`` as the card's evidence list holds it: "12@<card id>". A key press
    sends the values ticked on the page (``_label_keys``), so evidence listed for one card is
    never stored with another."""
    return f"{i}@{card_id(v)}"


def ticked(values: Any, card: str) -> list[int] | None:
    """The supporting-triple indices of evidence values ticked on ``card``; None when a value was
    listed for another card (or is not such a value)."""
    out = []
    for value in values or []:
        i, sep, of = str(value).partition("@")
        if not sep or of != card or not i.isdigit():
            return None
        out.append(int(i))
    return out


def evidence_choices(v: LabelView, query: str, selected: list[int]) -> list[tuple[str, str]]:
    """Supporting triples (predicted ones on the coverage side, ground-truth ones on the validity
    side) matching the search (all words), or the most similar to the shown triple; each value
    names the card (``evidence_value``)."""
    pool = v.support
    if not pool:
        return []
    q = (query or "").strip().lower()
    if q:
        words = q.split()
        idxs = [i for i, t in enumerate(pool) if all(w in _ttext(t).lower() for w in words)]
    else:
        target = _ttext(v.items[v.idx]) if v.items else ""
        ranked = sorted(range(len(pool)), key=lambda i: -fuzz.token_set_ratio(target, _ttext(pool[i])))
        idxs = ranked[:SUGGESTED]
    keep = [i for i in selected if i not in idxs and 0 <= i < len(pool)]
    return [(f"#{i + 1}  {_ttext(pool[i])}", evidence_value(v, i)) for i in [*keep, *idxs]]  # shown from 1


def progress_text(v: LabelView) -> str:
    if not v.items:
        return v.last
    done = sum(1 for i in range(len(v.items)) if i in v.mine)
    covered = sum(1 for c, _ in v.mine.values() if c)
    side = "ground-truth" if v.side == "coverage" else "predicted"
    return f"**{done} / {len(v.items)}** {side} triples labelled by **{_esc(v.annotator)}** · {covered} {v.words()[0]} so far. {v.last}"
