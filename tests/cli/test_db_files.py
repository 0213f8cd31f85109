"""Damaged, foreign and read-only database files (issue 10).

A file that is not a whole vibesearch database is refused before anything is written to it, by
every command; a read-only file serves the commands that only read and is refused, with a clear
message, by the ones that write.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from cli_harness import VALID, invoke, make_label_db, row_counts, run_cli

from vibesearch.store import DamagedDatabase, ReadOnlyDatabase, open_db

WRITERS = {
    "run": lambda db: ["run", "--tasks", VALID / "ours.json", "--db", db],
    "import": lambda db: ["import", VALID / "trajectory.json", "--db", db],
    "labels import": lambda db: ["labels", "import", VALID / "labels.jsonl", "--db", db],
    "score": lambda db: ["score", "--all", "--db", db],
}
READERS = {
    "report": lambda db, out: ["report", "--db", db],
    "labels agreement": lambda db, out: ["labels", "agreement", "--db", db],
    "labels export": lambda db, out: ["labels", "export", "--out", out, "--db", db],
}


def good_db(path: Path) -> Path:
    """A real database with a run, its events and two labels (made through the CLI)."""
    make_label_db(path)
    assert invoke("import", VALID / "trajectory.json", "--db", path).code == 0
    assert invoke("labels", "import", VALID / "labels.jsonl", "--db", path).code == 0
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def damaged(kind: str, tmp: Path) -> Path:
    src = good_db(tmp / f"src-{kind}.db")
    data = bytearray(src.read_bytes())
    path = tmp / f"{kind}.db"
    if kind == "truncated":
        data = data[: len(data) // 2]
    elif kind == "bad header":
        data[:16] = b"NotSQLite format"
    elif kind == "random pages":
        rnd = random.Random(3)
        for page in range(1, len(data) // 4096):
            if page % 2:
                data[page * 4096 : (page + 1) * 4096] = bytes(rnd.randrange(256) for _ in range(4096))
    elif kind == "short file":
        data = data[:60]
    elif kind == "text file":
        data = bytearray(b"run_id,gt_index\nabc,1\n" * 50)
    elif kind == "foreign sqlite":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE recipes (name TEXT)")
        conn.execute("INSERT INTO recipes VALUES ('soup')")
        conn.commit()
        conn.close()
        return path
    path.write_bytes(bytes(data))
    return path


KINDS = ["truncated", "bad header", "random pages", "short file", "text file", "foreign sqlite"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_damaged_or_foreign_file_is_refused_and_left_untouched(kind, tmp_path):
    db = damaged(kind, tmp_path)
    before = _digest(db)
    def to_file(reader):
        return lambda d: reader(d, tmp_path / "out.csv")

    commands = {**WRITERS, **{k: to_file(f) for k, f in READERS.items()}}
    for name, args in commands.items():
        out = invoke(*args(db))
        assert out.code == 1, (name, out.text)
        errors = [line for line in out.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and str(db) in errors[0], (name, out.text)
        assert "is not a vibesearch database" in errors[0], (name, errors)
        assert "Traceback" not in out.text and "unexpected error" not in out.text
        assert _digest(db) == before, f"{name} changed the file"
    assert not (tmp_path / "out.csv").exists()


def test_open_db_checks_before_it_writes(tmp_path):
    db = damaged("random pages", tmp_path)
    before = _digest(db)
    with pytest.raises(DamagedDatabase, match="is damaged"):
        open_db(db)
    assert _digest(db) == before
    (tmp_path / "folder.db").mkdir()
    out = invoke("report", "--db", tmp_path / "folder.db")
    assert out.code == 1 and "is a folder" in out.stderr


def test_empty_file_and_new_file_are_made_into_databases(tmp_path):
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    assert invoke("import", VALID / "trajectory.json", "--db", empty).code == 0
    assert row_counts(empty)["runs"] == 1
    assert invoke("report", "--db", tmp_path / "sub" / "new.db").code == 0


# ---------------------------------------------------------------------- read-only files
def _bwrap_works() -> bool:
    if shutil.which("bwrap") is None:
        return False
    try:
        return subprocess.run(["bwrap", "--dev-bind", "/", "/", "true"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


RUN_LINE = "fuzzrun00001"
needs_bwrap = pytest.mark.skipif(not _bwrap_works(), reason="bubblewrap cannot make a read-only mount here")


@needs_bwrap
def test_a_read_only_database_serves_reads_and_refuses_writes(tmp_path):
    """The folder holding the database is mounted read-only (root can write any file whatever
    its mode, so permissions alone cannot show this)."""
    ro = tmp_path / "ro"
    ro.mkdir()
    db = good_db(ro / "runs.db")
    counts = row_counts(db)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    prefix = ["bwrap", "--dev-bind", "/", "/", "--ro-bind", str(ro), str(ro)]
    for name, args in READERS.items():
        out = run_cli(*args(db, out_dir / "labels.csv"), prefix=prefix, cwd=tmp_path)
        assert out.code == 0, (name, out.text)
    assert (out_dir / "labels.csv").read_text(encoding="utf-8").count(RUN_LINE) == 2
    out = run_cli("labels", "agreement", "--json", "--db", db, prefix=prefix, cwd=tmp_path)
    assert '"n_items": 2' in out.stdout
    for name, args in WRITERS.items():
        out = run_cli(*args(db), prefix=prefix, cwd=tmp_path)
        assert out.code == 1, (name, out.text)
        errors = [line for line in out.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and f"{db} is read-only" in errors[0], (name, out.text)
    assert row_counts(db) == counts


def test_read_only_store_refuses_a_writer_and_serves_a_reader(tmp_path, monkeypatch):
    """Without bubblewrap: the file system's answer to "may I write this?" is simulated (tests run
    as root, who may write anything); a reader gets a read-only Store, a writer an error."""
    from sqlalchemy.exc import OperationalError

    import vibesearch.store._open as opening
    import vibesearch.store.db as dbmod

    db = good_db(tmp_path / "runs.db")
    monkeypatch.setattr(opening.os, "access", lambda path, mode: False)
    monkeypatch.setattr(dbmod, "_STORES", {})
    with pytest.raises(ReadOnlyDatabase, match="is read-only"):
        open_db(db)
    store = open_db(db, writes=False)
    assert store.read_only and len(store.list_runs()) == 2 and len(store.labels()) == 2
    with pytest.raises(OperationalError, match="readonly"):
        store.create_run("x")
    with pytest.raises(ReadOnlyDatabase):
        open_db(db)  # a writer is still refused after a reader opened it


def test_an_sqlite_url_on_the_command_line_is_the_relative_file_it_names(tmp_path, monkeypatch):
    """``--db sqlite:///runs.db`` is ./runs.db (a path-typed option once made it /runs.db)."""
    monkeypatch.chdir(tmp_path)
    assert invoke("import", VALID / "trajectory.json", "--db", "sqlite:///rel/runs.db").code == 0
    assert (tmp_path / "rel" / "runs.db").is_file()
    assert not Path("/rel/runs.db").exists()
    assert row_counts(tmp_path / "rel" / "runs.db")["runs"] == 1
    report = invoke("report", "--db", "sqlite:///rel/runs.db")
    assert report.code == 0, report


def test_messages_name_a_database_url_without_its_password():
    from vibesearch._shown import db_shown

    shown = db_shown("postgresql+psycopg://eval:hunter2secret@db.example:5432/vibes")
    assert "hunter2secret" not in shown and "db.example:5432/vibes" in shown
    assert db_shown("runs/a.db") == "runs/a.db" and db_shown("sqlite:///runs/a.db") == "runs/a.db"
