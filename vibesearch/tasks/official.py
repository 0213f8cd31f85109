"""The official VibeSearchBench task format, read as it is published.

A record holds ``task_id``, ``final_query`` (required), ``initial_query``, ``sub_queries``,
``user_queries``, ``user_persona`` (markdown), ``language``, ``nodes`` (``{node_id, node_name}``)
and ``triples`` (``{head_id, relation, tail_id}``); any other field is kept in ``Task.extra``.
The persona markdown is split into stages by ``_persona_md``; the trigger kind of each stage is
inferred from the wording of its condition, since the official format does not state it.

Loader metadata also lands in ``extra`` under the names in ``LOADER_KEYS``; ``export`` leaves them
out when it writes the record back.
"""

from __future__ import annotations

import re
from typing import Any, Union

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError, field_validator

from .._files import short
from ._persona_md import clean_fallback, clean_line, is_not_applicable, parse_persona_markdown
from ._problems import TaskProblem, loc_to_path, problems_from_validation
from .models import MAX_ID_CHARS, Task, TriggerKind

OFFICIAL_KEYS = (
    "task_id", "final_query", "initial_query", "sub_queries", "user_queries",
    "user_persona", "language", "nodes", "triples",
)
# written by the loader into Task.extra, never exported as record fields
LOADER_KEYS = ("subset_inferred", "official_nodes", "official_triples", "language_original")
# the block our exporter adds so that a task of ours survives a trip through the official format
OURS_KEY = "vibesearch"

NodeId = Union[StrictInt, StrictStr]


