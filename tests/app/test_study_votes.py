"""Votes at the end of a study play (issue 42): once the play is over, the player's page offers a
pair of other finished runs of the persona they played (never their own play), agents hidden, and
stores the pick under the study code's player name through the player view's own handlers."""

from __future__ import annotations

import re

import gradio as gr
import pytest

TASK = "daily-en-japan-heritage-trip"


@pytest.fixture
def setup(tmp_path):
    from typer.testing import CliRunner

    from vibesearch.app import Access, StudyConfig, create_study, player_prefix
    from vibesearch.app.catalog import TaskCatalog
    from vibesearch.app.context import AppContext
    from vibesearch.app.live import RunManager
    from vibesearch.cli.main import app
    from vibesearch.config import Settings
    from vibesearch.store import Store

    settings = Settings(db=tmp_path / "s.db", tasks="")
    runner = CliRunner()
    for extra in ([], ["--user", "direct"]):
        res = runner.invoke(app, ["run", "--tasks", TASK, "--runs", "2", *extra, "--db", str(settings.db)])
        assert res.exit_code == 0, res.output
    store = Store(settings.db)
    runs = sorted(store.list_runs(), key=lambda r: (r.created_at, r.id))
    play_run = runs[0]
    study, links = create_study(store, "vote study", StudyConfig(tasks=(TASK,)), "admin")
    claimed = store.claim_study_code(study.id, links[0].code, player_prefix(study.id))
    assert claimed is not None and store.set_study_run(claimed.player, play_run.id)
    ctx = AppContext(settings=settings, store=store, catalog=TaskCatalog.load(settings), manager=RunManager(store, settings),
                     access=Access(settings))
    yield ctx, claimed.player, play_run, runs
    ctx.manager.shutdown()


def _by_id(out: dict, elem_id: str):
    return next(v for k, v in out.items() if getattr(k, "elem_id", None) == elem_id)


def _pair(out: dict):
    return next(v for k, v in out.items() if isinstance(k, gr.State) and isinstance(v, tuple))


def test_a_player_votes_on_other_runs_of_their_persona_after_the_play(setup):
    from vibesearch.app import study_play
    from vibesearch.app.context import RunView
    from vibesearch.run.conversation import Conversation
    from vibesearch.scoring.aggregate import config_key

    ctx, player, play_run, runs = setup
    with gr.Blocks():
        view = study_play.build(ctx)
    request = gr.Request(username=player)
    out = view.on_load(request)
    assert _by_id(out, "vs-player-vote").visible is True
    a, b = _pair(out)
    assert play_run.id not in (a, b)  # never the player's own play
    run_a, run_b = ctx.store.get_run(a), ctx.store.get_run(b)
    assert config_key(run_a) != config_key(run_b) and run_a.task_id == run_b.task_id == TASK
    for side, rid in (("a", a), ("b", b)):  # each side shows its run's final answer
        words = re.findall(r"[A-Za-z]{5,}", Conversation.from_events(ctx.store.events(rid)).last_reply() or "")[:8]
        assert words and all(w in _by_id(out, f"vs-player-vote-{side}") for w in words)
    shown = " ".join(str(_by_id(out, e)) for e in ("vs-player-vote-head", "vs-player-vote-a", "vs-player-vote-b"))
    for secret in (a, b, config_key(run_a), config_key(run_b), "baseline", "user rules"):
        assert secret not in shown  # the agents, configurations and runs are hidden
    vote_b = view.fns[5].fn  # the "B is better" button (after agree, tick, send, submit, A)
    after = vote_b(RunView(run_id=play_run.id), (a, b), " the second one ", request)
    [vote] = ctx.store.votes(voter=player)
    assert (vote.run_a, vote.run_b, vote.winner, vote.reason) == (a, b, "b", "the second one")
    # the next pair: another one, still not the play
    assert "Stored: B is better" in _by_id(after, "vs-player-vote-head") and "(1 left)" in _by_id(after, "vs-player-vote-head")
    second = _pair(after)
    assert play_run.id not in second and set(second) != {a, b}
    again = vote_b(RunView(run_id=play_run.id), (a, b), "", request)  # a pair no longer open: nothing stored
    assert len(ctx.store.votes()) == 1 and "nothing was stored" in _by_id(again, "vs-player-vote-head")
    done = view.fns[6].fn(RunView(run_id=play_run.id), second, "", request)  # "Tie"
    # two pairs a play, so the card goes and the thanks stay
    assert _by_id(done, "vs-player-vote").visible is False and "Stored: a tie" in _by_id(done, "vs-player-vote-status")
    assert [v.winner for v in ctx.store.votes(voter=player)] == ["b", "tie"]


def test_only_a_player_whose_play_is_over_votes_here(setup):
    from vibesearch.app import study_play
    from vibesearch.app.context import RunView

    ctx, player, play_run, runs = setup
    with gr.Blocks():
        view = study_play.build(ctx)
    others = [r.id for r in runs if r.id != play_run.id]
    with pytest.raises(gr.Error):
        view.fns[4].fn(RunView(run_id=play_run.id), (others[0], others[-1]), "", gr.Request(username="someone"))
    # a pair the page never offered (the play itself in it) is refused
    out = view.fns[4].fn(RunView(run_id=play_run.id), (play_run.id, others[-1]), "", gr.Request(username=player))
    assert "nothing was stored" in str(out.values()) and ctx.store.votes() == []
