"""How far a user simulator is from a person: the fidelity study (docs/fidelity.md).

Every run a person played beside a shadow simulator records, at each of the person's turns, what
the shadow would have decided on the same state (``users/shadow.py``). Over a chosen set of runs
this module reports

* **decision agreement**: person vs shadow, each turn's decision put in one of four categories
  (``advanced`` — the next stage disclosed, ``pushed``, ``held`` — neither, ``done``), overall and
  per trigger kind of the stage that was next, per stage position and per the person's reply kind,
  with the confusion of the categories and the turns where the two differ;
* **pace**: turns to each stage and to the end, and the stages reached, for the people's runs and
  for runs the simulator played on the same tasks;
* **outcome gap**: for one agent configuration on the same tasks, the graph's F1 and the stages
  reached with people minus with the simulator, paired by task;
* **style**: reply length, replies that ask back, push-backs and off-topic turns.

Each rate has a 95% percentile-bootstrap interval (turns — or, for the outcome gap, tasks —
resampled with a fixed seed: ``_bootstrap.bootstrap_mean``); one report per simulator model.

Which user kinds a person plays, which a simulator plays and which of those call a model are the
sub-vocabularies of ``vibesearch.config`` (``PERSON_USER_KINDS``, ``SIMULATED_USER_KINDS``,
``MODEL_USER_KINDS``): the users registry's flags as data, since labels sit below ``users/`` and
cannot ask the registry (a test keeps the two in agreement).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterable, Literal

from ..config import MODEL_USER_KINDS, PERSON_USER_KINDS, SIMULATED_USER_KINDS
from ..run.events import MessageEvent, StageEvent
from ..store import Store, TaskSnapshotError
from ..store.tables import Run
from ..tasks.models import Task
from ..scoring.bootstrap import bootstrap_mean, bootstrap_settings

Category = Literal["advanced", "pushed", "held", "done"]
CATEGORIES: tuple[Category, ...] = ("advanced", "pushed", "held", "done")
FIDELITY_FILTERS = ("task", "subset", "language", "simulator")
_SAID = re.compile(r"\(would have said: (.*)\)\s*$", re.DOTALL)
_WORD = re.compile(r"\w+", re.UNICODE)


class FidelityError(ValueError):
    """A fidelity request that cannot be answered (the message says why, in one line)."""


def category(stage: StageEvent) -> Category:
    if stage.reply_kind == "done":
        return "done"
    if stage.advanced:
        return "advanced"
    return "pushed" if stage.reply_kind == "push" else "held"


@dataclass
class TurnPair:
    """One turn of a person with the shadow's decision on the same state."""

    run_id: str
    task_id: str
    simulator: str  # the shadow's model, or "rules"
    turn: int  # user turns numbered from 1 (the opening is turn 1)
    next_stage: int | None  # the stage that could be disclosed, numbered from 1 (None: all were)
    stages: int
    trigger: str  # that stage's trigger kind ("none" when all were disclosed)
    person: Category
    shadow: Category
    person_kind: str
    shadow_kind: str
    agent_message: str
    person_reply: str
    shadow_reply: str

    @property
    def agree(self) -> bool:
        return self.person == self.shadow


@dataclass
class RunPath:
    """What one run's user did: the turn each stage was disclosed at, the turns, its replies."""

    run_id: str
    task_id: str
    side: str  # "person" or the simulator's name
    agent: str
    turns: int
    stages_reached: int
    stages_total: int
    stage_turns: dict[int, int] = field(default_factory=dict)  # stage number (from 2) -> turn
    decisions: list[str] = field(default_factory=list)  # the reply kinds after the opening
    replies: list[str] = field(default_factory=list)  # the user's messages after the opening


# ------------------------------------------------------------------ reading runs
def _facts(run: Run) -> tuple[Task | None, dict[str, str]]:
    try:
        task: Task | None = run.task()
    except TaskSnapshotError:
        task = None
    return task, {"task": run.task_id, "subset": task.subset if task else "", "language": task.language if task else ""}


