"""Replay (app/replay.py, app/_replay_cursor.py): the stepping logic on made-up event lists, and
a replay of an imported official trajectory and of a live offline run through the same rendering
Play uses — read only, and refused to a caller who may not read the run."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from vibesearch.app import MAX_GAP_S, MIN_EVENT_S, NOMINAL_GAP_S, Access, Cursor, Who, delay, stops
from vibesearch.app.catalog import TaskCatalog
from vibesearch.app.context import AppContext
from vibesearch.app.live import RunManager
from vibesearch.app.render import persona_html
from vibesearch.app.replay import ReplayRefused, open_replay, render, status_line
from vibesearch.interop.official_trajectories import import_trajectory
from vibesearch.run.events import EndEvent, MessageEvent, StageEvent, StoredEvent, ToolCallEvent, ToolResultEvent, UsageEvent

OFFICIAL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "official-trajectories" / "task_022_airline.condensed.json"
COMPONENTS = {name: name for name in (
    "view", "chat", "stepper", "counters", "status", "human_box", "human_card", "send", "score",
    "table_answer", "pred_table", "timer", "persona",
)}
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _events(spec: list[tuple[float, object]]) -> list[StoredEvent]:
    """(seconds since the start, payload) → stored events."""
    return [StoredEvent(run_id="r", seq=i + 1, ts=T0 + timedelta(seconds=t), data=d) for i, (t, d) in enumerate(spec)]


def _stage(index: int, advanced: bool, kind: str = "disclose") -> StageEvent:
    return StageEvent.model_validate({"stage_index": index, "stage_name": f"s{index}", "reply_kind": kind, "advanced": advanced, "decided_by": "rules"})


def _user(text: str) -> MessageEvent:
    return MessageEvent(role="user", content=text)


def _asst(text: str) -> MessageEvent:
    return MessageEvent(role="assistant", content=text)


RUN = _events([
    (0.0, _stage(0, False, "open")),
    (0.0, _user("opening")),
    (1.0, _asst("a1")),
    (1.5, ToolCallEvent(call_id="c1", tool="search", arguments={"query": "q"})),
    (1.5, UsageEvent(purpose="agent", model="m")),
    (30.0, ToolResultEvent(call_id="c1", tool="search", content="r")),
    (31.0, _stage(0, False, "push")),
    (31.0, _user("push")),
    (32.0, _asst("a2")),
    (33.0, _stage(1, True)),
    (33.0, _user("stage two")),
    (34.0, _asst("a3")),
    (35.0, EndEvent(termination="done")),
])


# --------------------------------------------------------------------------- the cursor
def test_delay_scales_with_speed_and_is_capped():
    assert delay(1.0, 5.0) == pytest.approx(0.2)
    assert delay(100.0, 1.0) == MAX_GAP_S  # a long model call does not stall the demo
    assert delay(100.0, 20.0) == pytest.approx(MAX_GAP_S / 20)
    assert delay(0.0, 1.0, timed=False) == NOMINAL_GAP_S  # an imported run's timestamps say nothing
    with pytest.raises(ValueError):
        delay(1.0, 0)


def test_playing_shows_events_as_they_fall_due():
    c = Cursor.of("r", RUN, "1×", now=100.0)
    assert c.advance(100.0) and c.pos == 2  # the opening stage and message, both at t=0
    assert not c.advance(100.5)  # a1 comes 1 s later
    assert c.advance(101.0) and c.pos == 3
    c.advance(101.5)  # the tool call and the usage record after it (nothing to draw, no wait)
    assert c.pos == 5
    assert not c.advance(101.5 + MAX_GAP_S - 0.01)  # the 28.5 s search waits 2 s, not 28.5
    assert c.advance(101.5 + MAX_GAP_S) and c.pos == 6


def test_speed_divides_the_waits():
    slow, fast = Cursor.of("r", RUN, "1×"), Cursor.of("r", RUN, "20×")
    for c in (slow, fast):
        c.advance(0.0)
    assert not slow.advance(0.16)
    assert not fast.advance(0.049)  # a1's 1 s gap is 0.05 s at 20× (over the floor, MIN_EVENT_S / 20)
    assert fast.advance(0.05) and fast.pos == 3
    fast.set_speed("5×", now=10.0)
    assert fast.due == pytest.approx(10.0 + max(0.5 / 5, MIN_EVENT_S / 5))


def test_step_shows_one_visible_event_and_pauses():
    c = Cursor.of("r", RUN, "5×")
    c.advance(0.0)
    c.step(0.0)
    assert c.pos == 3 and c.paused and not c.playing
    c.step(0.0)
    assert c.pos == 4
    c.step(0.0)  # the usage record draws nothing: the step goes through it to the tool result
    assert c.pos == 6
    assert not c.advance(1e9)  # paused: time alone shows nothing
    c.toggle(0.0)
    assert c.playing


def test_step_by_step_speed_never_plays_by_itself():
    c = Cursor.of("r", RUN, "step by step")
    assert not c.advance(1e9) and c.pos == 0
    c.begin(0.0)  # a replay opens on its first visible event (the opening stage draws nothing)
    assert c.pos == 2
    assert not c.advance(1e9) and c.pos == 2
    assert c.step(0.0) and c.pos == 3
    c.set_speed("20×", now=0.0)  # from step by step to a speed: it plays
    assert c.playing and c.advance(1e9) and c.done


def test_next_stage_stops_after_the_disclosure_and_its_message_then_at_the_end():
    assert stops(RUN) == [11, 13]
    c = Cursor.of("r", RUN, "1×")
    c.advance(0.0)
    assert c.next_stage(5.0) and c.pos == 11
    assert isinstance(c.shown()[-1].data, MessageEvent) and c.shown()[-1].data.content == "stage two"
    assert c.playing  # a jump does not pause
    assert c.next_stage(6.0) and c.done
    assert not c.next_stage(7.0) and not c.step(7.0)


def test_without_stage_decisions_next_stage_goes_turn_by_turn():
    evs = _events([(0, _user("u1")), (0, _asst("a")), (0, _user("u2")), (0, _asst("b")), (0, _user("u3"))])
    assert stops(evs) == [3, 5]
    assert not Cursor.of("r", evs).timed


def test_an_imported_run_plays_at_the_nominal_pace_whatever_its_timestamps():
    # an import stores its events ~0.1 ms apart with a single gap just over 1 ms: not timing
    evs = _events([(0, _user("u1")), (0.0001, _asst("a")), (0.0012, _user("u2")), (0.0013, _asst("b"))])
    assert not Cursor.of("r", evs).timed  # the gaps' spread says so (one gap over 1 ms is not timing) ...
    c = Cursor.of("r", evs, "1×", imported=True)
    assert not c.timed and c.next_delay() == pytest.approx(0.5)  # ... and so does the source
    played = sum(delay(g, 1.0, timed=c.timed) for g in c.gaps[1:])
    assert played == pytest.approx(0.5 * (len(evs) - 1))  # events × 0.5 s at 1×


def test_unknown_speed_is_refused():
    with pytest.raises(ValueError, match="speed must be one of"):
        Cursor.of("r", RUN, "3×")


# --------------------------------------------------------------------------- a stored run
@pytest.fixture
def ctx(app_ctx):
    return app_ctx


def _disclosed(stepper: str) -> int:
    m = re.search(r"Stages: (\d+) / \d+ disclosed", stepper)
    assert m, stepper
    return int(m.group(1))


def _snapshot(store, run_id: str) -> tuple:
    run = store.get_run(run_id)
    return (run.status, run.termination, run.updated_at, len(store.events(run_id)), len(store.scores(run_id)), len(store.list_runs()))


VALID_TRAJECTORY = Path(__file__).resolve().parents[1] / "data" / "fuzz" / "valid" / "trajectory.json"


def test_an_import_without_its_task_says_the_task_is_missing_and_how_to_attach_it(ctx, store):
    # issue 39: the card said "1 stage · 0 ground-truth triples" for an import without --task
    run_id = import_trajectory(store, VALID_TRAJECTORY).run_id
    persona = render(ctx, open_replay(ctx, Who(owner="client:someone"), run_id, "5×"), COMPONENTS, first=True)["persona"]
    assert "The task is missing" in persona and "vibesearch import TRAJECTORY.json --task TASK.json" in persona
    assert "ground-truth triple" not in persona and "1 stage" not in persona
    assert "Which moons of Jupiter can I see?" in persona  # the question the file holds is still shown
    task = next(t for t in ctx.catalog.tasks.values() if t.kind != "table")  # a real task: its counts, no note
    shown = persona_html(task)
    assert f"{len(task.graph)} ground-truth triple" in shown and "task is missing" not in shown


@pytest.mark.skipif(not OFFICIAL.exists(), reason="the shared official trajectories are not here")
def test_an_imported_official_trajectory_replays_to_its_end_without_writing(ctx, store):
    run_id = import_trajectory(store, OFFICIAL).run_id
    before = _snapshot(store, run_id)
    who = Who(owner="client:someone")
    c = open_replay(ctx, who, run_id, "20×")
    first = render(ctx, c, COMPONENTS, first=True)
    assert c.pos >= 1 and f"event {c.pos} / {c.total}" in first["status"]
    assert first["human_box"] is not None and "阶段：已透露 1 / 1" in first["stepper"]  # a Chinese task: its stepper speaks Chinese
    assert "The task is missing" in first["persona"] and "--task" in first["persona"]  # imported without its task
    while c.next_stage(0.0):
        out = render(ctx, c, COMPONENTS)
    assert c.done and "finished" in status_line(c)
    titles = [m.metadata.get("title", "") for m in out["chat"] if m.metadata]
    assert any(t.startswith("⚙ search(") for t in titles)  # tool calls as collapsible messages
    assert any("运行已结束" in t for t in titles)  # the run's end, in the task's language too
    assert "Official F1" in out["score"]  # the file's own score, as the official judge wrote it
    assert "总用时" in out["counters"]  # the finished run's counters (wall time), in the task's language
    assert _snapshot(store, run_id) == before  # nothing written, nothing changed


@pytest.mark.skipif(not OFFICIAL.exists(), reason="the shared official trajectories are not here")
def test_replay_follows_the_read_policy(tmp_path):
    from vibesearch.config import Settings
    from vibesearch.store import Store

    settings = Settings(db=tmp_path / "own.db", tasks="", auth="alice:a,bob:b,carol:c", admins="carol", read_runs="own")
    store = Store(settings.db)
    run_id = import_trajectory(store, OFFICIAL).run_id
    store.update_run(run_id, owner="user:alice")
    context = AppContext(settings=settings, store=store, catalog=TaskCatalog.load(settings),
                         manager=RunManager(store, settings), access=Access(settings))
    try:
        with pytest.raises(ReplayRefused, match=f"No run {run_id} in this database"):
            open_replay(context, Who(owner="user:bob", login="bob"), run_id)
        with pytest.raises(ReplayRefused, match="No run nope in this database"):  # the same words as a missing run
            open_replay(context, Who(owner="user:bob", login="bob"), "nope")
        assert open_replay(context, Who(owner="user:alice", login="alice"), run_id).pos >= 1
        assert open_replay(context, Who(owner="user:carol", login="carol", admin=True), run_id).pos >= 1
    finally:
        context.manager.shutdown()


def test_a_live_offline_run_replays_with_its_stages_and_score(ctx, settings, store):
    from vibesearch.app import form_request

    token = ctx.access.issue()
    who = ctx.who(None, token)
    task = ctx.catalog.get(ctx.catalog.default_id())
    live = ctx.manager.start(form_request(settings, task_id=task.id, user="rules", agent="baseline", max_user_turns=4, pace_s=0), task, who.owner)
    ctx.manager.wait(live.run_id, timeout=120)
    before = _snapshot(store, live.run_id)
    c = open_replay(ctx, Who(owner="client:another"), live.run_id, "step by step")
    out = render(ctx, c, COMPONENTS, first=True)
    assert "▶" in out["stepper"] and out["score"] == ""  # mid-replay: the next stage waits, no score yet
    reached = [_disclosed(out["stepper"])]
    while c.next_stage(0.0):
        out = render(ctx, c, COMPONENTS)
        reached.append(_disclosed(out["stepper"]))
    # each jump lands after one more disclosure; the end shows the stage the run reached
    assert reached == sorted(reached) and reached[-1] > reached[0]
    pointer = max(e.data.stage_index for e in store.events(live.run_id) if isinstance(e.data, StageEvent))
    assert reached[-1] == pointer + 1 and "▶" not in out["stepper"]
    assert "F1" in out["score"]  # the offline judge scored the live run; the replay shows it
    assert _snapshot(store, live.run_id) == before
