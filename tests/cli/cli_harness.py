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


@dataclass
class Refusal:
    """A malformed input for one command, as a probe round found it."""

    args: list[object]  # the command; {db} is the case's database path
    names: list[str]  # what the one error line must hold (the file or setting, the field)
    env: dict[str, str] | None = None  # set: run as a subprocess with these variables (usage errors too)
    label_db: bool = False  # the command writes into an existing database (with the label files' run)


def assert_refused(tmp_path: Path, case: Refusal) -> Outcome:
    """Run ``case`` on a fresh ``tmp_path/out.db``: exit 1, no traceback and no "unexpected error",
    one ``error: ...`` line holding every name (``tasks show`` lists the file's problems above it),
    and nothing written (no database made, or the existing one's rows as they were)."""
    import os

    db = tmp_path / "out.db"
    before = row_counts(make_label_db(db)) if case.label_db else None
    args = [str(db) if a == "{db}" else a for a in case.args]
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    out = run_cli(*args, env={**env, **case.env}, cwd=tmp_path) if case.env is not None else invoke(*args)
    assert out.code == 1, (out.code, out.text)
    assert out.exception is None and "Traceback" not in out.text and "unexpected error" not in out.text, out.text
    errors = [line for line in out.stderr.strip().splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, out.stderr
    listing = case.args[:2] == ["tasks", "show"]
    if not listing:
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    if case.args[0] == "serve":  # (its first line says it is starting, on standard output)
        assert out.stdout.strip().splitlines()[1:] == [], out.stdout
    for needle in case.names:
        assert needle in (out.stderr if listing else errors[0]), out.stderr
    if before is not None:
        assert row_counts(db) == before  # nothing stored
    else:
        assert not db.exists() and not list(tmp_path.glob("out.db*"))  # no database made
    return out
