"""What a person reads is worded for where they read it (issue 14): a missing setting names the
CLI's flag on the command line and the form's field in the app; a failed run's reason is shown
scrubbed; cosmetic fixes of the task card, the leaderboard, the table answer and the chat."""

from __future__ import annotations

import pytest

from vibesearch._fields import FIELDS, MissingSetting, for_surface
from vibesearch.agents import make_agent
from vibesearch.app import failure_html, failure_reason, status_reason
from vibesearch.app.leaderboard import without_repeats
from vibesearch.app.render import _add_message, persona_html, unfence_tables
from vibesearch.run import AgentSpec, RunConfig, UserSpec
from vibesearch.run.events import EndEvent, ErrorEvent, MessageEvent, StoredEvent
from vibesearch.tasks import load_tasks


@pytest.fixture(scope="module")
def task():
    return load_tasks()[0]


def test_a_missing_model_names_the_flag_in_the_cli_and_the_field_in_the_app(task, settings):
    from vibesearch.protocol import resolve

    config = resolve(RunConfig(task_id=task.id, agent=AgentSpec(kind="react"), user=UserSpec(kind="rules")))
    with pytest.raises(MissingSetting) as got:
        make_agent(config, task, settings)
    cli, app = for_surface(got.value, "cli"), for_surface(got.value, "app")
    assert str(got.value) == cli and "pass --model (" in cli and "VIBESEARCH_AGENT_MODEL" in cli
    assert "“Agent model” field" in app and "--model" not in app and "VIBESEARCH_" not in app
    assert isinstance(got.value, ValueError)  # callers that catch ValueError still do


def test_every_setting_has_both_wordings():
    for key, f in FIELDS.items():
        exc = MissingSetting("x needs it", key)
        assert f.flag in str(exc) and f.env in str(exc)
        assert f.label in exc.worded("app") and f.flag not in exc.worded("app")
        api = exc.worded("api")
        assert f.flag not in api and (f"pass {f.param}=" in api if f.param else f.label in api)
    assert for_surface(KeyError("'no task'"), "app") == "no task"  # others read the same everywhere
    with pytest.raises(KeyError):
        MissingSetting("x", "no-such-setting")


def _ev(seq: int, data) -> StoredEvent:
    return StoredEvent.model_validate({"run_id": "r", "seq": seq, "ts": "2026-01-01T00:00:00", "data": data.model_dump()})


