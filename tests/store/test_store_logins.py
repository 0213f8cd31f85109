"""Logins in the store (``store.logins``), on SQLite and on PostgreSQL: only the token's sha256 is
written, a login is seen by another store on the same database, an expired one counts for nothing
and is cleaned up, and a person's logins end together."""

from __future__ import annotations

import hashlib
import secrets
import time

import pytest
from sqlalchemy import text

from vibesearch.store import Store, login_digest


@pytest.fixture
def store(db_url: str) -> Store:
    return Store(db_url)


def _rows(store: Store) -> list[tuple]:
    with store.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text("SELECT token_sha256, username, created_at, expires_at FROM logins"))]


def test_only_the_token_digest_is_stored_and_another_store_reads_it(store: Store, db_url: str):
    token = secrets.token_urlsafe(16)
    row = store.put_login(token, "ann", 3600)
    assert row.token_sha256 == hashlib.sha256(token.encode()).hexdigest() == login_digest(token)
    stored = _rows(store)
    assert [(d, u) for d, u, _, _ in stored] == [(row.token_sha256, "ann")]
    assert token not in repr(stored)  # the token itself is nowhere in the table
    created, expires = stored[0][2], stored[0][3]
    assert created <= time.time() and expires == pytest.approx(created + 3600)
    assert Store(db_url).login_user(token) == "ann"  # as another app server sees it
    assert store.login_user(token) == "ann"
    assert store.login_user(row.token_sha256) is None  # a digest is not a token
    assert store.login_user("not-a-login") is None


def test_an_expired_login_counts_for_nothing_and_is_cleaned_up(store: Store):
    old, fresh = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
    store.put_login(old, "ann", 3600)
    with store.engine.begin() as conn:  # its hour has passed
        conn.execute(text("UPDATE logins SET expires_at = :t WHERE token_sha256 = :d"), {"t": time.time() - 1, "d": login_digest(old)})
    assert store.login_user(old) is None
    assert store.logins("ann") == [] and store.logins() == []
    assert len(_rows(store)) == 1  # still there, ignored ...
    store.put_login(fresh, "bob", 3600)  # ... until the next login clears it
    assert [u for _, u, _, _ in _rows(store)] == ["bob"]
    assert store.purge_expired_logins() == 0
    with pytest.raises(ValueError):
        store.put_login("", "ann", 3600)
    with pytest.raises(ValueError):
        store.put_login(old, "ann", 0)


def test_logins_are_listed_and_ended_per_person_or_one_by_one(store: Store):
    ann1, ann2, bob = (secrets.token_urlsafe(16) for _ in range(3))
    for token, name in ((ann1, "ann"), (ann2, "ann"), (bob, "bob")):
        store.put_login(token, name, 3600)
    assert sorted(r.token_sha256 for r in store.logins("ann")) == sorted([login_digest(ann1), login_digest(ann2)])
    assert {r.username for r in store.logins()} == {"ann", "bob"}
    assert store.delete_login(ann1) is True and store.delete_login(ann1) is False
    assert store.login_user(ann1) is None and store.login_user(ann2) == "ann"
    store.put_login(ann1, "ann", 3600)
    assert store.delete_logins_of("ann") == 2
    assert store.login_user(ann1) is None and store.login_user(ann2) is None and store.login_user(bob) == "bob"
    assert store.delete_login_digest(login_digest(bob)) is True and store.logins() == []


def test_failed_logins_lock_a_key_for_every_store_of_the_database(store: Store, db_url: str):
    from vibesearch.store.logins import LoginThrottle

    policy = LoginThrottle(free=3, base_s=100.0, max_s=400.0)
    assert [policy.lock_for(n) for n in (1, 3, 4, 5, 6, 9)] == [0.0, 0.0, 100.0, 200.0, 400.0, 400.0]
    other = Store(db_url)  # another app server of the same database
    for _ in range(3):
        assert store.record_login_failure(["login:ann"], policy) == 0.0  # free ones lock nothing
    assert other.login_locked_until(["login:ann", "addr:10.0.0.1"]) == 0.0
    until = other.record_login_failure(["login:ann"], policy)  # the 4th, counted on the other server
    assert until == pytest.approx(time.time() + 100.0, abs=5)
    assert store.login_locked_until(["addr:10.0.0.1", "login:ann"]) == pytest.approx(until)
    assert store.login_locked_until(["login:bob"]) == 0.0
    store.clear_login_failures(["login:ann"])  # a successful login
    assert other.login_locked_until(["login:ann"]) == 0.0
    assert other.record_login_failure(["login:ann"], policy) == 0.0  # counting from nothing again
