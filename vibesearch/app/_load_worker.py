"""The process that parses task files for the app (see ``_loading``).

Reads one JSON request on stdin — ``path``, ``roots``, ``max_bytes``, ``memory_mb``, ``cpu_s`` —
limits its own memory, CPU time and file writes, loads the persona tasks (else the table tasks)
under ``path`` and prints ``{"tasks": [{"task": ..., "file": ...}], "problems": [...]}``. A task
whose corpus lies outside the roots (or is not a regular file, or is too large) is dropped with
one fixed message, whether that file exists or not. It imports nothing of the web app.
"""

from __future__ import annotations

import json
import os
import resource
import stat
import sys
from pathlib import Path

CORPUS_MESSAGE = "no corpus file of at most the size limit inside the folders this app may load from"


def _limit(memory_mb: int, cpu_s: int) -> None:
    for what, value in ((resource.RLIMIT_AS, memory_mb * 1024 * 1024), (resource.RLIMIT_CPU, cpu_s), (resource.RLIMIT_FSIZE, 0)):
        try:
            resource.setrlimit(what, (value, value))
        except (ValueError, OSError):
            pass


def _corpus_ok(task, roots: list[Path], max_bytes: int) -> bool:
    from ..tasks.loader import corpus_path

    path = corpus_path(task)
    if path is None:
        return True
    try:
        real = path.resolve()
        info = os.stat(real)
    except (OSError, RuntimeError):
        return False
    inside = any(real == r or real.is_relative_to(r) for r in roots)
    return inside and stat.S_ISREG(info.st_mode) and info.st_size <= max_bytes


def _is_corpus_problem(p) -> bool:
    return str(getattr(p, "field", "")).rstrip().endswith("corpus")


def load(path: Path, roots: list[Path], max_bytes: int) -> dict:
    from ..tasks import load_tasks_with_problems

    tasks, problems = load_tasks_with_problems([path])
    found = [p for p in problems if not p.warning]
    if not tasks:
        from ..tables import load_table_tasks_with_problems, table_task_to_task

        tts, table_problems = load_table_tasks_with_problems([path])
        table_tasks = [table_task_to_task(tt) for tt in tts]
        table_problems = [p for p in table_problems if not p.warning]
        if table_tasks:
            tasks, found = table_tasks, table_problems
        else:
            found = found + table_problems
    kept = []
    lines = []
    for p in found:
        if _is_corpus_problem(p):  # never tell whether a file outside the roots exists
            p.message = CORPUS_MESSAGE
        lines.append(str(p))
    for task in tasks:
        if _corpus_ok(task, roots, max_bytes):
            kept.append({"task": task.model_dump(mode="json"), "file": task.source_file})
        else:
            lines.append(f"{task.source_file}: corpus: {CORPUS_MESSAGE} (task {task.id})")
    return {"tasks": kept, "problems": lines}


def main() -> int:
    request = json.loads(sys.stdin.read(100_000))
    from .. import tables, tasks  # noqa: F401 - imported before the limits (no file writes after them)

    _limit(int(request["memory_mb"]), int(request["cpu_s"]))
    roots = [Path(r) for r in request["roots"]]
    out = load(Path(request["path"]), roots, int(request["max_bytes"]))
    sys.stdout.write(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
