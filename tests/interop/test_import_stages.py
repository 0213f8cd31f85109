"""An imported official trajectory with its task attached gets stage decisions read off the user
messages (the file records none), so the replay walks the persona's stages."""

import json

from vibesearch.app.replay import open_replay
from vibesearch.interop.official_trajectories import import_trajectory, prepare_import
from vibesearch.run import MessageEvent, StageEvent
from vibesearch.scoring import run_stats


def _trajectory(task) -> dict:
    s = task.persona.stages
    ask = {"type": "assistant", "content": "Which part matters most to you?",
           "tool_calls": [{"id": "c1", "name": "search", "args": {"query": "japan heritage"}, "result": "A Google search found 0 results:"}]}
    turns = [
        {"type": "user", "content": task.persona.initial_query},
        ask,
        {"type": "user", "content": s[1].line},  # the next stage's line: disclosed
        {"type": "assistant", "content": "Any preference on food?"},
        {"type": "user", "content": "No particular preference, honestly."},  # brushed off
        {"type": "assistant", "content": "Anything else?"},
        {"type": "user", "content": s[3].line},  # a later stage's line, out of order: not a disclosure
        {"type": "assistant", "content": "Where will you stay?"},
        {"type": "user", "content": "Hmm. " + s[2].line},  # the next stage, inside a longer message
        {"type": "assistant", "content": "Noted."},
        {"type": "user", "content": "Please write everything you found as knowledge-graph triples in JSON."},
        {"type": "assistant", "content": json.dumps([{"head": "Kyoto", "relation": "in", "tail": "Japan"}])},
    ]
    return {"qid": task.id, "subset": "daily", "sample_idx": 0, "question": "the full question",
            "termination": "answer", "metrics": {}, "stats": {"user_turns": 6, "assistant_turns": 6, "tool_calls": 1},
            "response_preview": "", "turns": turns}


def _stage_events(events):
    return [e for e in events if isinstance(e, StageEvent)]


def test_stage_decisions_are_read_off_the_messages_with_the_one_pointer_rule(bundled_tasks, tmp_path):
    task = next(t for t in bundled_tasks if t.id == "daily-en-japan-heritage-trip")
    path = tmp_path / "traj.json"
    path.write_text(json.dumps(_trajectory(task)), encoding="utf-8")
    prepared = prepare_import(path, task=task)
    stages = _stage_events(prepared.events)
    assert [(e.stage_index, e.reply_kind, e.advanced) for e in stages] == [
        (0, "open", False), (1, "disclose", True), (1, "perfunctory", False), (1, "push", False), (2, "disclose", True)]
    assert all(e.decided_by == "import" for e in stages)
    assert "stage 4's line out of order" in (stages[3].rationale or "")
    assert "read off the text at import" in (stages[1].rationale or "")
    # each decision comes just before its message; the triple request (extraction phase) has none
    for i, e in enumerate(prepared.events):
        if isinstance(e, StageEvent):
            nxt = prepared.events[i + 1]
            assert isinstance(nxt, MessageEvent) and nxt.role == "user" and nxt.phase == "dialogue"
    last_user = [e for e in prepared.events if isinstance(e, MessageEvent) and e.role == "user"][-1]
    assert last_user.phase == "extraction"


def test_without_a_task_no_stage_is_invented(bundled_tasks, tmp_path):
    task = next(t for t in bundled_tasks if t.id == "daily-en-japan-heritage-trip")
    path = tmp_path / "traj.json"
    path.write_text(json.dumps(_trajectory(task)), encoding="utf-8")
    assert _stage_events(prepare_import(path).events) == []


def test_the_replay_jumps_stage_by_stage_and_the_counts_stay_the_files(bundled_tasks, store, settings, tmp_path):
    from vibesearch.app.context import AppContext
    from vibesearch.app.catalog import TaskCatalog
    from vibesearch.app import Access, Who
    from vibesearch.app.live import RunManager

    task = next(t for t in bundled_tasks if t.id == "daily-en-japan-heritage-trip")
    path = tmp_path / "traj.json"
    path.write_text(json.dumps(_trajectory(task)), encoding="utf-8")
    run_id = import_trajectory(store, path, task=task).run_id
    assert run_stats(store, run_id).official.model_dump() == {"user_turns": 6, "assistant_turns": 6, "tool_calls": 1}
    ctx = AppContext(settings=settings, store=store, catalog=TaskCatalog.load(settings), manager=RunManager(store, settings), access=Access(settings))
    try:
        c = open_replay(ctx, Who(owner="client:someone"), run_id, "step by step")
        landed = []
        while c.next_stage(0.0):
            shown = c.shown()
            landed.append(shown[-1].data.content if isinstance(shown[-1].data, MessageEvent) else None)
        # the jumps stop after each disclosure's message, then at the end
        s = task.persona.stages
        assert landed[:2] == [s[1].line, "Hmm. " + s[2].line] and c.done
    finally:
        ctx.manager.shutdown()
