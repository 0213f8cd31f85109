"""Tasks: the persona + ground-truth graph model, and loaders for our format and the official one."""

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
from .models import CorpusDoc, Persona, Stage, Task, Trigger, TriggerKind, Triple
from .official import infer_trigger_kind, is_official, official_to_task

__all__ = [name for name in dir() if not name.startswith("_")]
