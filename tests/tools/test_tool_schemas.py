"""Tool schemas and argument checking: a bad call comes back as an error text naming the argument."""

from __future__ import annotations

import pytest

from vibesearch.tools import SCHEMAS, ArgumentError, check_arguments, make_toolbox

from _tool_search import search_of


def test_schemas_have_the_papers_names_and_parameters():
    fns = {name: s["function"] for name, s in SCHEMAS.items()}
    assert list(fns) == ["search", "visit", "scholar_search", "python"]
    for fn in fns.values():
        assert fn["description"] and fn["parameters"]["type"] == "object"
    search = fns["search"]["parameters"]
    assert search["required"] == ["query"]
    assert search["properties"]["query"]["type"] == "string"
    assert search["properties"]["topn"]["type"] == "integer" and search["properties"]["topn"]["default"] == 10
    visit = fns["visit"]["parameters"]
    assert visit["required"] == ["url", "goal"]
    assert visit["properties"]["url"]["type"] == "array" and visit["properties"]["url"]["minItems"] == 1
    assert visit["properties"]["url"]["items"] == {"type": "string"}
    assert fns["scholar_search"]["parameters"]["required"] == ["query"]
    assert fns["python"]["parameters"]["required"] == ["code"]


def test_check_arguments_cleans_good_calls():
    assert check_arguments("search", {"query": "x"}) == {"query": "x", "topn": 10}
    assert check_arguments("search", {"query": "x", "topn": "3"}) == {"query": "x", "topn": 3}
    assert check_arguments("search", {"query": "x", "topn": 500})["topn"] == 50
    assert check_arguments("visit", {"url": "https://a.org", "goal": "g"}) == {"url": ["https://a.org"], "goal": "g"}
    assert check_arguments("visit", {"url": ["a.org", "a.org", "b.org"], "goal": "g"})["url"] == ["a.org", "b.org"]
    assert check_arguments("python", {"code": "print(1)"}) == {"code": "print(1)"}


@pytest.mark.parametrize(
    "name,args,needle",
    [
        ("search", {}, "'query' is missing"),
        ("search", {"query": ""}, "'query' is empty"),
        ("search", {"query": ["a"]}, "'query' must be a string"),
        ("search", {"query": "x", "topn": 0}, "'topn' must be at least 1"),
        ("search", {"query": "x", "topn": "many"}, "'topn' must be an integer"),
        ("visit", {"goal": "g"}, "'url' is missing"),
        ("visit", {"urls": ["a.org"], "goal": "g"}, "use 'url', not 'urls'"),
        ("visit", {"url": [], "goal": "g"}, "'url' is an empty list"),
        ("visit", {"url": {"a": 1}, "goal": "g"}, "'url' must be a list"),
        ("visit", {"url": ["a.org", 3], "goal": "g"}, "url[1] must be a non-empty string"),
        ("visit", {"url": ["a.org"]}, "'goal' is missing"),
        ("visit", {"url": [f"https://a.org/{i}" for i in range(11)], "goal": "g"}, "at most 10"),
        ("scholar_search", {"q": "x"}, "'query' is missing"),
        ("python", {}, "'code' is missing"),
        ("python", {"code": 5}, "'code' must be a string"),
        ("python", {"code": "   "}, "'code' is empty"),
        ("browse", {"x": 1}, "unknown tool 'browse'"),
    ],
)
async def test_bad_arguments_give_an_error_text(corpus_task, tool_settings, name, args, needle):
    with pytest.raises(ArgumentError, match=None) as info:
        check_arguments(name, args)
    assert needle in str(info.value)
    out = await make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings)).call(name, args)
    assert out.error is True
    assert needle in out.content


async def test_non_object_arguments(corpus_task, tool_settings):
    out = await make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings)).call("search", "just a string")  # type: ignore[arg-type]
    assert out.error and "must be a JSON object" in out.content


async def test_a_crashing_backend_becomes_an_error_text_without_the_key(corpus_task, tool_settings, monkeypatch):
    monkeypatch.setenv("SERPER_API_KEY", "serper-secret-value-123456")

    class Exploding:
        name = "exploding"

        async def search(self, query, topn, emit=None):
            raise RuntimeError("boom with key serper-secret-value-123456")

        async def visit(self, urls, goal):
            raise AssertionError("not called")

        async def scholar(self, query, emit=None):
            raise AssertionError("not called")

    tb = make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings), backend=Exploding())
    out = await tb.call("search", {"query": "x"})
    assert out.error and "search failed: RuntimeError: boom" in out.content
    assert "serper-secret-value-123456" not in out.content
    # the next call still works
    again = await tb.call("visit", {"url": [], "goal": "g"})
    assert again.error and "empty list" in again.content


async def test_a_hanging_backend_times_out(corpus_task, tool_settings):
    import asyncio

    class Hanging:
        name = "hanging"

        async def search(self, query, topn, emit=None):
            await asyncio.sleep(60)

        visit = scholar = search

    tool_settings.http_timeout_s = 0.05
    tb = make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings), backend=Hanging())
    tb.deadline = lambda name: 0.2  # keep the test fast; the real deadline derives from settings
    out = await tb.call("search", {"query": "x"})
    assert out.error and "timed out" in out.content
