"""The event groups of many runs on one event loop are written together (one hand-off to the
process's writer thread, one transaction per moment): every run's events stay gap-free and in
order, and one run refused (its lease taken, its row gone) costs no other run an event."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

from vibesearch.run import Limits
from vibesearch.run.events import MessageEvent, NoteEvent, UsageEvent
from vibesearch.session import EVENT_WRITERS, Recorder
from vibesearch.store import Store
from vibesearch.store.db import RunNotFound
from vibesearch.store.leases import LeaseLost, claim, new_owner, run_key

ENGINES = pytest.mark.parametrize("db_url", ["sqlite", "postgresql"], indirect=True)


class _Lease:
    """What a recorder asks of its lease: the owner id its writes carry (the session's ``Driving``)."""

    def __init__(self, owner: str):
        self.owner = owner

    def check(self) -> None:
        pass


def _run_with_lease(store: Store) -> tuple[str, str]:
    run_id = store.create_run("t").id
    owner = new_owner()
    assert claim(store, run_key(run_id), owner, 600) is None
    return run_id, owner


def _writing_transactions(store: Store, run_ids: list[str]) -> int:
    """How many transactions inserted these runs' events: PostgreSQL stamps each row with the
    transaction that inserted it (``xmin``), so nothing else on the cluster counts."""
    with store.engine.connect() as conn:
        return int(conn.execute(text("SELECT COUNT(DISTINCT xmin::text) FROM events WHERE run_id = ANY(:ids)"),
                                {"ids": run_ids}).scalar_one())


async def _turns(rec: Recorder, turns: int, tag: str) -> None:
    for i in range(turns):
        rec.emit(UsageEvent(purpose="agent", model="m", input_tokens=1, output_tokens=1))  # waits for its result
        rec.emit(MessageEvent(role="assistant", content=f"{tag} step {i}"))
        await asyncio.sleep(0)  # the other runs' turns come in between, as at a model's answer


@ENGINES
async def test_many_runs_on_one_loop_are_written_complete_and_in_order(db_url):
    store = Store(db_url)
    runs = [_run_with_lease(store) for _ in range(30)]
    seen: dict[str, list[int]] = {run_id: [] for run_id, _ in runs}
    recs = [Recorder(store, run_id, [lambda ev, r=run_id: seen[r].append(ev.seq)], Limits(), _Lease(owner))  # type: ignore[arg-type]  # the lease's owner is all a recorder reads
            for run_id, owner in runs]
    await asyncio.gather(*(_turns(rec, 5, run_id) for rec, (run_id, _) in zip(recs, runs)))
    for rec in recs:
        await rec.adrain()
        rec.close()
    for run_id, _ in runs:
        stored = store.events(run_id)
        assert [e.seq for e in stored] == list(range(1, 11))
        assert [e.data.content for e in stored if isinstance(e.data, MessageEvent)] == [f"{run_id} step {i}" for i in range(5)]
        assert seen[run_id] == list(range(1, 11))  # listeners told once committed, in order


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
async def test_the_groups_of_a_moment_share_one_commit(db_url):
    store = Store(db_url)
    runs = [_run_with_lease(store) for _ in range(30)]
    recs = [Recorder(store, run_id, [], Limits(), _Lease(owner)) for run_id, owner in runs]  # type: ignore[arg-type]  # as above
    for rec in recs:  # 30 runs each end a group within the same moment
        rec.emit(NoteEvent(text="one"))
    for rec in recs:
        await rec.adrain()
    # a transaction per writer thread wrote the 30 groups; a transaction per group made it 30
    assert _writing_transactions(store, [run_id for run_id, _ in runs]) <= EVENT_WRITERS < 30
    assert all(len(store.events(run_id)) == 1 for run_id, _ in runs)


@ENGINES
async def test_a_run_whose_lease_was_taken_loses_its_writes_and_no_other_run_does(db_url):
    store = Store(db_url)
    runs = [_run_with_lease(store) for _ in range(6)]
    taken_id, _ = runs[2]
    store.append(taken_id, NoteEvent(text="before"), lease=runs[2][1])
    # another process took the lease over (the first one's expired while it stalled)
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE leases SET owner = :o WHERE key = :k"), {"o": new_owner(), "k": run_key(taken_id)})
    recs = [Recorder(store, run_id, [], Limits(), _Lease(owner)) for run_id, owner in runs]  # type: ignore[arg-type]  # as above
    for rec in recs:
        rec.emit(NoteEvent(text="one"))
    for rec in recs:
        rec.emit(NoteEvent(text="two"))
    for rec in recs:
        if rec.run_id == taken_id:
            with pytest.raises(LeaseLost):
                await rec.adrain()
            with pytest.raises(LeaseLost):
                rec.emit(NoteEvent(text="three"))
        else:
            await rec.adrain()
        rec.close()
    assert [e.data.text for e in store.events(taken_id)] == ["before"]  # type: ignore[union-attr]
    for run_id, _ in runs:
        if run_id != taken_id:
            assert [e.data.text for e in store.events(run_id)] == ["one", "two"]  # type: ignore[union-attr]


@ENGINES
def test_append_groups_says_which_group_was_refused(db_url):
    store = Store(db_url)
    (a, owner_a), (b, owner_b) = _run_with_lease(store), _run_with_lease(store)
    results = store.append_groups([
        (a, [NoteEvent(text="a1"), NoteEvent(text="a2")], owner_a),
        ("missing00000", [NoteEvent(text="x")], owner_a),
        (b, [NoteEvent(text="b1")], new_owner()),  # not b's owner
        (a, [NoteEvent(text="a3")], owner_a),
        (b, [NoteEvent(text="b2")], owner_b),  # after b's refused group: never written out of order
    ])
    assert [e.seq for e in results[0]] == [1, 2]  # type: ignore[union-attr]
    assert isinstance(results[1], RunNotFound)
    assert isinstance(results[2], LeaseLost)
    assert [e.seq for e in results[3]] == [3]  # type: ignore[union-attr]
    assert results[4] is results[2]
    assert [e.data.text for e in store.events(a)] == ["a1", "a2", "a3"]  # type: ignore[union-attr]
    assert store.events(b) == []


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
async def test_runs_waiting_for_their_writes_at_once_still_share_commits(db_url):
    """Runs that end at once each wait for their last group (``adrain``): a writer still
    busy takes the groups that came in meanwhile as one job, not one job (and one commit) each."""
    store = Store(db_url)
    runs = [_run_with_lease(store) for _ in range(60)]
    recs = [Recorder(store, run_id, [], Limits(), _Lease(owner)) for run_id, owner in runs]  # type: ignore[arg-type]  # as above

    async def end(rec: Recorder) -> None:
        rec.emit(NoteEvent(text="the end"))
        await rec.adrain()

    await asyncio.gather(*(end(rec) for rec in recs))
    assert all([e.data.text for e in store.events(run_id)] == ["the end"] for run_id, _ in runs)  # type: ignore[union-attr]
    written = _writing_transactions(store, [run_id for run_id, _ in runs])
    assert written <= 3 * EVENT_WRITERS, written  # one job per run made it 60
