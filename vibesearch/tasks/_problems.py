"""Problems found while reading task files, and turning pydantic errors into them."""

from __future__ import annotations

import re
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from pydantic import BaseModel, ValidationError

from .._files import short


@dataclass
class TaskProblem:
    """One thing wrong with a task file: where (file, field path, task, stage) and what."""

    file: str
    field: str
    message: str
    task_id: str | None = None
    stage: int | None = None  # 1-based stage number (official format)
    warning: bool = False

    def __str__(self) -> str:
        extra = []
        if self.task_id:
            extra.append(f"task {self.task_id if len(self.task_id) <= 80 else self.task_id[:80] + '…'}")
        if self.stage is not None:
            extra.append(f"stage {self.stage}")
        suffix = f" ({', '.join(extra)})" if extra else ""
        where = self.field or "-"
        return f"{self.file}: {where}: {self.message}{suffix}"


class TaskLoadError(ValueError):
    """Raised with every problem found when tasks must load cleanly."""

    def __init__(self, problems: list[TaskProblem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class TaskNotFound(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def loc_to_path(loc: Iterable[Any]) -> str:
    """``("persona", "stages", 3, "trigger")`` -> ``persona.stages[3].trigger``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def join_path(prefix: str, rest: str) -> str:
    if not prefix:
        return rest
    if not rest:
        return prefix
    return prefix + rest if rest.startswith("[") else f"{prefix}.{rest}"


# A model validator can name a deeper field as "<sub.path[2].x>: message".
_SUBPATH_MESSAGE = re.compile(r"^(?:Value error, )?((?:[A-Za-z_]\w*|\[\d+\])(?:\.[A-Za-z_]\w*|\[\d+\])*): (.+)$", re.DOTALL)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    if isinstance(annotation, types.UnionType):
        for arg in annotation.__args__:
            found = _model_in(arg)
            if found is not None:
                return found
    return None


def _model_at(root: type[BaseModel], loc: Iterable[Any]) -> type[BaseModel] | None:
    model: type[BaseModel] | None = root
    for part in loc:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(str(part)) if model else None
        if field is None:
            return None
        model = _model_in(field.annotation)
    return model


def _unknown_field_message(root: type[BaseModel] | None, loc: tuple) -> str:
    if root is None:
        return "unknown field"
    model = _model_at(root, loc[:-1])
    if model is None:
        return "unknown field"
    from rapidfuzz import process

    names = [name for name, info in model.model_fields.items() if not info.exclude]  # not ``source_file``
    best = process.extractOne(str(loc[-1]), names, score_cutoff=70)
    if best is not None:
        return f"unknown field (did you mean {best[0]!r}?)"
    return "unknown field (allowed: " + ", ".join(names) + ")"


def loader_field_problems(
    record: dict[str, Any], file: str, task_id: str | None, prefix: str = "", *, parts: Iterable[str] = ()
) -> list[TaskProblem]:
    """``source_file`` named in a task file (at its top, or in one of its ``parts``, e.g. a task's
    ``table``): the loader gives that field (where it read the file), so a file that names it
    has an unknown field, as it always had."""
    found = ["source_file"] if "source_file" in record else []
    found += [f"{part}.source_file" for part in parts if isinstance(record.get(part), dict) and "source_file" in record[part]]
    return [TaskProblem(file, join_path(prefix, path), "unknown field", task_id=task_id) for path in found]


def problems_from_validation(
    file: str,
    exc: ValidationError,
    task_id: str | None = None,
    *,
    root: type[BaseModel] | None = None,
    prefix: str = "",
    rename: Callable[[tuple], tuple[str, int | None]] | None = None,
) -> list[TaskProblem]:
    """One problem per pydantic error, with a dotted field path.

    ``root`` is the validated model (to suggest the intended name of an unknown field),
    ``prefix`` goes before every path, ``rename`` maps a loc to (path, stage number) for formats
    whose field names differ from the model's.
    """
    problems = []
    for err in exc.errors(include_url=False, include_context=False):
        loc = tuple(err["loc"])
        message = err["msg"]
        if err["type"] == "extra_forbidden":
            message = _unknown_field_message(root, loc)
        elif err["type"] == "value_error":
            found = _SUBPATH_MESSAGE.match(message)
            if found:
                sub = tuple(int(p[1:-1]) if p.startswith("[") else p for p in re.findall(r"\[\d+\]|[^.\[\]]+", found.group(1)))
                loc, message = loc + sub, found.group(2)
            else:
                message = message.removeprefix("Value error, ")
        elif err["type"] == "literal_error":
            message = f"{message} (got {short(err.get('input'))})"
        stage = None
        if rename is not None:
            path, stage = rename(loc)
        else:
            path = loc_to_path(loc)
        problems.append(TaskProblem(file=file, field=join_path(prefix, path), message=message, task_id=task_id, stage=stage))
    return problems
