"""Web backends against a local HTTP server on 127.0.0.1 (no test touches the network)."""

from __future__ import annotations

import json

import pytest

from vibesearch.tools import make_toolbox
from vibesearch.tools.web import WebBackend

from _tool_search import search_of

ARTICLE = """<!doctype html><html><head><title>The Bridge of Valdoria</title></head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a> | Subscribe to our newsletter</nav>
<article><h1>The Bridge of Valdoria</h1>
<p>The stone bridge of Valdoria was completed in 1742 by the mason Aldo Ferri after eleven years of work.</p>
<p>It spans the river Vald with five arches and is still used by pedestrians today. The central arch
is the widest of the region and survived the flood of 1911 without damage.</p>
<p>Local legend says the mason carved his initials under the third arch, where they can still be seen.</p>
</article>
<footer>Copyright 2024 Example Town. All rights reserved. Cookie settings.</footer>
</body></html>"""


def backend(web, settings, provider="serper", **kw) -> WebBackend:
    urls = {
        "serper": web.url("/serper"),
        "tavily": web.url("/tavily"),
        "searxng": web.url("/searx"),
        "openalex": web.url("/openalex"),
        "semantic_scholar": web.url("/s2"),
    }
    return WebBackend(settings, provider=provider, base_urls=urls, allow_private=True, **kw)


def toolbox(task, settings, be):
    return make_toolbox(task, settings, search=search_of(settings), backend=be)


# ---------------------------------------------------------------- search providers


async def test_serper_search(local_web, corpus_task, tool_settings, monkeypatch):
    monkeypatch.setenv("SERPER_API_KEY", "serper-test-key-0123456789")
    local_web.json_route(
        "/serper/search",
        {"organic": [
            {"title": "Bridge of Valdoria", "link": "https://valdoria.example/bridge", "snippet": "Completed in 1742.", "date": "2020"},
            {"title": "Aldo Ferri", "link": "https://valdoria.example/ferri", "snippet": "A mason."},
        ]},
    )
    tb = toolbox(corpus_task, tool_settings, backend(local_web, tool_settings, "serper"))
    out = await tb.call("search", {"query": "valdoria bridge", "topn": 2})
    assert not out.error, out.content
    assert "1. Bridge of Valdoria" in out.content and "URL: https://valdoria.example/bridge" in out.content
    assert "Completed in 1742." in out.content and "2. Aldo Ferri" in out.content
    req = local_web.requests[-1]
    assert req["method"] == "POST" and req["headers"]["x-api-key"] == "serper-test-key-0123456789"
    assert json.loads(req["body"]) == {"q": "valdoria bridge", "num": 2}


async def test_missing_key_names_the_variable(local_web, corpus_task, tool_settings, monkeypatch):
    monkeypatch.delenv("SERPER_API_KEY", raising=False)
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    for provider, var in [("serper", "SERPER_API_KEY"), ("tavily", "TAVILY_API_KEY")]:
        out = await toolbox(corpus_task, tool_settings, backend(local_web, tool_settings, provider)).call("search", {"query": "x"})
        assert out.error and var in out.content
    assert local_web.requests == []  # nothing was sent without a key


async def test_rejected_key_never_appears_in_the_error(local_web, corpus_task, tool_settings, monkeypatch):
    secret = "tvly-verysecretvalue987654"
    monkeypatch.setenv("TAVILY_API_KEY", secret)
    local_web.route("/tavily/search", 401, json.dumps({"detail": f"invalid key {secret}"}), "application/json")
    out = await toolbox(corpus_task, tool_settings, backend(local_web, tool_settings, "tavily")).call("search", {"query": "x"})
    assert out.error and "HTTP 401" in out.content
    assert secret not in out.content
    assert local_web.requests[-1]["headers"]["authorization"] == f"Bearer {secret}"


async def test_tavily_and_searxng_results(local_web, corpus_task, tool_settings, monkeypatch):
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-abcdefghijkl")
    local_web.json_route("/tavily/search", {"results": [{"title": "T1", "url": "https://t.example/1", "content": "tavily text"}]})
    local_web.json_route("/searx/search", {"results": [{"title": "S1", "url": "https://s.example/1", "content": "searx text"}]})
    out = await toolbox(corpus_task, tool_settings, backend(local_web, tool_settings, "tavily")).call("search", {"query": "q"})
    assert "1. T1" in out.content and "tavily text" in out.content
    out = await toolbox(corpus_task, tool_settings, backend(local_web, tool_settings, "searxng")).call("search", {"query": "q"})
    assert "1. S1" in out.content and "searx text" in out.content
    assert local_web.requests[-1]["query"] == {"q": ["q"], "format": ["json"]}


