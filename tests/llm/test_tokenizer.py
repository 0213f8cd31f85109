"""Token counts with tiktoken's o200k encoding from litellm's bundled copy: never a download."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import os, requests

def refuse(*args, **kwargs):
    raise SystemExit("tiktoken tried to download its encoding")

requests.get = refuse  # tiktoken fetches a missing encoding with requests.get
from vibesearch.llm.tokenizer import text_tokens, tokenizer_name
print(tokenizer_name(), text_tokens("Hello world"), text_tokens("北京大学 | 位于 | 北京"), os.environ["TIKTOKEN_CACHE_DIR"])
"""


def test_counts_from_the_bundled_encoding_whatever_the_cache_dir_says(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TIKTOKEN_CACHE_DIR": str(tmp_path / "empty")}
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    words = done.stdout.split()
    assert words[:2] == ["tiktoken", "o200k_base"]
    assert words[2] == "2" and int(words[3]) > 3
    assert words[4] == str(tmp_path / "empty")  # the caller's setting is left as it was
