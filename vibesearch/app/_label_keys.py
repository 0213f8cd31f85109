"""The Label tab's keys carry the card they were pressed on (issue 39): a key meant for one card
never labels another.

* The card the page shows names itself: ``data-card`` on the card (``_label_view.card_id``: side,
  index, run, annotator — what a label is stored against).
* At the moment of each press of ``y`` / ``n`` / ``s`` / ``j`` / ``k`` (the key or a click on its
  button) the page stamps it with that card, its own count of presses, and the evidence ticked
  and the note typed as the page shows them (``_assets.SHORTCUTS_JS``, a listener that runs
  before Gradio's); the event sends the stamp (``press_js``). The evidence values name the card
  they were listed for (``_label_view.evidence_value``): evidence still ticked from the card
  before is never stored with the next.
* The server (``PressLine``) handles the presses of one page one at a time, in the order the page
  made them, and refuses a press whose card is not the one the view holds then — pressed for a
  card already labelled, or while the next one was still being drawn — on a line of its own
  (``refusal``, ``#vs-label-refused``); nothing is stored. The line stays until a later press is
  acted on (``clears_refusal``). A press that says nothing of its card (a raw call to the queue)
  is refused too: the check is in the handler, whoever calls it.
"""

from __future__ import annotations

import json
import threading
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping

from ._label_view import LabelView, card_id

KEY_BUTTONS = {"y": "vs-label-yes", "n": "vs-label-no", "s": "vs-label-skip", "j": "vs-label-next", "k": "vs-label-prev"}
GAP_WAIT_S = 5.0  # how long a press waits for an earlier one of the same page that has not arrived
MAX_PRESS = 200_000  # characters of a press's stamp read (a raw caller may send anything)


def card_words(card: str, shown: str = "") -> str:
    """A card id in words: "ground-truth triple 3" (with "of run abc" when the card ``shown`` is of
    another run)."""
    side, _, rest = card.partition(":")
    idx, _, rest = rest.partition(":")
    run_id = rest.partition(":")[0]
    if side not in ("coverage", "validity") or not idx.isdigit() or not run_id:
        return "no card" if not card else "another card"
    kind = "ground-truth triple" if side == "coverage" else "predicted triple"
    same_run = shown.partition(":")[2].partition(":")[2].partition(":")[0] == run_id
    return f"{kind} {int(idx) + 1}" + ("" if same_run else f" of run {run_id}")


@dataclass(frozen=True)
class Press:
    """What the page showed when the key was pressed."""

    card: str | None  # the card; None: not said
    seq: int | None  # the page's count of presses (1, 2, …); None: a caller that does not count
    evidence: tuple[str, ...] = ()  # the evidence values ticked (``_label_view.evidence_value``)
    note: str = ""  # the note typed


def parse_press(raw: Any) -> Press:
    """The stamp an event carries (JSON ``{"card", "seq", "evidence", "note"}``); anything else
    says nothing."""
    try:
        got = json.loads(raw) if isinstance(raw, str) and len(raw) <= MAX_PRESS else None
    except ValueError:
        got = None
    if not isinstance(got, dict):
        return Press(None, None)
    card, seq, evidence, note = got.get("card"), got.get("seq"), got.get("evidence"), got.get("note")
    return Press(card if isinstance(card, str) else None,
                 seq if isinstance(seq, int) and not isinstance(seq, bool) and seq > 0 else None,
                 tuple(str(e) for e in evidence) if isinstance(evidence, list) else (),
                 note if isinstance(note, str) else "")


def refusal(v: LabelView, press: Press, key: str, *, late: bool = False) -> str | None:
    """Why the press is not acted on, or None when it was pressed on the card the view holds."""
    shown = card_id(v)
    head, tail = ("Not stored", "nothing was stored") if key in ("y", "n") else ("Not done", "the card stays")
    if press.card is None:
        return f"{head}: the “{key}” press did not say which card it was meant for; reload the page and press it again."
    if late:
        return (f"{head}: the “{key}” pressed on {card_words(press.card, shown)} reached the server after a key pressed "
                f"later, so it was left out. Press it again if you meant the card shown.")
    if press.card == shown:
        return None
    now = f"now {card_words(shown, press.card)}" if shown else "no card is shown now"
    where = f"on {card_words(press.card, shown)}, no longer the card shown" if press.card else "before the card was shown"
    return f"{head}: “{key}” was pressed {where} ({now}); {tail}. Press it again if you meant this one."


def session_of(request: Any) -> str:
    return str(getattr(request, "session_hash", "") or "")


class PressLine:
    """One event of a page at a time (a condition from a small pool, by session), and its stamped
    presses in the order the page made them: a press waits (at most ``wait_s``) for the earlier
    ones of its page, so a ``y`` and an ``n`` pressed faster than the answers come back are
    handled ``y`` first, whichever reached the server first. ``LabelView.served`` is the count of
    the page's presses handled (the view is the page's one object: ``LabelView.take``)."""

    def __init__(self, wait_s: float = GAP_WAIT_S, pool: int = 64, refuse: Callable[..., str | None] | None = None) -> None:
        self.wait_s = wait_s
        self.refuse = refuse or refusal  # (view, press, key, late=) → why not; the voting card has its own (``_vote_view``)
        self._conds = [threading.Condition() for _ in range(pool)]

    def _cond(self, request: Any) -> threading.Condition:
        return self._conds[zlib.crc32(session_of(request).encode()) % len(self._conds)]

    @contextmanager
    def hold(self, request: Any) -> Iterator[None]:
        """An event of the page that carries no press (a load, the next item of a campaign)."""
        with self._cond(request):
            yield

    @contextmanager
    def turn(self, request: Any, v: Any, raw: Any, key: str) -> Iterator[tuple[str | None, Press]]:
        """The press's turn: yields why it is refused (``refusal``; None to act on it) and the press."""
        press = parse_press(raw)
        cond = self._cond(request)
        with cond:
            late = False
            if press.seq is not None:
                # a press that never arrived (dropped on the way) holds the next one up only so long
                before = press.seq - 1
                cond.wait_for(lambda: v.served >= before, timeout=self.wait_s)
                late = press.seq <= v.served
            try:
                yield self.refuse(v, press, key, late=late), press
            finally:
                if press.seq is not None:
                    v.served = max(v.served, press.seq)
                cond.notify_all()


def clears_refusal(v: Any, seq: int | None) -> bool:
    """Whether the answer to press ``seq`` (acted on) clears the refusal line: only one of an earlier
    press. The answers of two presses can reach the page in either order, so the answer of a press
    made before the refused one must leave the line alone."""
    if v.refusal_of is None or (seq is not None and v.refusal_of >= seq):
        return False
    v.refusal_of = None
    return True


def press_js(key: str, slot: int, buttons: Mapping[str, str] = KEY_BUTTONS) -> str:
    """The event's page side: the stamp made when ``key``'s button (in ``buttons``: key → element
    id) was pressed goes in input ``slot`` (the oldest stamp of that button not yet sent: each
    press is one event)."""
    return f"""
(...args) => {{
  const line = (window.__vsPresses || {{}})[{json.dumps(buttons[key])}] || [];
  const press = line.shift();
  args[{slot}] = JSON.stringify(press || {{card: null, seq: null}});
  return args;
}}
"""