async def test_searxng_without_an_instance_is_an_error_text(corpus_task, tool_settings):
    tb = make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings), backend=WebBackend(tool_settings, provider="searxng"))
    out = await tb.call("search", {"query": "q"})
    assert out.error and "VIBESEARCH_SEARXNG_URL" in out.content


async def test_ddgs_backend_formats_its_rows(corpus_task, tool_settings):
    calls = []

    class FakeDDGS:  # stands in for ddgs.DDGS, which would go to the network
        def __init__(self, timeout):
            calls.append(timeout)

        def text(self, query, max_results):
            return [{"title": f"{query} {i}", "href": f"https://d.example/{i}", "body": "body"} for i in range(max_results)]

    be = WebBackend(tool_settings, provider="ddgs", ddgs_factory=FakeDDGS)
    out = await toolbox(corpus_task, tool_settings, be).call("search", {"query": "q", "topn": 3})
    assert out.content.count("URL: https://d.example/") == 3 and calls == [2]


async def test_search_server_down_is_an_error_text(corpus_task, tool_settings, monkeypatch):
    monkeypatch.setenv("SERPER_API_KEY", "serper-test-key-0123456789")
    be = WebBackend(tool_settings, provider="serper", base_urls={"serper": "http://127.0.0.1:9"})
    out = await toolbox(corpus_task, tool_settings, be).call("search", {"query": "x"})
    assert out.error and "could not be reached" in out.content


# ---------------------------------------------------------------- scholar


async def test_openalex_scholar(local_web, corpus_task, tool_settings):
    local_web.json_route(
        "/openalex/works",
        {"results": [{
            "id": "https://openalex.org/W1",
            "doi": "https://doi.org/10.1/bridge",
            "display_name": "Stone bridges of the eighteenth century",
            "publication_date": "2001-03-04",
            "primary_location": {"source": {"display_name": "Journal of Bridges"}},
            "authorships": [{"author": {"display_name": "A. Author"}}],
            "abstract_inverted_index": {"Stone": [0], "bridges": [1], "last.": [2]},
        }]},
    )
    out = await toolbox(corpus_task, tool_settings, backend(local_web, tool_settings)).call("scholar_search", {"query": "stone bridges"})
    assert not out.error, out.content
    for part in ["1. Stone bridges of the eighteenth century", "Link: https://doi.org/10.1/bridge", "Date: 2001-03-04", "Source: Journal of Bridges", "A. Author", "Stone bridges last."]:
        assert part in out.content
    assert local_web.requests[-1]["query"]["search"] == ["stone bridges"]


async def test_scholar_falls_back_to_semantic_scholar(local_web, corpus_task, tool_settings):
    local_web.route("/openalex/works", 503, "down", "text/plain")
    local_web.json_route(
        "/s2/graph/v1/paper/search",
        {"data": [{"title": "Arches", "url": "https://s2.example/p", "externalIds": {"DOI": "10.2/arch"}, "year": 1999, "venue": "Arch J", "abstract": "About arches.", "authors": [{"name": "B"}]}]},
    )
    out = await toolbox(corpus_task, tool_settings, backend(local_web, tool_settings)).call("scholar_search", {"query": "arches"})
    assert not out.error, out.content
    assert "Link: https://doi.org/10.2/arch" in out.content and "Date: 1999" in out.content and "Source: Arch J" in out.content
    local_web.route("/s2/graph/v1/paper/search", 500, "err", "text/plain")
    out = await toolbox(corpus_task, tool_settings, backend(local_web, tool_settings)).call("scholar_search", {"query": "arches"})
    assert out.error and "OpenAlex answered HTTP 503" in out.content and "Semantic Scholar answered HTTP 500" in out.content


# ---------------------------------------------------------------- visit


async def test_visit_extracts_the_main_text(local_web, corpus_task, tool_settings):
    local_web.route("/article", body=ARTICLE)
    tb = toolbox(corpus_task, tool_settings, backend(local_web, tool_settings))
    out = await tb.call("visit", {"url": [local_web.url("/article")], "goal": "when was the bridge completed"})
    assert not out.error, out.content
    assert f"=== The Bridge of Valdoria ({local_web.url('/article')}) ===" in out.content
    assert "completed in 1742 by the mason Aldo Ferri" in out.content
    assert "Subscribe to our newsletter" not in out.content and "Cookie settings" not in out.content


async def test_visit_summarises_with_the_summariser_model(local_web, corpus_task, tool_settings, fake):
    prompts = []

    def handler(req):
        prompts.append(req.messages[-1]["content"])
        return fake.Reply(content="Built in 1742 by Aldo Ferri.")

    tool_settings.summariser_model = fake.register("web-summariser", handler)
    local_web.route("/article", body=ARTICLE)
    out = await toolbox(corpus_task, tool_settings, backend(local_web, tool_settings)).call("visit", {"url": local_web.url("/article"), "goal": "builder of the bridge"})
    assert "Summary for the goal:\nBuilt in 1742 by Aldo Ferri." in out.content
    assert "Goal: builder of the bridge" in prompts[0] and "eleven years of work" in prompts[0]


