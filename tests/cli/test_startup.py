"""litellm takes seconds to import, so a command loads it only when a call really goes through it.
Each check runs the real command in a fresh interpreter and then looks at ``sys.modules``: a
module-level ``import litellm`` anywhere on a command's way (or a fake provider plugged in
eagerly again) fails here instead of quietly costing every command its start-up time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# runs the CLI in this interpreter (the command's own code, as `vibesearch ...` runs it), then
# says whether litellm got loaded and whether the command succeeded
PROBE = textwrap.dedent(
    """
    import json, sys
    args = json.loads(sys.argv[1])
    from vibesearch.llm import fake  # (what any fake-model module imports: must not load litellm either)

    def answer(req):
        if not req.tools:
            return fake.Reply(content="[]")
        return fake.Reply(content="Nothing yet. What matters most to you?")

    if sys.argv[2] == "fake":  # a fake model for the run (registered as a test module would)
        fake.register("startup-probe", answer)
    from vibesearch.cli.main import app
    try:
        app(args, standalone_mode=False)
        code = 0
    except SystemExit as exc:
        code = exc.code
    print(json.dumps({"code": code, "litellm": "litellm" in sys.modules}))
    """
)


def _probe(tmp_path: Path, *args: str, env: dict[str, str] | None = None, fake: bool = False) -> dict:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    full_env.update({"PYTHONPATH": str(REPO), "COLUMNS": "120", **(env or {})})
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(args)), "fake" if fake else "-"],
        cwd=tmp_path, env=full_env, capture_output=True, text=True, timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_listing_tasks_does_not_load_litellm(tmp_path):
    assert _probe(tmp_path, "tasks", "list") == {"code": 0, "litellm": False}


def test_an_offline_run_its_score_and_report_do_not_load_litellm(tmp_path):
    db = str(tmp_path / "v.db")
    assert _probe(tmp_path, "run", "-t", "daily-en-japan-heritage-trip", "--db", db) == {"code": 0, "litellm": False}
    assert _probe(tmp_path, "score", "--all", "--db", db) == {"code": 0, "litellm": False}
    assert _probe(tmp_path, "report", "--db", db) == {"code": 0, "litellm": False}


def test_a_react_run_on_the_direct_path_does_not_load_litellm(tmp_path):
    db = str(tmp_path / "v.db")
    run = ["run", "--agent", "react", "--model", "fake/startup-probe", "-t", "daily-en-japan-heritage-trip", "--max-user-turns", "1", "--db", db]
    assert _probe(tmp_path, *run, fake=True) == {"code": 0, "litellm": False}


def test_with_the_direct_path_off_the_same_run_goes_through_litellm(tmp_path):
    """The fake provider registered before litellm was loaded still reaches litellm when a call
    needs it (the control for the tests above: the probe can see litellm loaded)."""
    db = str(tmp_path / "v.db")
    run = ["run", "--agent", "react", "--model", "fake/startup-probe", "-t", "daily-en-japan-heritage-trip", "--max-user-turns", "1", "--db", db]
    assert _probe(tmp_path, *run, env={"VIBESEARCH_LLM_DIRECT": "0"}, fake=True) == {"code": 0, "litellm": True}
    # the run finished with the agent's calls answered through litellm's custom provider
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        status = conn.execute("SELECT status FROM runs").fetchall()
    finally:
        conn.close()
    assert status == [("finished",)]


def _local_openai_server(tmp_path: Path) -> tuple[subprocess.Popen, str]:
    """The benchmarks' OpenAI-compatible server on 127.0.0.1 (answers at once); it counts requests."""
    server = subprocess.Popen(
        [sys.executable, str(REPO / "benchmarks" / "_fake_openai_server.py"), "--port", "0", "--latency", "0", "--tool-steps", "1"],
        stdout=subprocess.PIPE, text=True, cwd=tmp_path,
    )
    assert server.stdout is not None
    first = server.stdout.readline().split()
    assert first[:1] == ["PORT"], first
    return server, f"http://127.0.0.1:{first[1]}"


def test_a_react_run_against_a_real_openai_compatible_endpoint_does_not_load_litellm(tmp_path):
    """`--model openai/<name>` with VIBESEARCH_API_BASE, as users run it: the context window
    (before the first call) and the price (after each) come from litellm's packaged map, so no
    call of the run loads litellm; the server saw the run's calls, priced as litellm prices them."""
    import sqlite3
    import urllib.request

    server, base = _local_openai_server(tmp_path)
    try:
        db = str(tmp_path / "v.db")
        run = ["run", "--agent", "react", "--model", "openai/gpt-4o-mini", "-t", "daily-en-japan-heritage-trip", "--max-user-turns", "1", "--db", db]
        assert _probe(tmp_path, *run, env={"VIBESEARCH_API_BASE": f"{base}/v1"}) == {"code": 0, "litellm": False}
        with urllib.request.urlopen(f"{base}/stats", timeout=10) as answer:
            requests = json.loads(answer.read())["requests"]
    finally:
        server.terminate()
        server.wait(timeout=30)
    conn = sqlite3.connect(db)
    try:
        usages = [json.loads(row[0]) for row in conn.execute("SELECT data_json FROM events WHERE kind = 'usage' ORDER BY id")]
    finally:
        conn.close()
    assert requests >= 2 and len(usages) == requests
    # gpt-4o-mini is priced in litellm's map: every call has a cost, by the map's plain rates
    info = json.loads((Path(_litellm_folder()) / "model_prices_and_context_window_backup.json").read_text())["gpt-4o-mini"]
    for usage in usages:
        expected = usage["input_tokens"] * info["input_cost_per_token"] + usage["output_tokens"] * info["output_cost_per_token"]
        assert usage["cost_usd"] == expected


def _litellm_folder() -> str:
    import importlib.util

    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.submodule_search_locations
    return next(iter(spec.submodule_search_locations))
