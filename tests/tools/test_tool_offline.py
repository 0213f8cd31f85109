"""The offline backend: BM25 search, lenient visit, passages, scholar search, summariser, cache."""

from __future__ import annotations

import os
import time

import pytest

from vibesearch.tools import OfflineCorpus, make_toolbox
from vibesearch.tools.offline import clear_cache, corpus_for_task, url_key

from _tool_search import search_of


@pytest.fixture
def corpus(docs) -> OfflineCorpus:
    return OfflineCorpus(docs, "en")


def test_search_ranks_the_matching_document_first(corpus):
    hits = corpus.search("who built the first seismoscope", topn=10)
    assert hits, "expected results"
    assert hits[0][0].url == "https://history.example.org/zhang-heng"
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(s > 0 for s in scores)
    # tea has nothing to do with the query: it is not listed at all
    assert "https://www.example.org/tea/" not in [d.url for d, _ in hits]


def test_search_topn_and_no_match(corpus):
    assert len(corpus.search("seismoscope Zhang Heng", topn=1)) == 1
    assert corpus.search("xylophone quantum", topn=5) == []
    assert corpus.search("the of and", topn=5) == []  # stopwords only


def test_chinese_query_finds_the_chinese_document(corpus):
    hits = corpus.search("张衡发明的地震仪器", topn=3)
    assert hits[0][0].url == "https://baike.example.cn/item/didongyi"
    snippet = corpus.snippet(hits[0][0], "地震 仪器 张衡")
    assert "张衡" in snippet


def test_snippet_is_the_best_matching_sentence(corpus, docs):
    doc = corpus.get("https://long.example.org/valley")
    snip = corpus.snippet(doc, "stone bridge mason")
    assert "Aldo Ferri" in snip and len(snip) <= 300


def test_get_is_lenient_about_scheme_www_and_slash(corpus):
    want = "https://www.example.org/tea/"
    for variant in ["https://www.example.org/tea/", "http://example.org/tea", "example.org/tea/", "HTTPS://WWW.EXAMPLE.ORG/tea"]:
        doc = corpus.get(variant)
        assert doc is not None and doc.url == want, variant
    assert corpus.get("https://www.example.org/coffee") is None
    assert corpus.get("") is None
    assert url_key("https://a.org/x/?q=1#frag") == "a.org/x?q=1"


def test_passages_pick_the_goal_relevant_part(corpus):
    doc = corpus.get("https://long.example.org/valley")
    parts = corpus.passages(doc, "when was the stone bridge completed and by whom", k=2)
    assert 1 <= len(parts) <= 2
    assert any("1742" in p for p in parts)


def test_scholar_only_returns_scholarly_documents(corpus):
    hits = corpus.scholar("seismoscope Zhang Heng instruments")
    assert [d.url for d, _ in hits] == ["https://journal.example.org/paper/seismology-history"]


def test_empty_corpus_is_usable():
    empty = OfflineCorpus([], "en")
    assert empty.search("anything") == [] and empty.scholar("x") == [] and empty.get("a.org") is None


# ---------------------------------------------------------------- through the toolbox


async def test_toolbox_search_visit_scholar(corpus_task, tool_settings):
    tb = make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings))
    assert [s["function"]["name"] for s in tb.schemas()] == ["search", "visit", "scholar_search", "python"]

    out = await tb.call("search", {"query": "first seismoscope", "topn": 2})
    assert not out.error
    assert out.content.count("URL: ") == 2
    assert "1. Zhang Heng and the first seismoscope" in out.content
    assert "URL: https://history.example.org/zhang-heng" in out.content
    assert "132 AD" in out.content  # the snippet

    page = await tb.call("visit", {"url": ["http://history.example.org/zhang-heng/"], "goal": "the seismoscope"})
    assert not page.error
    assert "=== Zhang Heng and the first seismoscope (https://history.example.org/zhang-heng) ===" in page.content
    assert "eight dragons" in page.content and "poetry" in page.content  # short page: shown whole

    sch = await tb.call("scholar_search", {"query": "history of seismology instruments"})
    assert not sch.error
    assert "Link: https://journal.example.org/paper/seismology-history" in sch.content
    assert "Date: 2019-05-01" in sch.content and "Source: Journal of Example Seismology" in sch.content


