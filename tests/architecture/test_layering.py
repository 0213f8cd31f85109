"""The import rules of docs/architecture.md, checked on the source so a shortcut cannot creep in."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "vibesearch"

# package -> packages it must never import
FORBIDDEN = {
    "store": {"session", "runner", "app", "cli", "judges", "scoring", "results", "labels", "agents", "users", "llm", "tools"},
    "tasks": {"session", "runner", "app", "cli", "store", "judges", "scoring", "results", "labels", "agents", "users", "run"},
    # the four scoring rooms, layered: judges < scoring < results < labels
    "judges": {"scoring", "results", "labels", "session", "runner", "app", "cli", "agents", "users", "reports", "site"},
    "scoring": {"results", "labels", "session", "runner", "app", "cli", "agents", "users", "reports", "site"},
    "results": {"labels", "session", "runner", "app", "cli", "agents", "users", "reports", "site"},
    "labels": {"session", "runner", "app", "cli", "agents", "users", "reports", "site"},
    "tables": {"session", "runner", "app", "cli", "agents", "users"},
    "llm": {"session", "runner", "app", "cli", "agents", "users", "judges", "scoring", "results", "labels", "store"},
    "tools": {"session", "runner", "app", "cli", "agents", "users", "judges", "scoring", "results", "labels", "store"},
    # agents and users know the run's model (``vibesearch.run``), never the database
    "agents": {"users", "session", "runner", "app", "cli", "store"},
    "users": {"agents", "session", "runner", "app", "cli", "store"},
    # the session drives one run; what drives sessions (batches, workers, resume, orphans) is above it
    "session": {"runner", "app", "cli"},
    # the runner drives sessions (it may import session, store, run, protocol, agents, users, llm ...);
    # the surfaces (app, cli) call it, never the other way
    "runner": {"app", "cli"},
    # what reads the store and shows it; what is published (the static site, the reports) is built
    # from the results, never from the app
    "reports": {"app", "session", "runner", "cli", "site", "agents", "users", "tools", "llm"},
    "site": {"app", "session", "runner", "cli", "agents", "users", "tools", "llm"},
    "interop": {"app", "cli", "site", "reports"},
    "app": {"cli", "site"},
    "cli": set(),  # the top: it may import any package
}
# package -> the only packages it may import (besides itself and the top-level ``_x`` helpers)
ALLOWED = {
    "run": {"tasks", "config"},
    # the profiles decide for the parts above them (agents, users, session, scoring), never the other way
    "protocol": {"tasks", "config", "run"},
}


def test_every_package_has_a_row():
    packages = {p.name for p in PKG.iterdir() if (p / "__init__.py").is_file()}
    missing = sorted(packages - set(FORBIDDEN) - set(ALLOWED))
    assert not missing, f"no import rule for: {', '.join(missing)} (add a row to FORBIDDEN or ALLOWED)"


def _imports(path: Path) -> set[str]:
    """First-level vibesearch packages a module imports (relative imports resolved)."""
    rel = path.relative_to(PKG.parent).with_suffix("").parts  # ("vibesearch", "pkg", "mod")
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(rel[: len(rel) - node.level])
                parts = base + (node.module.split(".") if node.module else [])
                names = [parts + [a.name] for a in node.names] if not node.module else [parts]
            else:
                names = [(node.module or "").split(".")]
            for parts in names:
                if len(parts) >= 2 and parts[0] == "vibesearch":
                    out.add(parts[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if len(parts) >= 2 and parts[0] == "vibesearch":
                    out.add(parts[1])
    return out


def _modules(package: str) -> list[Path]:
    return sorted((PKG / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_respects_the_layering(package):
    bad = []
    for path in _modules(package):
        for target in _imports(path) & FORBIDDEN[package]:
            bad.append(f"{path.relative_to(PKG)} imports vibesearch.{target}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_it_may(package):
    bad = []
    for path in _modules(package):
        for target in _imports(path) - ALLOWED[package] - {package}:
            if not target.startswith("_"):
                bad.append(f"{path.relative_to(PKG)} imports vibesearch.{target}")
    assert not bad, "\n".join(bad)


def test_the_store_defines_no_domain_types():
    """``store`` is persistence only: the events and the conversation live in ``run``."""
    for name in ("events.py", "conversation.py"):
        assert not (PKG / "store" / name).exists(), f"store/{name} belongs in vibesearch/run/"
    from vibesearch import store

    assert not {"MessageEvent", "Conversation", "EventData", "StageEvent"} & set(store.__all__)


def test_only_the_app_imports_gradio():
    bad = []
    for path in PKG.rglob("*.py"):
        if path.relative_to(PKG).parts[0] == "app":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            mods = []
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                mods = [node.module or ""]
            if any(m == "gradio" or m.startswith("gradio.") for m in mods):
                bad.append(str(path.relative_to(PKG)))
    assert not bad, bad


def test_the_checker_sees_relative_imports():
    # a guard against a checker that silently finds nothing
    assert "store" in _imports(PKG / "session" / "loop.py")
    assert "llm" in _imports(PKG / "agents" / "steps.py")
    assert "run" in _imports(PKG / "agents" / "react.py")
    assert "session" in _imports(PKG / "runner" / "batch.py")


def test_the_session_holds_no_batch_or_queue_module():
    """Batches, queue workers, pacing, orphans and resume live in ``runner/``, above the session."""
    left = {"batch.py", "queued.py", "queued_batches.py", "_pacing.py", "orphans.py", "resume.py"} & {
        p.name for p in (PKG / "session").glob("*.py")
    }
    assert not left, f"session/ holds {sorted(left)}: they belong in vibesearch/runner/"


def test_the_surfaces_import_the_runner():
    """The app and the CLI start batches, resume runs and close orphans through the runner."""
    for package in ("app", "cli"):
        assert any("runner" in _imports(p) for p in _modules(package)), f"{package}/ does not use vibesearch.runner"
