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

REPO = Path(__file__).resolve().parents[2]
DEFERRED = ("networkx", "litellm", "plotly.graph_objs._figure")

BUILD = """
import json, sys
from vibesearch.app.ui import build_app
from vibesearch.config import get_settings
demo = build_app(get_settings())
print(json.dumps({"loaded": [m for m in %r if m in sys.modules], "blocks": type(demo).__name__}))
"""


def test_building_the_app_loads_neither_networkx_nor_litellm_nor_plotly_figures(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    env.update({"PYTHONPATH": str(REPO), "GRADIO_ANALYTICS_ENABLED": "False", "VIBESEARCH_DB": str(tmp_path / "app.db")})
    out = subprocess.run([sys.executable, "-c", BUILD % (DEFERRED,)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"loaded": [], "blocks": "Blocks"}


def test_the_graph_layout_still_places_every_node():
    from vibesearch.results.graph_layout import components, layout

    pos = layout(["a", "b", "c", "d"], [("a", "b"), ("b", "c")])
    assert set(pos) == {"a", "b", "c", "d"} and len(set(pos.values())) == 4
    assert components(["a", "b", "c", "d"], [("a", "b"), ("b", "c")]) == [["a", "b", "c"], ["d"]]
