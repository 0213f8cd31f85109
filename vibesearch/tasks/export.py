"""Writing a task in the official VibeSearchBench format.

A task that came from an official record is written back with its own persona markdown, node ids
and extra fields, so that load -> export -> load gives the same task. When the raw parts no longer
describe the task (it was edited, or it is one of ours), the markdown and the node ids are
generated instead, and a ``vibesearch`` block keeps what the official format cannot say (trigger
kinds, cues, sources) so the task survives the trip.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ._persona_md import render_persona_markdown
from .models import Task, Triple
from .official import LOADER_KEYS, OFFICIAL_KEYS, OURS_KEY, official_to_task


def generated_persona_markdown(task: Task) -> str:
    stages = [(s.name, s.trigger.condition, s.line, s.fallback) for s in task.persona.stages]
    return render_persona_markdown(task.language, task.persona.background, task.persona.behavior, stages)


def generated_graph(triples: list[Triple]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Nodes ``n1, n2 ...`` in order of first appearance, and triples over them."""
    ids: dict[str, str] = {}
    nodes: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []

    def node(name: str) -> str:
        if name not in ids:
            ids[name] = f"n{len(ids) + 1}"
            nodes.append({"node_id": ids[name], "node_name": name})
        return ids[name]

    for t in triples:
        out.append({"head_id": node(t.head), "relation": t.relation, "tail_id": node(t.tail)})
    return nodes, out


def _record(task: Task, persona_md: str, nodes: list, triples: list) -> dict[str, Any]:
    record: dict[str, Any] = {
        "task_id": task.id,
        "final_query": task.final_query or task.persona.initial_query,
        "initial_query": task.persona.initial_query,
        "sub_queries": list(task.sub_queries),
        "user_queries": list(task.user_queries),
        "user_persona": persona_md,
        "language": task.extra.get("language_original") or task.language,
        "nodes": nodes,
        "triples": triples,
    }
    for key, value in task.extra.items():
        if key not in LOADER_KEYS and key not in OFFICIAL_KEYS:
            record[key] = value
    if not task.extra.get("subset_inferred"):
        record["subset"] = task.subset
    return record


def task_to_official(task: Task) -> dict[str, Any]:
    """The task as one official record (a JSON-ready dict)."""
    raw_nodes = task.extra.get("official_nodes")
    raw_triples = task.extra.get("official_triples")
    record = _record(
        task,
        task.persona_markdown or generated_persona_markdown(task),
        raw_nodes if isinstance(raw_nodes, list) else generated_graph(task.graph)[0],
        raw_triples if isinstance(raw_triples, list) else generated_graph(task.graph)[1],
    )
    if task.origin != "ours" and task.persona_markdown:  # read from an official task file
        again, _ = official_to_task(record, task.source_file or "<export>")
        if again is not None and again.persona == task.persona and again.graph == task.graph:
            return record  # the raw parts still describe the task: export them unchanged
        if again is None or again.graph != task.graph:
            record["nodes"], record["triples"] = generated_graph(task.graph)
        if again is None or again.persona != task.persona:
            record["user_persona"] = generated_persona_markdown(task)
    else:
        record["user_persona"] = generated_persona_markdown(task)
        record["nodes"], record["triples"] = generated_graph(task.graph)
    if task.domain:
        record["domain"] = task.domain
    if task.title:
        record["title"] = task.title
    record[OURS_KEY] = {
        "stage_kinds": [s.trigger.kind for s in task.persona.stages],
        "stage_cues": [list(s.cues) for s in task.persona.stages],
        "sources": list(task.sources),
    }
    return record


def write_official(task: Task, out: str | Path) -> Path:
    """Write the task's official record to ``out`` (.json: one object; .jsonl: one line), whole
    or not at all (``OutputFileError`` names the file)."""
    from .._files import write_output

    out = Path(out)
    record = task_to_official(task)
    if out.suffix == ".jsonl":
        text = json.dumps(record, ensure_ascii=False) + "\n"
    else:
        text = json.dumps(record, ensure_ascii=False, indent=2) + "\n"
    write_output(out, text)
    return out
