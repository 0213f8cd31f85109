"""Every relative import in the package names a module or package that exists.

mypy runs with ``ignore_missing_imports`` (third-party stubs), so it does not see an import of a
module of ours that a move left behind: a function-local ``from .preflight import …`` in a module
moved to another package failed only when that line ran (every queued job, once)."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "vibesearch"


def _exists(folder: Path, dotted: str) -> bool:
    target = folder.joinpath(*dotted.split("."))
    return target.with_suffix(".py").is_file() or (target / "__init__.py").is_file()


def missing_relative_imports(root: Path = PKG) -> list[str]:
    bad = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.level):
                continue
            folder = path.parent
            for _ in range(node.level - 1):
                folder = folder.parent
            if node.module:
                if not _exists(folder, node.module):
                    bad.append(f"{path.relative_to(root)}:{node.lineno} {'.' * node.level}{node.module}")
            else:  # ``from . import name``: a module of the package, or a name its __init__ defines
                init = folder / "__init__.py"
                defined = init.read_text(encoding="utf-8") if init.is_file() else ""
                for alias in node.names:
                    if not _exists(folder, alias.name) and alias.name not in defined:
                        bad.append(f"{path.relative_to(root)}:{node.lineno} {'.' * node.level} import {alias.name}")
    return bad


def test_every_relative_import_names_a_module_that_exists():
    assert not missing_relative_imports(), "\n".join(missing_relative_imports())


def test_the_checker_finds_a_missing_module(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "here.py").write_text("")
    (pkg / "sub" / "mod.py").write_text("def f():\n    from .gone import x\n    from .here import y\n    from ..sub import here\n")
    assert missing_relative_imports(pkg) == ["sub/mod.py:2 .gone"]