def _shadow_model(run: Run) -> str:
    config = run.run_config()
    return (config.user.shadow if config is not None else None) or ""


def select_runs(
    store: Store, filters: dict[str, str] | None = None, *, since: datetime | None = None, until: datetime | None = None,
    may_read: Callable[[Run], bool] | None = None,
) -> tuple[list[Run], list[Run], dict[str, int]]:
    """The finished runs people played beside a shadow, the finished runs a simulator played on the
    same tasks, and how many others were left out (and why). ``may_read``: only the runs it
    accepts are seen at all (the app's read policy)."""
    wanted = dict(filters or {})
    unknown = sorted(set(wanted) - set(FIDELITY_FILTERS))
    if unknown:
        raise FidelityError(f"unknown filter {unknown[0]!r} (one of {', '.join(FIDELITY_FILTERS)})")
    left: Counter[str] = Counter()
    people: list[Run] = []
    simulated: list[Run] = []
    for run in store.list_runs():
        if run.source != "live" or (since and run.created_at < since) or (until and run.created_at > until):
            continue
        if may_read is not None and not may_read(run):
            continue
        _task, facts = _facts(run)
        if any(facts.get(k, v) != v for k, v in wanted.items() if k != "simulator"):
            continue
        if run.user in PERSON_USER_KINDS:
            if "simulator" in wanted and _shadow_model(run) != wanted["simulator"]:
                continue
            if run.status != "finished":
                left[f"people's runs {run.status}"] += 1
            elif not _shadow_model(run):
                left["people's runs without a shadow"] += 1
            else:
                people.append(run)
        elif run.user in SIMULATED_USER_KINDS and run.status == "finished":
            simulated.append(run)
    tasks = {r.task_id for r in people}
    name = wanted.get("simulator")
    simulated = [r for r in simulated if r.task_id in tasks and (name is None or _simulator_of(r) == name)]
    return people, simulated, dict(left)


def _simulator_of(run: Run) -> str:
    """The simulator of a simulated run: its model, or the kind's name for one that calls none."""
    return (run.simulator_model or run.user) if run.user in MODEL_USER_KINDS else run.user


def _stage_facts(task: Task | None, pointer: int) -> tuple[int | None, int, str]:
    total = len(task.persona.stages) if task else 0
    nxt = pointer + 1
    if task is None or nxt >= total:
        return None, total, "none"
    return nxt + 1, total, task.persona.stages[nxt].trigger.kind


def read_run(store: Store, run: Run, side: str) -> tuple[RunPath, list[TurnPair]]:
    """One run's path, and its person/shadow turn pairs (none for a simulated run)."""
    task, _ = _facts(run)
    path = RunPath(run.id, run.task_id, side, _agent_of(run), 0, 0, len(task.persona.stages) if task else 0)
    pairs: list[TurnPair] = []
    agent_text = ""
    last_kind = "open"
    pending: TurnPair | None = None
    events = [e.data for e in store.events(run.id, kinds=["stage", "message"])]
    for i, data in enumerate(events):
        if isinstance(data, MessageEvent):
            if data.role == "assistant" and data.final and data.phase == "dialogue":
                agent_text = data.content
            elif data.role == "user" and data.phase == "dialogue" and path.turns > 1 and last_kind != "done":
                path.replies.append(data.content)
                if pending is not None:
                    pending.person_reply = data.content
                    pending = None
            continue
        if not isinstance(data, StageEvent) or data.shadow:
            continue
        path.turns += 1
        last_kind = data.reply_kind
        pointer_before = data.stage_index - (1 if data.advanced else 0)
        if data.reply_kind != "open":
            path.decisions.append(data.reply_kind)
        if data.advanced:
            path.stage_turns[data.stage_index + 1] = path.turns
        path.stages_reached = max(path.stages_reached, data.stage_index + 1)
        shadow = events[i + 1] if i + 1 < len(events) else None
        if data.reply_kind != "open" and isinstance(shadow, StageEvent) and shadow.shadow:
            nxt, total, trigger = _stage_facts(task, pointer_before)
            said = _SAID.search(shadow.rationale or "")
            pending = TurnPair(
                run.id, run.task_id, side, path.turns, nxt, total, trigger, category(data), category(shadow),
                data.reply_kind, shadow.reply_kind, agent_text, "", said.group(1) if said else "",
            )
            pairs.append(pending)
    return path, pairs


