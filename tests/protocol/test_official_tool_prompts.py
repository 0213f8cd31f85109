"""The official tools' schemas (``TOOLS_CUSTOM`` of ``agent/general_agent.py``) and the ``visit``
extractor's prompt (``EXTRACTOR_PROMPT`` of ``agent/toolkit.py``): read from a checkout by
parsing, refused with one clear error when something is off, or our own of the same shape."""

from __future__ import annotations

import hashlib
import os
import shutil
import string
import subprocess
import sys
from pathlib import Path

import pytest

from vibesearch.protocol import HarnessError, load_prompts, own_prompts

STAND_IN = Path(__file__).resolve().parents[1] / "data" / "official_harness"
AGENT = ("agent", "general_agent.py")
TOOLKIT = ("agent", "toolkit.py")
NAMES = ["search", "visit", "scholar_search", "python"]


@pytest.fixture
def marker(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "imported.txt"
    monkeypatch.setenv("HARNESS_IMPORT_MARKER", str(path))
    return path


def _stand_in_literal() -> list:
    """The stand-in's tool list, worked out independently of the parser under test: the part of
    our own stand-in file after its import guard, run on its own."""
    text = STAND_IN.joinpath(*AGENT).read_text(encoding="utf-8")
    guard = 'raise RuntimeError("the stand-in harness must be parsed, not imported")\n'
    namespace: dict = {}
    exec(compile(text.split(guard, 1)[1], "stand-in data", "exec"), namespace)  # noqa: S102 - our own test data
    return namespace["TOOLS_CUSTOM"]


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    shutil.copytree(STAND_IN, root)
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _params(schema: dict) -> dict:
    """A schema without its descriptions (what must match between the checkout's and ours)."""
    if isinstance(schema, dict):
        return {k: _params(v) for k, v in schema.items() if k != "description"}
    if isinstance(schema, list):
        return [_params(v) for v in schema]
    return schema


def test_the_schemas_are_the_checkouts_literal(marker):
    prompts = load_prompts(STAND_IN)
    assert list(prompts.tools) == _stand_in_literal()
    assert [t["function"]["name"] for t in prompts.tools] == NAMES
    search = prompts.tools[0]["function"]["parameters"]
    assert search["properties"]["source"]["enum"] == ["web", "news"]  # the shared parameter block, followed by name
    assert prompts.tools[1]["function"]["description"] == "STAND-IN visit tool (reads pages for a goal)."
    assert not marker.exists()


def test_the_extractor_prompt_is_read_and_recorded(marker):
    prompts = load_prompts(STAND_IN)
    assert prompts.extractor_prompt("the {page}", "a goal") == (
        'STAND-IN extractor.\nPAGE:\nthe {page}\nGOAL:\na goal\nSTAND-IN: answer JSON with "evidence" and "summary".')
    digest = hashlib.sha256(STAND_IN.joinpath(*TOOLKIT).read_bytes()).hexdigest()
    assert prompts.source.files["agent/toolkit.py"] == digest
    assert set(prompts.source.files) == {"agent/prompts.py", "agent/general_agent.py", "agent/toolkit.py", "eval/evaluator.py"}
    assert f"agent/toolkit.py sha256 {digest[:12]}" in prompts.source.label()
    assert not marker.exists()


def test_the_toolkit_stand_in_really_has_a_side_effect_when_run(marker):
    env = {**os.environ, "HARNESS_IMPORT_MARKER": str(marker)}
    proc = subprocess.run([sys.executable, str(STAND_IN.joinpath(*TOOLKIT))], check=False, env=env, capture_output=True, text=True)
    assert proc.returncode != 0 and "must be parsed" in proc.stderr
    assert marker.read_text().startswith("agent/toolkit.py was executed")


@pytest.mark.parametrize(
    "old, new, message",
    [
        # a tool the toolbox does not know
        ('    {\n        "type": "function",\n        "function": {\n            "name": "python",',
         '    {\n        "type": "function",\n        "function": {\n            "name": "not_python",',
         r"TOOLS_CUSTOM\[3\] \(not_python\): unexpected tool name 'not_python'"),
        ('"name": "scholar_search"', '"name": "search"', r"TOOLS_CUSTOM\[2\] \(search\): the tool search is listed twice"),
        ('"description": "STAND-IN python tool."', '"description": 7', r"TOOLS_CUSTOM\[3\] \(python\): the tool has no description text"),
        ('"properties": {"code":', '"properties": {"source_code":', r"TOOLS_CUSTOM\[3\] \(python\): the parameters lack code"),
        ('"type": "function",\n        "function": {"name": "search"', '"type": "tool",\n        "function": {"name": "search"',
         r'TOOLS_CUSTOM\[0\] \(search\): expected \{"type": "function"'),
        ('"parameters": _SEARCH_PARAMS', '"parameters": _NO_SUCH_NAME', r"TOOLS_CUSTOM: expected literal data, found the name _NO_SUCH_NAME"),
        ('"parameters": _SEARCH_PARAMS', '"parameters": dict(_SEARCH_PARAMS)', r"TOOLS_CUSTOM: expected literal data, found a Call"),
        ("TOOLS_CUSTOM = [", "TOOLS_CUSTOM = _SEARCH_PARAMS\nOTHER = [", r"TOOLS_CUSTOM: expected a list of tool schemas, found a dict"),
        ("TOOLS_CUSTOM = [", "SOMETHING_ELSE = [", r"TOOLS_CUSTOM: no module-level assignment"),
    ],
)
def test_odd_schemas_are_refused_naming_the_file_and_the_name(tmp_path, marker, old, new, message):
    root = _copy(tmp_path)
    _edit(root.joinpath(*AGENT), old, new)
    with pytest.raises(HarnessError, match=r"agent/general_agent.py: " + message):
        load_prompts(root)
    assert not marker.exists()


def test_a_missing_tool_is_named(tmp_path):
    root = _copy(tmp_path)
    path = root.joinpath(*AGENT)
    text = path.read_text(encoding="utf-8")
    start = text.index('    {\n        "type": "function",\n        "function": {\n            "name": "scholar_search"')
    end = text.index('    {\n        "type": "function",\n        "function": {\n            "name": "python"')
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    with pytest.raises(HarnessError, match=r"agent/general_agent.py: TOOLS_CUSTOM: no schema for the tool\(s\) scholar_search"):
        load_prompts(root)


def test_a_name_that_refers_to_itself_is_refused(tmp_path):
    root = _copy(tmp_path)
    _edit(root.joinpath(*AGENT), '"required": ["query"],\n}', '"required": ["query"],\n    "loop": _SEARCH_PARAMS,\n}')
    with pytest.raises(HarnessError, match=r"TOOLS_CUSTOM: expected literal data, found a name that refers back to itself"):
        load_prompts(root)


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("{goal}", "{goal.__class__}", r"EXTRACTOR_PROMPT: unexpected field \{goal.__class__\}"),
        ("{goal}", "(no goal)", r"EXTRACTOR_PROMPT: the template lacks \{goal\}"),
        ("{webpage_content}", "{webpage_content}{url}", r"EXTRACTOR_PROMPT: unexpected field \{url\}"),
        ('"STAND-IN extractor.\\n"', "open('x').read() +", r"EXTRACTOR_PROMPT: expected a string literal"),
        ("EXTRACTOR_PROMPT =", "OTHER_PROMPT =", r"EXTRACTOR_PROMPT: no module-level assignment"),
    ],
)
def test_odd_extractor_prompts_are_refused(tmp_path, marker, old, new, message):
    root = _copy(tmp_path)
    _edit(root.joinpath(*TOOLKIT), old, new)
    with pytest.raises(HarnessError, match=r"agent/toolkit.py: " + message):
        load_prompts(root)
    assert not marker.exists()