async def test_visit_unknown_url_is_a_clear_not_found(corpus_task, tool_settings):
    tb = make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings))
    out = await tb.call("visit", {"url": ["https://nowhere.example.net/page"], "goal": "x"})
    assert out.error
    assert "Not found" in out.content and "https://nowhere.example.net/page" in out.content
    mixed = await tb.call("visit", {"url": ["https://nowhere.example.net/page", "https://history.example.org/zhang-heng"], "goal": "x"})
    assert not mixed.error  # one page was read
    assert "Not found" in mixed.content and "eight dragons" in mixed.content


async def test_visit_long_page_shows_goal_passages(corpus_task, tool_settings):
    tb = make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings))
    out = await tb.call("visit", {"url": "https://long.example.org/valley", "goal": "who built the stone bridge"})
    assert not out.error
    assert "Aldo Ferri" in out.content
    assert "passages" in out.content and "best match the goal" in out.content
    assert len(out.content) <= tool_settings.tool_result_max_chars


async def test_result_over_the_cap_is_cut_with_a_marker(corpus_task, tool_settings):
    tb = make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings, tool_result_max_chars=300))
    out = await tb.call("search", {"query": "seismoscope tea valley bridge history", "topn": 10})
    assert out.truncated_chars > 0
    assert out.content.endswith(f"[... {out.truncated_chars} characters cut ...]")
    assert len(out.content) < 300 + 60


async def test_visit_with_summariser_model(corpus_task, tool_settings, fake):
    seen = []

    def handler(req):
        seen.append(req)
        return fake.Reply(content="The seismoscope was built in 132 AD by Zhang Heng.")

    tool_settings.summariser_model = fake.register("tools-summariser", handler)
    events = []
    tb = make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings), emit=events.append)
    out = await tb.call("visit", {"url": ["https://history.example.org/zhang-heng"], "goal": "year of the seismoscope"})
    assert not out.error
    assert "Summary for the goal:\nThe seismoscope was built in 132 AD by Zhang Heng." in out.content
    assert len(seen) == 1
    prompt = seen[0].messages[-1]["content"]
    assert "year of the seismoscope" in prompt and "eight dragons" in prompt
    assert [e.kind for e in events] == ["usage"] and events[0].purpose == "summariser"


async def test_the_summariser_samples_as_the_settings_say(corpus_task, tool_settings, fake):
    """The summariser is the process's (its model is a setting), so its sampling is the settings'
    too: the default temperature when one is set, the provider's own otherwise."""
    seen = []
    tool_settings.summariser_model = fake.register("tools-summariser-sampling", lambda req: seen.append(req.sampling) or fake.Reply(content="ok"))
    for temperature in (0.4, None):
        tool_settings.temperature = temperature
        tb = make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings))
        await tb.call("visit", {"url": ["https://history.example.org/zhang-heng"], "goal": "seismoscope"})
    assert seen == [{"temperature": 0.4}, {}]


async def test_visit_falls_back_to_passages_when_the_summariser_fails(corpus_task, tool_settings, fake):
    tool_settings.summariser_model = fake.register("tools-broken", lambda req: fake.Reply(error="400"))
    tb = make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings))
    out = await tb.call("visit", {"url": ["https://history.example.org/zhang-heng"], "goal": "seismoscope"})
    assert not out.error
    assert "summariser failed" in out.content and "eight dragons" in out.content


async def test_task_without_corpus_gives_an_error_text(corpus_task, tool_settings):
    bare = corpus_task.model_copy(update={"corpus": None})
    bare._file = corpus_task.source_file
    tb = make_toolbox(bare, tool_settings, search=search_of(tool_settings))
    out = await tb.call("search", {"query": "anything"})
    assert out.error and "no offline corpus" in out.content


def test_index_is_cached_per_task_and_corpus_file(corpus_task):
    clear_cache()
    first = corpus_for_task(corpus_task)
    assert corpus_for_task(corpus_task) is first
    assert make_toolbox(corpus_task, _settings(), search=search_of(_settings())).backend.corpus is first
    # editing the corpus file gives a fresh index
    path = os.path.join(os.path.dirname(corpus_task.source_file), corpus_task.corpus)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"url": "https://new.example.org/", "title": "Brand new", "text": "A freshly added zeppelin page."}\n')
    later = time.time() + 5
    os.utime(path, (later, later))
    second = corpus_for_task(corpus_task)
    assert second is not first
    assert second.search("zeppelin")[0][0].url == "https://new.example.org/"


def _settings():
    from vibesearch.config import Settings

    return Settings(tasks="")
