import threading

import pytest

from vibesearch.store import SchemaError, Store
from vibesearch.run import Conversation, GraphEvent, MessageEvent, StageEvent, ToolCallEvent, ToolResultEvent
from vibesearch.store.tables import Meta


@pytest.fixture
def store(db_url: str) -> Store:
    """Each test here runs on SQLite and on PostgreSQL (``db_url`` in tests/conftest.py)."""
    return Store(db_url)


def test_eight_threads_append_4000_events_gap_free(store: Store):
    run = store.create_run("t")

    def worker(n: int) -> None:
        for i in range(500):
            store.append(run.id, MessageEvent(role="user", content=f"{n}-{i}"))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = store.events(run.id)
    assert len(events) == 4000
    assert [e.seq for e in events] == list(range(1, 4001))
    assert len({e.data.content for e in events}) == 4000


def test_two_store_objects_on_one_file_do_not_collide(db_url):
    a, b = Store(db_url), Store(db_url)
    run = a.create_run("t")

    def worker(s: Store, tag: str) -> None:
        for i in range(100):
            s.append(run.id, MessageEvent(role="user", content=f"{tag}{i}"))

    ts = [threading.Thread(target=worker, args=(s, tag)) for s, tag in ((a, "a"), (b, "b"))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert [e.seq for e in a.events(run.id)] == list(range(1, 201))


def test_events_round_trip_typed(store: Store):
    run = store.create_run("t")
    store.append(run.id, MessageEvent(role="assistant", content="", n_tool_calls=1))
    store.append(run.id, ToolCallEvent(call_id="c1", tool="search", arguments={"query": "q"}))
    store.append(run.id, ToolResultEvent(call_id="c1", tool="search", content="r"))
    store.append(run.id, StageEvent(stage_index=1, advanced=True, reply_kind="disclose", decided_by="rules"))
    kinds = [e.kind for e in store.events(run.id)]
    assert kinds == ["message", "tool_call", "tool_result", "stage"]
    call = store.events(run.id, kinds=["tool_call"])[0].data
    assert isinstance(call, ToolCallEvent) and call.arguments == {"query": "q"}


def test_graph_event_also_fills_graph_table(store: Store):
    run = store.create_run("t")
    store.append(run.id, GraphEvent(triples=[{"head": "a", "relation": "r", "tail": "b"}], raw_text="[...]"))
    g = store.latest_graph(run.id)
    assert g is not None and '"head": "a"' in g.triples_json


def test_newer_schema_is_refused_with_clear_message(tmp_db):
    s = Store(tmp_db)
    with s.session() as sess:
        row = sess.get(Meta, "schema_version")
        row.value = "999"
        sess.add(row)
        sess.commit()
    with pytest.raises(SchemaError, match="newer"):
        Store(tmp_db)


def test_labels_upsert_per_annotator(store: Store):
    run = store.create_run("t")
    store.put_label(run.id, 0, "ann", True, [1])
    store.put_label(run.id, 0, "ann", False)
    store.put_label(run.id, 0, "bob", True)
    labels = store.labels(run.id)
    assert [(lab.annotator, lab.covered) for lab in labels] == [("ann", False), ("bob", True)]


def test_conversation_rebuilds_agent_context_from_events(store: Store):
    run = store.create_run("t")
    for ev in [
        MessageEvent(role="user", content="hi"),
        MessageEvent(role="assistant", content="", n_tool_calls=1),
        ToolCallEvent(call_id="c1", tool="search", arguments={"query": "q"}),
        ToolResultEvent(call_id="c1", tool="search", content="found"),
        MessageEvent(role="assistant", content="answer?", final=True),
        StageEvent(stage_index=1, advanced=True, reply_kind="disclose", decided_by="rules"),
        MessageEvent(role="user", content="more"),
    ]:
        store.append(run.id, ev)
    convo = Conversation.from_events(store.events(run.id))
    assert convo.dialogue() == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "answer?"},
        {"role": "user", "content": "more"},
    ]
    msgs = convo.agent_messages()
    assert [m["role"] for m in msgs] == ["user", "assistant", "tool", "assistant", "user"]
    assert msgs[1]["tool_calls"][0]["function"]["name"] == "search"
    assert convo.stage_index == 1
