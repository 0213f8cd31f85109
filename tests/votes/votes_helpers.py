"""Real stored runs to vote on, made once per test session with the offline defaults (the
baseline agent, no model): three configurations (the rules, direct and staged users) with two runs
each of TASK, one run of OTHER_TASK, all scored by the offline judge. Each test gets its own copy
on its engine (``voted_db``)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

TASK = "daily-en-japan-heritage-trip"
OTHER_TASK = "pro-en-analysis-history"
USERS = ("rules", "direct", "staged")


def cli(*args: Any) -> Any:
    from vibesearch.cli.main import app

    return CliRunner().invoke(app, [str(a) for a in args])


def make_template(path: Path) -> Path:
    for user in USERS:
        done = cli("run", "--tasks", TASK, "--runs", 2, "--user", user, "--db", path)
        assert done.exit_code == 0, done.output
    done = cli("run", "--tasks", OTHER_TASK, "--runs", 1, "--max-user-turns", 1, "--db", path)
    assert done.exit_code == 0, done.output
    done = cli("score", "--all", "--db", path)
    assert done.exit_code == 0, done.output
    return path


def copy_to(template: Path, db_url: str) -> None:
    """The template's runs in ``db_url`` (an SQLite file path, or a PostgreSQL URL at the newest schema)."""
    if "://" in db_url:
        from vibesearch.store.copy import copy_database

        copy_database(template, db_url)
    else:  # SQLite's backup: the template's write-ahead log included
        src, dst = sqlite3.connect(template), sqlite3.connect(db_url)
        src.backup(dst)
        src.close()
        dst.close()


def runs_by_user(db_url: str) -> dict[str, list[str]]:
    """The run ids of TASK per user kind (oldest first), and OTHER_TASK's under ``other``."""
    from vibesearch.store import Store

    store = Store(db_url)
    out: dict[str, list[str]] = {}
    for run in sorted(store.list_runs(), key=lambda r: (r.created_at, r.id)):
        out.setdefault(run.user if run.task_id == TASK else "other", []).append(run.id)
    store.engine.dispose()
    return out


def write_jsonl(path: Path, votes: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(v, ensure_ascii=False) + "\n" for v in votes), encoding="utf-8")
    return path
