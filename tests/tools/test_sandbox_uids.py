"""The uid leases behind per-sandbox process limits: distinct across threads and processes,
given back on release, a uid that still owns processes is passed over, an exhausted range says so."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from vibesearch.tools import UidPool


@pytest.fixture
def lock_dir(tmp_path):
    path = tmp_path / "locks"
    path.mkdir(mode=0o700)
    return str(path)


def test_concurrent_threads_get_distinct_uids(lock_dir):
    pool = UidPool(1_900_100_000, 16, lock_dir)
    leases, lock = [], threading.Lock()
    barrier = threading.Barrier(8)

    def take():
        barrier.wait()
        lease = pool.acquire()
        with lock:
            leases.append(lease)

    threads = [threading.Thread(target=take) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert None not in leases
    assert len({lease.uid for lease in leases}) == 8
    assert all(1_900_100_000 <= lease.uid < 1_900_100_016 for lease in leases)
    for lease in leases:
        lease.release()


def test_range_exhausted_and_release_gives_the_uid_back(lock_dir):
    pool = UidPool(1_900_200_000, 2, lock_dir)
    a, b = pool.acquire(), pool.acquire()
    assert a is not None and b is not None and a.uid != b.uid
    assert pool.acquire() is None
    a.release()
    a.release()  # idempotent
    again = pool.acquire()
    assert again is not None and again.uid == a.uid
    b.release()
    again.release()


def test_a_uid_leased_by_another_process_is_skipped(lock_dir):
    uid = 1_900_300_000
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, os, sys, time\n"
         f"fd = os.open(os.path.join(sys.argv[1], '{uid}.lock'), os.O_RDWR | os.O_CREAT, 0o600)\n"
         "fcntl.flock(fd, fcntl.LOCK_EX)\n"
         "print('held', flush=True)\n"
         "sys.stdin.read()\n",
         lock_dir],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        pool = UidPool(uid, 2, lock_dir)
        lease = pool.acquire()
        assert lease is not None and lease.uid == uid + 1
        assert pool.acquire() is None
        lease.release()
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    # the holder is gone, so is its lock
    lease = UidPool(uid, 1, lock_dir).acquire()
    assert lease is not None and lease.uid == uid
    lease.release()


@pytest.mark.skipif(os.geteuid() != 0, reason="starting a process under another uid needs root")
def test_a_uid_that_still_owns_a_process_is_skipped(lock_dir):
    uid = 1_900_400_000
    sleeper = subprocess.Popen(["sleep", "60"], user=uid, group=uid, cwd="/")
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # wait until the switch of uid is visible in /proc
            with open(f"/proc/{sleeper.pid}/status") as fh:
                if f"Uid:\t{uid}" in fh.read():
                    break
            time.sleep(0.02)
        lease = UidPool(uid, 2, lock_dir).acquire()
        assert lease is not None and lease.uid == uid + 1
        lease.release()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_lock_dir_that_is_not_private_is_refused(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(RuntimeError, match="no usable folder"):
        UidPool(1_900_500_000, 1, str(shared)).acquire()
