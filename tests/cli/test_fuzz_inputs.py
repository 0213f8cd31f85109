"""Fuzz test over the CLI's file inputs (issue 10, "Must show").

Every malformed file of tests/data/fuzz (made by its make_corpus.py) is given to every command
that reads that kind of file. Each must end with exit code 1, no traceback and no "unexpected
error", one error line naming the file (or, for `tasks validate`, one problem line per problem),
no line longer than 1,000 characters (no echoed value), and nothing written: `run` and `import`
leave no database file, `labels import` leaves the database's rows as they were.

Most files run in this process (a subprocess per file would cost ~1 s each); the inputs that
used to hang — FIFOs, devices, alias bombs, deep nesting, files over the size limit — also run
as subprocesses with a 30 s limit.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import pytest
from cli_harness import FUZZ, VALID, Outcome, invoke, make_label_db, row_counts, run_cli

KINDS = ("tasks", "corpora", "trajectories", "extraction", "labels", "cases", "tables", "answers")
Args = Callable[[Path, Path], list[object]]

# kind of file -> (command label, its arguments for a file and a fresh --db path)
COMMANDS: dict[str, list[tuple[str, Args]]] = {
    "tasks": [
        ("tasks validate", lambda f, db: ["tasks", "validate", f]),
        ("run --tasks", lambda f, db: ["run", "--tasks", f, "--db", db]),
        ("import --task", lambda f, db: ["import", VALID / "trajectory.json", "--task", f, "--db", db]),
    ],
    "corpora": [  # the commands that read a task's corpus (an import does not)
        ("tasks validate", lambda f, db: ["tasks", "validate", f]),
        ("run --tasks", lambda f, db: ["run", "--tasks", f, "--db", db]),
    ],
    "trajectories": [("import", lambda f, db: ["import", f, "--db", db])],
    "extraction": [("import --extraction", lambda f, db: ["import", VALID / "trajectory.json", "--extraction", f, "--db", db])],
    "labels": [("labels import", lambda f, db: ["labels", "import", f, "--db", db])],
    "cases": [("labels calibrate", lambda f, db: ["labels", "calibrate", f])],
    "tables": [
        ("table score", lambda f, db: ["table", "score", f, "fuzz-table", VALID / "answer.md"]),
        ("run --tasks", lambda f, db: ["run", "--tasks", f, "--db", db]),
    ],
    "answers": [("table score ANSWER", lambda f, db: ["table", "score", VALID / "table.json", "fuzz-table", f])],
}


def corpus(kind: str) -> list[Path]:
    """The malformed files of a kind (gold CSVs and corpus documents are read through the table
    and task files naming them)."""
    return sorted(p for p in (FUZZ / kind).rglob("*")
                  if p.is_file() and not {"gold", "corpus"} & set(p.relative_to(FUZZ / kind).parts[:-1]))


def problems_with(out: Outcome, command: str, names: list[str], db: Path, label_rows: dict[str, int] | None) -> list[str]:
    """What is wrong with how a command refused a file (empty: refused properly)."""
    found = []
    if out.code != 1:
        found.append(f"exit code {out.code}")
    if "Traceback" in out.text or "unexpected error" in out.text or out.exception is not None:
        found.append(f"unhandled error: {out.exception!r}")
    if any(len(line) > 1000 for line in out.text.splitlines()):
        found.append("a line over 1000 characters (an echoed value?)")
    if command == "tasks validate":
        lines = [line for line in out.stdout.splitlines() if not line.startswith("warning:")]
        if not lines or not any(n in line for line in lines for n in names):
            found.append("no problem line names the file")
    else:
        errors = [line for line in out.stderr.splitlines() if line.startswith("error:")]
        if len(errors) != 1:
            found.append(f"{len(errors)} 'error:' lines on stderr")
        elif not any(n in errors[0] for n in names):
            found.append("the error line does not name the file")
    if command.startswith(("run", "import")) and db.exists():
        found.append("a database file was created")
    if label_rows is not None and row_counts(db) != label_rows:
        found.append(f"rows written: {row_counts(db)} (before: {label_rows})")
    return found


def names_for(path: Path) -> list[str]:
    # a table task whose gold CSV is bad is refused with the CSV's own name, a task whose corpus
    # has a bad line with the corpus file's
    return [path.name] + (["gold"] if path.name.startswith("gold_") else []) + ([path.stem + ".jsonl"] if path.name.startswith("corpus_") else [])


def test_the_corpus_is_big_enough():
    files = [f for kind in KINDS for f in corpus(kind)]
    assert len(files) >= 150
    assert all(corpus(kind) for kind in KINDS)
    assert max(f.stat().st_size for f in files) < 300_000  # big cases are made at test time


@pytest.mark.timeout(240)
@pytest.mark.parametrize("kind", KINDS)
def test_every_malformed_file_is_refused_in_one_line(kind, tmp_path):
    started = time.monotonic()
    label_db = make_label_db(tmp_path / "labels.db") if kind == "labels" else None
    before = row_counts(label_db) if label_db else None
    failures = []
    for i, path in enumerate(corpus(kind)):
        for command, args in COMMANDS[kind]:
            db = label_db or tmp_path / f"run{i}.db"
            out = invoke(*args(path, db))
            wrong = problems_with(out, command, names_for(path), db, before)
            if wrong:
                failures.append(f"{kind}/{path.name} · {command}: {'; '.join(wrong)} :: {out.text.strip()[:300]!r}")
    assert not failures, f"{len(failures)} bad refusals:\n" + "\n".join(failures)
    assert time.monotonic() - started < 120


def test_the_valid_controls_are_accepted(tmp_path):
    """The same commands take good files, so the refusals above are about the files."""
    db = tmp_path / "runs.db"
    assert invoke("tasks", "validate", VALID / "ours.json", VALID / "official.json", VALID / "ours_bom.json", VALID / "ours_bom.yaml").code == 0
    out = invoke("run", "--tasks", VALID / "ours.json", "--db", db)
    assert out.code == 0, out.text
    assert row_counts(db)["runs"] == 1 and row_counts(db)["events"] > 3
    out = invoke("import", VALID / "trajectory.json", "--extraction", VALID / "extraction.json", "--task", VALID / "official.json", "--db", db)
    assert out.code == 0, out.text
    assert row_counts(db)["runs"] == 2
    label_db = make_label_db(tmp_path / "labels.db")
    for name in ("labels.jsonl", "labels.csv"):
        out = invoke("labels", "import", VALID / name, "--db", label_db)
        assert out.code == 0, out.text
    assert row_counts(label_db)["labels"] == 2
    assert invoke("labels", "calibrate", VALID / "cases.jsonl").code == 0
    out = invoke("table", "score", VALID / "table.json", "fuzz-table", VALID / "answer.md")
    assert out.code == 0 and "SUCCESS" in out.stdout, out.text


# ---------------------------------------------------------------------- as subprocesses
def special_files(tmp: Path) -> dict[str, Path]:
    """Inputs git cannot hold: a FIFO, a device, a folder, a file over the size limit, a 1 MB id."""
    fifo = tmp / "pipe.json"
    os.mkfifo(fifo)
    folder = tmp / "folder.json"
    folder.mkdir()
    huge = tmp / "huge.json"
    with open(huge, "wb") as fh:  # sparse: 2 MB long, nothing on disk
        fh.truncate(2_000_000)
    big_id = tmp / "big_id.json"
    big_id.write_text('{"task_id": "' + "x" * 1_000_000 + '", "final_query": "q", "user_persona": "p", "nodes": [], "triples": []}', encoding="utf-8")
    return {"fifo": fifo, "device": Path("/dev/zero"), "folder": folder, "huge": huge, "big id": big_id}


SUBPROCESS_SAMPLE = [  # corpus files that hung or blew up before, run as real processes
    ("tasks", "lol_in_extra.yaml", "run --tasks"),
    ("tasks", "lol_in_subset.yaml", "tasks validate"),
    ("tasks", "deep_100k.json", "run --tasks"),
    ("tasks", "deep_20k.yaml", "tasks validate"),
    ("trajectories", "late_deep_args_900.json", "import"),
    ("trajectories", "sample_idx_e30.json", "import"),
    ("labels", "third_row_gt_index_e30.jsonl", "labels import"),
    ("tables", "lol_in_rows.yaml", "table score"),
]


@pytest.mark.timeout(280)
def test_hang_prone_inputs_end_quickly_as_subprocesses(tmp_path):
    special = special_files(tmp_path)
    label_db = make_label_db(tmp_path / "labels.db")
    before = row_counts(label_db)
    env = {"VIBESEARCH_MAX_INPUT_BYTES": "1000000"}
    jobs = []
    for what, path in special.items():
        for kind, commands in COMMANDS.items():
            if kind == "corpora":
                continue  # the same commands as for tasks
            for command, args in commands:
                if what == "big id" and kind not in ("tasks",):
                    continue
                if what == "folder" and command in ("tasks validate", "run --tasks"):
                    continue  # a folder is a valid place to look for tasks
                db = label_db if kind == "labels" else tmp_path / f"{len(jobs)}.db"
                jobs.append((f"{what} · {command}", args(path, db), command, [path.name], db))
    for kind, name, command in SUBPROCESS_SAMPLE:
        args = dict(COMMANDS[kind])[command]
        db = label_db if kind == "labels" else tmp_path / f"{len(jobs)}.db"
        jobs.append((f"{kind}/{name} · {command}", args(FUZZ / kind / name, db), command, [name], db))

    def one(job):
        label, args, command, names, db = job
        started = time.monotonic()
        out = run_cli(*args, env=env, cwd=tmp_path)
        wrong = problems_with(out, command, names, db, before if db == label_db else None)
        if time.monotonic() - started > 30:
            wrong.append("took more than 30 s")
        return f"{label}: {'; '.join(wrong)} :: {out.text.strip()[:300]!r}" if wrong else None

    with ThreadPoolExecutor(max_workers=2) as pool:
        failures = [f for f in pool.map(one, jobs) if f]
    assert len(jobs) > 40
    assert not failures, "\n".join(failures)
