"""A person's run survives a restart of the app (issue 39, item 1).

``python app.py`` with the README's set-up (no ``VIBESEARCH_SECRET_KEY``) keeps the secret its owner
tokens are signed with in a file beside the database (``app/_secret.py``), mode 600, never in the
database or the log. So after the server is stopped and started again, the token a person's
browser kept still names them: they continue their own "me" run (closed as interrupted when the
new server started) and play on. Anyone else's token is still refused."""

from __future__ import annotations

import stat
import time

from app_harness import start_app, stop_app
from gradio_client import Client

TASK = "daily-en-japan-heritage-trip"


def _status(client: Client, run_id: str) -> dict:
    return client.predict(run_id, api_name="/run_status")


def _until(client: Client, run_id: str, what: str, pred, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = _status(client, run_id)
        if pred(got):
            return got
        time.sleep(0.3)
    raise AssertionError(f"run {run_id}: {what} not seen within {timeout}s (last: {got})")


def test_a_players_run_is_continued_after_a_restart_without_a_configured_secret(tmp_path):
    server = start_app(tmp_path, fakes=False)
    try:
        client = Client(server.url, verbose=False)
        me = client.predict(api_name="/new_owner_token")
        run_id = client.predict(TASK, "baseline", "human", owner=me, api_name="/start_run")
        _until(client, run_id, "the person's turn", lambda s: s["waiting_for_person"])
        client.predict(run_id, "Which of these can I visit in two days?", "push", owner=me, api_name="/submit_turn")
        _until(client, run_id, "the person's second turn", lambda s: s["waiting_for_person"] and s["status"] == "running")
        events = client.predict(run_id, 0, api_name="/run_events")
        # a person's run has a shadow simulator by default (the rules here: no model configured)
        assert any(e.get("kind") == "stage" and e.get("shadow") for e in events), [e.get("kind") for e in events]
        client.close()
    finally:
        stop_app(server)

    secret = server.db.with_name(server.db.name + ".secret")
    assert secret.exists() and stat.S_IMODE(secret.stat().st_mode) == 0o600
    kept = secret.read_text().strip()
    assert len(kept) >= 32
    assert kept.encode() not in server.db.read_bytes() and kept not in server.log.read_text(errors="replace")

    again = start_app(tmp_path, fakes=False)
    try:
        client = Client(again.url, verbose=False)
        status = _status(client, run_id)
        assert status["status"] == "interrupted" and not status["live"]  # the old server's run, closed at start
        stranger = client.predict(api_name="/new_owner_token")
        try:
            client.predict(run_id, owner=stranger, api_name="/continue_run")
            raise AssertionError("someone else's token continued the run")
        except Exception as exc:  # noqa: BLE001 - gradio_client raises AppError with the server's reason
            assert "AssertionError" not in type(exc).__name__, exc
        assert client.predict(run_id, owner=me, api_name="/continue_run") == "continuing"
        _until(client, run_id, "the person's turn after the restart", lambda s: s["waiting_for_person"])
        assert client.predict(run_id, "Thanks, that is all.", "done", owner=me, api_name="/submit_turn") == "sent"
        _until(client, run_id, "the run's end", lambda s: not s["live"] and s["status"] == "finished", timeout=90)
        assert secret.read_text().strip() == kept  # the same secret, not a new one
        client.close()
    finally:
        stop_app(again)
