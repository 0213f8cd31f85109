"""litellm, imported on first use (it is slow to import) and set up to stay quiet and offline."""

from __future__ import annotations

import sys
from typing import Any


def _litellm() -> Any:
    import litellm

    litellm.suppress_debug_info = True
    litellm.drop_params = True
    # token counting must never fetch a tokenizer from a hub (no network here)
    litellm.disable_hf_tokenizer_download = True
    fake = sys.modules.get("vibesearch.llm.fake")
    if fake is not None:  # fake models registered before litellm was loaded get their provider now
        fake.installed_if_wanted()
    return litellm


def litellm_provider(model: str) -> str | None:
    """The provider litellm routes ``model`` to (``fake`` for the fake models; None: litellm cannot place it)."""
    if model.startswith("fake/"):
        return "fake"
    try:
        return _litellm().get_llm_provider(model)[1]
    except Exception:  # noqa: BLE001 - litellm cannot place it
        return None
