"""docs/architecture.md's package table names exactly what ``ls vibesearch/`` shows: every package
(a directory with an ``__init__.py``) and every top-level module, each in the first cell of a row."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "vibesearch"
DOC = ROOT / "docs" / "architecture.md"


def tree_entries() -> set[str]:
    """``name/`` for each package, ``name.py`` for each top-level module (``__init__.py`` aside)."""
    packages = {f"{p.name}/" for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    modules = {p.name for p in PKG.glob("*.py") if p.name != "__init__.py"}
    return packages | modules


def documented_entries(text: str) -> set[str]:
    """The names in backticks in the first cell of the package table's rows (the table whose header
    is ``| package | holds |``)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"^\|\s*package\s*\|\s*holds\s*\|", line))
    names: set[str] = set()
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        first = line.split("|")[1]
        names |= set(re.findall(r"`([^`]+)`", first))
    return names


def test_the_package_table_matches_the_tree():
    tree, doc = tree_entries(), documented_entries(DOC.read_text(encoding="utf-8"))
    assert not tree - doc and not doc - tree, (
        f"docs/architecture.md's package table and ls vibesearch/ differ: not in the table: {sorted(tree - doc)}; "
        f"in the table, not in the tree: {sorted(doc - tree)}"
    )


def test_the_reader_reads_a_table():
    # a guard against a reader that silently finds nothing
    text = "intro\n\n| package | holds |\n|---|---|\n| `a/` | x `b/` |\n| `_c.py` (+ `_d.py`) | y |\n\nafter `e/`\n"
    assert documented_entries(text) == {"a/", "_c.py", "_d.py"}
    assert {"run/", "store/", "config.py"} <= tree_entries()
