"""Loading tasks from files and folders.

``load_tasks(paths)`` reads every task file under the given files and folders: our own format
(JSON or YAML, one task per file, or a list) and the official VibeSearchBench format (``.json``
with one record or a list, or ``.jsonl``), told apart by their keys. Folders named ``corpus`` hold
offline documents, not tasks, and are skipped. Every problem becomes a ``TaskProblem`` naming the
file, the field path and what is wrong; a file with an error loads nothing, and a task id may
appear only once across everything loaded.

The walk over files and folders (``walk_files``), the collection of tasks and problems across
files (``collect_tasks``) and the corpus reader (``read_corpus``) are shared with the table task
loader (``vibesearch.tables.loader``), which plugs in its own per-file parser.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Protocol, TypeVar

from pydantic import ValidationError

from .._files import InputFileError, is_regular_file, json_lines, parse_json, parse_jsonl, parse_yaml, read_text, short, short_path

from ._problems import TaskLoadError, TaskNotFound, TaskProblem, join_path, loader_field_problems, problems_from_validation
from .models import CorpusDoc, Task
from .official import is_official, official_to_task

TASK_SUFFIXES = {".json", ".yaml", ".yml", ".jsonl"}
CORPUS_DIR = "corpus"

__all__ = [
    "TaskLoadError",
    "TaskNotFound",
    "TaskProblem",
    "collect_tasks",
    "corpus_path",
    "get_task",
    "iter_task_files",
    "join_path",
    "load_corpus",
    "load_tasks",
    "load_tasks_with_problems",
    "parse_task_file",
    "problems_from_validation",
    "read_corpus",
    "read_records",
    "task_dir",
    "walk_files",
]


class _HasId(Protocol):
    id: str


T = TypeVar("T", bound=_HasId)
# parses one file: (path, found by a folder scan) -> (tasks, problems)
FileParser = Callable[[Path, bool], tuple[list[T], list[TaskProblem]]]


def _fail(path: Path, field: str, message: str) -> TaskLoadError:
    return TaskLoadError([TaskProblem(str(path), field, message)])


def read_records(path: Path) -> tuple[list[Any], bool]:
    """The raw records of one file and whether the file holds a list (JSON list or JSONL).

    Raises ``TaskLoadError`` when the file cannot be read (not a regular file, too large, not
    UTF-8), is empty, does not parse, or nests too deeply (see ``vibesearch._files``).
    """
    try:
        text = read_text(path)
        if not text.strip():
            raise _fail(path, "", "the file is empty")
        if path.suffix == ".jsonl":
            return [record for _, record in parse_jsonl(text, path)], True
        data = parse_json(text, path) if path.suffix == ".json" else parse_yaml(text, path)
    except InputFileError as exc:
        raise _fail(path, exc.field, exc.message) from None
    if data is None:
        raise _fail(path, "", "the file is empty")
    if isinstance(data, list):
        if not data:
            raise _fail(path, "", "the file holds an empty list, no task")
        return data, True
    if not isinstance(data, dict):
        raise _fail(path, "", f"expected a task object or a list of them, got {type(data).__name__}")
    return [data], False


def corpus_path(task: Task) -> Path | None:
    """Where the task's corpus file is (relative paths are relative to the task file's folder)."""
    if not task.corpus:
        return None
    path = Path(task.corpus)
    if path.is_absolute():
        return path
    base = task_dir(task) or Path(".")
    return base / path


def _our_task(record: dict[str, Any], file: str, prefix: str) -> tuple[Task | None, list[TaskProblem]]:
    task_id = record.get("id") if isinstance(record.get("id"), str) else None
    problems = loader_field_problems(record, file, task_id, prefix, parts=("table",))
    try:
        task = Task.model_validate({**record, "source_file": file})
    except ValidationError as exc:
        return None, problems + problems_from_validation(file, exc, task_id, root=Task, prefix=prefix)
    if problems:
        return None, problems
    corpus = corpus_path(task)
    if corpus is not None and not is_regular_file(corpus):
        field = f"{prefix}.corpus" if prefix else "corpus"
        return None, [TaskProblem(file, field, f"corpus file not found: {short_path(corpus, 200)}", task_id=task.id)]
    return task, []


def parse_task_file(path: str | Path) -> tuple[list[Task], list[TaskProblem]]:
    """Parse one file into tasks. On any error the file yields no task, only problems
    (warnings alone do not stop a task from loading)."""
    path = Path(path)
    try:
        records, is_list = read_records(path)
    except TaskLoadError as exc:
        return [], exc.problems
    except OSError as exc:
        return [], [TaskProblem(str(path), "", f"cannot read: {exc.strerror or exc}")]
    tasks: list[Task] = []
    problems: list[TaskProblem] = []
    for i, record in enumerate(records):
        prefix = f"[{i}]" if is_list and len(records) > 1 else ""
        if not isinstance(record, dict):
            problems.append(TaskProblem(str(path), prefix, f"expected a task object, got {type(record).__name__}"))
            continue
        if is_official(record):
            task, found = official_to_task(record, str(path), prefix=prefix)
        else:
            task, found = _our_task(record, str(path), prefix)
        problems.extend(found)
        if task is not None:
            tasks.append(task)
    seen: set[str] = set()
    for i, task in enumerate(tasks):
        if task.id in seen:
            problems.append(TaskProblem(str(path), f"[{i}].id" if is_list else "id", f"duplicate task id {short(task.id)} in this file", task.id))
        seen.add(task.id)
    if any(not p.warning for p in problems):
        return [], problems
    return tasks, problems


def walk_files(paths: Iterable[str | Path], *, skip_dirs: Collection[str] = (CORPUS_DIR,)) -> list[tuple[Path, bool]]:
    """Task files under ``paths``, each with whether a folder scan found it (``True``) or it was
    named directly (``False``). Folders are searched recursively, skipping folders named in
    ``skip_dirs`` and hidden files; a file named directly is always included."""
    files: list[tuple[Path, bool]] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                parts = f.relative_to(p).parts
                if (
                    f.is_file()
                    and f.suffix in TASK_SUFFIXES
                    and not set(skip_dirs).intersection(parts[:-1])
                    and not any(part.startswith(".") for part in parts)
                ):
                    files.append((f, True))
        elif p.exists():
            files.append((p, False))
    return files


def iter_task_files(paths: Iterable[str | Path]) -> list[Path]:
    """Task files under ``paths`` (see ``walk_files``)."""
    return [f for f, _ in walk_files(paths)]


def collect_tasks(
    paths: Iterable[str | Path], parse_file: FileParser[T], *, skip_dirs: Collection[str] = (CORPUS_DIR,)
) -> tuple[list[T], list[TaskProblem]]:
    """Every task ``parse_file`` finds under ``paths`` and every problem: a missing path is one,
    each file is read once, and a task id may appear once across everything loaded (a file
    repeating an id loads nothing)."""
    paths = list(paths)
    tasks: list[T] = []
    problems: list[TaskProblem] = []
    seen: dict[str, str] = {}
    for path in paths:
        if not Path(path).exists():
            problems.append(TaskProblem(str(path), "", "no such file or folder"))
    done: set[Path] = set()
    for file, in_folder in walk_files(paths, skip_dirs=skip_dirs):
        if file.resolve() in done:
            continue  # the same file reached twice (a folder and a file in it)
        done.add(file.resolve())
        got, found = parse_file(file, in_folder)
        problems.extend(found)
        here: set[str] = set()
        clash = False
        for task in got:
            if task.id in seen or task.id in here:
                where = f"already loaded from {seen[task.id]}" if task.id in seen else "twice in this file"
                problems.append(TaskProblem(str(file), "id", f"duplicate task id {short(task.id)} ({where})", task.id))
                clash = True
            here.add(task.id)
        if clash:
            continue
        for task in got:
            seen[task.id] = str(file)
            tasks.append(task)
    return tasks, problems


def load_tasks_with_problems(paths: Iterable[str | Path]) -> tuple[list[Task], list[TaskProblem]]:
    """Every task under ``paths`` and every problem found (a missing path and a task id seen in
    an earlier file are problems too; the later file then loads nothing)."""
    return collect_tasks(paths, lambda file, _in_folder: parse_task_file(file))


def load_tasks(paths: Iterable[str | Path] | None = None) -> list[Task]:
    """Every task under ``paths`` (default: the bundled personas/ plus ``VIBESEARCH_TASKS``).

    Raises ``TaskLoadError`` listing every error when any file is invalid.
    """
    if paths is None:
        from ..config import get_settings

        paths = get_settings().task_paths()
    tasks, problems = load_tasks_with_problems(paths)
    errors = [p for p in problems if not p.warning]
    if errors:
        raise TaskLoadError(errors)
    return tasks


def get_task(task_id: str, paths: Iterable[str | Path] | None = None) -> Task:
    """The task with this id. Broken files elsewhere do not hide a task that loads cleanly, but
    a duplicated id, or an unknown id while some file is broken, raise ``TaskLoadError``."""
    if paths is None:
        from ..config import get_settings

        paths = get_settings().task_paths()
    paths = list(paths)
    tasks, problems = load_tasks_with_problems(paths)
    errors = [p for p in problems if not p.warning]
    if any(p.task_id == task_id for p in errors):
        raise TaskLoadError([p for p in errors if p.task_id == task_id])
    for task in tasks:
        if task.id == task_id:
            return task
    if errors:
        raise TaskLoadError(errors)
    where = ", ".join(str(p) for p in paths) or "nowhere"
    raise TaskNotFound(f"no task with id {task_id!r} (looked in {where})")


def task_dir(task: Task) -> Path | None:
    file = task.source_file
    return Path(file).parent if file else None


def load_corpus(task: Task) -> list[CorpusDoc]:
    """The task's offline documents ([] when it has none). Raises ``TaskLoadError`` naming the
    corpus file and line when the corpus is missing or malformed."""
    path = corpus_path(task)
    return [] if path is None else read_corpus(path, task.id)


def read_corpus(path: Path, task_id: str | None = None) -> list[CorpusDoc]:
    """The documents of one corpus file (JSONL of ``CorpusDoc``). Raises ``TaskLoadError`` naming
    the file and line when it is missing or malformed."""
    try:
        lines = json_lines(read_text(path))
    except InputFileError as exc:
        raise TaskLoadError([TaskProblem(str(path), exc.field, f"cannot read the corpus: {exc.message}", task_id)]) from None
    docs: list[CorpusDoc] = []
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:  # read strictly (a repeated key, NaN, a NUL ... are refused), then checked as a document
            docs.append(CorpusDoc.model_validate(parse_json(line, path, field=f"line {i}")))
        except InputFileError as exc:
            raise TaskLoadError([TaskProblem(str(path), exc.field, f"cannot read the corpus: {exc.message}", task_id)]) from None
        except ValidationError as exc:
            problems = problems_from_validation(str(path), exc, task_id, root=CorpusDoc)
            for p in problems:
                p.field = f"line {i}: {p.field}" if p.field else f"line {i}"
            raise TaskLoadError(problems) from None
    return docs
