"""Import of official VibeSearchBench trajectory files as runs.

A trajectory file (``data/trajs/<subset>/*.json`` of the benchmark's site) holds the question,
the termination, the official judge's ``metrics``, the official ``stats`` and the ``turns``. Each
file becomes one run (``source="imported"``, agent "imported", user "simulator") whose events are:

* a user entry → ``message`` (user); the last user entry, the official triple-request prompt,
  with ``phase="extraction"``, as is every assistant entry after it; with the task attached, each
  dialogue user entry is preceded by a ``stage`` decision read off its text (``decided_by="import"``:
  the file records none), so a replay moves through the persona's stages;
* an assistant entry → ``message`` (assistant: thinking, content, ``n_tool_calls``), then for each
  tool call a ``tool_call`` (its args) and a ``tool_result`` (its result);
* the final answer's triples → ``graph`` (``source="import"``), read from the last assistant
  content with json-repair, or from a final-extraction file ``{qid, total, triplets}``;
* the termination → ``end`` (mapped to ours; the original name kept in ``detail``).

The run is the official profile's (its meta says ``protocol: official``, its prompts the official
harness's): scored under it by default, shown under it in reports. With the official counting
(``RunStats.official``) the imported events give back the file's own ``stats``: user_turns = user
entries, assistant_turns = assistant entries, tool_calls = tool-call objects; reports take the
file's ``stats`` as they are (an excerpt's events are only part of the conversation), and its
compactions from the file's ``token_usage.compact_count``, else "unknown" (the site's files do not
record them). The file has no ground truth: without ``task`` the run's task snapshot carries the
question and an empty graph, and scoring it needs the task attached (``--task FILE``).

A pro *excerpt* (``{header, first_turns_condensed, last_turn_tail}``, a cut copy of a file too
large to keep) is loaded with what it has; its counts cannot equal the file's stats and the
result says so (``complete=False``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..store import Run, Store, build_run
from ..run import EventData, GraphEvent, MessageEvent, NoteEvent, StageEvent, Termination, ToolCallEvent, ToolResultEvent
from ..run.events import Phase
from ..run.protocols import UserState
from ..run.transcript import OFFICIAL_COUNT_KEYS, Transcript
from ..run.stages import decision_event
from ..session.lifecycle import end_event
from ..tasks.models import Task
from ._answer import is_cut, parse_triples
from ._read import ImportFileError, Trajectory, read_extraction, read_trajectory

__all__ = [
    "ImportFileError", "ImportResult", "PreparedImport", "Trajectory", "import_trajectory", "load_task_file",
    "prepare_import", "read_extraction", "read_trajectory", "store_imports",
]

TERMINATIONS: dict[str, Termination] = {
    "answer": "answer",
    "max_rounds": "max_rounds",  # the 200-call budget, our termination of the same name
    "context_length": "context_length",
    "error_loop": "error_loop",  # the agent's calls failed 10 times in a row; ours of the same name
    "no_response": "no_response",  # the OpenClaw driver: no reply, nudges included
    "malformed_tool_call": "error",
    "empty_response": "error",
}
IMPORTED_PROMPTS = "the official harness's prompts (an imported trajectory)"
HEADER_KEYS = ("qid", "subset", "sample_idx", "question", "short_title", "termination", "metrics", "stats", "response_preview")


class ImportResult(BaseModel):
    run_id: str
    file: str
    qid: str
    counted: dict[str, int]
    file_stats: dict[str, Any]
    file_metrics: dict[str, Any]
    complete: bool
    matches: bool | None  # our counts equal the file's stats (None: the file is an excerpt)
    n_triples: int
    graph_from: str
    notes: list[str] = Field(default_factory=list)


def _language(text: str) -> str:
    from ..judges.offline import CJK

    return "zh" if CJK.search(text or "") else "en"


def _snapshot(traj: Trajectory, first_user: str) -> dict[str, Any]:
    h = traj.header
    question = str(h.get("question") or first_user or h["qid"])
    opening = first_user or question
    return {
        "id": traj.qid,
        "subset": h.get("subset") if h.get("subset") in ("pro", "daily") else "daily",
        "language": _language(question),
        "domain": "",
        "title": str(h.get("short_title") or ""),
        "persona": {
            "background": "Imported official trajectory: the persona is not part of the file.",
            "initial_query": opening,
            "behavior": "",
            "stages": [{"name": "Initial question", "trigger": {"kind": "start", "condition": "conversation start"},
                        "line": opening, "fallback": None, "cues": []}],
        },
        "graph": [],
        "final_query": question,
        "extra": {"kind": "imported", "qid": traj.qid},
        "origin": "official",
    }


def _answer_triples(traj: Trajectory, last_user: int | None) -> tuple[list[dict[str, str]], str, list[str], list[dict], str]:
    """(triples, raw text, repaired notes, dropped, where they came from)."""
    last = None
    for i in range(len(traj.turns) - 1, -1, -1):
        if traj.turns[i]["type"] == "assistant" and (last_user is None or i > last_user):
            last = traj.turns[i]
            break
    answer = str((last or {}).get("content") or "")
    if answer and not is_cut(answer) and traj.complete:
        triples, repaired, dropped = parse_triples(answer)
        return triples, answer, repaired, dropped, "the last assistant message"
    # a cut answer: gather what the beginning (response_preview) and the kept part tell
    preview = str(traj.header.get("response_preview") or "")
    seen, triples, repaired, dropped = set(), [], [], []
    for text in (preview, answer):
        got, rep, drop = parse_triples(text)
        repaired += rep
        dropped += drop
        for t in got:
            key = (t["head"], t["relation"], t["tail"])
            if key not in seen:
                seen.add(key)
                triples.append(t)
    repaired.append(f"the final answer is cut in this file: {len(triples)} triples read from what is there")
    return triples, answer, repaired, dropped, "the cut final answer (response_preview + last assistant message)"


class _StageReader:
    """Stage decisions for an imported dialogue whose task is attached. The file records none, so
    each simulated user message is read the way the paper simulator's replies are
    (``users.paper.infer_turn``: the next stage counts as disclosed when its line appears in the
    message) and the pointer moves by the one rule (``run.stages.decision_event``)."""

    def __init__(self, task: Task):
        self.task = task
        self.pointer: int | None = None  # None until the opening

    def read(self, text: str) -> StageEvent:
        from ..users.paper import infer_turn

        if self.pointer is None:
            self.pointer = 0
            first = self.task.persona.stages[0]
            return StageEvent(stage_index=0, stage_name=first.name, reply_kind="open", decided_by="import",
                              rationale="the file's first user message")
        turn = infer_turn(self.task, UserState(task=self.task, stage_index=self.pointer), text)
        event = decision_event(self.task, self.pointer, turn, "import", (turn.rationale or "").replace("inferred from text", "read off the text at import", 1))
        self.pointer = event.stage_index
        return event


@dataclass
class PreparedImport:
    """One trajectory turned into a run row and its events, not yet stored."""

    path: str
    traj: Trajectory
    run: Run
    events: list[EventData]
    notes: list[str]
    n_triples: int
    graph_from: str
    repaired: list[str] = field(default_factory=list)


def prepare_import(
    path: str | Path, *, task: Task | None = None, extraction: dict[str, Any] | None = None, traj: Trajectory | None = None
) -> PreparedImport:
    """Read and check a trajectory (or take the one already read from ``path``) and build
    everything to store, touching no database (raises ``ImportFileError`` naming the file and field)."""
    traj = traj if traj is not None else read_trajectory(path)
    h = traj.header
    users = [i for i, t in enumerate(traj.turns) if t["type"] == "user"]
    # the official harness ends with its triple-request prompt; an excerpt may not contain it
    extraction_prompt = users[-1] if users and traj.complete and len(users) > 1 else None
    first_user = str(traj.turns[users[0]].get("content", "")) if users else ""
    notes = list(traj.notes)
    if task is not None:
        snapshot = task.model_dump(mode="json")
        if task.id != traj.qid:
            notes.append(f"the task attached has id {task.id!r}, the trajectory's qid is {traj.qid!r}")
    else:
        snapshot = _snapshot(traj, first_user)
        notes.append("no ground truth attached: import again with --task FILE to score this run")
    original = str(h.get("termination") or "")
    termination: Termination = TERMINATIONS.get(original, "imported")
    meta = {k: h[k] for k in HEADER_KEYS if k in h}
    # made by the official harness: its profile, and the prompts it ran with
    meta.update({"file": str(path), "complete": traj.complete, "termination_original": original,
                 "protocol": "official", "prompt_source": IMPORTED_PROMPTS})
    usage = h.get("token_usage")
    if isinstance(usage, dict) and isinstance(usage.get("compact_count"), int) and not isinstance(usage.get("compact_count"), bool):
        meta["compactions"] = usage["compact_count"]  # the official trace's own count (the site's files have none)
    if task is not None:
        meta["task_file"] = task.source_file
    if traj.excerpt_info:
        meta["excerpt"] = traj.excerpt_info
    run = build_run(
        task.id if task is not None else traj.qid,
        task_json=snapshot,
        config={"imported_from": str(path)},
        meta=meta,
        kind="persona",
        status="finished",
        termination=termination,
        agent="imported",
        user="simulator",
        source="imported",
        run_index=h.get("sample_idx") or 0,  # checked by read_trajectory: a small whole number
    )
    events: list[EventData] = [NoteEvent(text=f"imported from {Path(path).name}", data={"qid": traj.qid, "complete": traj.complete})]
    phase: Phase = "dialogue"
    stages = _StageReader(task) if task is not None and task.persona.stages else None
    for i, turn in enumerate(traj.turns):
        if i == extraction_prompt or turn.get("_tail_of_last_turn"):
            phase = "extraction"
        if turn["type"] == "user":
            text = str(turn.get("content") or "")
            if stages is not None and phase == "dialogue":
                events.append(stages.read(text))
            events.append(MessageEvent(role="user", content=text, phase=phase))
            continue
        calls = turn.get("tool_calls") or []
        events.append(
            MessageEvent(
                role="assistant",
                content=str(turn.get("content") or ""),
                thinking=str(turn["thinking"]) if turn.get("thinking") else None,
                phase=phase,
                n_tool_calls=len(calls),
                final=not calls,
            )
        )
        for k, call in enumerate(calls):
            call_id = str(call.get("id") or f"imported_{i}_{k}")
            args = call.get("args", {})
            events.append(
                ToolCallEvent(
                    call_id=call_id,
                    tool=str(call["name"]),
                    arguments=args if isinstance(args, dict) else {},
                    raw_arguments=None if isinstance(args, dict) else json.dumps(args, ensure_ascii=False),
                )
            )
            result = call.get("result")
            events.append(ToolResultEvent(call_id=call_id, tool=str(call["name"]), content="" if result is None else str(result), error=result is None))
    if extraction is not None:
        triples = [t for t in (_triple(x) for x in extraction["triplets"]) if t is not None]
        raw = json.dumps(extraction["triplets"], ensure_ascii=False)
        repaired: list[str] = []
        dropped: list[dict[str, Any]] = []
        graph_from = "the final-extraction file"
        total = extraction.get("total")
        if isinstance(total, int) and total != len(extraction["triplets"]):
            notes.append(f"the extraction file says total={total} but holds {len(extraction['triplets'])} triplets")
    else:
        triples, raw, repaired, dropped, graph_from = _answer_triples(traj, extraction_prompt)
    events.append(GraphEvent(triples=triples, raw_text=raw, repaired=repaired, dropped=dropped, source="import"))
    events.append(end_event(termination, f"official termination: {original}"))
    return PreparedImport(str(path), traj, run, events, notes, len(triples), graph_from, repaired)


def store_imports(store: Store, prepared: list[PreparedImport]) -> list[ImportResult]:
    """Store prepared imports in one transaction (all runs or none) and compare the counts."""
    store.import_runs([(p.run, p.events) for p in prepared])
    results = []
    for p in prepared:
        h = p.traj.header
        # our own count of the stored events (the transcript view's rule; every surface shows the
        # file's stats instead: ``run.transcript.file_counts``)
        counted = asdict(Transcript.of(store.events(p.run.id), imported=True).counts.official)
        stats, metrics = h.get("stats"), h.get("metrics")
        file_stats: dict[str, Any] = stats if isinstance(stats, dict) else {}
        matches = None
        if p.traj.complete and file_stats:
            matches = all(counted.get(k) == file_stats.get(k) for k in OFFICIAL_COUNT_KEYS)
        results.append(ImportResult(
            run_id=p.run.id,
            file=p.path,
            qid=p.traj.qid,
            counted=counted,
            file_stats=file_stats,
            file_metrics=metrics if isinstance(metrics, dict) else {},
            complete=p.traj.complete,
            matches=matches,
            n_triples=p.n_triples,
            graph_from=p.graph_from,
            notes=p.notes + [r for r in p.repaired if "cut" in r],
        ))
    return results


def import_trajectory(
    store: Store, path: str | Path, *, task: Task | None = None, extraction: dict[str, Any] | None = None
) -> ImportResult:
    """Import one trajectory file as one run: all of it, or (on any problem) nothing."""
    return store_imports(store, [prepare_import(path, task=task, extraction=extraction)])[0]


def _triple(x: Any) -> dict[str, str] | None:
    from ._answer import _as_triple

    return _as_triple(x)


def load_task_file(path: str | Path, qid: str | None = None, *, warn: Any = None) -> Task:
    """The task to attach: our format or the official one; with several, the one named ``qid``.
    ``warn`` (optional) is called with each warning the file gives."""
    from .._files import short
    from ..tasks import parse_task_file

    path = Path(path)
    if not path.exists():
        raise ImportFileError(f"{path}: no such file (--task)")
    tasks, problems = parse_task_file(path)
    errors = [p for p in problems if not p.warning]
    if errors:
        more = f" (and {len(errors) - 1} more problems; see `vibesearch tasks validate {path}`)" if len(errors) > 1 else ""
        raise ImportFileError(f"--task: {errors[0]}{more}")
    for p in problems:
        if warn is not None:
            warn(p)
    if not tasks:
        raise ImportFileError(f"{path}: no task in the file (--task)")
    if qid is not None:
        for t in tasks:
            if t.id == qid:
                return t
    if len(tasks) == 1:
        return tasks[0]
    raise ImportFileError(f"{path}: holds {len(tasks)} tasks and none has the id {short(qid)} (--task)")
