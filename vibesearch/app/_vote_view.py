"""The voting card's view (kept in ``gr.State``) and how it is drawn (``app.vote``).

Nothing drawn here names a run's agent, model, configuration or score: the persona card, the two
final answers and the two conversations, with every name of each agent's model written out of the
events (``results.blind.hidden_stored_events``) and the notes that are not the conversation (the
user's stage decisions, the extracted graph, the extraction turn) left out. The card names itself
(``data-card``: campaign, item, voter), which each key press carries (``_label_keys``); run ids
stay on the server.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field, fields
from typing import Any

import gradio as gr

from ..results.blind import hidden_stored_events
from ..run.conversation import Conversation
from ..run.events import GraphEvent, MessageEvent, StageEvent, StoredEvent, UsageEvent
from ..store.tables import Run
from ..tasks.models import Task
from ._label_keys import Press
from ._words import Lang, say_in
from .render import chat_messages, inert, persona_html, unfence_tables

KEYS = {"a": "vs-vote-a", "b": "vs-vote-b", "t": "vs-vote-tie", "x": "vs-vote-bad", "s": "vs-vote-skip"}
WINNER_OF_KEY = {"a": "a", "b": "b", "t": "tie", "x": "both_bad"}
WINNER_WORDS = {"a": "A is better", "b": "B is better", "tie": "a tie", "both_bad": "both bad"}
NO_ANSWER = "*(no final answer: the agent gave the user no reply)*"


@dataclass
class VoteView:
    campaign: str | None = None
    voter: str = ""
    index: int | None = None  # the campaign item shown
    number: int = 0  # its place among the voter's items, from 1 (what the card says)
    task: Task | None = None
    answers: tuple[str, str] = ("", "")  # side A's final answer, side B's
    chats: tuple[list[Any], list[Any]] = field(default_factory=lambda: ([], []))  # side A's conversation, side B's
    last: str = ""  # feedback on the vote just cast
    skipped: list[int] = field(default_factory=list)
    served: int = 0  # the page's presses handled (``_label_keys.PressLine``)
    refusal_of: int | None = None
    lang: Lang = "en"  # the browser's language, for the tab's fixed lines (set by the tab's handlers)

    def take(self, other: VoteView) -> VoteView:
        """Show ``other`` in this object (a page keeps one view object); the presses and the language stay."""
        for f in fields(self):
            if f.name not in ("served", "refusal_of", "lang"):
                setattr(self, f.name, getattr(other, f.name))
        return self


def card_id(v: VoteView) -> str:
    """The card as the page names it ("" when none is shown)."""
    if v.campaign is None or v.index is None:
        return ""
    return f"vote:{v.index}:{v.voter}:{v.campaign}"


def _card_words(card: str) -> str:
    head, idx, _rest = (card.split(":", 2) + ["", ""])[:3]
    return f"pair #{int(idx) + 1}" if head == "vote" and idx.isdigit() else "another card"


def refusal(v: VoteView, press: Press, key: str, *, late: bool = False) -> str | None:
    """Why a vote key's press is not acted on, or None when it was pressed on the card shown."""
    shown = card_id(v)
    head, tail = ("Not stored", "nothing was stored") if key in WINNER_OF_KEY else ("Not done", "the card stays")
    if press.card is None:
        return f"{head}: the “{key}” press did not say which card it was meant for; reload the page and press it again."
    if late:
        return f"{head}: the “{key}” pressed on {_card_words(press.card)} reached the server after a key pressed later, so it was left out."
    if press.card == shown:
        return None
    now = f"now {_card_words(shown)}" if shown else "no card is shown now"
    return (f"{head}: “{key}” was pressed on {_card_words(press.card) if press.card else 'no card'}, no longer the card shown "
            f"({now}); {tail}. Press it again if you meant this one.")


def conversation(run: Run, events: list[StoredEvent], task: Task | None) -> list[gr.ChatMessage]:
    """The run as the voter reads it: the chat of ``render.chat_messages`` without the agent's
    model names and without the notes that are not the conversation."""
    kept = [e for e in hidden_stored_events(run, events)
            if not isinstance(e.data, (StageEvent, GraphEvent, UsageEvent))
            and not (isinstance(e.data, MessageEvent) and e.data.phase == "extraction")]
    return chat_messages(kept, task)


def final_answer(events: list[StoredEvent], run: Run) -> str:
    """The run's last reply to the user, its agent's model names written out."""
    return Conversation.from_events(hidden_stored_events(run, events)).last_reply() or ""


def _esc(x: Any) -> str:
    return html.escape(str(x if x is not None else ""))


def card_html(v: VoteView) -> str:
    """The persona card of the pair shown; ``data-card`` names it."""
    say = say_in(v.lang)
    if v.task is None or v.index is None:
        return f"<div class='vs-muted' id='vs-vote-empty'>{say('Pick a vote campaign, then press “Next pair”.')}</div>"
    head = "<div class='vs-muted'>" + say("Pair {n} · vote campaign {name} · which answer would this person pick? Read the persona, "
                                          "then both answers.").format(n=v.number, name=_esc(v.campaign)) + "</div>"
    return f"<div class='vs-vote-card' id='vs-vote-pair' data-card='{_esc(card_id(v))}'>{head}{persona_html(v.task)}</div>"


def answer_md(text: str, lang: Lang = "en") -> str:
    """A final answer as Markdown that draws no HTML (``render.inert``)."""
    return inert(unfence_tables(text)) if text.strip() else say_in(lang)(NO_ANSWER)
