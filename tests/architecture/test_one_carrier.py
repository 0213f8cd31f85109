"""A run's behaviour has one carrier: its resolved ``RunConfig`` and the ``Profile`` it names.

Checked on the source, like the layering test:
* no module outside ``protocol/`` compares anything with a profile's name (the profile object
  decides; the parts choose their implementation from it once);
* no config is re-resolved or turned back into settings outside ``protocol/``;
* agents, tools, users, the session and the model client (``llm/``) read no run behaviour from
  ``Settings`` (only process facts): sampling, among others, reaches a model call only from the run's
  resolved config;
* one function makes the ``end`` event that closes a run (``session/lifecycle.py``);
* the app's start does not wait for a row the session writes (the row is opened first).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import pytest

from vibesearch.run.config import PROFILE_LIMITS, Limits, ProtocolProfile, SearchSpec

PKG = Path(__file__).resolve().parents[2] / "vibesearch"
PROFILE_NAMES = set(get_args(ProtocolProfile))
# the settings a RunConfig is drafted from: the run's behaviour once it is built
RUN_SETTINGS = (
    {name for name in Limits.model_fields if name not in PROFILE_LIMITS}
    | {"search_" + name if name != "tool_result_max_chars" else name for name in SearchSpec.model_fields}
    | {"agent", "agent_model", "user", "simulator_model", "judge_model", "endpoint_model", "temperature"}
)


def _modules(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (PKG / package).rglob("*.py"))


def _all_modules() -> list[Path]:
    return sorted(PKG.rglob("*.py"))


def _tree(path: Path) -> ast.AST:
    return ast.parse(path.read_text(encoding="utf-8"))


def _is_name_constant(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and node.value in PROFILE_NAMES:
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_name_constant(e) for e in node.elts)
    return False


def test_nothing_outside_protocol_compares_a_profile_name():
    bad = []
    for path in _all_modules():
        if path.relative_to(PKG).parts[0] == "protocol":
            continue
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Compare) and any(_is_name_constant(n) for n in [node.left, *node.comparators]):
                bad.append(f"{path.relative_to(PKG)}:{node.lineno}")
    assert not bad, "a profile's name is compared outside protocol/ (ask the Profile instead):\n" + "\n".join(bad)


def test_the_grep_of_the_issue_finds_nothing_either():
    import re

    pattern = re.compile(r'== *"official"|"official" *==')
    bad = [
        f"{path.relative_to(PKG)}:{i}"
        for path in _all_modules()
        if path.relative_to(PKG).parts[0] != "protocol"
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not bad, bad


def test_configs_are_resolved_only_in_protocol():
    bad = []
    for path in _all_modules():
        if path.relative_to(PKG).parts[0] == "protocol":
            continue
        for node in ast.walk(_tree(path)):
            name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
            if name in {"settings_for", "profile_config", "profile_limits", "prompts_for"}:
                bad.append(f"{path.relative_to(PKG)}:{node.lineno}: {name}")
    assert not bad, bad


@pytest.mark.parametrize("package", ["agents", "tools", "users", "session", "llm"])
def test_the_parts_read_no_run_behaviour_from_the_settings(package):
    """``settings.<x>`` for x a run's behaviour (a limit, the search, a model, sampling) is read
    only by ``RunConfig.draft``; the parts read it from the run's config."""
    bad = []
    for path in _modules(package):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Attribute) and node.attr in RUN_SETTINGS:
                base = node.value
                base_name = base.attr if isinstance(base, ast.Attribute) else base.id if isinstance(base, ast.Name) else ""
                if "settings" in base_name:
                    bad.append(f"{path.relative_to(PKG)}:{node.lineno}: {base_name}.{node.attr}")
    assert not bad, "run behaviour read from the settings:\n" + "\n".join(bad)


def test_the_checker_knows_the_run_settings():
    # a guard against a checker that silently looks for nothing
    assert {"max_steps_per_turn", "context_window", "compaction_threshold", "search_backend", "search_topn", "tool_result_max_chars"} <= RUN_SETTINGS


def test_one_function_makes_the_end_event():
    makers = []
    for path in _all_modules():
        tree = _tree(path)
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Call):
                    f = node.func
                    called = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                    owner = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else ""
                    if called == "EndEvent" or (owner == "EndEvent" and called in {"model_validate", "model_construct"}):
                        makers.append(f"{path.relative_to(PKG)}::{fn.name}")
    assert sorted(set(makers)) == ["session/lifecycle.py::end_event"], makers


def test_the_app_start_waits_for_no_row():
    tree = _tree(PKG / "app" / "live.py")
    manager = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "RunManager")
    methods = {n.name: n for n in manager.body if isinstance(n, ast.FunctionDef)}
    assert "_await_row" not in methods
    calls = {
        (n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", ""))
        for n in ast.walk(methods["start"])
        if isinstance(n, ast.Call)
    }
    assert "open_run" in calls and "sleep" not in calls
