"""The recorder writes events from a writer thread while the run goes on: listeners still see an
event only once it is committed, in order, and a failed write is raised on the run's side."""

from __future__ import annotations

import pytest

from vibesearch.run import Limits
from vibesearch.run.events import MessageEvent, NoteEvent, StoredEvent, UsageEvent
from vibesearch.session import Recorder
from vibesearch.store import Store
from vibesearch.store.leases import LeaseLost, claim, new_owner, run_key


class _Lease:
    def __init__(self, owner: str):
        self.owner = owner

    def check(self) -> None:
        pass


async def test_listeners_see_only_committed_events_in_order(tmp_path):
    store = Store(tmp_path / "w.db")
    run_id = store.create_run("t").id
    seen: list[tuple[int, int]] = []

    def listener(ev: StoredEvent) -> None:  # what a viewer is shown is already in the database
        seen.append((ev.seq, len(store.events(run_id))))

    rec = Recorder(store, run_id, [listener], Limits())
    for i in range(20):
        rec.emit(UsageEvent(purpose="agent", model="m", input_tokens=1, output_tokens=1))
        rec.emit(MessageEvent(role="assistant", content=f"step {i}"))
    rec.drain()
    assert [s for s, _ in seen] == list(range(1, 41))
    assert all(stored >= seq for seq, stored in seen)
    rec.close()


async def test_a_failed_write_is_raised_by_the_next_emit_and_nothing_after_it_is_written(tmp_path):
    store = Store(tmp_path / "w.db")
    run_id = store.create_run("t").id
    other = new_owner()
    assert claim(store, run_key(run_id), other, 60) is None  # another process drives the run
    rec = Recorder(store, run_id, [], Limits(), _Lease(new_owner()))  # type: ignore[arg-type]
    rec.emit(NoteEvent(text="one"))
    with pytest.raises(LeaseLost):
        rec.drain()
    with pytest.raises(LeaseLost):
        rec.emit(NoteEvent(text="two"))
    rec.close()
    assert store.events(run_id) == []


async def test_listeners_are_told_while_the_run_waits_without_a_drain(tmp_path):
    import asyncio

    store = Store(tmp_path / "w.db")
    run_id = store.create_run("t").id
    seen: list[int] = []
    rec = Recorder(store, run_id, [lambda ev: seen.append(ev.seq)], Limits())
    rec.emit(NoteEvent(text="one"))
    rec.emit(NoteEvent(text="two"))  # flushed together: handed to the writer at once, in order
    for _ in range(300):
        if len(seen) == 2:
            break
        await asyncio.sleep(0.01)  # the run waits (for a model, say): the writer writes meanwhile
    assert seen == [1, 2]
    assert [e.seq for e in store.events(run_id)] == [1, 2]
    rec.close()


async def test_a_listener_of_some_kinds_is_told_of_those_only(tmp_path):
    """``only(kinds, listener)``: told of the events of those kinds, in order, once committed; a
    plain listener of the same run still hears everything; when all of a run's listeners
    want some kinds, the writer hands back nothing else (``to_tell``)."""
    from vibesearch.run.events import StageEvent
    from vibesearch.session import only

    store = Store(tmp_path / "w.db")
    run_id, other_id = store.create_run("t").id, store.create_run("t").id
    stages: list[int] = []
    everything: list[str] = []
    rec = Recorder(store, run_id, [only({"stage"}, lambda ev: stages.append(ev.seq)), lambda ev: everything.append(ev.kind)], Limits())
    picky = Recorder(store, other_id, [only(["stage"], lambda ev: None)], Limits())
    for recorder in (rec, picky):
        recorder.emit(NoteEvent(text="before"))
        recorder.emit(StageEvent(stage_index=0, stage_name="s", reply_kind="open", decided_by="rules"))
        recorder.emit(MessageEvent(role="user", content="hello"))
        recorder.emit(StageEvent(stage_index=1, stage_name="t", reply_kind="disclose", decided_by="rules"))
        recorder.emit(MessageEvent(role="user", content="more"))
        await recorder.adrain()
    assert stages == [2, 4]
    assert everything == ["note", "stage", "message", "stage", "message"]
    stored = store.events(other_id)
    assert [e.kind for e in picky.to_tell(stored)] == ["stage", "stage"]
    assert [e.kind for e in rec.to_tell(stored)] == [e.kind for e in stored]  # a plain listener hears all
    rec.close()
    picky.close()
