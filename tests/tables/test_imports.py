"""How the table and task modules import each other, checked on the source: no cycle between
them, and no in-tree module imported under ``except ImportError`` (that would hide a real error)."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "vibesearch"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(path: Path) -> set[str]:
    """Every ``vibesearch`` module a file imports (relative imports resolved, names that are
    modules counted as modules)."""
    pkg = _module_name(path).split(".")
    if path.name != "__init__.py":
        pkg = pkg[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = (pkg[: len(pkg) - node.level + 1] if node.level else []) + (node.module.split(".") if node.module else [])
            name = ".".join(base)
            if not name.startswith("vibesearch"):
                continue
            out.add(name)
            for alias in node.names:
                sub = PKG.parent / Path(*base, alias.name)
                if sub.with_suffix(".py").exists() or (sub / "__init__.py").exists():
                    out.add(f"{name}.{alias.name}")
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("vibesearch"))
    return out


def _graph(packages: tuple[str, ...]) -> dict[str, set[str]]:
    files = [p for pkg in packages for p in sorted((PKG / pkg).rglob("*.py"))]
    names = {_module_name(p) for p in files}
    return {_module_name(p): _imported_modules(p) & names for p in files}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_checker_finds_a_cycle_and_sees_relative_imports():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    graph = _graph(("tables",))
    assert "vibesearch.tables._gold_csv" in graph["vibesearch.tables.loader"]


def test_table_and_task_modules_import_no_cycle():
    graph = _graph(("tables", "tasks"))
    # a package's __init__ re-exports its modules; a module importing its own package's __init__
    # is not a cycle the package owns, so only module-to-module edges inside the packages count
    inits = {n for n in graph if n in ("vibesearch.tables", "vibesearch.tasks")}
    trimmed = {n: deps - inits for n, deps in graph.items() if n not in inits}
    assert _cycle(trimmed) is None, " -> ".join(_cycle(trimmed) or [])


def _guarded_imports(path: Path) -> list[str]:
    """In-tree modules imported inside a ``try`` whose handler catches ImportError."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Try):
            continue
        catches = [ast.unparse(h.type) if h.type else "" for h in node.handlers]
        if not any("ImportError" in c or c == "" for c in catches):
            continue
        for inner in (n for stmt in node.body for n in ast.walk(stmt)):
            if isinstance(inner, ast.ImportFrom) and (inner.level or (inner.module or "").startswith("vibesearch")):
                found.append(f"{path.relative_to(PKG)}:{inner.lineno}")
            elif isinstance(inner, ast.Import) and any(a.name.startswith("vibesearch") for a in inner.names):
                found.append(f"{path.relative_to(PKG)}:{inner.lineno}")
    return found


def test_no_in_tree_module_is_imported_under_an_import_error_guard():
    found = [hit for path in sorted(PKG.rglob("*.py")) for hit in _guarded_imports(path)]
    assert not found, found
