"""Running the real ``vibesearch`` command on files: in this process (fast) or as a subprocess with
a time limit (for inputs that used to hang), and looking into the database afterwards."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

FUZZ = Path(__file__).resolve().parents[1] / "data" / "fuzz"
VALID = FUZZ / "valid"
RUN_ID = "fuzzrun00001"  # the run the label files name (see make_corpus.py)


@dataclass
class Outcome:
    code: int | str  # "timeout" when a subprocess ran over its limit
    stdout: str
    stderr: str
    exception: BaseException | None = None

    @property
    def text(self) -> str:
        return self.stdout + self.stderr


def invoke(*args: object) -> Outcome:
    """The CLI in this process (typer's runner), as a user would type it."""
    from vibesearch.cli.main import app

    result = CliRunner().invoke(app, [str(a) for a in args])
    exc = result.exception if result.exception is not None and not isinstance(result.exception, SystemExit) else None
    return Outcome(result.exit_code, result.stdout, result.stderr, exc)


def run_cli(*args: object, timeout: float = 30, env: dict[str, str] | None = None, cwd: Path | None = None, prefix: list[str] | None = None) -> Outcome:
    """The CLI as a subprocess with a time limit."""
    cmd = [*(prefix or []), sys.executable, "-m", "vibesearch.cli.main", *[str(a) for a in args]]
    full_env = {**os.environ, **(env or {})}
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full_env, cwd=cwd)
    except subprocess.TimeoutExpired as exc:
        def text(data: object) -> str:
            return data.decode(errors="replace") if isinstance(data, bytes) else str(data or "")

        return Outcome("timeout", text(exc.stdout), text(exc.stderr))
    return Outcome(proc.returncode, proc.stdout, proc.stderr)


def row_counts(db: Path) -> dict[str, int]:
    """Rows per table, read with a plain read-only connection."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        conn.close()


GT_TRIPLES = 3  # the fuzz run's ground-truth triples (label files may name gt_index 0 to 2)
PRED_TRIPLES = 2  # and its predicted triples (evidence 0 and 1)


def label_run_task() -> dict:
    """The task snapshot of the run the label files name."""
    return {
        "id": "fuzz-ours", "subset": "daily", "language": "en",
        "persona": {"background": "b", "initial_query": "q", "stages": [{"name": "s", "trigger": {"kind": "start", "condition": "c"}, "line": "l"}]},
        "graph": [{"head": f"h{i}", "relation": "r", "tail": f"t{i}"} for i in range(GT_TRIPLES)],
        "extra": {},
    }


def make_label_db(path: Path) -> Path:
    """A database holding the one run the label files name, with ``GT_TRIPLES`` ground-truth and
    ``PRED_TRIPLES`` predicted triples (a label may point only at those)."""
    from vibesearch.run import GraphEvent
    from vibesearch.store import Store

    store = Store(path)
    store.create_run("fuzz-ours", run_id=RUN_ID, status="finished", task_json=label_run_task())
    store.add_graph(RUN_ID, GraphEvent(triples=[{"head": f"p{i}", "relation": "r", "tail": "x"} for i in range(PRED_TRIPLES)]))
    store.engine.dispose()
    return path