async def test_visit_follows_up_to_five_redirects(local_web, corpus_task, tool_settings):
    local_web.route("/article", body=ARTICLE)
    for i in range(5):
        target = "/article" if i == 4 else f"/r{i + 1}"
        local_web.route(f"/r{i}", 302, b"", headers={"Location": target})
    for i in range(7):
        local_web.route(f"/loop{i}", 302, b"", headers={"Location": f"/loop{i + 1}"})
    tb = toolbox(corpus_task, tool_settings, backend(local_web, tool_settings))
    ok = await tb.call("visit", {"url": [local_web.url("/r0")], "goal": "bridge"})
    assert not ok.error and "Aldo Ferri" in ok.content and "-> " + local_web.url("/article") in ok.content
    bad = await tb.call("visit", {"url": [local_web.url("/loop0")], "goal": "bridge"})
    assert bad.error and "more than 5 redirects" in bad.content


async def test_visit_errors_are_texts(local_web, corpus_task, tool_settings):
    tool_settings.http_timeout_s = 0.5
    local_web.route("/slow", body=ARTICLE, delay=2.0)
    local_web.route("/doc.pdf", body=b"%PDF-1.4 binary", ctype="application/pdf")
    tb = toolbox(corpus_task, tool_settings, backend(local_web, tool_settings))
    cases = {
        local_web.url("/missing"): "HTTP 404",
        local_web.url("/slow"): "no answer within 0.5 s",
        local_web.url("/doc.pdf"): "PDF",
        "ftp://example.org/file": "only http and https",
    }
    out = await tb.call("visit", {"url": list(cases), "goal": "g"})
    assert out.error
    for url, needle in cases.items():
        assert url in out.content and needle in out.content, (url, out.content)


async def test_visit_caps_the_download(local_web, corpus_task, tool_settings):
    tool_settings.visit_max_bytes = 5_000
    body = "<html><body><article>" + "<p>The bridge is old and made of stone.</p>" * 2000 + "</article></body></html>"
    local_web.route("/huge", body=body)
    out = await toolbox(corpus_task, tool_settings, backend(local_web, tool_settings)).call("visit", {"url": [local_web.url("/huge")], "goal": "bridge"})
    assert not out.error and "only the first 5000 bytes" in out.content


async def test_visit_plain_text_page(local_web, corpus_task, tool_settings):
    local_web.route("/notes.txt", body="Line one about bridges.\nLine two.", ctype="text/plain; charset=utf-8")
    out = await toolbox(corpus_task, tool_settings, backend(local_web, tool_settings)).call("visit", {"url": [local_web.url("/notes.txt")], "goal": "bridges"})
    assert "Line one about bridges." in out.content


async def test_visit_refuses_private_addresses_by_default(local_web, corpus_task, tool_settings):
    local_web.route("/article", body=ARTICLE)
    be = WebBackend(tool_settings, provider="serper")  # allow_private is False in production
    out = await toolbox(corpus_task, tool_settings, be).call("visit", {"url": [local_web.url("/article")], "goal": "g"})
    assert out.error and "non-public address" in out.content
    assert local_web.requests == []
    # a public-looking first hop that redirects inward is refused too
    local_web.route("/jump", 302, b"", headers={"Location": "http://localhost/admin"})
    be2 = backend(local_web, tool_settings)
    be2.allow_private = False
    out = await toolbox(corpus_task, tool_settings, be2).call("visit", {"url": [local_web.url("/jump")], "goal": "g"})
    assert out.error and "non-public" in out.content


def test_unknown_backend_name_is_rejected(corpus_task, tool_settings):
    with pytest.raises(ValueError, match="unknown backend 'bing'"):
        make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings), backend="bing")


async def test_one_unreadable_url_does_not_spoil_the_others(local_web, corpus_task, tool_settings):
    """A URL that fails in a way no page fetch expects (here one httpx cannot parse) gets its own
    error; the other pages of the same visit are still read."""
    local_web.route("/article", body=ARTICLE)
    tb = toolbox(corpus_task, tool_settings, backend(local_web, tool_settings))
    out = await tb.call("visit", {"url": [local_web.url("/article"), "http://[not-an-address/x"], "goal": "bridge"})
    assert not out.error and "Aldo Ferri" in out.content
    assert "http://[not-an-address/x" in out.content and "Could not read the page" in out.content