def _number_to_text(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value


def _check_node_id(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"a node id must be an integer or a string, got {short(value)}")
    return value


class OfficialNode(BaseModel):
    model_config = ConfigDict(extra="allow")
    node_id: NodeId
    node_name: str = Field(min_length=1)

    @field_validator("node_name", mode="before")
    @classmethod
    def _name_text(cls, value: Any) -> Any:
        return _number_to_text(value)

    @field_validator("node_id", mode="before")
    @classmethod
    def _id_type(cls, value: Any) -> Any:
        return _check_node_id(value)


class OfficialTriple(BaseModel):
    model_config = ConfigDict(extra="allow")
    head_id: NodeId
    relation: str = Field(min_length=1)
    tail_id: NodeId

    @field_validator("relation", mode="before")
    @classmethod
    def _relation_text(cls, value: Any) -> Any:
        return _number_to_text(value)

    @field_validator("head_id", "tail_id", mode="before")
    @classmethod
    def _id_type(cls, value: Any) -> Any:
        return _check_node_id(value)


class OfficialRecord(BaseModel):
    model_config = ConfigDict(extra="allow")
    task_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    final_query: str = Field(min_length=1)
    initial_query: str | None = None
    sub_queries: list[str] = Field(default_factory=list)
    user_queries: list[str] = Field(default_factory=list)
    user_persona: str = ""
    language: str = "en"
    nodes: list[OfficialNode] = Field(min_length=1)
    triples: list[OfficialTriple] = Field(min_length=1)

    @field_validator("task_id", mode="before")
    @classmethod
    def _id_text(cls, value: Any) -> Any:
        return _number_to_text(value)


def is_official(record: dict[str, Any]) -> bool:
    """Whether a record is in the official format rather than ours."""
    if "id" in record or "persona" in record:
        return False
    return any(key in record for key in ("task_id", "user_persona", "nodes", "triples", "final_query"))


# --- trigger kinds -------------------------------------------------------------------------

_ASKS_EN = re.compile(
    r"\bproactive(ly)?\b.{0,40}\b(ask|offer|suggest|propos|inquir|enquir|check|rais|invit|question)"
    r"|\b(ask|asks|asked|asking)\b\s+(the\s+user\s+|the\s+person\s+|them\s+|you\s+)?"
    r"(whether|which|if|what|how|about|for\s+(the\s+user'?s?|their|a)\s+(preference|choice|priorit))"
    r"|\b(offers?|offered)\s+to\b"
    r"|\basks\s+(the\s+user|the\s+person)\b",
    re.IGNORECASE,
)
_ASKS_ZH = re.compile(r"主动(询问|提出|提议|建议|问|征求|推荐|提供)|询问用户|问用户|征求用户|问.{0,8}是否(需要|想|要)")
_COMPLETES_EN = re.compile(
    r"\b(complete|completes|completed|completing|finish|finishes|finished|fully|entire|whole|all\s+of)\b"
    r"|\b(lists?|listed|enumerates?|enumerated|tabulates?|compiles?|compiled)\b"
    r"|\bhas\s+answered\b",
    re.IGNORECASE,
)
_COMPLETES_ZH = re.compile(r"完整|列全|列出|列举|全部|完成|回答完|答完|讲完|汇总|整理出|给出.{0,40}(之后|后)")


def infer_trigger_kind(condition: str, index: int) -> TriggerKind:
    """Guess a stage's trigger kind from its condition (the first stage is always ``start``).

    ``asks`` when the condition waits for the assistant to ask or offer something on its own,
    ``completes`` when it waits for a finished piece of work (a complete list, a full answer),
    otherwise ``mentions``.
    """
    if index == 0:
        return "start"
    if _ASKS_EN.search(condition) or _ASKS_ZH.search(condition):
        return "asks"
    if _COMPLETES_EN.search(condition) or _COMPLETES_ZH.search(condition):
        return "completes"
    return "mentions"


# --- record -> Task ------------------------------------------------------------------------

def _task_loc_to_official(loc: tuple) -> tuple[str, int | None]:
    """Where a Task field came from in the official record."""
    if not loc:
        return "", None
    head, rest = loc[0], loc[1:]
    if head == "id":
        return "task_id", None
    if head == "graph":
        return loc_to_path(("triples", *rest[:1])), None
    if head == "subset":
        return "subset", None
    if head == "persona" and rest:
        if rest[0] == "background":
            return "user_persona.core_identity", None
        if rest[0] == "behavior":
            return "user_persona.behaviour_instructions", None
        if rest[0] == "initial_query":
            return "initial_query", None
        if rest[0] == "stages" and len(rest) > 1 and isinstance(rest[1], int):
            return loc_to_path(("user_persona", *rest)), rest[1] + 1
        return loc_to_path(("user_persona", *rest)), None
    return loc_to_path(loc), None


def _ours_block(extra: dict[str, Any], n_stages: int) -> tuple[list | None, list | None]:
    block = extra.get(OURS_KEY)
    if not isinstance(block, dict):
        return None, None
    kinds = block.get("stage_kinds")
    cues = block.get("stage_cues")
    kinds = kinds if isinstance(kinds, list) and len(kinds) == n_stages else None
    cues = cues if isinstance(cues, list) and len(cues) == n_stages else None
    return kinds, cues


def official_to_task(record: dict[str, Any], file: str, *, prefix: str = "") -> tuple[Task | None, list[TaskProblem]]:
    """Build a Task from one official record; problems name the task id and stage number."""
    raw_id = record.get("task_id")
    task_id = str(raw_id) if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool) else None
    try:
        rec = OfficialRecord.model_validate(record)
    except ValidationError as exc:
        return None, problems_from_validation(file, exc, task_id, prefix=prefix)

    problems: list[TaskProblem] = []

    def problem(field: str, message: str, *, stage: int | None = None, warning: bool = False) -> None:
        path = f"{prefix}.{field}" if prefix and field else (prefix or field)
        problems.append(TaskProblem(file, path, message, task_id=task_id, stage=stage, warning=warning))

    extra = dict(rec.model_extra or {})
    for key in LOADER_KEYS:
        extra.pop(key, None)

    # the graph
    names: dict[Any, str] = {}
    for i, node in enumerate(rec.nodes):
        if node.node_id in names:
            problem(f"nodes[{i}].node_id", f"duplicate node id {short(node.node_id)}")
        names[node.node_id] = node.node_name
    graph = []
    for i, triple in enumerate(rec.triples):
        ends = []
        for side in ("head_id", "tail_id"):
            node_id = getattr(triple, side)
            if node_id not in names:
                problem(f"triples[{i}].{side}", f"unknown node id {short(node_id)}; the id is kept as the name", warning=True)
            ends.append(names.get(node_id, str(node_id)))
        graph.append({"head": ends[0], "relation": triple.relation, "tail": ends[1]})

    # the persona
    if not rec.user_persona.strip():
        problem("user_persona", "the persona is missing or empty; a task needs a persona with stages")
        return None, problems
    parsed = parse_persona_markdown(rec.user_persona)
    if not parsed.stages:
        where = "" if parsed.has_stage_section else " (and no '# Staged Information Disclosure' section)"
        problem("user_persona", f"no stages found: expected '### Stage N: title' or '### 阶段N：标题' headings{where}")
        return None, problems
    background = parsed.identity or parsed.preamble
    if not background:
        problem("user_persona.core_identity", "no '# Core Identity' / '# 核心身份' section (or it is empty)")
    kinds, cues = _ours_block(extra, len(parsed.stages))
    stages = []
    for i, st in enumerate(parsed.stages):
        here = f"user_persona.stages[{i}]"
        if st.number != i + 1:
            problem(f"{here}.number", f"heading says stage {st.number} but it is stage {i + 1} in order", stage=i + 1, warning=True)
        for label in st.unknown_labels:
            problem(here, f"unrecognised label {short(label)} ignored", stage=st.number, warning=True)
        if not st.trigger:
            problem(f"{here}.trigger.condition", "no trigger condition ('Trigger condition' / '触发条件' bullet)", stage=st.number)
        line = clean_line(st.line or "")
        if not line:
            problem(f"{here}.line", "no line ('Line' / '台词' bullet)", stage=st.number)
        fallback = clean_fallback(st.fallback or "")
        condition = " ".join((st.trigger or "").split())
        kind = kinds[i] if kinds else infer_trigger_kind(condition, i)
        stages.append({
            "name": st.title or f"Stage {st.number}",
            "trigger": {"kind": kind, "condition": condition or "-"},
            "line": line or "-",
            "fallback": None if is_not_applicable(fallback) else fallback,
            "cues": cues[i] if cues else [],
        })
    if any(not p.warning for p in problems):
        return None, problems

    subset = extra.get("subset")
    if subset is None:
        subset = "daily"
        extra["subset_inferred"] = True
    found = extra.get(OURS_KEY)
    ours: dict[str, Any] = found if isinstance(found, dict) else {}
    language = _language(rec.language)
    if language is None:
        problem("language", f"unknown language {short(rec.language)}: read as English ('en'); the value is kept in extra.language_original", warning=True)
        extra["language_original"] = rec.language
        language = "en"
    elif rec.language != language:  # e.g. "zh-CN" read as "zh": the official harness reads only "zh" as Chinese
        extra["language_as_written"] = rec.language
    data = {
        "id": rec.task_id,
        "subset": subset,
        "language": language,
        "domain": _text(extra.get("domain")) or _text(ours.get("domain")),
        "title": _text(extra.get("title")) or _text(ours.get("title")),
        "persona": {
            "background": background or "-",
            "initial_query": rec.initial_query or rec.final_query,
            "behavior": parsed.behavior,
            "stages": stages,
        },
        "graph": graph,
        "sources": [s for s in ours.get("sources", []) if isinstance(s, str)] if isinstance(ours.get("sources"), list) else [],
        "final_query": rec.final_query,
        "sub_queries": rec.sub_queries,
        "user_queries": rec.user_queries,
        "persona_markdown": rec.user_persona,
        "extra": {
            **extra,
            "official_nodes": [n.model_dump(mode="json") for n in rec.nodes],
            "official_triples": [t.model_dump(mode="json") for t in rec.triples],
        },
        "origin": "official",
        "source_file": file,
    }
    try:
        task = Task.model_validate(data)
    except ValidationError as exc:
        problems += problems_from_validation(file, exc, task_id, prefix=prefix, rename=_task_loc_to_official)
        return None, problems
    return task, problems


_ZH_NAMES = ("zh", "cn", "chinese", "中文", "汉语", "漢語", "普通话")


def _language(value: str) -> str | None:
    """``en`` or ``zh`` for the ways a file names them, None for any other language."""
    text = value.strip().lower()
    if not text or text.startswith("en"):
        return "en"
    if text.startswith(_ZH_NAMES):
        return "zh"
    return None


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
