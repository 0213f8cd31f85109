"""Per-run statistics, computed from the stored events only.

A live run, a resumed run and an imported official trajectory are all measured by this one
function, so their numbers compare. The counts are the transcript view's
(``run.transcript``: ``Tally`` holds the counting rule, one place for the app, the site, the
terminal and these statistics; docs/scoring.md says how each is made); ``RunStats`` is their
shape in reports and tables.
"""

from __future__ import annotations

from typing import Iterable

from pydantic import BaseModel, Field

from ..run.events import StoredEvent
from ..run.transcript import AGENT_PURPOSES, OFFICIAL_COUNT_KEYS, Counts, OfficialTally, Transcript, file_counts
from ..store import Store, TaskSnapshotError
from ..store.tables import Run
from ..tasks.models import Task

__all__ = ["AGENT_PURPOSES", "OfficialCounts", "RunStats", "as_the_file_says", "run_stats", "stats_from_events", "stages_total_of", "stats_of"]


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
    # the run's web (docs/web.md): exchanges it recorded, requests a replay answered, and of those
    # the ones the recording did not hold as asked (an unseen query by BM25, an unseen URL)
    web_recorded: int = 0
    web_replayed: int = 0
    web_replay_misses: int = 0
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
    view = Transcript.of(events, imported=imported)
    return stats_of(run_id, view.counts, stages_total=stages_total, termination=termination,
                    wall_time_s=view.wall_time_s() if measure_wall_time else None)


def stats_of(run_id: str, c: Counts, *, stages_total: int | None = None, termination: str | None = None,
             wall_time_s: float | None = None) -> RunStats:
    """``RunStats`` of a transcript's counts (``termination``: the run's own when no end was stored)."""
    return RunStats(
        run_id=run_id,
        n_asst=c.n_asst,
        n_user=c.n_user,
        asst_per_user=c.asst_per_user,
        tool_calls=c.tool_calls,
        tool_calls_by_tool=dict(c.tool_calls_by_tool),
        input_tokens=c.input_tokens,
        output_tokens=c.output_tokens,
        agent_input_tokens=c.agent_input_tokens,
        agent_output_tokens=c.agent_output_tokens,
        tokens_by_purpose={k: dict(v) for k, v in c.tokens_by_purpose.items()},
        tokens_unknown_calls=c.tokens_unknown_calls,
        agent_tokens_unknown_calls=c.agent_tokens_unknown_calls,
        cost_usd=c.cost_usd,
        cost_known_usd=c.cost_known_usd,
        cost_unknown_calls=c.cost_unknown_calls,
        compactions=c.compactions,
        stages_reached=c.stages_reached,
        stages_total=stages_total,
        termination=c.termination if c.termination is not None else termination,
        termination_detail=c.termination_detail,
        reply_kinds=dict(c.reply_kinds),
        perfunctory_rate=c.rate("perfunctory"),
        redirect_rate=c.rate("redirect"),
        wall_time_s=wall_time_s,
        errors=c.errors,
        web_recorded=c.web.get("recorded", 0),
        web_replayed=sum(n for k, n in c.web.items() if k != "recorded"),
        web_replay_misses=c.web_misses,
        official=_official(c.official),
    )


def stages_total_of(task: Task | None) -> int | None:
    """How many stages the run's task has (None: unknown, for an unreadable task or the one stage
    an imported trajectory without its task is given)."""
    if task is None or task.extra.get("kind") == "imported":
        return None
    return task.stage_count()


def run_stats(store: Store, run_id: str, *, events: Iterable[StoredEvent] | None = None, run: Run | None = None,
              task: Task | None = None) -> RunStats:
    """Statistics of one run from its stored events (SPEC 5.2); an imported trajectory's counts
    as its file states them (``as_the_file_says``). ``events``, ``run``, ``task``: the run's,
    read already by the caller."""
    run = run if run is not None else store.get_run(run_id)
    if task is None:
        try:
            task = run.task()
        except TaskSnapshotError:
            task = None
    imported = run.source == "imported"
    view = Transcript.of(store.events(run_id) if events is None else events, imported=imported, file_meta=run.meta() if imported else None)
    return stats_of(run_id, view.counts, stages_total=stages_total_of(task), termination=run.termination, wall_time_s=view.wall_time_s())


def as_the_file_says(stats: RunStats, meta: dict) -> RunStats:
    """An imported official trajectory's statistics where its file defines them
    (``run.transcript.file_counts``: its official counts and compactions)."""
    update = file_counts(meta)
    tally = update.pop("official", None)
    if tally is not None:
        update["official"] = _official(tally)
    return stats.model_copy(update=update)


def _official(tally: OfficialTally) -> OfficialCounts:
    return OfficialCounts(**{k: getattr(tally, k) for k in OFFICIAL_COUNT_KEYS})
