"""A distinct user id for every sandbox that runs at the same time (used when started as root).

Linux counts ``RLIMIT_NPROC`` per real uid: sandboxes sharing one uid share one process limit, so
a fork bomb in one would stop every other from starting a process. Each sandbox therefore leases
a uid from ``[settings.python_uid_base, + settings.python_uid_count)`` for as long as it runs.

A lease is an exclusive ``flock`` on ``<lock dir>/<uid>.lock``. flock locks belong to an open file,
so two threads of one process exclude each other as two processes do, and the kernel drops the
lock when its holder dies (no stale leases). A uid that still owns a process — a sandbox of the
same uid still being torn down, or a real account in the range — is passed over.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import tempfile
import threading
from pathlib import Path

DEFAULT_LOCK_DIR = "/run/vibesearch/sandbox-uids"


class UidLease:
    """One uid held for one sandbox; ``release()`` (idempotent) gives it back."""

    def __init__(self, uid: int, fd: int):
        self.uid = uid
        self._fd: int | None = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the file drops its flock


def _lock_dir(configured: str) -> Path:
    """The folder of the lock files: created 0700, and it must be ours and not a symlink."""
    candidates = [configured] if configured else [DEFAULT_LOCK_DIR, os.path.join(tempfile.gettempdir(), f"vibesearch-sandbox-uids-{os.geteuid()}")]
    last: OSError | None = None
    for path in candidates:
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
            info = os.lstat(path)
        except OSError as exc:
            last = exc
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
            last = PermissionError(errno.EPERM, "not a private folder owned by this user", path)
            continue
        return Path(path)
    raise RuntimeError(f"python sandbox: no usable folder for the uid lock files ({last})")


def _uids_with_processes() -> set[int]:
    """Real uids that own at least one process right now."""
    found: set[int] = set()
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return found
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status", "rb") as fh:
                for line in fh:
                    if line.startswith(b"Uid:"):
                        found.add(int(line.split()[1]))
                        break
        except (OSError, ValueError, IndexError):
            continue
    return found


class UidPool:
    """Hands out the uids of one range; the next search starts after the last uid handed out,
    so a uid just given back is the last to be reused."""

    def __init__(self, base: int, count: int, lock_dir: str = ""):
        if count < 1 or base < 1 or base + count > 2**32 - 2:
            raise ValueError(f"python sandbox: bad uid range {base} + {count}")
        self.base = base
        self.count = count
        self._configured_dir = lock_dir
        self._dir: Path | None = None
        self._next = 0
        self._lock = threading.Lock()

    def acquire(self) -> UidLease | None:
        """Lease a free uid, or None when every uid of the range is in use."""
        with self._lock:
            if self._dir is None:
                self._dir = _lock_dir(self._configured_dir)
            start = self._next
            busy: set[int] | None = None
            for step in range(self.count):
                offset = (start + step) % self.count
                uid = self.base + offset
                fd = os.open(self._dir / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                if busy is None:
                    busy = _uids_with_processes()
                if uid in busy:
                    os.close(fd)
                    continue
                self._next = (offset + 1) % self.count
                return UidLease(uid, fd)
            return None


_POOLS: dict[tuple[int, int, str], UidPool] = {}
_POOLS_LOCK = threading.Lock()


def uid_pool(base: int, count: int, lock_dir: str = "") -> UidPool:
    """The process-wide pool of one range (one rotation cursor per range)."""
    key = (base, count, lock_dir)
    with _POOLS_LOCK:
        if key not in _POOLS:
            _POOLS[key] = UidPool(base, count, lock_dir)
        return _POOLS[key]
