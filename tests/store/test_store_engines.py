"""The store on both engines: the database setting (a path, an ``sqlite:///`` URL or a PostgreSQL
URL), gap-free sequences from several processes, and the Alembic migrations (a previous release's
file upgraded in place, a newer database refused, a PostgreSQL database behind the code refused
until ``vibesearch db upgrade``)."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from vibesearch.config import Settings
from vibesearch.run import MessageEvent
from vibesearch.store import SchemaError, Store, open_db, upgrade_database
from vibesearch.store import migrations
from vibesearch.store import db_target

PREV = Path(__file__).resolve().parents[1] / "data" / "prev_release.db"


def test_the_database_setting_takes_paths_and_urls(tmp_path):
    assert db_target(tmp_path / "a.db").path == tmp_path / "a.db"
    assert db_target("sqlite:///rel/a.db").path == Path("rel/a.db")
    assert db_target(f"sqlite:///{tmp_path}/a.db").path == tmp_path / "a.db"  # sqlite:////abs/path
    pg = db_target("postgresql+psycopg://ann:secret@db.lab:5433/vibes")
    assert pg.path is None and pg.url == "postgresql+psycopg://ann:secret@db.lab:5433/vibes"
    assert "secret" not in pg.shown and "db.lab:5433/vibes" in pg.shown
    # --db options are paths: a URL through pathlib loses a slash, and gets it back
    assert db_target(Path("postgresql+psycopg://ann@db.lab/vibes")).url == "postgresql+psycopg://ann@db.lab/vibes"
    assert db_target("postgresql://ann@db.lab/vibes").url.startswith("postgresql+psycopg://")
    assert Settings(db="postgresql+psycopg://ann@db.lab/vibes").db == "postgresql+psycopg://ann@db.lab/vibes"
    assert Settings(db="sqlite:///x/y.db").db == Path("x/y.db")
    assert Settings(db=str(Path("postgresql+psycopg://ann@db.lab/vibes"))).db == "postgresql+psycopg://ann@db.lab/vibes"
    # the settings stored with every run never hold the database's password
    assert Settings(db="postgresql+psycopg://ann:s3cret@db.lab/vibes").snapshot()["db"] == "postgresql+psycopg://ann:***@db.lab/vibes"


_APPENDER = textwrap.dedent(
    """
    import os, sys, time
    from vibesearch.run import MessageEvent
    from vibesearch.store import Store
    store = Store(sys.argv[1])
    print("ready", flush=True)
    while not os.path.exists(sys.argv[3]):
        time.sleep(0.001)
    for i in range(500):
        store.append(sys.argv[2], MessageEvent(role="user", content=f"{sys.argv[4]}-{i}"))
    print("done", flush=True)
    """
)


@pytest.mark.slow
def test_eight_processes_append_4000_events_to_one_run_gap_free(db_url, tmp_path):
    store = Store(db_url)
    run = store.create_run("t")
    go = tmp_path / "go"
    procs = [
        subprocess.Popen([sys.executable, "-c", _APPENDER, db_url, run.id, str(go), str(n)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for n in range(8)
    ]
    try:
        for p in procs:
            assert p.stdout.readline().strip() == "ready", p.stderr.read()
        go.touch()
        outs = [p.communicate(timeout=600) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert all(p.returncode == 0 for p in procs), [err[-500:] for _, err in outs]
    events = store.events(run.id)
    assert [e.seq for e in events] == list(range(1, 4001))
    assert len({e.data.content for e in events}) == 4000


def test_the_revisions_are_the_scripts_and_a_new_database_matches_the_tables(db_url):
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from sqlmodel import SQLModel

    store = Store(db_url)
    with store.engine.connect() as conn:
        script = ScriptDirectory.from_config(migrations.alembic_config(conn))
        assert [r.revision for r in reversed(list(script.walk_revisions()))] == list(migrations.REVISIONS)
        assert script.get_current_head() == migrations.HEAD
        assert migrations.current(conn, "x") == migrations.HEAD
        diffs = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    # the migrations make exactly the tables the code declares (alembic's own table aside, and on
    # PostgreSQL the job queue's: procrastinate's tables and ``job_schema``, made by store._job_schema)
    def job_engine(d) -> bool:
        obj = d[1]
        name = getattr(obj, "name", "") if d[0].endswith("_table") else getattr(getattr(obj, "table", None), "name", "")
        return name == "job_schema" or str(name).startswith("procrastinate_")

    assert [d for d in diffs if not (d[0] == "remove_table" and d[1].name == "alembic_version") and not job_engine(d)] == []
    assert store.schema_version() == 1  # what an older vibesearch reads


def test_a_previous_release_file_is_stamped_and_upgraded_in_place(tmp_path):
    db = tmp_path / "prev.db"
    shutil.copy(PREV, db)
    with sqlite3.connect(db) as conn:
        assert "alembic_version" not in {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert upgrade_database(db) == ("0001", migrations.HEAD)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [(migrations.HEAD,)]
        assert "run_config_json" in {r[1] for r in conn.execute("PRAGMA table_info(runs)")}
        assert conn.execute("SELECT count(*) FROM events").fetchone()[0] == 45  # nothing lost
    assert upgrade_database(db) == (migrations.HEAD, migrations.HEAD)
    assert len(Store(db).list_runs()) == 2


def test_a_database_at_an_unknown_revision_is_refused(db_url):
    Store(db_url)
    engine = create_engine(db_target(db_url).url)
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
    engine.dispose()
    with pytest.raises(SchemaError, match=r"revision 9999\) is newer than this vibesearch understands"):
        Store(db_url)
    with pytest.raises(SchemaError, match="newer"):
        upgrade_database(db_url)


def test_a_read_only_file_at_the_newest_revision_reads_without_writes(tmp_path):
    db = tmp_path / "ro.db"
    store = Store(db)
    store.append(store.create_run("t").id, MessageEvent(role="user", content="hi"))
    before = db.read_bytes()
    db.chmod(0o444)
    tmp_path.chmod(0o555)
    try:
        ro = Store(db, read_only=True)
        assert len(ro.list_runs()) == 1
    finally:
        tmp_path.chmod(0o755)
    assert db.read_bytes() == before


def test_postgresql_behind_the_code_is_refused_until_upgraded(pg_cluster):
    url = pg_cluster.new_database()
    with pytest.raises(SchemaError) as caught:
        Store(url)
    message = str(caught.value)
    assert message == f"{db_target(url).shown} holds no vibesearch schema yet: run `vibesearch db upgrade --db {db_target(url).shown}`"
    done = subprocess.run([sys.executable, "-m", "vibesearch.cli.main", "db", "upgrade", "--db", url], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and f"upgraded from nothing to revision {migrations.HEAD}" in done.stdout, done.stderr
    store = open_db(url)
    assert store.path == db_target(url).shown and store.list_runs() == []
    # a database stamped at the first revision is behind too: named, with the command to run
    engine = create_engine(db_target(url).url)
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '0001'")
    engine.dispose()
    with pytest.raises(SchemaError, match=rf"has schema revision 0001, this vibesearch needs {migrations.HEAD}: run `vibesearch db upgrade --db "):
        Store(url)


def test_the_cli_says_one_line_for_a_postgresql_database_behind(pg_cluster, tmp_path):
    url = pg_cluster.new_database()
    done = subprocess.run(
        [sys.executable, "-m", "vibesearch.cli.main", "report", "--db", url],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [f"error: {db_target(url).shown} holds no vibesearch schema yet: run `vibesearch db upgrade --db {db_target(url).shown}`"]


def test_db_upgrade_on_the_command_line(tmp_path):
    from typer.testing import CliRunner

    from vibesearch.cli.main import app

    db = tmp_path / "prev.db"
    shutil.copy(PREV, db)
    first = CliRunner().invoke(app, ["db", "upgrade", "--db", str(db)])
    assert first.exit_code == 0 and first.stdout.strip() == f"{db}: schema upgraded from 0001 to revision {migrations.HEAD}"
    again = CliRunner().invoke(app, ["db", "upgrade", "--db", f"sqlite:///{db}"])
    assert again.exit_code == 0 and again.stdout.strip() == f"{db}: schema already at revision {migrations.HEAD}"
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not a database at all" * 10)
    refused = CliRunner().invoke(app, ["db", "upgrade", "--db", str(bad)])
    assert refused.exit_code == 1 and refused.stdout == ""
    assert refused.stderr.strip() == f"error: {bad} is not a vibesearch database / is damaged: it is not an SQLite file"
    assert bad.read_bytes() == b"not a database at all" * 10
