"""The replay's pace (app/_replay_cursor.py): a run that was not recorded here live, or whose
stored gaps add up to nothing, plays at a fixed pace per event whatever one gap says; an event that
draws something never comes sooner than ``MIN_EVENT_S`` divided by the speed (every wait scales: 20×
takes a quarter of 5×'s time); 0.5× is offered."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from vibesearch.app import MIN_EVENT_S, NOMINAL_GAP_S, SPEEDS, Cursor, is_timed, raw_gaps, visible
from vibesearch.interop.official_trajectories import import_trajectory
from vibesearch.run.events import MessageEvent, StoredEvent, UsageEvent
from vibesearch.store import Store

OFFICIAL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "official-trajectories" / "task_022_airline.condensed.json"
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _events(spec: list[tuple[float, object]]) -> list[StoredEvent]:
    return [StoredEvent(run_id="r", seq=i + 1, ts=T0 + timedelta(seconds=t), data=d) for i, (t, d) in enumerate(spec)]


def _talk(n: int, step_s: float) -> list[StoredEvent]:
    """``n`` messages, user and assistant in turn, ``step_s`` apart."""
    return _events([(i * step_s, MessageEvent(role="user" if i % 2 == 0 else "assistant", content=f"m{i}")) for i in range(n)])


def _played_s(c: Cursor) -> float:
    """How long the whole replay takes from its first event, stepping the clock event by event."""
    now = 0.0
    c.begin(now)
    while not c.done:
        now = c.due
        c.advance(now)
    return now


def test_an_import_like_spread_is_not_timing():
    # ≈0.1 ms apart with one gap just over 1 ms (what an import stores): not the run's own timing
    gaps = [0.0] + [0.0001] * 40 + [0.0012] + [0.0001] * 40
    assert not is_timed(gaps)
    assert not is_timed([0.0, 0.3, 0.0001])  # one real pause alone is not a run's timing
    assert is_timed([0.0, 1.0, 0.0001, 2.5, 0.0002])  # a run that took its time


@pytest.mark.skipif(not OFFICIAL.exists(), reason="the shared official trajectories are not here")
def test_an_imported_trajectory_is_untimed_by_its_gaps_too(tmp_path):
    store = Store(tmp_path / "x.db")
    run_id = import_trajectory(store, OFFICIAL).run_id
    assert store.get_run(run_id).source != "live"
    events = store.events(run_id)
    assert not raw_gaps(events)[1]  # even a run whose source were lost would not pass for timed
    c = Cursor.of(run_id, events, "1×")
    drawn = sum(1 for ev in events[1:] if visible(ev))
    assert _played_s(c) >= drawn * NOMINAL_GAP_S - 1e-6  # every drawn event waits its 0.5 s at 1×
    fast = Cursor.of(run_id, events, "20×", imported=True)
    slow = _played_s(Cursor.of(run_id, events, "1×"))
    assert _played_s(fast) == pytest.approx(slow / 20)  # every wait divided by the speed


@pytest.mark.skipif(not OFFICIAL.exists(), reason="the shared official trajectories are not here")
def test_each_speed_plays_an_import_in_its_share_of_the_time(tmp_path):
    # issue 39: 20× of an import took 14.7 s against 17.8 s at 5× (a fixed floor per event flattened it)
    store = Store(tmp_path / "x.db")
    run_id = import_trajectory(store, OFFICIAL).run_id
    events = store.events(run_id)
    played = {speed: _played_s(Cursor.of(run_id, events, speed, imported=True)) for speed in ("0.5×", "1×", "5×", "20×")}
    assert played["5×"] > 5.0  # a real conversation: many drawn events
    assert played["20×"] == pytest.approx(played["5×"] / 4, rel=0.02)
    assert played["1×"] == pytest.approx(played["5×"] * 5, rel=0.02)
    assert played["0.5×"] == pytest.approx(played["1×"] * 2, rel=0.02)


def test_a_short_fast_run_still_reads_and_its_floor_scales_with_the_speed():
    # a live run recorded quickly (events 10 ms apart, 1 s in all): timed, each drawn event waits
    # at least MIN_EVENT_S / speed, so it does not flash by, and 20× still takes a quarter of 5×
    run = _talk(101, 0.01)
    fast, slow = Cursor.of("r", run, "20×"), Cursor.of("r", run, "5×")
    assert fast.timed
    assert _played_s(fast) == pytest.approx(100 * MIN_EVENT_S / 20)
    assert _played_s(slow) == pytest.approx(100 * MIN_EVENT_S / 5) == pytest.approx(4 * _played_s(fast))


def test_invisible_events_cost_nothing_in_an_untimed_run():
    run = _events([(0, MessageEvent(role="user", content="u")), (0, UsageEvent(purpose="agent", model="m")),
                   (0, MessageEvent(role="assistant", content="a"))])
    c = Cursor.of("r", run, "1×", imported=True)
    assert _played_s(c) == pytest.approx(NOMINAL_GAP_S)  # the usage record draws nothing and waits nothing


def test_half_speed_is_offered_and_doubles_the_waits():
    assert SPEEDS["0.5×"] == 0.5
    run = _talk(3, 1.0)
    assert _played_s(Cursor.of("r", run, "0.5×")) == pytest.approx(2 * _played_s(Cursor.of("r", run, "1×")))


def test_the_status_says_how_the_pace_is_chosen():
    assert "no timing stored" in Cursor.of("r", _talk(3, 0.0), "1×").pace_note()
    assert "own pace" in Cursor.of("r", _talk(3, 1.0), "1×").pace_note()
