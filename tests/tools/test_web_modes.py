"""The web modes' rules (``run.web``, ``RunConfig.search.web``) and what the live backend records
of each provider: a search, a scholar search (OpenAlex failing, Semantic Scholar answering), a
provider error; never a key (serper's in a header, Semantic Scholar's too). Servers: the tool
tests' local one on 127.0.0.1."""

from __future__ import annotations

import pytest

from vibesearch.protocol import build_config
from vibesearch.run import WebEvent
from vibesearch.run.config import SearchSpec
from vibesearch.run.web import kept_headers, parse_web_choice, scrub_url
from vibesearch.tools import make_toolbox
from vibesearch.tools.web import WebBackend
from vibesearch.tools.web_replay import Recording, ReplayBackend

SERPER_KEY = "serper-header-key-0987654321"
S2_KEY = "s2-header-key-1234567890"


def test_the_mode_of_a_run():
    assert parse_web_choice("record") == ("record", None) and parse_web_choice("live") == ("live", None)
    assert parse_web_choice("replay") == ("replay", None) and parse_web_choice("replay:r1, b2") == ("replay", "r1, b2")
    for bad in ("rerun", "live:r1", ""):
        with pytest.raises(ValueError, match="record | replay"):
            parse_web_choice(bad)


def test_a_web_backend_records_unless_told_and_the_corpus_has_no_web(settings):
    assert build_config(settings, search_backend="searxng").search.web == "record"
    assert build_config(settings, search_backend="ddgs", web="live").search.web == "live"
    assert build_config(settings).search.web is None  # the offline corpus: nothing to record
    assert build_config(settings, web="record").search.web is None
    replay = build_config(settings, web="replay", web_from="b1").search
    assert (replay.web, replay.web_from) == ("replay", "b1")
    assert build_config(settings, search_backend="ddgs", web="record", web_from="b1").search.web_from is None


def test_scrubbing_urls_and_headers():
    assert scrub_url("https://u:pw@x.example/p?api_key=abc&q=bridge&token=t1&sig=zz#f") == \
        "https://x.example/p?api_key=[redacted]&q=bridge&token=[redacted]&sig=[redacted]#f"
    assert scrub_url("https://x.example/a?page=2&keywords=bridge&zip=1") == "https://x.example/a?page=2&keywords=bridge&zip=1"
    assert scrub_url("https://s3.example/o?X-Amz-Signature=ab12&access_token=t&sessionid=s&code=c&apikey=k") == \
        "https://s3.example/o?X-Amz-Signature=[redacted]&access_token=[redacted]&sessionid=[redacted]&code=[redacted]&apikey=[redacted]"
    kept = kept_headers({"Content-Type": "text/html", "Set-Cookie": "sid=1", "Authorization": "Bearer x", "ETag": "e", "X-Api-Key": "k"})
    assert kept == {"content-type": "text/html", "etag": "e"}


def _backend(web, settings, provider: str) -> WebBackend:
    urls = {"serper": web.url("/serper"), "openalex": web.url("/openalex"), "semantic_scholar": web.url("/s2")}
    return WebBackend(settings, provider=provider, search=SearchSpec(backend=provider, web="record"), base_urls=urls, allow_private=True)  # type: ignore[arg-type]


async def test_searches_and_scholar_searches_are_recorded_without_keys(local_web, corpus_task, tool_settings, monkeypatch):
    monkeypatch.setenv("SERPER_API_KEY", SERPER_KEY)
    monkeypatch.setenv("SEMANTIC_SCHOLAR_API_KEY", S2_KEY)
    local_web.json_route("/serper/search", {"organic": [{"title": "Bridge", "link": "https://v.example/b?token=abc", "snippet": "1742."}]})
    local_web.route("/openalex/works", 503, "down", "text/plain")
    local_web.json_route("/s2/graph/v1/paper/search", {"data": [{"title": "Bridges of the valley", "url": "https://papers.example/1", "year": 2001}]})
    be = _backend(local_web, tool_settings, "serper")
    box = make_toolbox(corpus_task, tool_settings, search=be.search_spec, backend=be)
    seen: list = []
    found = await box.call("search", {"query": "valdoria bridge", "topn": 2}, seen.append)
    scholarly = await box.call("scholar_search", {"query": "valley bridges"}, seen.append)
    monkeypatch.delenv("SERPER_API_KEY")
    failed = await box.call("search", {"query": "no key now"}, seen.append)
    assert not found.error and not scholarly.error and failed.error
    assert local_web.requests[0]["headers"]["x-api-key"] == SERPER_KEY  # sent, never kept
    search, scholar, error = seen
    assert isinstance(search, WebEvent) and (search.op, search.backend, search.query, search.topn) == ("search", "serper", "valdoria bridge", 2)
    assert search.hits and search.hits[0]["url"] == "https://v.example/b?token=[redacted]" and search.fetched_at
    assert (scholar.op, scholar.backend) == ("scholar", "openalex,semantic_scholar") and scholar.hits[0]["title"] == "Bridges of the valley"
    assert error.error and "SERPER_API_KEY" in error.error and error.hits is None
    dumped = "".join(e.model_dump_json() for e in seen)
    assert SERPER_KEY not in dumped and S2_KEY not in dumped

    # the recording replayed: the same texts, the failure included, and nothing asked of the server
    asked = len(local_web.requests)
    replay = make_toolbox(corpus_task, tool_settings, backend=ReplayBackend(Recording(seen), tool_settings, search=be.search_spec))
    assert (await replay.call("scholar_search", {"query": "valley bridges"})).content == scholarly.content
    again = await replay.call("search", {"query": "no key now"})
    assert again.error and again.content == failed.content
    assert len(local_web.requests) == asked


