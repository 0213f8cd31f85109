"""``python app.py`` on its offline default and one run driven through its API, in one process
tree (the tests start it inside ``offline_net``'s recording namespace).

    python offline_app_driver.py OUT_DIR

Starts the app as a user would (no key, no GRADIO_ANALYTICS_ENABLED or LITELLM_* of our own, a
new SQLite database, a free loopback port), waits for its page, starts a run on a bundled
persona task with every other argument at its default through ``gradio_client``, waits for it to
end, stops the app, and writes ``result.json`` (the run's status and event kinds) into OUT_DIR.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_page(url: str, proc: subprocess.Popen, log: Path, timeout: float = 120) -> None:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the app exited with {proc.returncode}: {log.read_text(errors='replace')[-2000:]}")
        try:
            with opener.open(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"the app did not answer within {timeout:.0f} s: {log.read_text(errors='replace')[-2000:]}")


def main(out: Path) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("VIBESEARCH_", "GRADIO_", "LITELLM_", "HF_")) and not k.endswith("_API_KEY")}
    env.update(VIBESEARCH_DB=str(out / "app.db"), VIBESEARCH_PORT=str(port), PYTHONUNBUFFERED="1")
    log = out / "app.log"
    with open(log, "wb") as fh:
        proc = subprocess.Popen([sys.executable, "app.py"], cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}/"
        _wait_page(url, proc, log)
        # this script's own client stays quiet too (its telemetry thread would look huggingface.co up;
        # the app's environment above has neither setting)
        os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
        os.environ["HF_HUB_OFFLINE"] = "1"
        from gradio_client import Client

        client = Client(url, verbose=False)
        tasks = client.predict(api_name="/list_tasks")
        task = next(t for t in tasks if t["has_corpus"] and t["kind"] == "persona")
        run_id = client.predict(task["id"], api_name="/start_run")  # every other argument at its default
        deadline = time.monotonic() + 120
        status = client.predict(run_id, api_name="/run_status")
        while status["live"] and time.monotonic() < deadline:
            time.sleep(0.5)
            status = client.predict(run_id, api_name="/run_status")
        events = client.predict(run_id, 0, api_name="/run_events")
        client.close()
        (out / "result.json").write_text(json.dumps({
            "status": status["status"], "agent": status["agent"], "user": status["user"],
            "judges": [s["judge"] for s in status["scores"]], "kinds": sorted({e["kind"] for e in events}),
        }), encoding="utf-8")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=5)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
