"""Per-run statistics, computed from the stored events only.

A live run, a resumed run and an imported official trajectory are all measured by this one
function, so their numbers compare. How each count is made (also in docs/scoring.md):

* ``n_asst`` (#Asst): assistant ``message`` events of the dialogue phase — one per LLM step of
  the agent, tool-only steps included; ``n_user`` (#User): user ``message`` events of the
  dialogue phase, the opening query included; ``asst_per_user`` = n_asst / n_user.
* The official harness counts differently, and ``official`` reproduces it (the interaction
  table of the official profile shows these): ``user_turns`` = every user message (the opening
  query and the final triple-request prompt included) except the simulator's ``[DONE]``, which
  the official harness never records as a turn; ``assistant_turns`` = every assistant message
  (the extraction answer included); ``tool_calls`` = every ``tool_call`` event. Checked against
  the official trajectories' own ``stats`` (tests/interop).
* tokens and cost: summed over ``usage`` events (the agent's own purposes — agent, extraction,
  compaction — separately from the total); cost is ``None`` ("unknown") as soon as one call had
  no known price, with the known part in ``cost_known_usd``. A call whose provider reported no
  token counts is counted in ``tokens_unknown_calls`` (and ``agent_tokens_unknown_calls``), not
  as 0 tokens: the sums are then the known part only, and the views say so.
* reply-kind rates: over the user's primary decisions (``stage`` events that are not shadows and
  not the opening).
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, Field

from ..protocol.rules import DONE_MARKER
from ..store import Store, TaskSnapshotError
from ..run.events import (
    CompactionEvent,
    EndEvent,
    MessageEvent,
    StageEvent,
    StoredEvent,
    ToolCallEvent,
    UsageEvent,
)
from ..tasks.models import Task

AGENT_PURPOSES = {"agent", "extraction", "compaction"}


class OfficialCounts(BaseModel):
    user_turns: int
    assistant_turns: int
    tool_calls: int


class RunStats(BaseModel):
    run_id: str
    n_asst: int
    n_user: int
    asst_per_user: float | None
    tool_calls: int
    tool_calls_by_tool: dict[str, int] = Field(default_factory=dict)
    input_tokens: int
    output_tokens: int
    agent_input_tokens: int
    agent_output_tokens: int
    tokens_by_purpose: dict[str, dict[str, int]] = Field(default_factory=dict)
    tokens_unknown_calls: int = 0  # usage events without token counts (the sums above leave them out)
    agent_tokens_unknown_calls: int = 0  # ... of them, the agent's own calls
    cost_usd: float | None  # None: unknown (some call had no known price)
    cost_known_usd: float
    cost_unknown_calls: int
    compactions: int | None  # None: unknown (an imported trajectory whose file does not say)
    stages_reached: int | None
    stages_total: int | None
    termination: str | None
    termination_detail: str = ""
    reply_kinds: dict[str, int] = Field(default_factory=dict)
    perfunctory_rate: float | None
    redirect_rate: float | None
    wall_time_s: float | None
    errors: int = 0
    official: OfficialCounts

    @property
    def cost_text(self) -> str:
        if self.cost_usd is not None:
            return f"${self.cost_usd:.4f}"
        if self.cost_unknown_calls and self.cost_known_usd:
            return f"unknown (known part ${self.cost_known_usd:.4f})"
        return "unknown"

    def tokens_text(self, *, agent: bool = False) -> str:
        """"in / out" tokens, saying when some calls reported no counts (the sums are then a
        floor, never a measured total) or none did."""
        unknown = self.agent_tokens_unknown_calls if agent else self.tokens_unknown_calls
        tin, tout = (self.agent_input_tokens, self.agent_output_tokens) if agent else (self.input_tokens, self.output_tokens)
        calls = sum(p["calls"] for k, p in self.tokens_by_purpose.items() if not agent or k in AGENT_PURPOSES)
        if unknown and unknown >= calls:
            return "unknown (the provider reported no token counts)"
        if unknown:
            return f"at least {tin:,} / {tout:,} ({unknown} of {calls} calls reported no counts)"
        return f"{tin:,} / {tout:,}"


def stats_from_events(
    run_id: str,
    events: list[StoredEvent],
    *,
    stages_total: int | None = None,
    termination: str | None = None,
    measure_wall_time: bool = True,
    imported: bool = False,
) -> RunStats:
    """``imported``: the events are a copy of a run made elsewhere (no usage events were kept, so
    its cost is unknown rather than zero, and the event timestamps are the import's)."""
    n_asst = n_user = all_user = all_asst = compactions = errors = 0
    tools: Counter[str] = Counter()
    by_purpose: dict[str, dict[str, int]] = {}
    costs_known = 0.0
    unknown_cost = 0
    unknown_tokens: Counter[str] = Counter()  # per purpose: calls whose provider gave no token counts
    reply_kinds: Counter[str] = Counter()
    max_stage: int | None = None
    end: EndEvent | None = None
    for ev in events:
        d = ev.data
        if isinstance(d, MessageEvent):
            if d.role == "assistant":
                all_asst += 1
                n_asst += d.phase == "dialogue"
            elif d.role == "user":
                all_user += d.content.strip() != DONE_MARKER
                n_user += d.phase == "dialogue"
        elif isinstance(d, ToolCallEvent):
            tools[d.tool] += 1
        elif isinstance(d, UsageEvent):
            slot = by_purpose.setdefault(d.purpose, {"input": 0, "output": 0, "calls": 0})
            slot["input"] += d.input_tokens or 0
            slot["output"] += d.output_tokens or 0
            slot["calls"] += 1
            if d.input_tokens is None and d.output_tokens is None:
                unknown_tokens[d.purpose] += 1
            if d.cost_usd is None:
                unknown_cost += 1
            else:
                costs_known += d.cost_usd
        elif isinstance(d, CompactionEvent):
            compactions += 1
        elif isinstance(d, StageEvent):
            if d.shadow:
                continue
            max_stage = d.stage_index if max_stage is None else max(max_stage, d.stage_index)
            if d.reply_kind != "open":
                reply_kinds[d.reply_kind] += 1
        elif isinstance(d, EndEvent):
            end = d
        elif d.kind == "error":
            errors += 1
    decisions = sum(reply_kinds.values())
    wall = None
    if measure_wall_time and not imported and len(events) >= 2:
        wall = (events[-1].ts - events[0].ts).total_seconds()
    has_usage = bool(by_purpose)
    return RunStats(
        run_id=run_id,
        n_asst=n_asst,
        n_user=n_user,
        asst_per_user=(n_asst / n_user) if n_user else None,
        tool_calls=sum(tools.values()),
        tool_calls_by_tool=dict(sorted(tools.items())),
        input_tokens=sum(p["input"] for p in by_purpose.values()),
        output_tokens=sum(p["output"] for p in by_purpose.values()),
        agent_input_tokens=sum(p["input"] for k, p in by_purpose.items() if k in AGENT_PURPOSES),
        agent_output_tokens=sum(p["output"] for k, p in by_purpose.items() if k in AGENT_PURPOSES),
        tokens_by_purpose=by_purpose,
        tokens_unknown_calls=sum(unknown_tokens.values()),
        agent_tokens_unknown_calls=sum(n for k, n in unknown_tokens.items() if k in AGENT_PURPOSES),
        # no model call at all (the offline agent and user) costs 0; an imported run's cost is unknown
        cost_usd=None if unknown_cost or (imported and not has_usage) else round(costs_known, 8),
        cost_known_usd=round(costs_known, 8),
        cost_unknown_calls=unknown_cost,
        compactions=compactions,
        stages_reached=(max_stage + 1) if max_stage is not None else None,
        stages_total=stages_total,
        termination=end.termination if end else termination,
        termination_detail=end.detail if end else "",
        reply_kinds=dict(reply_kinds),
        perfunctory_rate=(reply_kinds["perfunctory"] / decisions) if decisions else None,
        redirect_rate=(reply_kinds["redirect"] / decisions) if decisions else None,
        wall_time_s=wall,
        errors=errors,
        official=OfficialCounts(user_turns=all_user, assistant_turns=all_asst, tool_calls=sum(tools.values())),
    )


def _stages_total(task: Task | None) -> int | None:
    """How many stages the run's task has (None: unknown, for an unreadable task or the one stage
    an imported trajectory without its task is given)."""
    if task is None or task.extra.get("kind") == "imported":
        return None
    return task.stage_count()


def run_stats(store: Store, run_id: str) -> RunStats:
    """Statistics of one run from its stored events (SPEC 5.2); an imported trajectory's counts
    as its file states them (``as_the_file_says``)."""
    run = store.get_run(run_id)
    try:
        task: Task | None = run.task()
    except TaskSnapshotError:
        task = None
    events = store.events(run_id)
    stats = stats_from_events(
        run_id, events, stages_total=_stages_total(task), termination=run.termination, imported=run.source == "imported"
    )
    return as_the_file_says(stats, run.meta()) if run.source == "imported" else stats


OFFICIAL_STAT_KEYS = ("user_turns", "assistant_turns", "tool_calls")


def as_the_file_says(stats: RunStats, meta: dict) -> RunStats:
    """An imported official trajectory's statistics where its file defines them: the official
    counts (#Asst / #User of the official profile, tool calls) from the file's ``stats`` — an
    excerpt's events are only part of the conversation —, and the compactions from the file's
    ``token_usage.compact_count`` (kept in the run's meta as ``compactions`` at import), else
    unknown: the trajectory files of the benchmark's site record none."""
    file_stats = meta.get("stats")
    update: dict = {"compactions": meta.get("compactions") if isinstance(meta.get("compactions"), int) else None}
    if isinstance(file_stats, dict) and all(isinstance(file_stats.get(k), int) for k in OFFICIAL_STAT_KEYS):
        update["official"] = OfficialCounts(**{k: file_stats[k] for k in OFFICIAL_STAT_KEYS})
    return stats.model_copy(update=update)
