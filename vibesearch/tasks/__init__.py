"""Tasks: the persona + ground-truth graph model (and the table part of a table task), and loaders
for our format and the official one."""

from ._ids import ID_PATTERN, MAX_ID_CHARS
from ._problems import loader_field_problems, loc_to_path
from .export import task_to_official, write_official
from .loader import (
    TaskLoadError,
    TaskNotFound,
    TaskProblem,
    corpus_path,
    iter_task_files,
    get_task,
    load_corpus,
    load_tasks,
    load_tasks_with_problems,
    parse_task_file,
    task_dir,
)
from .models import CorpusDoc, Persona, Stage, Task, TaskKind, Trigger, TriggerKind, Triple, snapshot_kind
from .table import TableColumn, TableTask
from .official import infer_trigger_kind, is_official, official_to_task

__all__ = [
    "ID_PATTERN",
    "MAX_ID_CHARS",
    "CorpusDoc",
    "Persona",
    "Stage",
    "TableColumn",
    "TableTask",
    "Task",
    "TaskKind",
    "TaskLoadError",
    "TaskNotFound",
    "TaskProblem",
    "Trigger",
    "TriggerKind",
    "Triple",
    "corpus_path",
    "get_task",
    "infer_trigger_kind",
    "is_official",
    "iter_task_files",
    "load_corpus",
    "load_tasks",
    "load_tasks_with_problems",
    "loader_field_problems",
    "loc_to_path",
    "official_to_task",
    "parse_task_file",
    "snapshot_kind",
    "task_dir",
    "task_to_official",
    "write_official",
]
