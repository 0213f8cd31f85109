"""Assembling the app: endpoints, queue limits, auth, the task catalog, ``vibesearch serve``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

from vibesearch.app.catalog import TaskCatalog
from vibesearch.app.panels import score_html, table_answer_html
from vibesearch.app.ui import auth_pairs, build_app
from vibesearch.config import BUNDLED_TABLE_TASKS, BUNDLED_TASKS
from vibesearch.store import ScoreRow


def test_build_app_exposes_the_api_and_queue_limits(settings):
    s = settings.model_copy(update={"app_concurrency": 3, "app_max_queue": 17})
    demo = build_app(s)
    api_names = {d.api_name for d in demo.fns.values() if d.api_visibility == "public"}
    assert {"start_run", "run_events", "run_status", "stop_run", "submit_turn", "list_tasks"} <= api_names
    assert demo._queue.default_concurrency_limit == 3
    assert demo._queue.max_size == 17
    ctx = demo.vibesearch
    assert ctx.store.path == s.db
    # a second app has its own run manager: no live run is shared through module state
    assert build_app(s).vibesearch.manager is not ctx.manager


def test_every_chat_of_the_app_has_its_toolbar_hidden(settings):
    """Gradio's Clear and Share buttons are hidden by chat id (``_play_assets.CHAT_IDS``): a chat
    added without its id in that list would show them again."""
    import gradio as gr

    from vibesearch.app import CHAT_IDS, PLAY_CSS

    chats = [b for b in build_app(settings).blocks.values() if isinstance(b, gr.Chatbot)]
    assert chats and {c.elem_id for c in chats} == set(CHAT_IDS)
    for chat in CHAT_IDS:
        assert f"#{chat} .icon-button-wrapper.top-panel" in PLAY_CSS


def test_auth_pairs(settings):
    assert auth_pairs(settings) is None
    two = settings.model_copy(update={"auth": SecretStr("ann:pw1, bob:pw:2")})
    assert auth_pairs(two) == [("ann", "pw1"), ("bob", "pw:2")]
    with pytest.raises(ValueError, match="user:pass"):
        auth_pairs(settings.model_copy(update={"auth": SecretStr("ann")}))


def test_catalog_offers_bundled_persona_and_table_tasks(settings):
    cat = TaskCatalog.load(settings)
    assert cat.problems == []
    kinds = {t.kind for t in cat.tasks.values()}
    assert "persona" in kinds
    if BUNDLED_TABLE_TASKS.exists():
        assert "table" in kinds
    default = cat.get(cat.default_id())
    assert default.corpus and default.kind != "table"
    with pytest.raises(KeyError, match="no task with id 'nope'"):
        cat.get("nope")


def test_a_browser_session_loads_a_folder_without_touching_the_shared_catalog(settings, tmp_path: Path):
    shared = TaskCatalog.load(settings)
    src = next(BUNDLED_TASKS.glob("pro-en-*.json"))
    data = json.loads(src.read_text())
    data["id"] = "my-own-task"
    data.pop("corpus", None)
    (tmp_path / "mine.json").write_text(json.dumps(data))
    (tmp_path / "broken.json").write_text('{"id": "x"}')
    mine = shared.copy()
    allowed = settings.model_copy(update={"load_roots": str(tmp_path)})
    msg = mine.add_folder(str(tmp_path), allowed)
    assert msg.startswith("Loaded 1 task(s)") and "my-own-task" in mine.tasks
    assert "broken.json" in msg and "graph" in msg  # the bad file and its field are named
    assert "my-own-task" not in shared.tasks
    assert "No such file or folder" in mine.add_folder(str(tmp_path / "missing"), allowed)
    # the same folder is out of reach when it is not a load root
    assert "not inside a folder this app may load tasks from" in shared.copy().add_folder(str(tmp_path), settings)


@pytest.mark.skipif(not BUNDLED_TABLE_TASKS.exists(), reason="no bundled table tasks")
def test_table_task_folder_loads_as_table_tasks(settings, tmp_path: Path):
    shutil.copytree(BUNDLED_TABLE_TASKS, tmp_path / "tables")
    cat = TaskCatalog()
    assert cat.add_folder(str(tmp_path / "tables"), settings.model_copy(update={"load_roots": str(tmp_path)})).startswith("Loaded 3 task(s)")
    assert all(t.kind == "table" and t.table is not None for t in cat.tasks.values())


def test_score_card_names_the_judge_and_the_baseline(store):
    run = store.create_run("t1", agent="baseline", user="rules")
    row = ScoreRow(run_id=run.id, judge="offline", precision=0.5, recall=0.25, f1=1 / 3, n_gt=8, n_pred=4, n_covered=2, n_valid=2)
    html = score_html(run, [row])
    assert "F1 33.3" in html and "P 50.0 · R 25.0" in html
    assert "offline judge" in html and "retrieval baseline with oracle reader" in html
    other = store.create_run("t1", agent="react", agent_model="fake/x", user="rules")
    html = score_html(other, [row.model_copy(update={"judge": "openai/gpt-4o"})])
    assert "judge openai/gpt-4o" in html and "oracle reader" not in html
    assert "Not scored yet" in score_html(other, [])
    assert table_answer_html(store, other) == ""  # only table runs have an answer table


def test_serve_command_passes_host_port_and_db(monkeypatch, tmp_path: Path):
    from vibesearch.app import ui
    from vibesearch.cli.main import app

    seen = {}
    monkeypatch.setattr(ui, "launch", lambda settings, **kw: seen.update(kw))
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--port", "7999", "--db", str(tmp_path / "x.db")])
    assert result.exit_code == 0, result.output
    assert callable(seen.pop("on_serving"))  # ends the start-up's pause of the garbage collector (``_gc``)
    assert seen == {"host": "0.0.0.0", "port": 7999, "db": str(tmp_path / "x.db")}  # as typed (launch reads it as the settings do)
    bad = CliRunner().invoke(app, ["serve", "--port", "70000"])
    assert bad.exit_code != 0 and "--port" in bad.output
