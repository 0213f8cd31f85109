"""A process that drives runs settles first (``vibesearch._gc.settle``): what it made while
starting is out of the cycle collector's sight before the first model call, so the full
searches that come as a batch's heap grows do not walk its modules, tasks and corpora again.

Each check runs in a fresh interpreter (freezing is process-wide, and pytest's own objects are
not ours to freeze)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# `vibesearch run` with a fake model (registered as a test module would) whose first call notes
# how many objects were frozen at that moment
RUN_PROBE = textwrap.dedent(
    """
    import gc, json, sys
    from vibesearch.llm import fake

    seen = []

    def answer(req):
        seen.append(gc.get_freeze_count())
        if not req.tools:
            return fake.Reply(content='[{"head": "Kyoto", "relation": "in", "tail": "Japan"}]')
        return fake.Reply(content="Kyoto and Nara. Which season are you thinking of?")

    fake.register("settle-probe", answer)
    from vibesearch.cli.main import app
    try:
        app(json.loads(sys.argv[1]), standalone_mode=False)
        code = 0
    except SystemExit as exc:
        code = exc.code
    print(json.dumps({"code": code, "frozen_at_first_call": seen[0] if seen else None, "calls": len(seen)}))
    """
)

# settle(), then a reference cycle made afterwards: the collector still finds and frees it
AFTER_PROBE = textwrap.dedent(
    """
    import gc, json, weakref
    from vibesearch._gc import settle

    class Node:
        pass

    before = gc.get_freeze_count()
    settle()
    frozen = gc.get_freeze_count()
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b
    gc.collect()
    print(json.dumps({"before": before, "frozen": frozen, "cycle_freed": gone() is None}))
    """
)


def _python(tmp_path: Path, code: str, *args: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    env.update({"PYTHONPATH": str(REPO), "COLUMNS": "120"})
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_batch_is_settled_before_its_first_model_call(tmp_path):
    args = ["run", "-t", "daily-en-japan-heritage-trip", "--agent", "react", "--model", "fake/settle-probe",
            "--max-user-turns", "1", "--db", str(tmp_path / "v.db"), "--json"]
    got = _python(tmp_path, RUN_PROBE, json.dumps(args))
    assert got["code"] == 0
    assert got["calls"] >= 1
    # the process's modules alone are tens of thousands of objects
    assert got["frozen_at_first_call"] > 10_000


def test_what_is_made_after_settling_is_still_collected(tmp_path):
    got = _python(tmp_path, AFTER_PROBE)
    assert got["before"] == 0
    assert got["frozen"] > 0
    assert got["cycle_freed"] is True
