"""Where an LLM judge's calls are sent, as the official grader is pointed at its server (run.py's
``--grader-base-url`` / ``--grader-api-url``, and the Gemini grader's key in an ``api-key`` header):

    complete(messages, model=judge, purpose="judge", **judge_route(judge, settings))

``Settings.judge_api_base`` is the judge's own base URL (for a ``gemini/...`` judge the part before
``/models/<model>:generateContent`` of the official grader's full URL); unset, the judge goes where
every model goes (``api_base``). ``Settings.judge_key_header`` names a header that carries the
judge's key, read from the provider's key variable at call time (never stored or logged).
"""

from __future__ import annotations

import os
from typing import Any

from ..config import Settings
from ..protocol.rules import GEMINI_JUDGE_PREFIX

# the variables a judge's key is read from, by route (the official run.py reads GEMINI_API_KEY for
# its Gemini grader and OPENAI_API_KEY for the OpenAI-compatible one)
_KEY_VARIABLES = {GEMINI_JUDGE_PREFIX: ("GEMINI_API_KEY", "GOOGLE_API_KEY")}
_DEFAULT_KEY_VARIABLES = ("OPENAI_API_KEY",)


def judge_key_variables(model: str) -> tuple[str, ...]:
    """The environment variables the judge ``model``'s key is read from, in order."""
    return next((names for prefix, names in _KEY_VARIABLES.items() if model.startswith(prefix)), _DEFAULT_KEY_VARIABLES)


def judge_route(model: str, settings: Settings) -> dict[str, Any]:
    """The keyword arguments of ``llm.complete`` that send a judge call where the settings say."""
    out: dict[str, Any] = {}
    if settings.judge_api_base:
        out["api_base"] = settings.judge_api_base
    header = (settings.judge_key_header or "").strip()
    if header:
        key = next((os.environ[v] for v in judge_key_variables(model) if os.environ.get(v)), None)
        if key:
            out["extra_headers"] = {header: key}
    return out
