"""Stop requests in the store (``store.stops``), on SQLite and on PostgreSQL: one row per run,
a pending request is not doubled, a done one is taken over by a new request, and the server
driving the run reads only the requests of its own runs."""

from __future__ import annotations

import pytest

from vibesearch.store import Store


@pytest.fixture
def store(db_url: str) -> Store:
    return Store(db_url)


def test_a_request_is_written_once_read_by_run_and_marked_done(store: Store):
    a, b, c = (store.create_run("t").id for _ in range(3))
    assert store.stop_request(a) is None and store.pending_stops([a, b, c]) == []
    assert store.request_stop(a, "user:ann") is True
    assert store.request_stop(a, "user:bob") is False  # already pending: the first asker stays
    assert store.request_stop(b, "client:xyz") is True
    got = store.stop_request(a)
    assert got is not None and got.pending and got.requested_by == "user:ann" and got.requested_at > 0
    assert sorted(r.run_id for r in store.pending_stops([a, c])) == [a]  # only the runs asked about
    assert sorted(r.run_id for r in store.pending_stops([a, b, c])) == sorted([a, b])
    assert store.pending_stops([]) == []
    store.stop_done(a)
    done = store.stop_request(a)
    assert done is not None and not done.pending and done.done_at >= done.requested_at
    assert [r.run_id for r in store.pending_stops([a, b, c])] == [b]
    # a run continued later can be stopped again: the done row is taken over
    assert store.request_stop(a, "user:bob") is True
    again = store.stop_request(a)
    assert again is not None and again.pending and again.requested_by == "user:bob"
    store.clear_stop(a)
    assert store.stop_request(a) is None and store.request_stop(a, "user:cy") is True


def test_requests_are_seen_by_another_store_on_the_same_database(db_url: str):
    one, two = Store(db_url), Store(db_url)  # two processes' worth of connections
    run = one.create_run("t").id
    assert two.request_stop(run, "user:admin")
    assert [r.requested_by for r in one.pending_stops([run])] == ["user:admin"]
    one.stop_done(run)
    assert two.pending_stops([run]) == []