def _agent_of(run: Run) -> str:
    return f"{run.agent}:{run.agent_model}" if run.agent_model else run.agent


# ------------------------------------------------------------------ measures
def rate(values: Iterable[bool]) -> dict[str, Any]:
    """A share with its bootstrap interval."""
    vals = [bool(v) for v in values]
    if not vals:
        return {"n": 0, "rate": None, "ci": None}
    return {"n": len(vals), "rate": sum(vals) / len(vals), "ci": bootstrap_mean([float(v) for v in vals])}


def agreement_by(pairs: list[TurnPair], key: str) -> list[dict[str, Any]]:
    groups: dict[Any, list[TurnPair]] = defaultdict(list)
    for p in pairs:
        groups[getattr(p, key)].append(p)
    return [{key: k, **rate(p.agree for p in group)} for k, group in sorted(groups.items(), key=lambda kv: str(kv[0]))]


def confusion(pairs: list[TurnPair]) -> dict[str, dict[str, int]]:
    """person category -> shadow category -> turns."""
    table: dict[str, dict[str, int]] = {a: {b: 0 for b in CATEGORIES} for a in CATEGORIES}
    for p in pairs:
        table[p.person][p.shadow] += 1
    return table


def distribution(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0, "mean": None, "median": None, "q1": None, "q3": None, "values": []}
    ordered = sorted(values)
    quart = statistics.quantiles(ordered, n=4, method="inclusive") if len(ordered) > 1 else [ordered[0]] * 3
    return {"n": len(ordered), "mean": statistics.fmean(ordered), "median": statistics.median(ordered), "q1": quart[0], "q3": quart[2], "values": ordered}


def pace(paths: list[RunPath]) -> dict[str, Any]:
    by_stage: dict[int, list[float]] = defaultdict(list)
    for p in paths:
        for stage, turn in p.stage_turns.items():
            by_stage[stage].append(float(turn))
    return {
        "runs": len(paths),
        "turns_to_end": distribution([float(p.turns) for p in paths]),
        "stages_reached": distribution([float(p.stages_reached) for p in paths]),
        "turns_to_stage": {str(k): distribution(v) for k, v in sorted(by_stage.items())},
    }


def words(text: str) -> int:
    return len(_WORD.findall(text))


def asks_back(text: str) -> bool:
    return "?" in text or "？" in text


def style(replies: list[str], decisions: list[str]) -> dict[str, Any]:
    """Simple text measures of one side's replies (no model needed)."""
    return {
        "replies": len(replies),
        "words_per_reply": distribution([float(words(r)) for r in replies]),
        "asks_back": rate(asks_back(r) for r in replies),
        "pushes_back": rate(d == "push" for d in decisions),
        "off_topic": rate(d == "redirect" for d in decisions),
    }


