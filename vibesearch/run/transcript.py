"""One view of a run's transcript, built once from its stored events, and the one counting rule.

Every surface reads a run through this module: the app (its counters, stepper and stage
timeline), the static site (its run pages and replay), the terminal (``vibesearch play`` /
``vibesearch agent ask`` and the batch summary) and the statistics (``scoring.stats``). So a
count is made in one place, and a number is the same wherever it is shown.

* ``Tally`` — the counting rule, event by event (the recorder keeps one while a run is going:
  its budget and the run's result read it). What each count is:

  - ``n_asst`` (#Asst): assistant ``message`` events of the dialogue phase, one per LLM step of
    the agent, tool-only steps included; ``n_user`` (#User): user ``message`` events of the
    dialogue phase, the opening query included (docs/scoring.md).
  - ``official``: the official harness's counts (docs/protocol.md row 10): every user message of
    both phases except the simulator's completion signal (``DONE_MARKER``, never a turn there),
    every assistant message (the extraction answer included), every tool call.
  - tokens and cost per purpose from the ``usage`` events; a call without token counts or
    without a price is counted as unknown, never as 0.
  - ``compactions``, ``errors``, the user's reply kinds (primary decisions, the opening left
    out) and the stage reached (the furthest non-shadow stage pointer, counted from 1).

* ``Transcript`` — turns → steps → tool calls with their results, each turn's model calls and
  notes (compactions, errors, notes), the stage decisions with the user turn they were taken
  on, the graph and the end; and its ``Counts``. An imported trajectory's counts are the file's
  where the file states them (``file_counts``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Iterable, Iterator, Mapping, Union

from .events import (
    DONE_MARKER,
    CompactionEvent,
    EndEvent,
    ErrorEvent,
    EventData,
    GraphEvent,
    MessageEvent,
    NoteEvent,
    StageEvent,
    StoredEvent,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
    WebEvent,
)
from .web import REPLAY_MISSES

AGENT_PURPOSES = frozenset({"agent", "extraction", "compaction"})  # the agent's own model calls
OFFICIAL_COUNT_KEYS = ("user_turns", "assistant_turns", "tool_calls")


def is_user_turn(data: EventData) -> bool:
    """A user turn (#User): a user message of the dialogue phase (the opening query included)."""
    return isinstance(data, MessageEvent) and data.role == "user" and data.phase == "dialogue"


def is_assistant_step(data: EventData) -> bool:
    """An assistant step (#Asst): an assistant message of the dialogue phase (one LLM call)."""
    return isinstance(data, MessageEvent) and data.role == "assistant" and data.phase == "dialogue"


@dataclass(frozen=True)
class OfficialTally:
    """The official harness's own counts of a run (its trajectory files' ``stats``)."""

    user_turns: int
    assistant_turns: int
    tool_calls: int


@dataclass(frozen=True)
class Counts:
    """What a run's events count to (see the module's description of each number)."""

    n_asst: int = 0
    n_user: int = 0
    official: OfficialTally = OfficialTally(0, 0, 0)
    tool_calls_by_tool: Mapping[str, int] = field(default_factory=dict)
    tokens_by_purpose: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # purpose -> input/output/calls
    tokens_unknown_by_purpose: Mapping[str, int] = field(default_factory=dict)  # calls reporting no token counts
    cost_known_usd: float = 0.0
    cost_unknown_calls: int = 0
    compactions: int | None = 0  # None: unknown (an imported trajectory whose file does not say)
    errors: int = 0
    reply_kinds: Mapping[str, int] = field(default_factory=dict)
    stages_reached: int | None = None  # None: no stage decision recorded
    termination: str | None = None
    termination_detail: str = ""
    imported: bool = False  # a copy of a run made elsewhere: no usage kept means an unknown cost
    # the run's web exchanges (``WebEvent``): "recorded", and a replay's "exact", "fallback", "missing"
    web: Mapping[str, int] = field(default_factory=dict)

    @property
    def web_misses(self) -> int:
        """Requests a replay could not answer as recorded (an unseen query, an unseen URL)."""
        return sum(self.web.get(k, 0) for k in REPLAY_MISSES)

    @property
    def tool_calls(self) -> int:
        return sum(self.tool_calls_by_tool.values())

    @property
    def asst_per_user(self) -> float | None:
        return self.n_asst / self.n_user if self.n_user else None

    def _sum(self, key: str, *, agent: bool = False) -> int:
        return sum(p[key] for k, p in self.tokens_by_purpose.items() if not agent or k in AGENT_PURPOSES)

    @property
    def input_tokens(self) -> int:
        return self._sum("input")

    @property
    def output_tokens(self) -> int:
        return self._sum("output")

    @property
    def agent_input_tokens(self) -> int:
        return self._sum("input", agent=True)

    @property
    def agent_output_tokens(self) -> int:
        return self._sum("output", agent=True)

    @property
    def tokens(self) -> int:
        """Every known token, in and out, of every purpose (what a token budget counts)."""
        return self.input_tokens + self.output_tokens

    @property
    def tokens_unknown_calls(self) -> int:
        return sum(self.tokens_unknown_by_purpose.values())

    @property
    def agent_tokens_unknown_calls(self) -> int:
        return sum(n for k, n in self.tokens_unknown_by_purpose.items() if k in AGENT_PURPOSES)

    @property
    def agent_calls(self) -> int:
        """The agent's own model calls of the dialogue (purpose ``agent``)."""
        return self.tokens_by_purpose.get("agent", {}).get("calls", 0)

    @property
    def cost_usd(self) -> float | None:
        """None: unknown (a call had no known price, or an imported run kept no usage at all);
        no model call at all (the offline agent and user) costs 0."""
        if self.cost_unknown_calls or (self.imported and not self.tokens_by_purpose):
            return None
        return round(self.cost_known_usd, 8)

    @property
    def decisions(self) -> int:
        return sum(self.reply_kinds.values())

    def rate(self, kind: str) -> float | None:
        """The share of the user's primary decisions that were ``kind``."""
        return self.reply_kinds.get(kind, 0) / self.decisions if self.decisions else None

    def as_the_file_says(self, meta: Mapping[str, Any]) -> "Counts":
        """An imported trajectory's counts where its file states them (``file_counts``)."""
        return replace(self, **file_counts(meta))


def file_counts(meta: Mapping[str, Any]) -> dict[str, Any]:
    """What an imported official trajectory's file says of its counts (kept in the run's meta at
    import): the official counts from its ``stats`` (an excerpt's events are only part of the
    conversation), and the compactions from ``token_usage.compact_count`` (meta ``compactions``),
    else unknown: the benchmark site's trajectory files record none."""
    stats = meta.get("stats")
    compactions = meta.get("compactions")
    out: dict[str, Any] = {"compactions": compactions if isinstance(compactions, int) else None}
    if isinstance(stats, dict) and all(isinstance(stats.get(k), int) for k in OFFICIAL_COUNT_KEYS):
        out["official"] = OfficialTally(*(stats[k] for k in OFFICIAL_COUNT_KEYS))
    return out


class Tally:
    """The counting rule, one event at a time (``counts()`` is what it has counted so far)."""

    def __init__(self, *, imported: bool = False) -> None:
        self.imported = imported
        self.n_asst = self.n_user = self.all_user = self.all_asst = 0
        self.tools: Counter[str] = Counter()
        self.by_purpose: dict[str, dict[str, int]] = {}
        self.unknown_tokens: Counter[str] = Counter()
        self.cost_known = 0.0
        self.unknown_cost = 0
        self.compactions = self.errors = 0
        self.reply_kinds: Counter[str] = Counter()
        self.max_stage: int | None = None
        self.end: EndEvent | None = None
        self.web: Counter[str] = Counter()

    def add(self, d: EventData) -> None:
        if isinstance(d, MessageEvent):
            if d.role == "assistant":
                self.all_asst += 1
                self.n_asst += is_assistant_step(d)
            elif d.role == "user":
                self.all_user += d.content.strip() != DONE_MARKER
                self.n_user += is_user_turn(d)
        elif isinstance(d, ToolCallEvent):
            self.tools[d.tool] += 1
        elif isinstance(d, UsageEvent):
            slot = self.by_purpose.setdefault(d.purpose, {"input": 0, "output": 0, "calls": 0})
            slot["input"] += d.input_tokens or 0
            slot["output"] += d.output_tokens or 0
            slot["calls"] += 1
            if d.input_tokens is None and d.output_tokens is None:
                self.unknown_tokens[d.purpose] += 1
            if d.cost_usd is None:
                self.unknown_cost += 1
            else:
                self.cost_known += d.cost_usd
        elif isinstance(d, CompactionEvent):
            self.compactions += 1
        elif isinstance(d, StageEvent):
            if d.shadow:
                return
            self.max_stage = d.stage_index if self.max_stage is None else max(self.max_stage, d.stage_index)
            if d.reply_kind != "open":
                self.reply_kinds[d.reply_kind] += 1
        elif isinstance(d, EndEvent):
            self.end = d
        elif isinstance(d, ErrorEvent):
            self.errors += 1
        elif isinstance(d, WebEvent):
            self.web[d.replayed or "recorded"] += 1

    # the live counters the recorder's budget reads (no snapshot needed)
    @property
    def tokens(self) -> int:
        return sum(p["input"] + p["output"] for p in self.by_purpose.values())

    @property
    def agent_calls(self) -> int:
        return self.by_purpose.get("agent", {}).get("calls", 0)

    def counts(self) -> Counts:
        return Counts(
            n_asst=self.n_asst,
            n_user=self.n_user,
            official=OfficialTally(self.all_user, self.all_asst, sum(self.tools.values())),
            tool_calls_by_tool=dict(sorted(self.tools.items())),
            tokens_by_purpose={k: dict(v) for k, v in self.by_purpose.items()},
            tokens_unknown_by_purpose=dict(self.unknown_tokens),
            cost_known_usd=round(self.cost_known, 8),
            cost_unknown_calls=self.unknown_cost,
            compactions=self.compactions,
            errors=self.errors,
            reply_kinds=dict(self.reply_kinds),
            stages_reached=(self.max_stage + 1) if self.max_stage is not None else None,
            termination=self.end.termination if self.end else None,
            termination_detail=self.end.detail if self.end else "",
            imported=self.imported,
            web=dict(self.web),
        )


# --------------------------------------------------------------------------- the view
@dataclass(frozen=True)
class ToolCall:
    call: ToolCallEvent
    result: ToolResultEvent | None = None  # None: the call never returned (interrupted)
    # (a result is the oldest call's of its id still waiting: a result without its call is left out)


@dataclass(frozen=True)
class StepView:
    """One assistant message (an LLM step of the agent, or the extraction answer) and its calls."""

    message: MessageEvent
    calls: tuple[ToolCall, ...] = ()


Note = Union[CompactionEvent, ErrorEvent, NoteEvent, GraphEvent, EndEvent]


@dataclass(frozen=True)
class Decided:
    """A user's stage decision and the user turn (from 1) it was taken on: a decision is stored
    before the message it makes, so its turn is the dialogue's user messages before it plus one."""

    turn: int
    event: StageEvent


# one shown part of a turn, in ``TurnView.flow``: the user message, a step (its message), a tool
# call with its result, a stage decision, a note, or a result whose call is not in the run
Part = Union[MessageEvent, StepView, ToolCall, Decided, CompactionEvent, ErrorEvent, NoteEvent, GraphEvent, EndEvent, ToolResultEvent]


@dataclass(frozen=True)
class TurnView:
    """A user message and what followed it until the next: the agent's steps, its model calls,
    and the notes (compactions, errors, notes, the graph, the end). ``user`` is None for what came
    before the first user message. ``flow``: the turn's parts in the order they were stored (what
    a transcript is read in: the chat); a step's calls are parts of their own, after it, and so are
    a call made before any step of its turn and a result whose call is not in the run."""

    user: MessageEvent | None
    steps: tuple[StepView, ...] = ()
    usage: tuple[UsageEvent, ...] = ()
    notes: tuple[Note, ...] = ()
    flow: tuple[Part, ...] = ()

    @property
    def phase(self) -> str:
        return self.user.phase if self.user is not None else "dialogue"


@dataclass(frozen=True)
class Transcript:
    turns: tuple[TurnView, ...]
    decisions: tuple[Decided, ...]
    counts: Counts
    graph: GraphEvent | None = None
    end: EndEvent | None = None
    started: datetime | None = None  # the first and last stored events' times (None: fewer than two stored)
    last: datetime | None = None

    @classmethod
    def of(cls, events: Iterable[StoredEvent | EventData], *, imported: bool = False,
           file_meta: Mapping[str, Any] | None = None) -> "Transcript":
        """The view of ``events``; ``imported`` a copy of a run made elsewhere, whose file (the
        run's meta, ``file_meta``) states some of its counts."""
        tally = Tally(imported=imported)
        turns: list[dict[str, Any]] = []
        decisions: list[Decided] = []
        waiting: dict[str, list[list[Any]]] = {}  # call id -> its calls without a result, oldest first
        graph: GraphEvent | None = None
        end: EndEvent | None = None
        started = last = None
        user_turns = stored = 0
        for ev in events:
            d = ev.data if isinstance(ev, StoredEvent) else ev
            if isinstance(ev, StoredEvent):
                started = started or ev.ts
                last = ev.ts
                stored += 1
            tally.add(d)
            if isinstance(d, MessageEvent) and d.role == "user" or not turns:
                turns.append({"user": None, "steps": [], "usage": [], "notes": [], "flow": []})
            turn = turns[-1]
            flow = turn["flow"]  # parts in stored order; steps and calls resolved when the view is made
            if isinstance(d, MessageEvent):
                if d.role == "user":
                    turn["user"] = d
                    user_turns += is_user_turn(d)
                    flow.append(d)
                elif d.role == "assistant":
                    turn["steps"].append((d, []))
                    flow.append(("step", len(turn["steps"]) - 1))
            elif isinstance(d, ToolCallEvent):
                slot: list[Any] = [d, None]
                if turn["steps"]:
                    turn["steps"][-1][1].append(slot)
                waiting.setdefault(d.call_id, []).append(slot)
                flow.append(("call", slot))
            elif isinstance(d, ToolResultEvent):
                if waiting.get(d.call_id):  # the oldest call of that id still waiting (ids may repeat)
                    waiting[d.call_id].pop(0)[1] = d
                else:
                    flow.append(d)  # a result without its call (an imported excerpt): shown on its own
            elif isinstance(d, UsageEvent):
                turn["usage"].append(d)
            elif isinstance(d, StageEvent):
                decisions.append(Decided(user_turns + 1, d))
                flow.append(decisions[-1])
            elif isinstance(d, (CompactionEvent, ErrorEvent, NoteEvent, GraphEvent, EndEvent)):
                turn["notes"].append(d)
                flow.append(d)
                if isinstance(d, GraphEvent):
                    graph = d
                elif isinstance(d, EndEvent):
                    end = d
        counts = tally.counts()
        if imported and file_meta is not None:
            counts = counts.as_the_file_says(file_meta)
        return cls(
            turns=tuple(
                _turn_view(t) for t in turns if t["user"] is not None or t["steps"] or t["usage"] or t["notes"] or t["flow"]
            ),
            decisions=tuple(decisions),
            counts=counts,
            graph=graph,
            end=end,
            started=started if stored >= 2 else None,
            last=last,
        )

    def parts(self) -> Iterator[Part]:
        """Every turn's ``flow``, in stored order."""
        for turn in self.turns:
            yield from turn.flow

    def as_dict(self) -> dict[str, Any]:
        """The view as plain JSON (what the static site's replay reads): ``parts``, every turn's
        flow in stored order (``part_dict``, each with its turn's index), and ``counts`` (``summary``)."""
        return {"parts": [{**part_dict(p), "turn_index": i} for i, turn in enumerate(self.turns) for p in turn.flow],
                "counts": self.summary()}

    @property
    def stage_index(self) -> int:
        """The stage pointer after the last non-shadow decision (0 before any)."""
        for dec in reversed(self.decisions):
            if not dec.event.shadow:
                return dec.event.stage_index
        return 0

    def disclosures(self) -> dict[int, int]:
        """stage index → the user turn (from 1) it was disclosed on (the opening stage: turn 1)."""
        out = {0: 1}
        for dec in self.decisions:
            if not dec.event.shadow and dec.event.advanced:
                out[dec.event.stage_index] = dec.turn
        return out

    def wall_time_s(self) -> float | None:
        """From the first stored event to the last (None for an imported copy: its times are the import's)."""
        if self.counts.imported or self.started is None or self.last is None:
            return None
        return (self.last - self.started).total_seconds()

    def summary(self) -> dict[str, Any]:
        """The counts as plain JSON (the site embeds it beside the replay; tests compare it)."""
        c = self.counts
        return {
            "n_asst": c.n_asst,
            "n_user": c.n_user,
            "tool_calls": c.tool_calls,
            "tool_calls_by_tool": dict(c.tool_calls_by_tool),
            "input_tokens": c.input_tokens,
            "output_tokens": c.output_tokens,
            "cost_usd": c.cost_usd,
            "compactions": c.compactions,
            "stages_reached": c.stages_reached,
            "termination": c.termination,
            "official": {k: getattr(c.official, k) for k in OFFICIAL_COUNT_KEYS},
        }


def _turn_view(t: dict[str, Any]) -> TurnView:
    """One turn as ``Transcript.of`` collected it: its steps, calls and flow made into the view's
    objects (a call is the same ``ToolCall`` in its step and in the flow)."""
    calls = {id(slot): ToolCall(slot[0], slot[1]) for m, slots in t["steps"] for slot in slots}
    steps = tuple(StepView(m, tuple(calls[id(slot)] for slot in slots)) for m, slots in t["steps"])
    flow: list[Part] = []
    for part in t["flow"]:
        if isinstance(part, tuple) and part[0] == "step":
            flow.append(steps[part[1]])
        elif isinstance(part, tuple):
            slot = part[1]
            flow.append(calls.get(id(slot)) or ToolCall(slot[0], slot[1]))
        else:
            flow.append(part)
    return TurnView(user=t["user"], steps=steps, usage=tuple(t["usage"]), notes=tuple(t["notes"]), flow=tuple(flow))


def part_dict(part: Part) -> dict[str, Any]:
    """One part of a turn's flow as plain JSON: its event's fields (``kind`` says which); a step is
    its message, a tool call carries its ``result`` (None while it has none), a stage decision the
    ``user_turn`` it was taken on."""
    if isinstance(part, StepView):
        return part.message.model_dump(mode="json")
    if isinstance(part, ToolCall):
        return {**part.call.model_dump(mode="json"), "result": part.result.model_dump(mode="json") if part.result is not None else None}
    if isinstance(part, Decided):
        return {**part.event.model_dump(mode="json"), "user_turn": part.turn}
    return part.model_dump(mode="json")
