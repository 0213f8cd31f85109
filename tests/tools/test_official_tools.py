"""The official profile's tools (``vibesearch.tools.official``): the official result layouts, the
``visit`` extractor step, python's layout and limits, the official error texts, and no cut."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from vibesearch.protocol import load_prompts, own_prompts
from vibesearch.tasks.models import CorpusDoc
from vibesearch.tools import Hit, OfficialToolbox, make_official_toolbox, make_toolbox
from vibesearch.tools.offline import OfflineBackend, OfflineCorpus
from vibesearch.tools.official import PYTHON_TIMED_OUT, absolute_date, hits_text, official_sandbox
from vibesearch.tools.sandbox import PythonSandbox
from vibesearch.tools.web import WebBackend

from _tool_search import search_of

STAND_IN = Path(__file__).resolve().parents[1] / "data" / "official_harness"
FAKE_KEY = "sk-fakesecretkey-do-not-leak-0123456789"
ZHANG = "https://history.example.org/zhang-heng"
PAPER = "https://journal.example.org/paper/seismology-history"


def _toolbox(task, settings, *, model="fake/agent-model", prompts=None, backend=None) -> OfficialToolbox:
    return make_official_toolbox(
        task, settings, search=search_of(settings), prompts=prompts or load_prompts(STAND_IN), model=model, backend=backend
    )


def _corpus_backend(docs, settings, *extra: CorpusDoc) -> OfflineBackend:
    return OfflineBackend(OfflineCorpus([*docs, *extra]), settings)


@pytest.fixture
def extractor(fake):
    """A fake extractor model that records its requests and answers with ``reply[0]``."""
    seen: list = []
    reply = ['```json\n{"evidence": "the page says X", "summary": "X holds."}\n```']

    def handler(req):
        seen.append(req)
        return reply[0] if isinstance(reply[0], fake.Reply) else fake.Reply(content=reply[0])

    model = fake.register("official-extractor", handler)
    return type("Extractor", (), {"model": model, "seen": seen, "reply": reply})


# ---------------------------------------------------------------- search and scholar_search


async def test_offline_search_has_the_official_layout(corpus_task, tool_settings):
    tb = _toolbox(corpus_task, tool_settings)
    out = await tb.call("search", {"query": "seismoscope", "topn": 2})
    assert not out.error
    assert out.content == (
        "A Google search for 'seismoscope' found 2 results:\n\n## Web Results\n\n"
        f"0. [Zhang Heng and the first seismoscope]({ZHANG})\n"
        "In 132 AD he built the first seismoscope, a bronze vessel with eight dragons.\n\n"
        f"1. [Early instruments in the history of seismology]({PAPER})\n"
        "Date published: 2019-05-01\n"
        "Source: Journal of Example Seismology\n"
        "This paper reviews early seismological instruments, starting with the seismoscope of Zhang Heng "
        "and ending with the pendulum seismographs of the nineteenth century."
    )
    # source is accepted and changes nothing (the official code sends news to the same search)
    assert (await tb.call("search", {"query": "seismoscope", "topn": 2, "source": "news"})).content == out.content
    assert (await tb.call("search", {"query": "seismoscope", "topn": 2, "source": "web"})).content == out.content


async def test_search_defaults_lists_of_queries_and_no_results(corpus_task, docs, tool_settings):
    asked = []

    class Recording(OfflineBackend):
        async def hits(self, query, topn, *, scholarly=False, emit=None):
            asked.append((query, topn, scholarly))
            return await super().hits(query, topn, scholarly=scholarly)

    spy = _toolbox(corpus_task, tool_settings, backend=Recording(OfflineCorpus(docs), tool_settings))
    await spy.call("search", {"query": "seismoscope"})
    await spy.call("search", {"query": "seismoscope", "topn": "3"})
    await spy.call("scholar_search", {"query": "seismoscope"})
    assert asked == [("seismoscope", 10, False), ("seismoscope", 3, False), ("seismoscope", 10, True)]
    tb = _toolbox(corpus_task, tool_settings)
    out = await tb.call("search", {"query": ["short history of tea", "zzqqxx"], "topn": 1})
    first, second = out.content.split("\n=======\n")
    assert first.startswith("A Google search for 'short history of tea' found 1 results:\n\n## Web Results\n\n0. [A short history of tea]")
    assert second == "No results for 'zzqqxx'"


async def test_scholar_search_has_the_official_layout(corpus_task, tool_settings):
    out = await _toolbox(corpus_task, tool_settings).call("scholar_search", {"query": "seismoscope"})
    assert out.content == (
        "A Google Scholar search for 'seismoscope' found 1 results:\n\n## Scholar Results\n\n"
        f"0. [Early instruments in the history of seismology]({PAPER})\n"
        "Date published: 2019-05-01\nSource: Journal of Example Seismology\n"
        "This paper reviews early seismological instruments, starting with the seismoscope of Zhang Heng "
        "and ending with the pendulum seismographs of the nineteenth century."
    )
    none = await _toolbox(corpus_task, tool_settings).call("scholar_search", {"query": "tea ceremony"})
    assert none.content == "No scholar results for 'tea ceremony'"


def test_relative_dates_become_calendar_dates_in_web_search_only():
    now = datetime(2025, 3, 10, 12, 0)
    assert absolute_date("2 days ago", now) == "Mar 08, 2025"
    assert absolute_date("5 hours ago", now) == "Mar 10, 2025"
    assert absolute_date("1 week ago", now) == "Mar 03, 2025"
    assert absolute_date("2 months ago", now) == "Jan, 2025"
    assert absolute_date("3 years ago", now) == "2022"
    assert absolute_date("2019-05-01", now) == "2019-05-01"
    hits = [Hit("T", "https://t.example", "snip", date="2 days ago"), Hit("U", "https://u.example")]
    assert hits_text("q", hits, now=now) == (
        "A Google search for 'q' found 2 results:\n\n## Web Results\n\n"
        "0. [T](https://t.example)\nDate published: Mar 08, 2025\nsnip\n\n1. [U](https://u.example)"
    )
    assert "Date published: 2 days ago" in hits_text("q", hits, scholarly=True, now=now)


async def test_web_backend_search_and_visit(local_web, corpus_task, tool_settings, monkeypatch, extractor):
    monkeypatch.setenv("SERPER_API_KEY", "serper-test-key-0123456789")
    local_web.json_route("/serper/search", {"organic": [
        {"title": "Bridge of Valdoria", "link": "https://valdoria.example/bridge", "snippet": "Completed in 1742."},
        {"title": "Aldo Ferri", "link": "https://valdoria.example/ferri", "snippet": "A mason."},
    ]})
    local_web.route("/page", body="<html><head><title>P</title></head><body><article><p>" + "The bridge was completed in 1742. " * 5 + "</p></article></body></html>")
    be = WebBackend(tool_settings, provider="serper", base_urls={"serper": local_web.url("/serper")}, allow_private=True)
    tb = _toolbox(corpus_task, tool_settings, backend=be, model=extractor.model)
    out = await tb.call("search", {"query": "valdoria bridge", "topn": 2, "source": "news"})
    assert out.content == (
        "A Google search for 'valdoria bridge' found 2 results:\n\n## Web Results\n\n"
        "0. [Bridge of Valdoria](https://valdoria.example/bridge)\nCompleted in 1742.\n\n"
        "1. [Aldo Ferri](https://valdoria.example/ferri)\nA mason."
    )
    assert json.loads(local_web.requests[-1]["body"]) == {"q": "valdoria bridge", "num": 2}
    page = await tb.call("visit", {"url": [local_web.url("/page")], "goal": "completion"})
    assert "The bridge was completed in 1742." in extractor.seen[0].messages[0]["content"]
    assert page.content.startswith(f"The useful information in {local_web.url('/page')} for user goal completion as follows:")
    # the fetch guard stays: a private address is not read without allow_private
    guarded = _toolbox(corpus_task, tool_settings, backend=WebBackend(tool_settings, provider="serper"), model=extractor.model)
    refused = await guarded.call("visit", {"url": [local_web.url("/page")], "goal": "completion"})
    assert refused.content.endswith("Summary:\nThe webpage could not be accessed.\n") and len(extractor.seen) == 1


# ---------------------------------------------------------------- visit


async def test_visit_sends_the_first_150000_characters_to_the_extractor(corpus_task, docs, tool_settings, extractor):
    text = "".join(f"line {i:06d} of the long page.\n" for i in range(7_000))  # 7,000 x 29 = 203,000 characters
    assert len(text) > 200_000
    long_doc = CorpusDoc(url="https://long.example.org/page", title="Long page", text=text)
    prompts = load_prompts(STAND_IN)
    tb = _toolbox(corpus_task, tool_settings, prompts=prompts, model=extractor.model, backend=_corpus_backend(docs, tool_settings, long_doc))
    out = await tb.call("visit", {"url": ["https://long.example.org/page"], "goal": "the last line"})
    (req,) = extractor.seen
    assert req.messages == [{"role": "user", "content": prompts.extractor_prompt(text[:150_000], "the last line")}]
    assert req.messages[0]["content"] == f"STAND-IN extractor.\nPAGE:\n{text[:150_000]}\nGOAL:\nthe last line\n" + \
        'STAND-IN: answer JSON with "evidence" and "summary".'
    assert req.sampling == {"temperature": 0.7, "max_tokens": 4096} and "top_p" not in req.body
    assert out.content == (
        "The useful information in https://long.example.org/page for user goal the last line as follows:\n\n"
        "Evidence in page:\nthe page says X\n\nSummary:\nX holds.\n"
    )


async def test_the_summariser_model_of_the_settings_wins(corpus_task, tool_settings, extractor, fake):
    fake.register("official-agent-model", lambda req: pytest.fail("the agent model must not extract"))
    tool_settings.summariser_model = extractor.model
    tb = _toolbox(corpus_task, tool_settings, model="fake/official-agent-model")
    await tb.call("visit", {"url": ZHANG, "goal": "builder"})  # a plain string is one URL
    assert len(extractor.seen) == 1 and "Zhang Heng was a Chinese polymath" in extractor.seen[0].messages[0]["content"]


async def test_visit_reply_forms(corpus_task, tool_settings, extractor, fake):
    tb = _toolbox(corpus_task, tool_settings, model=extractor.model, prompts=own_prompts())
    head = f"The useful information in {ZHANG} for user goal builder as follows:\n\n"
    extractor.reply[0] = "Zhang Heng built it, but this is no JSON."
    assert (await tb.call("visit", {"url": [ZHANG], "goal": "builder"})).content == head + "Summary:\nZhang Heng built it, but this is no JSON.\n"
    extractor.reply[0] = '{"summary": "only a summary", "evidence": ""}'
    assert (await tb.call("visit", {"url": [ZHANG], "goal": "builder"})).content == head + "Summary:\nonly a summary\n"
    extractor.reply[0] = '["a", "list"]'  # the official code fails on it, and its message is the text
    assert (await tb.call("visit", {"url": [ZHANG], "goal": "builder"})).content == "'list' object has no attribute 'get'"
    # one attempt only, and a failed call reads as an empty reply
    extractor.reply[0] = fake.Reply(error="500")
    before = len(extractor.seen)
    assert (await tb.call("visit", {"url": [ZHANG], "goal": "builder"})).content == head + "Summary:\n\n"
    assert len(extractor.seen) == before + 1 and tool_settings.llm_retries > 0


async def test_short_or_missing_pages_make_no_model_call(corpus_task, docs, tool_settings, extractor):
    short = CorpusDoc(url="https://short.example.org/", title="Short", text="  Too short.  ")
    tb = _toolbox(corpus_task, tool_settings, model=extractor.model, backend=_corpus_backend(docs, tool_settings, short))
    out = await tb.call("visit", {"url": '["https://short.example.org/", "https://nowhere.example.org/x"]', "goal": "g"})
    assert out.content == (
        "The useful information in https://short.example.org/ for user goal g as follows:\n\n"
        "Summary:\nThe webpage could not be accessed.\n"
        "\n=======\n"
        "The useful information in https://nowhere.example.org/x for user goal g as follows:\n\n"
        "Summary:\nThe webpage could not be accessed.\n"
    )
    assert extractor.seen == []


async def test_several_pages_are_read_one_call_each(corpus_task, tool_settings, extractor):
    tb = _toolbox(corpus_task, tool_settings, model=extractor.model)
    out = await tb.call("visit", {"url": [ZHANG, "https://www.example.org/tea/"], "goal": "history"})
    parts = out.content.split("\n=======\n")
    assert [p.splitlines()[0] for p in parts] == [
        f"The useful information in {ZHANG} for user goal history as follows:",
        "The useful information in https://www.example.org/tea/ for user goal history as follows:",
    ]
    assert len(extractor.seen) == 2


# ---------------------------------------------------------------- python


async def test_python_output_layout(corpus_task, tool_settings):
    tb = _toolbox(corpus_task, tool_settings)
    both = await tb.call("python", {"code": "import sys\nprint('hello')\nsys.stderr.write('warned')"})
    assert both.content == "stdout:\nhello\n\nstderr:\nwarned"
    assert (await tb.call("python", {"code": "print(6 * 7)"})).content == "stdout:\n42"
    assert (await tb.call("python", {"code": "x = 1"})).content == "(no output)"
    failed = await tb.call("python", {"code": "raise ValueError('bad')"})
    assert failed.content.startswith("stderr:\nTraceback") and "ValueError: bad" in failed.content


def test_python_runs_with_the_official_limit(tool_settings):
    sandbox = official_sandbox(tool_settings)
    assert sandbox.settings.python_timeout_s == 120 and sandbox.settings.python_cpu_s >= 120
    assert tool_settings.python_timeout_s == 3.0  # the process's settings are left alone


async def test_python_time_limit_text(corpus_task, docs, tool_settings):
    quick = PythonSandbox(tool_settings.model_copy(update={"python_timeout_s": 1.0}))
    tb = OfficialToolbox(_corpus_backend(docs, tool_settings), quick, tool_settings, prompts=own_prompts(), model="fake/x")
    out = await tb.call("python", {"code": "import time\nprint('start', flush=True)\ntime.sleep(30)"})
    assert out.content == "stdout:\nstart\n\n" + PYTHON_TIMED_OUT


async def test_python_sandbox_failure_is_the_interpreter_error(corpus_task, docs, tool_settings):
    class Broken(PythonSandbox):
        async def execute(self, code):
            raise RuntimeError(f"the sandbox is gone (key {FAKE_KEY})")

    tb = OfficialToolbox(_corpus_backend(docs, tool_settings), Broken(tool_settings), tool_settings, prompts=own_prompts(), model="fake/x")
    out = await tb.call("python", {"code": "print(1)"})
    assert out.content == "[Python Interpreter Error]: the sandbox is gone (key [redacted])" and out.error


# ---------------------------------------------------------------- errors, schemas, no cut


async def test_unknown_tools_and_failures_are_the_official_texts(corpus_task, docs, tool_settings, monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", FAKE_KEY)

    class Failing(OfflineBackend):
        async def page_texts(self, urls, emit=None):
            raise ConnectionError(f"the reader broke with {FAKE_KEY}")

        async def hits(self, query, topn, *, scholarly=False, emit=None):
            raise RuntimeError(f"index missing for {query}")

    tb = _toolbox(corpus_task, tool_settings, backend=Failing(OfflineCorpus(docs), tool_settings))
    assert (await tb.call("browse", {"url": "x"})).content == "Unknown tool: browse"
    broken = await tb.call("visit", {"url": ["https://a.example"], "goal": "g"})
    assert broken.content == "Error executing 'visit': the reader broke with [redacted]" and broken.error
    bad_topn = await tb.call("search", {"query": "tea", "topn": "many"})
    assert bad_topn.content == "Error executing 'search': topn must be a whole number, not 'many'"
    # a query that fails among others stands as its error's message, as the official search joins them
    out = await tb.call("search", {"query": ["a", "b"]})
    assert out.content == "index missing for a\n=======\nindex missing for b"
    assert (await tb.call("search", [])).content.startswith("Error executing 'search': ")  # not even a dict: never raises


def test_schemas_are_the_prompt_sets(corpus_task, tool_settings):
    prompts = load_prompts(STAND_IN)
    tb = _toolbox(corpus_task, tool_settings, prompts=prompts)
    assert tb.schemas() == list(prompts.tools)
    tb.schemas()[0]["function"]["name"] = "changed"  # a copy each time
    assert tb.schemas()[0]["function"]["name"] == "search"
    assert [s["function"]["name"] for s in _toolbox(corpus_task, tool_settings, prompts=own_prompts()).schemas()] == [
        "search", "visit", "scholar_search", "python"]


async def test_no_result_is_cut(corpus_task, docs, tool_settings, extractor):
    # the vibesearch toolbox cuts at tool_result_max_chars (4,000 here); the official one never does
    big = "word " * 3_000
    assert tool_settings.tool_result_max_chars < len(big)
    extractor.reply[0] = json.dumps({"evidence": big, "summary": big})
    page = CorpusDoc(url="https://big.example.org/", title="Big", text="A page about words. " * 50)
    tb = _toolbox(corpus_task, tool_settings, model=extractor.model, backend=_corpus_backend(docs, tool_settings, page))
    out = await tb.call("visit", {"url": ["https://big.example.org/"] * 3, "goal": "words"})
    assert out.content.count(big) == 6 and out.truncated_chars == 0 and "characters cut" not in out.content
    code = "print('z' * 9000)"
    printed = await tb.call("python", {"code": code})
    assert printed.content == "stdout:\n" + "z" * 9000  # over python_output_chars (2,000) too
    ours = await make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings)).call("python", {"code": code})
    assert "cut" in ours.content  # the same code under the vibesearch profile's limits
