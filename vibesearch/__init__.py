"""vibesearch: the interactive, human-in-the-loop evaluator for VibeSearchBench."""

import os as _os

_os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__version__ = "0.1.0"
