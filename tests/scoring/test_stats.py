from datetime import datetime, timedelta

import pytest
from scoring_helpers import task_snapshot

from vibesearch.scoring import run_stats, stats_from_events
from vibesearch.run import (
    CompactionEvent,
    EndEvent,
    GraphEvent,
    MessageEvent,
    StageEvent,
    StoredEvent,
    ToolCallEvent,
    ToolResultEvent,
    UsageEvent,
)


def session_events():
    """A small run written the way the session writes one."""
    return [
        StageEvent(stage_index=0, reply_kind="open", decided_by="rules"),
        MessageEvent(role="user", content="vague question"),
        MessageEvent(role="assistant", content="", n_tool_calls=2),
        ToolCallEvent(call_id="1", tool="search", arguments={"query": "q"}),
        ToolCallEvent(call_id="2", tool="visit", arguments={"url": ["u"], "goal": "g"}),
        ToolResultEvent(call_id="1", tool="search", content="r"),
        ToolResultEvent(call_id="2", tool="visit", content="r"),
        UsageEvent(purpose="agent", model="m", input_tokens=100, output_tokens=10, cost_usd=0.01),
        MessageEvent(role="assistant", content="here is what I found", final=True),
        UsageEvent(purpose="agent", model="m", input_tokens=200, output_tokens=20, cost_usd=0.02),
        StageEvent(stage_index=1, reply_kind="disclose", advanced=True, decided_by="simulator"),
        StageEvent(stage_index=0, reply_kind="push", decided_by="shadow", shadow=True),
        UsageEvent(purpose="simulator", model="s", input_tokens=50, output_tokens=5, cost_usd=None),
        MessageEvent(role="user", content="stage 1 line"),
        CompactionEvent(tokens_before=900, tokens_after=100, threshold=800, summary="s"),
        MessageEvent(role="assistant", content="", n_tool_calls=1),
        ToolCallEvent(call_id="3", tool="search", arguments={"query": "q2"}),
        ToolResultEvent(call_id="3", tool="search", content="r"),
        MessageEvent(role="assistant", content="answer", final=True),
        StageEvent(stage_index=1, reply_kind="perfunctory", decided_by="simulator"),
        MessageEvent(role="user", content="no preference"),
        MessageEvent(role="assistant", content="ok", final=True),
        StageEvent(stage_index=1, reply_kind="redirect", decided_by="simulator"),
        MessageEvent(role="user", content="back to the topic"),
        MessageEvent(role="assistant", content="sure", final=True),
        MessageEvent(role="user", content="write the triples", phase="extraction"),
        MessageEvent(role="assistant", content="[]", phase="extraction", final=True),
        UsageEvent(purpose="extraction", model="m", input_tokens=300, output_tokens=30, cost_usd=0.03),
        GraphEvent(triples=[]),
        EndEvent(termination="max_user_turns"),
    ]


def test_stats_from_a_hand_built_event_sequence(store):
    run = store.create_run("t1", task_json=task_snapshot([{"head": "a", "relation": "b", "tail": "c"}], stages=3))
    for e in session_events():
        store.append(run.id, e)
    s = run_stats(store, run.id)
    assert (s.n_asst, s.n_user) == (6, 4)
    assert s.asst_per_user == pytest.approx(1.5)
    assert s.tool_calls == 3 and s.tool_calls_by_tool == {"search": 2, "visit": 1}
    assert (s.input_tokens, s.output_tokens) == (650, 65)
    assert (s.agent_input_tokens, s.agent_output_tokens) == (600, 60)
    assert s.cost_usd is None  # the simulator call had no known price
    assert s.cost_known_usd == pytest.approx(0.06) and s.cost_unknown_calls == 1
    assert s.cost_text.startswith("unknown (known part $0.06")
    assert s.compactions == 1
    assert (s.stages_reached, s.stages_total) == (2, 3)
    assert s.termination == "max_user_turns"
    assert s.reply_kinds == {"disclose": 1, "perfunctory": 1, "redirect": 1}  # the shadow is not counted
    assert s.perfunctory_rate == pytest.approx(1 / 3) and s.redirect_rate == pytest.approx(1 / 3)
    # the official counting includes the extraction prompt and answer
    assert s.official.model_dump() == {"user_turns": 5, "assistant_turns": 7, "tool_calls": 3}
    assert s.wall_time_s is not None and s.wall_time_s >= 0


def test_known_costs_sum_and_wall_time_spans_first_to_last_event():
    from datetime import datetime, timezone

    t0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
    evs = [
        MessageEvent(role="user", content="q"),
        UsageEvent(purpose="agent", model="m", input_tokens=1, output_tokens=1, cost_usd=0.5),
        MessageEvent(role="assistant", content="a", final=True),
    ]
    stored = [StoredEvent(run_id="r", seq=i + 1, ts=t0 + timedelta(seconds=7 * i), data=e) for i, e in enumerate(evs)]
    s = stats_from_events("r", stored)
    assert s.cost_usd == pytest.approx(0.5) and s.wall_time_s == pytest.approx(14.0)
    assert s.termination is None and s.perfunctory_rate is None
    # no model call at all costs nothing; an imported run's cost is unknown
    assert stats_from_events("r", stored[:1]).cost_usd == 0.0
    assert stats_from_events("r", stored[:1], imported=True).cost_usd is None


def test_calls_without_token_counts_are_unknown_not_zero():
    """A provider that reports no token counts: its calls are counted apart and the text says so,
    never a measured 0 (nor a total that silently leaves them out)."""
    t0 = datetime(2026, 1, 1)

    def stored(events):
        return [StoredEvent(run_id="r", seq=i, ts=t0 + timedelta(seconds=i), data=e) for i, e in enumerate(events)]

    none = stats_from_events("r", stored([UsageEvent(purpose="agent", model="m"), UsageEvent(purpose="agent", model="m")]))
    assert (none.tokens_unknown_calls, none.agent_tokens_unknown_calls) == (2, 2)
    assert none.tokens_text() == "unknown (the provider reported no token counts)"
    assert "0 / 0" not in none.tokens_text()
    mixed = stats_from_events("r", stored([UsageEvent(purpose="agent", model="m", input_tokens=1200, output_tokens=30),
                                           UsageEvent(purpose="agent", model="m"),
                                           UsageEvent(purpose="simulator", model="s", input_tokens=5, output_tokens=1)]))
    assert mixed.tokens_text() == "at least 1,205 / 31 (1 of 3 calls reported no counts)"
    assert mixed.tokens_text(agent=True) == "at least 1,200 / 30 (1 of 2 calls reported no counts)"
    known = stats_from_events("r", stored([UsageEvent(purpose="agent", model="m", input_tokens=7, output_tokens=2)]))
    assert (known.tokens_unknown_calls, known.tokens_text()) == (0, "7 / 2")
