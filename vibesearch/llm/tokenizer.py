"""Tokens of a text with OpenAI's o200k tokenizer (tiktoken), read from the copy litellm ships.

Nothing is downloaded: when litellm's copy of the encoding is missing, ``text_tokens`` falls back
to UTF-8 bytes / 3 (``tokenizer_name`` says which). Other providers' tokenizers count somewhat
differently; callers that must fit a budget leave room for that.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

ENCODING = "o200k_base"
_ENCODING_URL = f"https://openaipublic.blob.core.windows.net/encodings/{ENCODING}.tiktoken"
_ENV_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _encoding() -> Any:
    """The encoding, or None when litellm's bundled copy is not there (tiktoken would fetch it)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    if not (folder / hashlib.sha1(_ENCODING_URL.encode()).hexdigest()).is_file():  # tiktoken's cache file name
        return None
    import tiktoken

    with _ENV_LOCK:  # litellm points TIKTOKEN_CACHE_DIR at the same folder when it is imported
        before = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
        try:
            return tiktoken.get_encoding(ENCODING)
        finally:
            if before is None:
                os.environ.pop("TIKTOKEN_CACHE_DIR", None)
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = before


def tokenizer_name() -> str:
    return f"tiktoken {ENCODING}" if _encoding() is not None else "UTF-8 bytes / 3 (tiktoken's encoding not found)"


def text_tokens(text: str) -> int:
    """Tokens of one text."""
    enc = _encoding()
    return len(enc.encode_ordinary(text)) if enc is not None else len(text.encode()) // 3 + 1
