"""Where a replay stands in a stored run, and when the next event is due (no Gradio here).

A ``Cursor`` holds a copy of the run's stored events and how many of them are shown. Playing, it
shows each event after the gap the run itself had before it, divided by the speed and capped at
``MAX_GAP_S / speed`` so a long model call does not stall a demo, and never under ``MIN_EVENT_S / speed``
for an event that draws something, so a run recorded with no pauses still reads. Every wait, that
floor included, is divided by the speed: 20× plays in a quarter of the time 5× takes. A run whose timestamps carry
no timing is played at ``NOMINAL_GAP_S`` per event instead: a run that was not recorded here live
(an imported trajectory: its events are stored at the moment of import, a fraction of a
millisecond apart with the odd longer gap, whatever the original run took), or one whose stored
gaps add up to almost nothing (see ``is_timed``: no single threshold on one gap decides). ``step`` shows the next event the viewer can see (usage
records, system messages and the opening's stage record draw nothing, so they are passed over with it); ``next_stage`` jumps
to just after the next stage disclosure and the user message it made, or, in a run without stage
decisions (an imported one), to just after the next user turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..run.events import MessageEvent, StageEvent, StoredEvent
from ..run.transcript import is_user_turn

SPEEDS: dict[str, float | None] = {"0.5×": 0.5, "1×": 1.0, "5×": 5.0, "20×": 20.0, "step by step": None}
DEFAULT_SPEED = "5×"
MAX_GAP_S = 2.0  # the longest wait between two events at 1×
NOMINAL_GAP_S = 0.5  # the wait at 1× when the run's timestamps carry no timing
MIN_EVENT_S = 0.4  # the shortest wait at 1× before an event that draws something (divided by the speed like every wait)
TIMED_SPAN_S = 0.5  # the stored gaps must add up to at least this ...
TIMED_GAPS = 2  # ... with at least this many gaps of TIMED_GAP_S or more, to count as timing
TIMED_GAP_S = 0.01


def visible(ev: StoredEvent) -> bool:
    """Whether showing this event changes what the Play view draws."""
    d = ev.data
    if d.kind == "usage":
        return False
    if isinstance(d, MessageEvent) and d.role == "system" and d.phase != "extraction":
        return False
    if isinstance(d, StageEvent) and d.reply_kind == "open" and not d.shadow:
        return False  # the opening draws no note (render.stage_note)
    return True


def _user_turn(ev: StoredEvent) -> bool:
    return is_user_turn(ev.data)  # the one rule of a user turn (#User)


def is_timed(gaps: Sequence[float]) -> bool:
    """Whether stored gaps look like a run's own timing: they add up to a noticeable span and more
    than one of them is a real pause. An import's events (≈0.1 ms apart, the odd gap just over
    1 ms) and a run recorded at full speed with no wait fail this; a run a person or a model took
    part in passes it by far."""
    return sum(gaps) >= TIMED_SPAN_S and sum(1 for g in gaps if g >= TIMED_GAP_S) >= TIMED_GAPS


def raw_gaps(events: Sequence[StoredEvent]) -> tuple[list[float], bool]:
    """The stored seconds before each event (0 before the first), and whether they are real timing."""
    gaps = [0.0] + [max(0.0, (b.ts - a.ts).total_seconds()) for a, b in zip(events, events[1:])]
    return gaps, is_timed(gaps)


def delay(gap_s: float, speed: float, *, timed: bool = True) -> float:
    """Seconds to wait before an event that came ``gap_s`` after the previous one, at ``speed``."""
    if speed <= 0:
        raise ValueError(f"speed must be positive, got {speed}")
    base = min(gap_s, MAX_GAP_S) if timed else NOMINAL_GAP_S
    return base / speed


def stops(events: Sequence[StoredEvent]) -> list[int]:
    """The positions (events shown) that "Next stage" stops at, ascending, the last one the end."""
    out: list[int] = []
    disclosures = [i for i, ev in enumerate(events) if isinstance(ev.data, StageEvent) and ev.data.advanced and not ev.data.shadow]
    if disclosures:
        for i in disclosures:
            end = i + 1
            for j in range(i + 1, len(events)):  # the disclosure is stored before the message it makes
                d = events[j].data
                if _user_turn(events[j]):
                    end = j + 1
                    break
                if isinstance(d, StageEvent) or (isinstance(d, MessageEvent) and d.role == "assistant"):
                    break
            out.append(end)
    else:
        out = [i + 1 for i, ev in enumerate(events) if _user_turn(ev)][1:]  # the opening is already the first stage
    if not out or out[-1] != len(events):
        out.append(len(events))
    return sorted(set(out))


@dataclass
class Cursor:
    """One replay: the run's events, how many are shown, the speed, paused or not, when the next is due."""

    run_id: str
    events: list[StoredEvent]
    speed: str = DEFAULT_SPEED
    pos: int = 0
    paused: bool = False
    due: float = 0.0  # the monotonic time at which the next event is shown
    gaps: list[float] = field(default_factory=list)
    timed: bool = True
    stop_at: list[int] = field(default_factory=list)

    @classmethod
    def of(
        cls, run_id: str, events: Sequence[StoredEvent], speed: str = DEFAULT_SPEED, *, now: float = 0.0, imported: bool = False
    ) -> "Cursor":
        """``imported``: the run was not recorded here live (``run.source != "live"``), so its
        timestamps are the import's whatever their gaps look like."""
        if speed not in SPEEDS:
            raise ValueError(f"speed must be one of {', '.join(SPEEDS)}, got {speed!r}")
        gaps, timed = raw_gaps(events)
        timed = timed and not imported
        c = cls(run_id=run_id, events=list(events), speed=speed, gaps=gaps, timed=timed, stop_at=stops(events))
        c.schedule(now)
        return c

    # ------------------------------------------------------------------ state
    @property
    def total(self) -> int:
        return len(self.events)

    @property
    def done(self) -> bool:
        return self.pos >= self.total

    @property
    def factor(self) -> float | None:
        return SPEEDS[self.speed]

    @property
    def playing(self) -> bool:
        """Events come by themselves (not paused, not step by step, not at the end)."""
        return not self.paused and self.factor is not None and not self.done

    def shown(self) -> list[StoredEvent]:
        return self.events[: self.pos]

    def user_turns(self) -> tuple[int, int]:
        """(user turns shown, user turns in the run)."""
        turns = [i for i, ev in enumerate(self.events) if _user_turn(ev)]
        return sum(1 for i in turns if i < self.pos), len(turns)

    def next_delay(self) -> float:
        """Seconds before the next event at the current speed (0 when not playing)."""
        factor = self.factor
        if self.done or factor is None:
            return 0.0
        wait = delay(self.gaps[self.pos], factor, timed=self.timed)
        if not visible(self.events[self.pos]):
            return wait if self.timed else 0.0  # an untimed run spends its pace only on what it draws
        if any(visible(ev) for ev in self.events[: self.pos]):
            return max(wait, MIN_EVENT_S / factor)
        return wait  # the first thing drawn

    def pace_note(self) -> str:
        """How the waits are chosen, in a few words (for the status line)."""
        if self.timed:
            return "the run's own pace"
        return f"{NOMINAL_GAP_S:g} s per event at 1×: no timing stored"

    def schedule(self, now: float) -> None:
        """Count the wait for the next event from ``now`` (after a start, a jump, a resume, a speed change)."""
        self.due = now + self.next_delay()

    # ------------------------------------------------------------------ moves
    def begin(self, now: float) -> None:
        """Show the first visible event (and any before it) at once, whatever the speed."""
        self.pos = next((i + 1 for i, ev in enumerate(self.events) if visible(ev)), self.total)
        self.schedule(now)

    def advance(self, now: float) -> bool:
        """Show every event due by ``now`` (playing only). True when something new is shown."""
        if not self.playing:
            return False
        start = self.pos
        while not self.done and now >= self.due:
            self.pos += 1
            self.due += self.next_delay()
        while not self.done and not visible(self.events[self.pos]) and self.next_delay() == 0:
            self.pos += 1  # nothing to draw and nothing to wait for
        return self.pos > start

    def step(self, now: float) -> bool:
        """Show the next visible event (and the invisible ones before it); pauses a playing replay."""
        if self.done:
            return False
        self.paused = True
        while not self.done:
            self.pos += 1
            if visible(self.events[self.pos - 1]):
                break
        self.schedule(now)
        return True

    def next_stage(self, now: float) -> bool:
        """Jump to the next stop (see ``stops``); a playing replay goes on playing from there."""
        if self.done:
            return False
        self.pos = next(s for s in self.stop_at if s > self.pos)
        self.schedule(now)
        return True

    def toggle(self, now: float) -> None:
        """Pause, or resume from where it stands."""
        self.paused = not self.paused
        self.schedule(now)

    def set_speed(self, speed: str, now: float) -> None:
        if speed not in SPEEDS:
            raise ValueError(f"speed must be one of {', '.join(SPEEDS)}, got {speed!r}")
        if SPEEDS[self.speed] is None and SPEEDS[speed] is not None:
            self.paused = False  # leaving step by step for a speed means: play at it
        self.speed = speed
        self.schedule(now)
