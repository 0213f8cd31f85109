"""A package's ``_x`` modules and ``_x`` names are its own: no other package imports them.

Read off the source like the layering test (imports inside functions count too). A module of
package A importing from package B (``vibesearch.B...``) must name no part starting with ``_``:
neither a private module (``from ..B._x import y``, ``from ..B import _x``) nor a private name
(``from ..B.mod import _y``). What another package needs gets a public name: a public module, or a
name re-exported by B's ``__init__``.

Exempt by design: the top-level helpers ``vibesearch/_x.py`` (``_aio``, ``_fields``, ``_files``,
``_secrets`` ...), shared by every package, and dunder names.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "vibesearch"

# Importer -> the private thing it names. Each would be a debt, not a permission (a line that no
# longer occurs fails too, so the list only shrinks). Empty since issue 38.
ALLOWED: set[str] = set()


def _private(parts: list[str]) -> bool:
    return any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in parts)


def private_imports(path: Path, source: str | None = None) -> set[str]:
    """``"<importer> -> <private target>"`` for each import of another package's private module or
    name in ``path`` (a module under ``vibesearch/``; ``source``: its text, default the file's)."""
    rel = path.relative_to(PKG.parent).with_suffix("").parts  # ("vibesearch", "pkg", ..., "mod")
    package = list(rel[:-1])  # what a level-1 relative import starts from (an __init__'s own package too)
    own = rel[1].removesuffix(".py")
    found: set[str] = set()

    def check(module: list[str], name: str | None) -> None:
        if len(module) < 2 or module[0] != "vibesearch" or module[1] == own or module[1].startswith("_"):
            return
        for depth in range(2, len(module) + 1):  # the first private part names the target
            if _private(module[depth - 1 : depth]):
                found.add(f"{path.relative_to(PKG).as_posix()} -> {'.'.join(module[:depth])}")
                return
        if name is not None and _private([name]):
            found.add(f"{path.relative_to(PKG).as_posix()} -> {'.'.join([*module, name])}")

    for node in ast.walk(ast.parse(source if source is not None else path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = base + (node.module.split(".") if node.module else [])
            else:
                module = (node.module or "").split(".")
            for alias in node.names:
                check(module, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                check(alias.name.split("."), None)
    return found


def _all() -> set[str]:
    return {hit for path in sorted(PKG.rglob("*.py")) for hit in private_imports(path)}


def test_no_new_cross_package_private_import():
    new = sorted(_all() - ALLOWED)
    assert not new, (
        "a package imports another package's private module or name (give it a public name: a public "
        "module, or a re-export in the package's __init__):\n" + "\n".join(new)
    )


def test_the_allowlist_holds_only_todays_offenders():
    gone = sorted(ALLOWED - _all())
    assert not gone, "fixed (or moved): delete these lines from ALLOWED:\n" + "\n".join(gone)


def test_the_checker_finds_each_kind_of_private_import():
    """A guard against a checker that silently looks for nothing: each form is caught, and what
    is allowed is not."""
    module = PKG / "agents" / "react.py"
    source = "\n".join([
        "from ..store._url import db_target",  # a private module, relative
        "from vibesearch.scoring import _spread",  # a private module by name
        "import vibesearch.session._outage",  # a private module, absolute
        "from ..scoring.official_metrics import _f1",  # a private name
        "from .._files import short",  # the top-level helpers: shared by design
        "from ._triples import parse_triples",  # its own package's private module
        "from ..run import __all__",  # a dunder
        "def f():\n    from ..tasks._ids import ID_PATTERN",  # inside a function too
    ])
    assert private_imports(module, source) == {
        "agents/react.py -> vibesearch.store._url",
        "agents/react.py -> vibesearch.scoring._spread",
        "agents/react.py -> vibesearch.session._outage",
        "agents/react.py -> vibesearch.scoring.official_metrics._f1",
        "agents/react.py -> vibesearch.tasks._ids",
    }
