"""The one rule for what a litellm model string may look like, wherever one comes in: the app's
forms and API, the command line's ``--model`` / ``--judge`` options, the ``VIBESEARCH_*_MODEL``
settings.

A model string names a provider and a model (``openai/gpt-4o-mini``), nothing more: litellm would
send ``openai/gpt-4o-mini@127.0.0.1`` to the provider's public address as a model name, and a URL,
spaces or control characters are never part of one. Only a Vertex AI model carries ``@<version>``.
Which providers a server allows is the app's policy (``app/_policy.py``), on top of this rule.
"""

from __future__ import annotations

import re

VERSIONED_PROVIDERS = frozenset({"vertex_ai", "vertex_ai_beta"})  # their model names carry "@<version>"
_VERSION = re.compile(r"[0-9A-Za-z_-]{1,40}")
MODEL_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:+@\-]*(?:/[A-Za-z0-9_.:+@\-]+)*$")


def model_string_problem(model: str, provider: str | None = None) -> str | None:
    """Why ``model`` is not a plain litellm model string (None: it is one). ``provider`` is the
    provider litellm places it with, when the caller knows it (else its ``provider/`` prefix)."""
    if "://" in model or not MODEL_PATTERN.match(model):
        return "is not a litellm model string such as 'openai/gpt-4o-mini' (no URL, no spaces)"
    if "@" in model:
        provider = provider or (model.split("/", 1)[0] if "/" in model else None)
        if not (provider in VERSIONED_PROVIDERS and _VERSION.fullmatch(model.rpartition("@")[2])):
            # nothing after the name may look like it chooses where the call goes
            return ("carries something after '@': only a Vertex AI model's version may follow '@' (such as "
                    "'vertex_ai/claude-3-5-sonnet@20240620'); a model string never names a server")
    return None