def test_a_failed_runs_reason_is_scrubbed_and_shown(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secretsecretsecret123")
    events = [_ev(1, ErrorEvent(source="llm", message="NotFoundError: model nope/none does not exist (key sk-secretsecretsecret123)", fatal=True)),
              _ev(2, EndEvent(termination="error", detail="later"))]
    reason = failure_reason(events)
    assert reason is not None and reason.startswith("llm: NotFoundError: model nope/none does not exist") and "secret" not in reason
    assert failure_reason([_ev(1, EndEvent(termination="error", detail="agent: boom"))]) == "agent: boom"
    assert failure_reason([_ev(1, ErrorEvent(source="tool", message="retry", fatal=False))]) is None
    banner = failure_html("<b>x</b>")
    assert "id='vs-play-error'" in banner and "role='alert'" in banner and "&lt;b&gt;x&lt;/b&gt;" in banner
    assert len(status_reason("word " * 200)) <= 240 and "\n" not in status_reason("a\nb")


def test_the_task_card_counts_in_the_singular_and_names_the_subset(task):
    one = task.model_copy(update={"persona": task.persona.model_copy(update={"stages": task.persona.stages[:1]})})
    card = persona_html(one)
    assert " · 1 stage · " in card and "1 stages" not in card and f"subset {task.subset}" in card
    assert f"{len(task.persona.stages)} stages" in persona_html(task)
    table = one.model_copy(update={"kind": "table", "graph": []})
    assert "ground-truth triple" not in persona_html(table)


def _row(group: str, **kw) -> dict:
    base = {"config": "baseline", "profile": "ours", "group": group, "n_tasks": 1, "n_runs": 2, "n_min": 2, "n_max": 2, "avg_precision": 0.5,
            "avg_recall": 0.5, "avg_f1": 0.5, "best_precision": 0.6, "best_recall": 0.6, "best_f1": 0.6, "avg_node_f1": None,
            "best_node_f1": None, "left_out": 0}
    return {**base, **kw}


def test_the_leaderboard_drops_breakdown_rows_that_repeat_all():
    one_each = [_row("all"), _row("subset daily"), _row("language en")]
    assert [r["group"] for r in without_repeats(one_each)] == ["all"]
    mixed = [_row("all", n_runs=3, avg_f1=0.4), _row("subset daily"), _row("subset pro", n_runs=1, avg_f1=0.2), _row("language en", n_runs=3, avg_f1=0.4)]
    assert [r["group"] for r in without_repeats(mixed)] == ["all", "subset daily", "subset pro"]
    other = [_row("all"), _row("subset daily", config="react")]  # another configuration's row is never dropped
    assert len(without_repeats(other)) == 2


def test_a_fenced_markdown_table_is_drawn_as_a_table_and_code_stays_code():
    text = "Here it is:\n\n```markdown\n| moon | radius |\n|---|---:|\n| Io | 1821 |\n```\n\n```python\nprint(1)\n```"
    out = unfence_tables(text)
    assert "```markdown" not in out and "| moon | radius |\n|---|---:|\n| Io | 1821 |" in out and "```python\nprint(1)\n```" in out
    not_a_table = "```\na | b\nc | d\n```"  # no header rule: left as it is
    assert unfence_tables(not_a_table) == not_a_table
    msgs: list = []
    _add_message(msgs, MessageEvent(role="assistant", content=text))
    assert "```markdown" not in msgs[-1].content


def test_the_table_answer_has_no_empty_row_column():
    from vibesearch.tables.models import CellVerdict, RowVerdict, TableScore
    from vibesearch.tables.render import render_table_html

    def score(status: str) -> TableScore:
        rows = [RowVerdict(key="Io", status="matched"), RowVerdict(key="Europa", status=status)]
        cells = [CellVerdict(row=0, row_key="Io", column="moon", predicted="Io", gold="Io", right=True, rule="key")]
        return TableScore(task_id="moons", columns=["moon"], rows=rows, cells=cells)

    html_ok = render_table_html(score("matched"))
    assert "row status" not in html_ok and "<th>row</th>" not in html_ok
    html_extra = render_table_html(score("extra"))
    assert "<th>row status</th>" in html_extra and "✓ matched" in html_extra and "not in the gold table" in html_extra


def test_play_shows_why_a_run_failed_on_the_status_line_and_in_a_banner_above_the_chat(store, monkeypatch):
    from types import SimpleNamespace

    from vibesearch.app import Who
    from vibesearch.app.context import RunView
    from vibesearch.app.play import refresh

    monkeypatch.setenv("SOME_PROVIDER_KEY", "abcdefghijklmnop")
    run = store.create_run("t1", task_json={}, agent="react", agent_model="openai/no-such-model", user="rules", status="running")
    store.append(run.id, ErrorEvent(source="llm", message="NotFoundError: model 'no-such-model' does not exist; key abcdefghijklmnop", fatal=True))
    store.append(run.id, EndEvent(termination="error", detail="llm: NotFoundError"))
    store.update_run(run.id, status="failed", termination="error")
    ctx = SimpleNamespace(store=store, manager=SimpleNamespace(get=lambda _id: None, queued=None), task_of_run=lambda _run: None,
                          access=SimpleNamespace(may_write=lambda _who, _owner: False))
    comps = {k: k for k in ("view", "chat", "stepper", "counters", "status", "human_box", "human_card", "send", "score",
                            "table_answer", "pred_table", "timer", "persona")}
    out = refresh(ctx, Who(owner=None), RunView(run_id=run.id), comps)  # type: ignore[arg-type]
    assert "**failed (error)** — llm: NotFoundError: model 'no-such-model' does not exist" in out["status"]
    assert "id='vs-play-error'" in out["persona"] and "does not exist" in out["persona"]
    assert "abcdefghijklmnop" not in out["status"] + out["persona"]  # scrubbed
