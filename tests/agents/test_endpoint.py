"""A real OpenAI-compatible HTTP server on 127.0.0.1 as the model of the ReAct agent (litellm
``openai/<name>`` with ``api_base``) and as an endpoint agent."""

from __future__ import annotations

import json

import pytest

from vibesearch.agents.endpoint import display_url, normalise_base_url
from vibesearch.agents.react import ReactAgent
from vibesearch.llm import LLMError
from vibesearch.run import MessageEvent, ToolCallEvent, ToolResultEvent, UsageEvent

from agents_testkit import agent_of, chat_completion

REACT_KEY = "sk-react-local-0123456789abcdef"
ENDPOINT_KEY = "hunter2-endpoint-secret-42"


def _stored_text(store, run_id: str) -> str:
    rows = [e.data.model_dump_json() for e in store.events(run_id)]
    run = store.get_run(run_id)
    return "\n".join(rows) + run.config_json + run.meta_json + run.task_json


async def test_local_server_drives_the_react_agent(chat_server, monkeypatch, settings, store, small_task, recorder_for, toolbox_for):
    monkeypatch.setenv("OPENAI_API_KEY", REACT_KEY)

    def respond(body, headers):
        if any(m.get("role") == "tool" for m in body["messages"]):
            return 200, chat_completion("Euler was born in Basel (https://example.org/euler).", model=body["model"], prompt_tokens=50, completion_tokens=9)
        return 200, chat_completion(None, [("call_a1", "search", {"query": "Euler birthplace"})], model=body["model"], prompt_tokens=40, completion_tokens=5)

    srv = chat_server(respond)
    agent = ReactAgent(small_task, settings, model="openai/local-test-model", toolbox=toolbox_for(small_task, settings), api_base=srv.base_url)
    rec = recorder_for(small_task)
    rec.user("Where was Leonhard Euler born?")
    reply = await agent.respond(rec.convo, rec.emit)

    assert reply.text.startswith("Euler was born in Basel")
    assert len(srv.requests) == 2
    first, second = srv.requests
    assert first["path"] == "/v1/chat/completions"
    assert first["body"]["model"] == "local-test-model"
    assert {t["function"]["name"] for t in first["body"]["tools"]} == {"search", "visit", "scholar_search", "python"}
    assert first["headers"]["authorization"] == f"Bearer {REACT_KEY}"
    # the second request carries the tool call and its result in OpenAI format
    tool_msg = [m for m in second["body"]["messages"] if m["role"] == "tool"][0]
    assert tool_msg["tool_call_id"] == "call_a1"
    assert "https://example.org/euler" in tool_msg["content"]

    events = rec.events()
    call = [e for e in events if isinstance(e, ToolCallEvent)][0]
    assert (call.call_id, call.tool, call.arguments) == ("call_a1", "search", {"query": "Euler birthplace"})
    assert [e.call_id for e in events if isinstance(e, ToolResultEvent)] == ["call_a1"]
    usage = [e for e in events if isinstance(e, UsageEvent)]
    assert [(u.input_tokens, u.output_tokens) for u in usage] == [(40, 5), (50, 9)]
    assert REACT_KEY not in _stored_text(store, rec.run_id)


async def test_keyless_local_server_gets_a_placeholder_not_a_real_key(chat_server, settings, small_task, recorder_for, toolbox_for):
    srv = chat_server(lambda body, headers: (200, chat_completion("Hello.")))
    agent = ReactAgent(small_task, settings, model="openai/local", toolbox=toolbox_for(small_task, settings), api_base=srv.base_url)
    rec = recorder_for(small_task)
    rec.user("hi")
    reply = await agent.respond(rec.convo, rec.emit)
    assert reply.text == "Hello."
    assert srv.requests[0]["headers"]["authorization"] == "Bearer no-key"


