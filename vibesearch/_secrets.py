"""Keeping secrets out of what is recorded or shown: ``scrub`` removes anything that looks like a key.

A top-level helper (no package of its own) so that every layer can scrub an error text before it
records it, the run's domain model included, without importing the model client.
"""

from __future__ import annotations

import os
import re

_KEY_PATTERNS = [
    re.compile(r"(sk|pk|rk|gsk|xai|tvly)-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)(api[_-]?key|authorization|bearer|x-api-key)[\"'=:\s]+[A-Za-z0-9_\-\.]{8,}"),
    re.compile(r"AIza[0-9A-Za-z_\-]{20,}"),
]


def scrub(text: str) -> str:
    """Remove anything that looks like a secret, and the values of known key variables."""
    for name, value in os.environ.items():
        if value and len(value) >= 8 and any(k in name.upper() for k in ("KEY", "TOKEN", "SECRET", "PASSWORD")):
            text = text.replace(value, "[redacted]")
    for pat in _KEY_PATTERNS:
        text = pat.sub("[redacted]", text)
    return text
