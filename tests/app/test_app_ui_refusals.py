"""A page handler's refusal is one line in the app's log, never a traceback (issue 40 item 7, the
page's side; ``test_api_refusals`` holds the API's): the real app (``python app.py``), its Runs
tab's Continue and Stop pressed over Gradio's queue on a run id that does not exist. The browser
gets the refusal's text; the log gets one line per press, naming the handler."""

from __future__ import annotations

from app_harness import start_app, stop_app
from raw_gradio import RawSession
from sec_kit import runs_continue, runs_open, wait_for


def test_a_refused_press_is_one_log_line_without_a_traceback(tmp_path):
    server = start_app(tmp_path)
    s = RawSession(server.url)
    try:
        since = server.log_size()
        assert runs_open(s, "nosuchrun42").ok  # the tab says there is no such run; the view now names it
        stop_fn, _ = s.dependency(s.component(elem_id="vs-runs-stop")["id"], "click")
        answers = [runs_continue(s), s.call(stop_fn, [None, None]), runs_continue(s)]
        assert [a.ok for a in answers] == [False, False, False]
        assert all("no run with id 'nosuchrun42' in this database" in (a.error or "") for a in answers), answers
        expected = ["on_continue refused: no run with id 'nosuchrun42' in this database",
                    "on_stop refused: no run with id 'nosuchrun42' in this database",
                    "on_continue refused: no run with id 'nosuchrun42' in this database"]
        wait_for(lambda: server.logs(since).count(" refused: ") >= 3, 10, "the refusals in the log")
        log = server.logs(since)
        assert "Traceback" not in log, log[-3000:]
        assert [line for line in log.splitlines() if " refused: " in line] == expected, log[-3000:]
    finally:
        s.close()
        stop_app(server)