def outcome_gap(store: Store, people: list[Run], simulated: list[Run], *, judge: str | None = None) -> list[dict[str, Any]]:
    """Per agent configuration: F1 and stages reached with people minus with the simulator, paired
    by task (each task's runs averaged first), with a paired bootstrap interval over tasks."""
    f1: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    reached: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for side, runs in (("person", people), ("simulator", simulated)):
        for run in runs:
            key = (_agent_of(run), run.task_id, side)
            score = _latest_f1(store, run.id, judge)
            if score is not None:
                f1[key].append(score)
            path, _ = read_run(store, run, side)
            reached[key].append(float(path.stages_reached))
    out = []
    for agent in sorted({k[0] for k in reached}):
        tasks = sorted({k[1] for k in reached if k[0] == agent})
        row: dict[str, Any] = {"agent": agent}
        for name, table in (("f1", f1), ("stages_reached", reached)):
            diffs = [
                statistics.fmean(table[(agent, t, "person")]) - statistics.fmean(table[(agent, t, "simulator")])
                for t in tasks if table.get((agent, t, "person")) and table.get((agent, t, "simulator"))
            ]
            row[name] = {"tasks": len(diffs), "person_minus_simulator": statistics.fmean(diffs) if diffs else None,
                         "ci": bootstrap_mean(diffs) if diffs else None}
        out.append(row)
    return out


def _latest_f1(store: Store, run_id: str, judge: str | None) -> float | None:
    rows = [s for s in store.scores(run_id) if judge is None or s.judge == judge]
    return max(rows, key=lambda s: (s.created_at, s.id or 0)).f1 if rows else None


# ------------------------------------------------------------------ the report
def fidelity_report(
    store: Store, filters: dict[str, str] | None = None, *, since: datetime | None = None, until: datetime | None = None,
    judge: str | None = None, may_read: Callable[[Run], bool] | None = None,
) -> dict[str, Any]:
    """The whole study as one JSON-ready dict: one entry per simulator model."""
    people, simulated, left_out = select_runs(store, filters, since=since, until=until, may_read=may_read)
    if not people:
        raise FidelityError("no finished run played by a person beside a shadow matches" + (f" {filters}" if filters else ""))
    reports = []
    by_simulator: dict[str, list[Run]] = defaultdict(list)
    for run in people:
        by_simulator[_shadow_model(run)].append(run)
    for name, runs in sorted(by_simulator.items()):
        person_paths, pairs = [], []
        for run in runs:
            path, got = read_run(store, run, "person")
            person_paths.append(path)
            pairs += got
        sims = [r for r in simulated if _simulator_of(r) == name and r.task_id in {x.task_id for x in runs}]
        sim_paths = [read_run(store, r, name)[0] for r in sims]
        reports.append({
            "simulator": name,
            "people_runs": len(runs),
            "simulator_runs": len(sims),
            "agreement": rate(p.agree for p in pairs),
            "agreement_by_trigger": agreement_by(pairs, "trigger"),
            "agreement_by_stage": agreement_by(pairs, "next_stage"),
            "agreement_by_reply_kind": agreement_by(pairs, "person_kind"),
            "confusion": confusion(pairs),
            "disagreements": [asdict(p) for p in pairs if not p.agree],
            "pace": {"person": pace(person_paths), "simulator": pace(sim_paths)},
            "outcome_gap": outcome_gap(store, runs, sims, judge=judge),
            "style": {
                "person": style([r for p in person_paths for r in p.replies], [d for p in person_paths for d in p.decisions]),
                "shadow": style([p.shadow_reply for p in pairs if p.shadow_reply], [p.shadow_kind for p in pairs]),
                "simulator": style([r for p in sim_paths for r in p.replies], [d for p in sim_paths for d in p.decisions]),
            },
        })
    return {"filters": filters or {}, "left_out": left_out, "bootstrap": bootstrap_settings(), "simulators": reports}


def rate_text(entry: dict[str, Any]) -> str:
    """A share as people read it: "50% [12–88]" (percent, its interval); "–" when undefined."""
    if entry.get("rate") is None:
        return "–"
    ci = entry.get("ci")
    return f"{100 * entry['rate']:.0f}%" + (f" [{100 * ci[0]:.0f}–{100 * ci[1]:.0f}]" if ci else "")


def number_text(value: Any, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


DISAGREEMENT_COLUMNS = (
    "simulator", "run_id", "task_id", "turn", "next_stage", "trigger", "person", "shadow", "person_kind", "shadow_kind",
    "agent_message", "person_reply", "shadow_reply",
)
