"""What the app loads before it can answer: building the interface (what ``python app.py`` does
before its first HTTP answer) does not import the libraries only some views need — networkx (the
graph layout, half a second of imports), litellm (model calls) and plotly's figure classes (some 70
modules with narwhals; gradio reads every handler's type hints, and a hint naming ``go.Figure`` at
run time loaded them) — so they cost nothing until a graph is drawn or a model is called. Checked
in a fresh interpreter on ``sys.modules``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEFERRED = ("networkx", "litellm", "plotly.graph_objs._figure")

# one fresh interpreter builds the app (what ``python app.py`` does before its first answer) and
# says what was loaded, then imports ``mcp`` as the openclaw bridge would; ``--import-only`` stops
# after gradio's import (the case of an MCP server asked for)
PROBE = """
import json, sys
import vibesearch.app
import gradio.component_meta as meta
from gradio.blocks_events import create_or_modify_pyi as blocks_writer
got = {"writer": meta.create_or_modify_pyi.__name__, "blocks_writer": blocks_writer.__name__}
if "--import-only" not in sys.argv:
    from vibesearch.app.ui import build_app
    from vibesearch.config import get_settings
    got["blocks"] = type(build_app(get_settings())).__name__
got["loaded"] = [m for m in %r if m in sys.modules]
got["mcp_loaded_by_gradio"] = "mcp" in sys.modules
import mcp.types  # our openclaw bridge still loads it after gradio
got["mcp_after"] = mcp.types.__name__
print(json.dumps(got))
"""


def _probe(tmp_path, *args: str, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIBESEARCH_", "GRADIO_MCP"))}
    env.update({"PYTHONPATH": str(REPO), "GRADIO_ANALYTICS_ENABLED": "False", "VIBESEARCH_DB": str(tmp_path / "app.db"), **extra})
    out = subprocess.run([sys.executable, "-c", PROBE % (DEFERRED,), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    return _probe(tmp_path_factory.mktemp("built"))


def test_building_the_app_loads_neither_networkx_nor_litellm_nor_plotly_figures(built):
    assert built["blocks"] == "Blocks"
    assert built["loaded"] == []


def test_gradio_loads_without_rewriting_its_stub_files_or_the_mcp_server(built):
    """Half of ``import gradio`` was its metaclass parsing every component's source and ``.pyi``
    with ``ast`` and its MCP server's imports; the app skips both (``app/_gradio_load.py``), and the
    ``mcp`` package is importable again once gradio is loaded."""
    assert (built["writer"], built["blocks_writer"]) == ("no_stub_files", "no_stub_files")
    assert (built["mcp_loaded_by_gradio"], built["mcp_after"]) == (False, "mcp.types")


def test_with_gradios_mcp_server_asked_for_mcp_loads_with_gradio(tmp_path):
    got = _probe(tmp_path, "--import-only", GRADIO_MCP_SERVER="true")
    assert got["mcp_loaded_by_gradio"] is True and got["writer"] == "no_stub_files"


def test_the_graph_layout_still_places_every_node():
    from vibesearch.results.graph_layout import components, layout

    pos = layout(["a", "b", "c", "d"], [("a", "b"), ("b", "c")])
    assert set(pos) == {"a", "b", "c", "d"} and len(set(pos.values())) == 4
    assert components(["a", "b", "c", "d"], [("a", "b"), ("b", "c")]) == [["a", "b", "c"], ["d"]]


def test_building_the_app_makes_gradios_server_app_once(tmp_path, monkeypatch):
    """gradio made a whole server app (every route and its validators) at the Blocks' creation, on
    ``queue()`` and at the block's end, and launch() makes the one that serves: building skips the
    two in between (``_gradio_load.one_server_app``), and other Blocks are not affected."""
    import gradio as gr
    from gradio import blocks as gradio_blocks

    from vibesearch.app.ui import build_app
    from vibesearch.config import Settings

    made: list[str] = []
    real = gradio_blocks.App.__dict__["create_app"]

    def counting(blocks, *args, **kwargs):
        made.append(type(blocks).__name__)
        return real.__func__(blocks, *args, **kwargs)

    monkeypatch.setattr(gradio_blocks.App, "create_app", staticmethod(counting))
    demo = build_app(Settings(db=tmp_path / "app.db", tasks=""))
    assert made == ["Blocks"]  # the Blocks' creation only (it was 3)
    assert demo.app is not None and gradio_blocks.App.__dict__["create_app"].__func__ is counting  # put back
    with gr.Blocks() as other:
        gr.Markdown("x")
    other.queue()
    assert len(made) == 4  # another Blocks: creation, its block's end, its queue()