def test_a_checkout_without_the_toolkit_file(tmp_path):
    root = _copy(tmp_path)
    root.joinpath(*TOOLKIT).unlink()
    with pytest.raises(HarnessError, match="agent/toolkit.py: file not found"):
        load_prompts(root)


def test_our_own_schemas_have_the_official_names_and_parameters():
    ours, theirs = own_prompts().tools, load_prompts(STAND_IN).tools
    assert [t["function"]["name"] for t in ours] == NAMES
    assert [_params(t) for t in ours] == [_params(t) for t in theirs]
    search = ours[0]["function"]["parameters"]
    assert search["properties"]["topn"] == {"type": "integer", "description": search["properties"]["topn"]["description"], "default": 10}
    assert search["properties"]["source"]["enum"] == ["web", "news"] and search["properties"]["source"]["default"] == "web"
    assert all(t["function"]["description"] for t in ours)
    assert [t["function"]["description"] for t in ours] != [t["function"]["description"] for t in theirs]
    # a caller may change the schemas it gets without changing anyone else's
    copy = own_prompts().tool_schemas()
    copy[0]["function"]["name"] = "changed"
    assert own_prompts().tools[0]["function"]["name"] == "search"


def test_our_own_extractor_prompt():
    prompts = own_prompts()
    fields = {f for _lit, f, _spec, _conv in string.Formatter().parse(prompts.extractor) if f is not None}
    assert fields == {"webpage_content", "goal"}
    text = prompts.extractor_prompt("PAGE TEXT {not a field}", "THE GOAL")
    assert "PAGE TEXT {not a field}" in text and "THE GOAL" in text
    assert "JSON" in text and '"evidence"' in text and '"summary"' in text
