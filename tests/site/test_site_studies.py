"""A blind study's play, made the way a player makes it (a study link's code, the consent's "I agree",
the player's "done" through the player view's own handlers, the ReAct agent on a scripted model):
``site build`` leaves it out unless asked (``--study``, ``--include-studies``), and when it is
published, no file of the site names its agent — not a page, not the JSON a page embeds, not the
bundle. The Compare tab does not name it either, to anyone but an admin (issue 39)."""

from __future__ import annotations

import gzip
import json
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "app"))  # app_fakes: the scripted agent the app tests use

TASK = "daily-en-japan-heritage-trip"
AGENT_MODEL = "fake/site-blind-agent-q7"
# what would name the agent: its model, the agent kind with it, the kind as a config field
LEAKS = [AGENT_MODEL, "site-blind-agent-q7", "react:", '"react"', "react (", "react ·"]


def _contents(path: Path) -> bytes:
    """A file as a reader gets it: a gzipped file unpacked, a page with the replay data it embeds
    (gzipped and base64'd when large) spelled out."""
    from vibesearch.site import read_json_script

    data = path.read_bytes()
    if path.suffix == ".gz":
        return gzip.decompress(data)
    if path.suffix == ".html" and b'id="run-events"' in data:
        return data + json.dumps(read_json_script(data.decode("utf-8"), "run-events"), ensure_ascii=False).encode("utf-8")
    return data


def _leaks(out: Path) -> list[str]:
    return [f"{p.relative_to(out)}: {leak}" for p in sorted(out.rglob("*")) if p.is_file()
            for leak in LEAKS if leak.encode() in _contents(p)]


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    from vibesearch.config import Settings

    return Settings(db=tmp_path_factory.mktemp("studies") / "s.db", llm_backoff_s=0.01, llm_backoff_max_s=0.05, tasks="")


@pytest.fixture(scope="module")
def store(settings):
    from vibesearch.store import Store

    return Store(settings.db)


@pytest.fixture(scope="module")
def played(settings, store):
    """A store holding one finished, scored play of a blind study and one ordinary run of the same persona."""
    import gradio as gr
    from app_fakes import agent
    from typer.testing import CliRunner

    from vibesearch.llm import fake

    from vibesearch.app import study_play
    from vibesearch.app import Access
    from vibesearch.app import StudyConfig, create_study, player_prefix
    from vibesearch.app.catalog import TaskCatalog
    from vibesearch.app.context import AppContext, RunView
    from vibesearch.app.live import RunManager
    from vibesearch.cli.main import app

    fake.install()
    fake.register("site-blind-agent-q7", lambda req: agent(req, delay=0.0))
    ctx = AppContext(settings=settings, store=store, catalog=TaskCatalog.load(settings), manager=RunManager(store, settings),
                     access=Access(settings))
    try:
        study, links = create_study(store, "blind pilot", StudyConfig(tasks=(TASK,), agent="react", agent_model=AGENT_MODEL,
                                                                    shadow=False, blind=True, time_limit_min=5), "admin")
        claimed = store.claim_study_code(study.id, links[0].code, player_prefix(study.id))
        assert claimed is not None and claimed.player
        with gr.Blocks():
            view = study_play.build(ctx)
        on_agree, on_send = view.fns[0].fn, view.fns[2].fn
        player = gr.Request(username=claimed.player)
        on_agree(RunView(), player)
        play = store.study_play_of(claimed.player)
        assert play is not None and play.run_id
        live = ctx.manager.get(play.run_id)
        deadline = time.monotonic() + 60
        while live.pending() is None:  # the agent's first answer, then the player's turn
            assert time.monotonic() < deadline and not live.finished, "the play never reached the player's turn"
            time.sleep(0.05)
        on_send(RunView(run_id=play.run_id), "done", "", player)
        ctx.manager.wait(play.run_id, timeout=60)
    finally:
        ctx.manager.shutdown()
        fake.unregister("site-blind-agent-q7")
    run = store.get_run(play.run_id)
    assert run.status == "finished" and run.meta().get("blind") and store.scores(run.id)
    assert run.agent == "react" and run.agent_model == AGENT_MODEL  # the database knows the agent ...
    res = CliRunner().invoke(app, ["run", "--tasks", TASK, "--runs", "1", "--db", str(settings.db)])
    assert res.exit_code == 0, res.output
    other = next(r.id for r in store.list_runs() if r.id != run.id)
    from vibesearch.labels.votes import cast_vote

    cast_vote(store, run.id, other, "a", "a voter")  # a vote on the play: published only with it, its agent hidden
    return run.id, other


def test_site_build_leaves_study_plays_out_unless_asked(played, store, tmp_path):
    from vibesearch.site import build_site

    play, other = played
    results = build_site(store, tmp_path / "default")
    assert [r["run_id"] for r in results["runs"]] == [other]
    assert results["preference"] is None  # the vote on the play is not published without it
    assert not any(play.encode() in _contents(p) for p in (tmp_path / "default").rglob("*") if p.is_file())
    assert _leaks(tmp_path / "default") == []


@pytest.mark.parametrize("ask", [{"study": "blind pilot"}, {"include_studies": True}])
def test_a_published_blind_play_names_its_agent_in_no_file(played, store, tmp_path, ask):
    from vibesearch.site import build_site, verify_site

    play, other = played
    out = tmp_path / "site"
    results = build_site(store, out, **ask)
    assert play in {r["run_id"] for r in results["runs"]}
    assert _leaks(out) == []  # ... the site does not: no page, no embedded replay data, no bundle file
    page = (out / "runs" / f"{play}.html").read_text(encoding="utf-8")
    assert "blind study agent" in page  # what it shows instead
    entry = next(r for r in results["runs"] if r["run_id"] == play)
    assert entry["run_config"] is None and entry["config"].startswith("blind study agent")
    if other in {r["run_id"] for r in results["runs"]}:  # the vote is published with both its runs
        labels = [r["label"] for r in results["preference"]["ratings"]]  # naming the play as published
        assert labels[0].startswith("blind study agent") and len(labels) == 2
    else:
        assert results["preference"] is None
    check = verify_site(out)  # every number recomputed and every page rendered again from what was published
    assert check.ok, check.problems


def test_the_compare_tab_names_a_blind_plays_agent_to_admins_only(played, settings, store):
    import gradio as gr

    from vibesearch.app import compare_view
    from vibesearch.app import AGENT_HIDDEN, Access
    from vibesearch.app.catalog import TaskCatalog
    from vibesearch.app.context import AppContext
    from vibesearch.app.live import RunManager

    play, other = played
    ctx = AppContext(settings=settings, store=store, catalog=TaskCatalog.load(settings), manager=RunManager(store, settings),
                     access=Access(settings))
    try:
        with gr.Blocks():
            owner = gr.BrowserState()
            tab = compare_view.build(ctx, owner)
        token = ctx.access.issue()
        status, stages, coverage, *_ = tab.on_compare(token, play, other, gr.Request())
        shown = status + stages + coverage
        assert AGENT_HIDDEN in stages and "baseline" in stages  # the other run's agent is named
        assert not [leak for leak in LEAKS if leak in shown]
        lists = tab.on_show(token, None, None, None, gr.Request())
        labels = json.dumps([dd.choices for dd in lists], ensure_ascii=False)  # the configurations offered
        assert "baseline" in labels and not [leak for leak in LEAKS if leak in labels]
    finally:
        ctx.manager.shutdown()
