"""Start the VibeSearch evaluator app: ``python app.py``.

Serves on VIBESEARCH_HOST / VIBESEARCH_PORT (default 127.0.0.1:7860) with the database at
VIBESEARCH_DB. With nothing configured it runs fully offline: the bundled tasks, the offline
baseline agent, the rule-based simulator and the offline judge.
"""

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

if __name__ == "__main__":
    # loading the interface takes a while (10-30 s on a small machine): say so at once
    print("VibeSearch evaluator: starting… (the address follows when it is ready)", flush=True)

from vibesearch.app import launch  # noqa: E402

if __name__ == "__main__":
    launch()
