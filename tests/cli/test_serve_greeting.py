"""What a newcomer sees when the app starts: one line naming the address to open, the database and
how to stop it (not Gradio's hint about ``share=True``), and, with a login, a login page that
says what the product is and what to type, with the note on throttled passwords. The server runs
as a real subprocess on a free port of 127.0.0.1; nothing leaves the machine."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from vibesearch.app.ui import LOGIN_NOTE, startup_line
from vibesearch.config import Settings

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(tmp_path: Path, **env: str) -> tuple[subprocess.Popen, str, int]:
    """Start ``vibesearch serve``; its line of output once it serves (after the "starting" line,
    which comes at once)."""
    port = _free_port()
    full = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    full.update({"PYTHONPATH": str(REPO), "GRADIO_ANALYTICS_ENABLED": "False", "PYTHONUNBUFFERED": "1", **env})
    proc = subprocess.Popen(
        [sys.executable, "-m", "vibesearch.cli.main", "serve", "--port", str(port), "--db", str(tmp_path / "app.db")],
        cwd=tmp_path, env=full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()  # printed before the interface is even loaded
    assert first.startswith("VibeSearch evaluator: starting"), first
    line = proc.stdout.readline()  # blocks until the app serves (or exits)
    return proc, line, port


def _stop(proc: subprocess.Popen) -> str:
    proc.terminate()
    try:
        rest, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        rest, _ = proc.communicate()
    return rest or ""


@pytest.mark.timeout(180)
def test_the_start_line_names_the_address_the_database_and_how_to_stop(tmp_path):
    proc, line, port = _serve(tmp_path)
    try:
        assert f"http://127.0.0.1:{port}/" in line, line
        assert str(tmp_path / "app.db") in line and "Ctrl-C stops" in line and "no sign-in" in line, line
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:  # and it does serve there
            assert page.status == 200
    finally:
        rest = _stop(proc)
    assert "share=True" not in line + rest


@pytest.mark.timeout(180)
def test_the_login_page_names_the_product_and_what_to_do(tmp_path):
    proc, line, port = _serve(tmp_path, VIBESEARCH_AUTH="ann:a-long-password")
    try:
        assert "sign-in required" in line, line
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/config", timeout=10)
            raise AssertionError("the configuration was served without a login")
        except urllib.error.HTTPError as refused:  # what the login page reads before anyone logs in
            message = json.loads(refused.read())["detail"]["auth_message"]
    finally:
        _stop(proc)
    assert "VibeSearch evaluator" in message
    assert "name and password" in message and "VIBESEARCH_AUTH" in message
    assert LOGIN_NOTE in message  # the throttling note is kept whole


def test_the_start_line_hides_a_database_password():
    settings = Settings(db="postgresql://vs:s3cret-pw@db.example:5432/vibesearch")
    line = startup_line("http://127.0.0.1:7860/", settings, login=True)
    assert "s3cret-pw" not in line and "db.example:5432/vibesearch" in line and "sign-in required" in line


@pytest.mark.timeout(180)
def test_python_app_py_says_it_is_starting_before_it_loads(tmp_path):
    """``python app.py`` (the README's way) says "starting…" before it imports the interface, then
    its address once it serves: a newcomer never stares at a silent terminal."""
    port = _free_port()
    full = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    full.update({"GRADIO_ANALYTICS_ENABLED": "False", "PYTHONUNBUFFERED": "1", "VIBESEARCH_PORT": str(port),
                 "VIBESEARCH_DB": str(tmp_path / "app.db")})
    proc = subprocess.Popen([sys.executable, str(REPO / "app.py")], cwd=tmp_path, env=full,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("VibeSearch evaluator: starting"), first
        ready = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in ready, ready
    finally:
        _stop(proc)
