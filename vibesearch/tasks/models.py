"""The task model: a persona with ordered stages plus a ground-truth knowledge graph.

Our own file format (JSON or YAML, one task per file) is exactly these models serialised.
Unknown fields are rejected so that a typo in a hand-written task never passes silently.
Tasks loaded from the official format keep their extra fields in ``extra`` instead.

A task has a ``kind``: ``"persona"`` (a staged conversation scored on its graph) or ``"table"``
(one table asked for, scored cell by cell); a table task carries its table part in ``table``.
"""

from __future__ import annotations

from typing import Any, Literal, Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ._ids import ID_PATTERN, MAX_ID_CHARS
from .table import TableTask

TriggerKind = Literal["start", "mentions", "asks", "completes"]
Subset = Literal["pro", "daily"]
Language = Literal["en", "zh"]
TaskKind = Literal["persona", "table"]
__all__ = [
    "MAX_ID_CHARS",
    "CorpusDoc",
    "Language",
    "Persona",
    "Stage",
    "Subset",
    "TableTask",
    "Task",
    "TaskKind",
    "Trigger",
    "TriggerKind",
    "Triple",
    "snapshot_kind",
    "upgrade_task_data",
]

# the validation context ``Task.from_snapshot`` reads with (a stored snapshot may have no graph)
_SNAPSHOT_CONTEXT = "vibesearch.task_snapshot"


def upgrade_task_data(data: Mapping[str, Any]) -> dict[str, Any]:
    """Task data in today's form. Runs stored before ``Task.kind`` existed hold a table task as
    ``extra = {"kind": "table", "table_task": {...}}``; that becomes ``kind`` and ``table`` (a
    ``kind`` in ``extra`` without a ``table_task`` is some other format's field and stays)."""
    out = dict(data)
    extra = out.get("extra")
    if isinstance(extra, dict) and extra.get("kind") == "table" and "table_task" in extra and "kind" not in out:
        rest = {k: v for k, v in extra.items() if k not in ("kind", "table_task")}
        out.update(kind="table", extra=rest)
        out.setdefault("table", extra["table_task"])
    return out


def snapshot_kind(data: Mapping[str, Any]) -> TaskKind:
    """The kind of a stored task snapshot (a JSON object), old form included, without validating it."""
    return "table" if upgrade_task_data(data).get("kind") == "table" else "persona"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Triple(_Strict):
    head: str = Field(min_length=1)
    relation: str = Field(min_length=1)
    tail: str = Field(min_length=1)

    @field_validator("head", "relation", "tail", mode="before")
    @classmethod
    def _to_text(cls, value: Any) -> Any:
        # Numbers and years are common tails; keep them as text.
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, str):
            return value.strip()
        return value

    def text(self) -> str:
        return f"{self.head} | {self.relation} | {self.tail}"


class Trigger(_Strict):
    kind: TriggerKind
    condition: str = Field(min_length=1)


class Stage(_Strict):
    name: str = Field(min_length=1)
    trigger: Trigger
    line: str = Field(min_length=1)
    fallback: str | None = None
    # Phrases whose presence in the agent's reply satisfies the trigger (offline simulator).
    cues: list[str] = Field(default_factory=list)


class Persona(_Strict):
    background: str = Field(min_length=1)
    initial_query: str = Field(min_length=1)
    behavior: str = ""
    stages: list[Stage] = Field(min_length=1)

    @model_validator(mode="after")
    def _first_stage_starts(self) -> "Persona":
        if self.stages[0].trigger.kind != "start":
            # "<sub-path>: <message>"; the loader moves the sub-path into the problem's field path
            raise ValueError("stages[0].trigger.kind: the first stage must be 'start' (it is the opening question)")
        for i, stage in enumerate(self.stages[1:], start=1):
            if stage.trigger.kind == "start":
                raise ValueError(f"stages[{i}].trigger.kind: only the first stage may be 'start'")
        return self


class CorpusDoc(_Strict):
    url: str = Field(min_length=1)
    title: str = Field(min_length=1)
    text: str = Field(min_length=1)
    # Triples the page states (used by the offline baseline agent's oracle reader).
    facts: list[Triple] = Field(default_factory=list)
    # Scholarly documents are what scholar_search returns.
    scholarly: bool = False
    date: str | None = None
    source: str | None = None


