"""The garbage collector while the app starts (``vibesearch._gc``): no search for reference cycles
from before gradio is imported until the server answers (those searches were about a fifth of the
start-up's CPU time), then the collector is on again, with what was loaded frozen out of its sight.
Checked in a fresh interpreter that starts the app the way ``python app.py`` does."""

from __future__ import annotations

import gc
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from vibesearch._gc import collector_paused

REPO = Path(__file__).resolve().parents[2]

START = """
import gc, json, os, urllib.request
from vibesearch.app import launch
before = [s["collections"] for s in gc.get_stats()]
launch(port=%d, prevent_thread_lock=True, quiet=True)
after = [s["collections"] for s in gc.get_stats()]
with urllib.request.urlopen("http://127.0.0.1:%d/", timeout=30) as r:
    status = r.status
print(json.dumps({"full_searches": after[2] - before[2], "on": gc.isenabled(), "frozen": gc.get_freeze_count(), "status": status}), flush=True)
os._exit(0)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_app_starts_without_a_full_search_and_serves_with_the_collector_on(tmp_path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    env.update({"PYTHONPATH": str(REPO), "GRADIO_ANALYTICS_ENABLED": "False", "VIBESEARCH_DB": str(tmp_path / "app.db"),
                "VIBESEARCH_HOST": "127.0.0.1"})
    out = subprocess.run([sys.executable, "-c", START % (port, port)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    # without the pause, loading gradio and building the interface made several full searches
    assert got["full_searches"] == 0
    assert got["on"] is True and got["status"] == 200
    assert got["frozen"] > 100_000  # gradio, the tabs and the interface: out of later searches' way


def test_a_pause_ends_once_and_leaves_a_disabled_collector_disabled():
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    with collector_paused() as resume:
        assert not gc.isenabled()
        resume()
        assert gc.isenabled()
        gc.disable()  # someone else's choice after the pause ended early: not undone at the block's end
    assert not gc.isenabled()
    gc.enable()
    assert gc.get_freeze_count() == frozen  # without ``keep`` nothing is frozen
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # it was off before the pause: it stays off
    finally:
        gc.enable()


def test_a_kept_pause_freezes_what_was_made_and_an_error_still_ends_it():
    kept: list[object] = []
    try:
        with collector_paused(keep=True):
            kept.extend([{"n": i}] for i in range(1000))
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert gc.isenabled()
    assert gc.get_freeze_count() >= 2000  # the lists and dicts made inside
    gc.unfreeze()
