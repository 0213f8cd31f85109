"""The offline baseline agent on every bundled task and on a small task of our own, with the
network switched off."""

from __future__ import annotations

import json
import re
import socket

import pytest
from agents_testkit import agent_of

from vibesearch.agents.baseline import (
    BASELINE_NAME,
    follow_up_entities,
    follow_up_question,
    key_sentences,
    mentioned,
    visited_urls,
)
from vibesearch.run import MessageEvent, ToolCallEvent, ToolResultEvent
from vibesearch.tasks.models import CorpusDoc
from vibesearch.tools.offline import corpus_for_task


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network access is disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def _check_turn(task, rec, reply, message):
    """The shape every baseline turn must have; returns the visited documents."""
    corpus = corpus_for_task(task)
    events = rec.events()
    assert [e.kind for e in events] == [
        "message", "message", "tool_call", "tool_result", "message", "tool_call", "tool_result", "message",
    ], [e.kind for e in events]  # fmt: skip
    steps = [e for e in events if isinstance(e, MessageEvent) and e.role == "assistant"]
    assert [(s.n_tool_calls, s.final) for s in steps] == [(1, False), (1, False), (0, True)]
    search, visit = [e for e in events if isinstance(e, ToolCallEvent)]
    assert search.tool == "search" and search.arguments["query"] == message
    assert visit.tool == "visit" and visit.arguments["goal"] == message
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert [r.call_id for r in results] == [search.call_id, visit.call_id]
    assert not any(r.error for r in results)

    urls = visit.arguments["url"]
    assert 1 <= len(urls) <= 3
    # the visited pages are the top of what the search showed, in its order
    positions = [results[0].content.find(u) for u in urls]
    assert all(p >= 0 for p in positions) and positions == sorted(positions)
    docs = [corpus.get(u) for u in urls]
    assert all(d is not None for d in docs)
    for d in docs:
        assert d.title in reply.text and d.url in reply.text
    assert steps[-1].content == reply.text
    return docs


def _check_question(task, reply, docs, discussed):
    last_line = reply.text.strip().splitlines()[-1]
    heads = {f.head for d in docs for f in d.facts}
    if task.language == "zh":
        assert last_line.startswith("需要我再详细介绍") and last_line.endswith("吗？")
    else:
        assert last_line.startswith("Would you like more detail on") and last_line.endswith("?")
    named = follow_up_entities(docs, discussed)
    assert last_line == follow_up_question(named, zh=task.language == "zh")
    assert set(named) <= heads
    assert min(2, len(heads)) <= len(named) <= 3, (last_line, heads)
    assert reply.final is False


async def _run_turn_and_extract(task, settings, recorder_for, message):
    agent = agent_of("baseline", task, settings)
    assert agent.name == BASELINE_NAME == "baseline (retrieval + oracle reader)"
    assert "oracle reader" in agent.description
    rec = recorder_for(task)
    rec.user(message)
    reply = await agent.respond(rec.convo, rec.emit)
    docs = _check_turn(task, rec, reply, message)
    _check_question(task, reply, docs, message)

    graph = await agent.extract_graph(rec.convo, rec.emit)
    said = "\n".join([message, reply.text])
    allowed = {(f.head, f.relation, f.tail) for d in docs for f in d.facts}
    assert graph.triples, "the visited pages' facts named in the reply should come back"
    for t in graph.triples:
        assert (t["head"], t["relation"], t["tail"]) in allowed
        assert mentioned(t["head"], said) or mentioned(t["tail"], said)
    # every visited fact whose entities came up is returned, not just some
    expected = {(f.head, f.relation, f.tail) for d in docs for f in d.facts if mentioned(f.head, said) or mentioned(f.tail, said)}
    assert {(t["head"], t["relation"], t["tail"]) for t in graph.triples} == expected
    tail = rec.events()[-2:]
    assert tail[0].role == "user" and tail[0].phase == "extraction"
    assert tail[1].role == "assistant" and tail[1].phase == "extraction" and tail[1].final
    assert json.loads(tail[1].content) == graph.triples
    return agent, rec, reply, docs, graph


async def test_baseline_on_every_bundled_task(bundled_tasks, no_network, settings, recorder_for):
    if not bundled_tasks:
        pytest.skip("no bundled task yet")
    for task in bundled_tasks:
        if not task.corpus:
            continue
        await _run_turn_and_extract(task, settings, recorder_for, task.persona.initial_query)