async def test_local_server_as_endpoint_agent(chat_server, settings, store, small_task, recorder_for):
    def respond(body, headers):
        last = body["messages"][-1]["content"]
        if "JSON array" in last:
            return 200, chat_completion(
                'Sure:\n[{"head": "Leonhard Euler", "relation": "born in", "tail": "Basel"}, {"head": "Leonhard Euler", "relation": "teacher", "tail": "Johann Bernoulli"},]',
                model=body["model"],
            )
        return 200, chat_completion(f"Reply {len(body['messages'])}: Euler was born in Basel. Want more on Bernoulli?", model=body["model"], prompt_tokens=30, completion_tokens=12)

    srv = chat_server(respond)
    agent = agent_of(
        "endpoint", small_task, settings, endpoint_url=srv.base_url + "/chat/completions", endpoint_model="gpt-4o", endpoint_key=ENDPOINT_KEY
    )
    assert ENDPOINT_KEY not in agent.name + agent.description
    rec = recorder_for(small_task)
    rec.user("Where was Leonhard Euler born?")
    first = await agent.respond(rec.convo, rec.emit)
    rec.user("Who taught him?")
    second = await agent.respond(rec.convo, rec.emit)
    graph = await agent.extract_graph(rec.convo, rec.emit)

    assert first.text.startswith("Reply 1:") and first.final is False
    assert second.text.startswith("Reply 3:")
    # the endpoint gets the visible dialogue only, and the key in the Authorization header
    assert [m["role"] for m in srv.requests[1]["body"]["messages"]] == ["user", "assistant", "user"]
    assert srv.requests[1]["body"]["messages"][1]["content"] == first.text
    assert all(r["headers"]["authorization"] == f"Bearer {ENDPOINT_KEY}" for r in srv.requests)
    assert "tools" not in srv.requests[0]["body"]
    extraction_msgs = srv.requests[2]["body"]["messages"]
    assert [m["role"] for m in extraction_msgs] == ["user", "assistant", "user", "assistant", "user"]

    assert graph.triples == [
        {"head": "Leonhard Euler", "relation": "born in", "tail": "Basel"},
        {"head": "Leonhard Euler", "relation": "teacher", "tail": "Johann Bernoulli"},
    ]
    events = rec.events()
    assert [e.kind for e in events] == [
        "message", "usage", "message", "message", "usage", "message", "message", "usage", "message",
    ]  # fmt: skip
    replies = [e for e in events if isinstance(e, MessageEvent) and e.role == "assistant"]
    assert all(r.final and r.n_tool_calls == 0 for r in replies)
    assert replies[-1].phase == "extraction"
    usage = [e for e in events if isinstance(e, UsageEvent)]
    # an external agent's cost is unknown, even though "gpt-4o" has a price in litellm's map
    assert all(u.cost_usd is None and u.model == "endpoint:gpt-4o" for u in usage)
    assert (usage[0].input_tokens, usage[0].output_tokens) == (30, 12)
    assert [u.purpose for u in usage] == ["agent", "agent", "extraction"]
    assert ENDPOINT_KEY not in _stored_text(store, rec.run_id)


async def test_endpoint_errors_never_show_the_key(chat_server, settings, store, small_task, recorder_for):
    def respond(body, headers):
        # a server that echoes the key it got back in its error message
        # (bare, without "Bearer", so that only the endpoint agent's own redaction can catch it)
        key = headers.get("authorization", "").split()[-1]
        return 401, {"error": {"message": f"the key {key} is not valid here", "type": "auth"}}

    srv = chat_server(respond)
    settings = settings.model_copy(update={"llm_retries": 0})
    agent = agent_of("endpoint", small_task, settings, endpoint_url=srv.base_url, endpoint_model="agent", endpoint_key=ENDPOINT_KEY)
    rec = recorder_for(small_task)
    rec.user("hello")
    with pytest.raises(LLMError) as info:
        await agent.respond(rec.convo, rec.emit)
    assert srv.requests  # the request did arrive
    assert ENDPOINT_KEY not in str(info.value)
    assert ENDPOINT_KEY not in _stored_text(store, rec.run_id)
    errors = [e for e in rec.events() if e.kind == "error"]
    assert errors and "[redacted]" in errors[0].message


def test_endpoint_urls_are_normalised_and_shown_without_credentials():
    assert normalise_base_url("http://h:8000/v1/chat/completions/") == "http://h:8000/v1"
    assert normalise_base_url("http://h:8000/v1") == "http://h:8000/v1"
    assert display_url("https://user:pw@agent.example.com:8443/v1?token=abc") == "https://agent.example.com:8443/v1"


def test_endpoint_key_comes_from_settings(settings, small_task):
    from pydantic import SecretStr

    configured = settings.model_copy(update={"endpoint_url": "http://127.0.0.1:9/v1", "endpoint_key": SecretStr(ENDPOINT_KEY)})
    agent = agent_of("endpoint", small_task, configured)
    assert agent._key == ENDPOINT_KEY
    assert ENDPOINT_KEY not in json.dumps({"name": agent.name, "description": agent.description})


async def test_endpoint_without_usage_records_unknown_tokens(chat_server, monkeypatch, settings, small_task, recorder_for):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key-must-not-reach-the-endpoint")
    def respond(body, headers):
        payload = chat_completion("Basel.")
        payload.pop("usage")
        return 200, payload

    srv = chat_server(respond)
    agent = agent_of("endpoint", small_task, settings, endpoint_url=srv.base_url)
    rec = recorder_for(small_task)
    rec.user("Where was Euler born?")
    reply = await agent.respond(rec.convo, rec.emit)
    assert reply.text == "Basel." and reply.final is True
    (usage,) = [e for e in rec.events() if isinstance(e, UsageEvent)]
    assert (usage.input_tokens, usage.output_tokens, usage.cost_usd) == (None, None, None)
    # no key configured: a placeholder is sent, never a key from the environment
    assert srv.requests[0]["headers"]["authorization"] == "Bearer no-key"
