"""Context windows and prices of the direct path's models, read from the JSON map litellm ships
(``model_prices_and_context_window_backup.json`` inside the installed package) without importing
litellm: its import takes seconds, and a run against a local OpenAI-compatible server needs the
map before its first model call (the agent's context budget) and after each (the call's cost).

Only the models the direct path sends (``openai/...``, ``hosted_vllm/...``: ``_direct.py``) are
answered here; for any other model ``entry`` says ``ASK_LITELLM`` and the caller asks litellm,
which that model's call loads anyway. The lookup follows litellm's for these providers (the
``openai/`` name, then the bare name, case-insensitively, of an entry litellm files under the same
provider), and ``simple_cost`` prices only a usage report litellm would price by the three plain
rates (input, cached input, output); anything else (a tiered or off-peak price, reasoning, audio or
image tokens, a cache write) is left to litellm. ``tests/llm/test_model_map.py`` compares both
ways. When litellm would fetch its map from the network instead (``LITELLM_LOCAL_MODEL_COST_MAP``
set to anything but true) the packaged file is not what litellm reads, so litellm is asked.
"""

from __future__ import annotations

import importlib.util
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Final, Mapping

ASK_LITELLM: Final = "ask litellm"
_FILE = "model_prices_and_context_window_backup.json"
# the direct path's providers, by model prefix (as litellm names them in the map)
_PROVIDERS: Final = {"openai/": "openai", "hosted_vllm/": "hosted_vllm"}
# what an entry or a usage report may hold and still be priced by the plain rates
_PLAIN_USAGE: Final = frozenset({"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details", "completion_tokens_details"})


@lru_cache(maxsize=1)
def _by_lowercase_name() -> dict[str, dict[str, Any]] | None:
    """The packaged map, keyed by lowercased model name (read once); None when it is not there."""
    spec = importlib.util.find_spec("litellm")  # finds the package without running its __init__
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / _FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    found: dict[str, dict[str, Any]] = {}
    for name, info in raw.items():
        if isinstance(info, dict):
            found.setdefault(name.lower(), info)
    return found


def _litellm_reads_the_packaged_map() -> bool:
    return os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP", "False").strip().lower() == "true"


def entry(model: str) -> Mapping[str, Any] | None | str:
    """The map's entry for a direct-path model (None: the map does not know it), or
    ``ASK_LITELLM`` for any other model (or when the packaged map is not litellm's)."""
    provider = next((p for prefix, p in _PROVIDERS.items() if model.startswith(prefix)), None)
    known = _by_lowercase_name() if provider is not None and _litellm_reads_the_packaged_map() else None
    if provider is None or known is None:
        return ASK_LITELLM
    bare = model.split("/", 1)[1]
    for name in (f"{provider}/{bare}", bare):
        info = known.get(name.lower())
        if info is not None and info.get("litellm_provider") in (None, provider):
            return info
    return None


def context_window(info: Mapping[str, Any]) -> int | None:
    window = info.get("max_input_tokens")
    return int(window) if window else None


def has_price(info: Mapping[str, Any]) -> bool:
    return bool(info.get("input_cost_per_token") or info.get("output_cost_per_token"))


def cache_read_fraction(info: Mapping[str, Any]) -> float | None:
    full, cached = info.get("input_cost_per_token"), info.get("cache_read_input_token_cost")
    return float(cached) / float(full) if full and cached is not None else None


def _count(details: Any, name: str) -> int:
    value = details.get(name) if isinstance(details, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def simple_cost(info: Mapping[str, Any], usage: Mapping[str, Any]) -> float | None:
    """The cost of a call by the entry's plain rates, or None when litellm's rules would price it
    otherwise (the caller then asks litellm)."""
    if info.get("mode") != "chat" or any("_above_" in key for key in info) or info.get("off_peak_pricing") or info.get("explicit_cache_read_input_token_cost") is not None:
        return None
    if set(usage) - _PLAIN_USAGE:
        return None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    details = usage.get("prompt_tokens_details") or {}
    out_details = usage.get("completion_tokens_details") or {}
    if not isinstance(details, Mapping) or not isinstance(out_details, Mapping):
        return None
    if any(_count(details, k) for k in details if k != "cached_tokens") or any(_count(out_details, k) for k in out_details):
        return None  # audio, image, text counts, cache writes or reasoning: litellm's own rules
    cached = _count(details, "cached_tokens")
    if cached > prompt:
        return None
    rate_in = float(info.get("input_cost_per_token") or 0.0)
    rate_cached = info.get("cache_read_input_token_cost")
    rate_cached = rate_in if rate_cached is None else float(rate_cached)
    rate_out = float(info.get("output_cost_per_token") or 0.0)
    return (prompt - cached) * rate_in + cached * rate_cached + completion * rate_out