class Task(_Strict):
    id: str = Field(min_length=1, max_length=MAX_ID_CHARS, pattern=ID_PATTERN)
    kind: TaskKind = "persona"
    subset: Subset
    language: Language
    domain: str = ""
    title: str = ""
    persona: Persona
    # at least one triple, except in a stored snapshot (``from_snapshot``): see ``_graph_given``
    graph: list[Triple]
    sources: list[str] = Field(default_factory=list)
    # Path of the offline corpus (JSONL), relative to the task file's folder.
    corpus: str | None = None
    # Fields of the official format (final_query, sub_queries, user_queries, raw persona markdown ...).
    final_query: str | None = None
    sub_queries: list[str] = Field(default_factory=list)
    user_queries: list[str] = Field(default_factory=list)
    persona_markdown: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)
    # The table part of a table task (columns, primary key, gold rows); None for a persona task.
    table: TableTask | None = None
    # Where the task came from: "ours" or "official". Set by the loader.
    origin: Literal["ours", "official"] = "ours"
    # The file the task was read from, given by whoever read it (the loaders, ``Run.task()``).
    # Never part of a dump, so a stored snapshot is the same whether or not it is set.
    source_file: str | None = Field(default=None, exclude=True, repr=False)

    def cited_urls(self) -> list[str]:
        """The web addresses the task's ground truth cites, first seen first, each once: its
        ``sources``, and a ``source_urls`` / ``source_url`` (a list or one address) kept from an
        official record — on the record (``extra``) or on any of its nodes and triples. Only
        http(s) addresses."""
        found: list[str] = list(self.sources)
        holders = [self.extra, *(self.extra.get("official_nodes") or []), *(self.extra.get("official_triples") or [])]
        for holder in holders:
            if not isinstance(holder, Mapping):
                continue
            for key in ("source_urls", "source_url"):
                value = holder.get(key)
                found.extend([value] if isinstance(value, str) else [v for v in value if isinstance(v, str)] if isinstance(value, list) else [])
        out: list[str] = []
        for url in (u.strip() for u in found):
            if url.lower().startswith(("http://", "https://")) and url not in out:
                out.append(url)
        return out

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any], *, source_file: str | None = None) -> "Task":
        """The task a run stored (``model_dump(mode="json")``, older shapes upgraded), pointed at
        ``source_file`` (its table part too: both were read from that file). Unlike a task file,
        a snapshot may hold an empty graph: an official trajectory imported without its task has
        no ground truth. Raises ``ValidationError``."""
        data = upgrade_task_data(data)
        if isinstance(data.get("table"), Mapping):
            data["table"] = {**data["table"], "source_file": source_file}
        return cls.model_validate({**data, "source_file": source_file}, context={_SNAPSHOT_CONTEXT: True})

    @model_validator(mode="before")
    @classmethod
    def _stored_before_kind(cls, data: Any) -> Any:
        return upgrade_task_data(data) if isinstance(data, Mapping) else data

    @field_validator("graph")
    @classmethod
    def _graph_given(cls, value: list[Triple], info: ValidationInfo) -> list[Triple]:
        if not value and not (info.context or {}).get(_SNAPSHOT_CONTEXT):
            # worded and typed as pydantic's own min_length error, which it stands in for
            raise PydanticCustomError(
                "too_short",
                "{field_type} should have at least {min_length} item after validation, not {actual_length}",
                {"field_type": "List", "min_length": 1, "actual_length": 0},
            )
        return value

    @model_validator(mode="after")
    def _table_part_matches_kind(self) -> "Task":
        if self.kind == "table" and self.table is None:
            raise ValueError("table: a task of kind 'table' needs its table part")
        if self.kind != "table" and self.table is not None:
            raise ValueError("kind: a task with a table part must have kind 'table'")
        return self

    @property
    def stages(self) -> list[Stage]:
        return self.persona.stages

    def stage_count(self) -> int:
        return len(self.persona.stages)