async def test_baseline_on_a_small_task(small_task, no_network, settings, recorder_for):
    message = "Who taught Leonhard Euler, and where was he born?"
    agent, rec, reply, docs, graph = await _run_turn_and_extract(small_task, settings, recorder_for, message)
    assert docs[0].url == "https://example.org/euler"
    assert "Johann Bernoulli" in reply.text
    # the follow-up prefers entities not discussed yet: Leonhard Euler was in the question
    question = reply.text.strip().splitlines()[-1]
    assert "Leonhard Euler" not in question
    assert ("Leonhard Euler", "born in", "Basel") in {(t["head"], t["relation"], t["tail"]) for t in graph.triples}


async def test_extraction_uses_only_visited_pages(small_task, no_network, settings, recorder_for):
    agent = agent_of("baseline", small_task, settings)
    rec = recorder_for(small_task)
    rec.user("Where was Leonhard Euler born?")
    await agent.respond(rec.convo, rec.emit)
    visited = visited_urls(rec.convo)
    assert "https://example.org/riemann" not in visited
    # the user names the entities of a page the agent never opened
    rec.user("Thanks. I read that Bernhard Riemann had Carl Friedrich Gauss as doctoral advisor.")
    graph = await agent.extract_graph(rec.convo, rec.emit)
    heads = {t["head"] for t in graph.triples}
    assert "Bernhard Riemann" not in heads
    assert "Leonhard Euler" in heads
    corpus = corpus_for_task(small_task)
    allowed = {(f.head, f.relation, f.tail) for u in visited for f in corpus.get(u).facts}
    assert {(t["head"], t["relation"], t["tail"]) for t in graph.triples} <= allowed


async def test_baseline_second_turn_and_nothing_found(small_task, no_network, settings, recorder_for):
    agent = agent_of("baseline", small_task, settings)
    rec = recorder_for(small_task)
    rec.user("zzqx unknown wording")
    reply = await agent.respond(rec.convo, rec.emit)
    assert "found nothing relevant" in reply.text and reply.text.endswith("?")
    kinds = [e.kind for e in rec.events()]
    assert kinds == ["message", "message", "tool_call", "tool_result", "message"]
    rec.user("Tell me about Carl Friedrich Gauss")
    reply = await agent.respond(rec.convo, rec.emit)
    assert "https://example.org/gauss" in reply.text


def test_follow_up_question_wording():
    assert follow_up_question(["A", "B", "C"], zh=False) == "Would you like more detail on A, B or C?"
    assert follow_up_question(["A", "B"], zh=False) == "Would you like more detail on A or B?"
    assert follow_up_question(["屈原", "端午节", "粽子"], zh=True) == "需要我再详细介绍屈原、端午节或粽子吗？"
    assert follow_up_question(["屈原"], zh=True) == "需要我再详细介绍屈原吗？"
    assert follow_up_question([], zh=False).endswith("?")


def test_follow_up_entities_prefer_new_ones():
    doc = CorpusDoc(
        url="u",
        title="t",
        text="x",
        facts=[
            {"head": "Euler", "relation": "r", "tail": "a"},
            {"head": "Bernoulli", "relation": "r", "tail": "b"},
            {"head": "euler", "relation": "r2", "tail": "c"},
            {"head": "Gauss", "relation": "r", "tail": "d"},
            {"head": "Riemann", "relation": "r", "tail": "e"},
        ],
    )
    assert follow_up_entities([doc], "We talked about Euler and Gauss.") == ["Bernoulli", "Riemann", "Euler"]


def test_mentioned_matches_whole_words_and_chinese():
    assert mentioned("Euler", "What did euler do?")
    assert not mentioned("Euler", "Eulerian paths")
    assert not mentioned("e", "the number")
    assert mentioned("屈原", "端午节纪念屈原吗")
    assert not mentioned("  ", "anything")


def test_key_sentences_pick_the_matching_ones():
    text = "Alpha is a letter. Euler was born in Basel. Gamma rays are light. Euler died in Saint Petersburg."
    got = key_sentences("Where was Euler born and where did Euler die", text)
    assert got == "Euler was born in Basel. Euler died in Saint Petersburg."
    assert re.search("Alpha|Gamma", got) is None


def test_baseline_always_searches_the_corpus(small_task, settings):
    from vibesearch.tools import make_toolbox

    from vibesearch.run import SearchSpec

    web = make_toolbox(small_task, settings, search=SearchSpec(backend="ddgs"))
    agent = agent_of("baseline", small_task, settings, toolbox=web)
    assert agent.toolbox is not web and agent.toolbox.backend_name == "offline"
    assert agent.corpus is agent.toolbox.backend.corpus
