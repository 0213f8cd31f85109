"""JSON for the direct model path: orjson when it is installed (a long context encodes and
decodes in a fraction of the time), the standard library otherwise — the same documents."""

from __future__ import annotations

import json
from typing import Any

_orjson: Any
try:
    import orjson as _orjson
except ImportError:  # optional
    _orjson = None


def encode(body: Any) -> bytes:
    """``body`` as UTF-8 JSON."""
    if _orjson is not None:
        try:
            return bytes(_orjson.dumps(body))
        except TypeError:
            pass  # something orjson does not take (a non-string key, a huge int): the slow way
    return json.dumps(body, ensure_ascii=False).encode()


def decode(content: bytes) -> Any:
    """A JSON document (raises ``ValueError`` when it is not one)."""
    return _orjson.loads(content) if _orjson is not None else json.loads(content)