async def test_live_mode_records_nothing(local_web, corpus_task, tool_settings):
    local_web.route("/page", 200, "<html><head><title>P</title></head><body><p>Plenty of words about a bridge.</p></body></html>")
    be = WebBackend(tool_settings, provider="searxng", search=SearchSpec(backend="searxng", web="live"), allow_private=True)
    seen: list = []
    out = await make_toolbox(corpus_task, tool_settings, search=be.search_spec, backend=be).call("visit", {"url": [local_web.url("/page")], "goal": "g"}, seen.append)
    assert not out.error and "bridge" in out.content and seen == []


def test_a_replay_with_nothing_recorded_or_an_unknown_selection_is_refused(tmp_path):
    from typer.testing import CliRunner

    from vibesearch.cli.main import app

    from vibesearch.store import Store

    missing = tmp_path / "missing.db"  # no database: refused in one line, and no file left behind
    for command in (["run", "--tasks"], ["play", "--task"]):
        out = CliRunner().invoke(app, [*command, "daily-en-japan-heritage-trip", "--agent", "react", "--model", "fake/none",
                                       "--web", "replay", "--db", str(missing)])
        assert out.exit_code == 1 and "nothing is recorded to replay, there is no database at" in out.output, out.output
        assert not missing.exists()
    db = tmp_path / "empty.db"
    Store(db)
    baseline = CliRunner().invoke(app, ["run", "--tasks", "daily-en-japan-heritage-trip", "--web", "replay", "--db", str(db)])
    assert baseline.exit_code == 1 and "the baseline agent reads the task's offline corpus, never a web" in baseline.output, baseline.output
    for web, said in [("replay", "nothing is recorded for the runs of task daily-en-japan-heritage-trip"),
                      ("replay:no-such-batch", "'no-such-batch' is no run, batch or task in the database"),
                      ("rerun", "--web: 'rerun' is not a web mode")]:
        out = CliRunner().invoke(app, ["run", "--tasks", "daily-en-japan-heritage-trip", "--agent", "react", "--model", "fake/none",
                                       "--web", web, "--db", str(db)])
        assert out.exit_code == 1 and said in out.output, out.output
        assert "Traceback" not in out.output
    played = CliRunner().invoke(app, ["play", "--task", "daily-en-japan-heritage-trip", "--agent", "react", "--model", "fake/none",
                                      "--web", "replay", "--db", str(db)])
    assert played.exit_code == 1 and "nothing is recorded for the runs of task daily-en-japan-heritage-trip" in played.output, played.output


def test_freeze_refuses_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from vibesearch.cli.main import app
    from vibesearch.store import Store

    db = tmp_path / "web.db"
    run = Store(db).create_run("task-a")  # a run that recorded nothing
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    for args, said in [
        ([str(tmp_path / "o1"), "--task", "task-a", "--db", str(tmp_path / "none.db")], "no database at"),
        ([str(tmp_path / "o2"), "--task", "task-a", "--runs", "nope", "--db", str(db)], "--runs: 'nope' is no run, batch or task"),
        ([str(tmp_path / "o3"), "--task", "task-b", "--db", str(db)], "--task task-b: no run of it"),
        ([str(tmp_path / "o4"), "--task", "task-a", "--runs", run.id, "--db", str(db)], "recorded no page with text"),
        ([str(tmp_path / "full"), "--task", "task-a", "--db", str(db)], "give a new or empty folder"),
    ]:
        out = CliRunner().invoke(app, ["corpus", "freeze", *args])
        assert out.exit_code == 1 and said in out.output and out.output.startswith("error: "), out.output
    assert not (tmp_path / "none.db").exists()
