"""``vibesearch db copy`` onto a disk that fills up (issue 40 item 8): the write fails for real —
the copying process runs under a file-size limit (``RLIMIT_FSIZE``, with ``SIGXFSZ`` ignored, so
a write past it fails with EFBIG as on a full disk) — and the copy says so in one line and leaves
no destination file behind (not even an empty one), so the same command can simply run again."""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from vibesearch.run import MessageEvent
from vibesearch.store import Store, upgrade_database

REPO = Path(__file__).resolve().parents[2]


def _limited(max_bytes: int):
    def start() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))
    return start


def _copy(src: Path, dst: Path, max_bytes: int | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    env["COLUMNS"] = "200"
    return subprocess.run([sys.executable, "-m", "vibesearch.cli.main", "db", "copy", str(src), str(dst)], env=env,
                          capture_output=True, text=True, timeout=120,
                          preexec_fn=_limited(max_bytes) if max_bytes is not None else None)


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> tuple[Path, int]:
    """A database with ~600 KB of events, and the size of an empty database of the newest schema."""
    folder = tmp_path_factory.mktemp("full-disk")
    src = folder / "src.db"
    store = Store(src)
    run = store.create_run("t")
    for i in range(300):
        store.append(run.id, MessageEvent(role="user", content=f"{i} " + "x" * 2000))
    store.engine.dispose()
    empty = folder / "empty.db"
    upgrade_database(empty)
    return src, empty.stat().st_size


@pytest.mark.parametrize("where", ["no room at all", "room for the tables, not the events"])
def test_a_full_disk_leaves_no_destination_file(tmp_path, source, where):
    src, empty_size = source
    dst = tmp_path / "dst.db"
    limit = 0 if where == "no room at all" else 2 * empty_size
    done = _copy(src, dst, limit)
    assert done.returncode == 1, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    expected = r"cannot make the destination's tables" if limit == 0 else r"copying \w+ failed .*; the new file was removed"
    assert lines[0].startswith(f"error: {dst}: ") and re.search(expected, lines[0]) and "disk I/O error" in lines[0], lines[0]
    assert "Traceback" not in done.stderr and "Background on this error" not in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no dst.db, -wal, -shm or -journal
    again = _copy(src, dst, None)  # the same command with room to write succeeds
    assert again.returncode == 0, again.stderr
    assert "counts and checksums match" in again.stdout
