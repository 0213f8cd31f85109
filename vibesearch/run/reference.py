"""The ``RunConfig`` reference, generated from its fields' descriptions: one place says what each
part means, and the docs and the CLI's help read it from there.

* ``field_help(Part, "name")``: one field's description, as an option's help text;
* ``description_at("agent.model")``: the description of the field at a dotted path of
  ``RunConfig`` (what ``vibesearch run``'s options that set a field show as their help:
  ``cli/_help.py``);
* ``reference_table()``: every field of ``RunConfig`` and the parts it nests, as a markdown table
  (docs/run-config.md holds it between two markers; ``python -m vibesearch.run.reference
  docs/run-config.md`` writes it there, and a test checks that it is current).
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from .config import RunConfig

BEGIN = "<!-- generated from RunConfig's field descriptions: python -m vibesearch.run.reference docs/run-config.md -->"
END = "<!-- end of the generated reference -->"


def field_help(part: type[BaseModel], name: str) -> str:
    """The description of ``part``'s field ``name`` (a field without one is a mistake: KeyError)."""
    description = part.model_fields[name].description
    if not description:
        raise KeyError(f"{part.__name__}.{name} has no description")
    return description


def description_at(path: str, model: type[BaseModel] = RunConfig) -> str:
    """The description of ``model``'s field at the dotted ``path`` (``"agent.openclaw.idle_s"``);
    ``KeyError`` naming the path when there is no such field."""
    *parts, name = path.split(".")
    part: type[BaseModel] | None = model
    for step in parts:
        field = part.model_fields.get(step) if part is not None else None
        part = part_of(field.annotation) if field is not None else None
    if part is None or name not in part.model_fields:
        raise KeyError(f"{model.__name__} has no field {path!r}")
    return field_help(part, name)


def part_of(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds (``OpenclawSpec | None`` holds an ``OpenclawSpec``), or None."""
    for candidate in (annotation, *get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def _type_name(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin is Literal:
        return " / ".join(repr(v) for v in get_args(annotation))
    if origin in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in get_args(annotation))
    if annotation is type(None):
        return "None"
    return getattr(annotation, "__name__", str(annotation))


def _default(field: Any) -> str:
    if field.default is PydanticUndefined:
        return "(see below)" if field.default_factory is not None else "(required)"
    return repr(field.default)


def _rows(model: type[BaseModel], prefix: str = "") -> list[tuple[str, str, str, str]]:
    rows = []
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        description = field_help(model, name)
        part = part_of(field.annotation)
        if part is not None:
            shown = _type_name(field.annotation)
            rows.append((path, shown, _default(field), description))
            rows.extend(_rows(part, path + "."))
        else:
            rows.append((path, _type_name(field.annotation), _default(field), description))
    return rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def reference_table(model: type[BaseModel] = RunConfig) -> str:
    """Every field of ``model`` and of the parts it nests (dotted paths), as a markdown table."""
    lines = ["| field | type | default | meaning |", "|---|---|---|---|"]
    lines += [f"| `{path}` | {_cell(kind)} | `{_cell(default)}` | {_cell(text)} |" for path, kind, default, text in _rows(model)]
    return "\n".join(lines) + "\n"


def with_reference(text: str) -> str:
    """``text`` (a doc holding the two markers) with the current table between them."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n\n" + reference_table() + "\n" + text[end:]


if __name__ == "__main__":  # python -m vibesearch.run.reference docs/run-config.md
    doc = Path(sys.argv[1])
    doc.write_text(with_reference(doc.read_text(encoding="utf-8")), encoding="utf-8")
