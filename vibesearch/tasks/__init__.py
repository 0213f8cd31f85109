"""Tasks: the persona + ground-truth graph model, and loaders for our format and the official one."""

from .loader import (
    TaskLoadError,
    TaskNotFound,
    TaskProblem,
    get_task,
    load_corpus,
    load_tasks,
    load_tasks_with_problems,
    parse_task_file,
    task_dir,
)
from .models import CorpusDoc, Persona, Stage, Task, Trigger, TriggerKind, Triple

__all__ = [name for name in dir() if not name.startswith("_")]
