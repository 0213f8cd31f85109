"""No import cycle between the modules of ``vibesearch``, read off the source like the layering test.

Every import counts, the ones inside functions too: a cycle that only a deferred import keeps from
failing is still two modules that cannot be understood (or loaded) one without the other. An
import of a package counts as an import of its ``__init__``; ``from pkg import mod`` of a module
counts as an import of that module.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "vibesearch"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    rel = Path(*name.split("."))
    return (PKG.parent / rel).with_suffix(".py").exists() or (PKG.parent / rel / "__init__.py").exists()


def _targets(path: Path, modules: set[str]) -> set[str]:
    """The vibesearch modules ``path`` imports (anywhere in it)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                out.add(sub if sub in modules else source)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return {t for t in out if t in modules and t != name}


def import_graph() -> dict[str, set[str]]:
    paths = sorted(PKG.rglob("*.py"))
    modules = {_module_name(p) for p in paths}
    return {_module_name(p): _targets(p, modules) for p in paths}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _path_within(graph: dict[str, set[str]], component: list[str]) -> str:
    """One cycle through the component, for the failure message."""
    members = set(component)
    start = component[0]
    trail, seen = [start], {start}
    node = start
    while True:
        nxt = sorted(graph[node] & members)
        back = [n for n in nxt if n == start]
        if back and len(trail) > 1:
            return " -> ".join(trail + [start])
        fresh = [n for n in nxt if n not in seen]
        if not fresh:
            return " -> ".join(trail + [nxt[0]]) if nxt else " -> ".join(trail)
        node = fresh[0]
        trail.append(node)
        seen.add(node)


def test_no_module_imports_itself_back():
    graph = import_graph()
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(_path_within(graph, c) for c in found)


def test_the_checker_finds_a_cycle_and_function_level_imports():
    # a guard against a checker that silently finds nothing
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    graph = import_graph()
    assert "vibesearch.run.events" in graph["vibesearch.session.loop"]
    # make_agent imports the agents lazily, inside the function
    assert "vibesearch.agents.react" in graph["vibesearch.agents"]
