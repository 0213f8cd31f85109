"""A package's ``_x`` modules and ``_x`` names are its own: no other package imports them, and the
tests use public names too.

Read off the source like the layering test (imports inside functions count too). A module of
package A importing from package B (``vibesearch.B...``) must name no part starting with ``_``:
neither a private module (``from ..B._x import y``, ``from ..B import _x``) nor a private name
(``from ..B.mod import _y``). What another package needs gets a public name: a public module, or a
name re-exported by B's ``__init__`` (``app``, ``cli`` and ``labels`` export theirs lazily, so that
importing the package stays as light as before).

A test file (``tests/``) is held to the same rule for every package: it tests what the package
offers. The exceptions are in ``TESTS_ALLOWED``, each with its reason: unit tests of a rule that is
package-internal by design (the offline judge's rule modules), and tests that patch or clear a
module's private state.

Exempt by design: the top-level helpers ``vibesearch/_x.py`` (``_aio``, ``_fields``, ``_files``,
``_secrets`` ...), shared by every package (and by the tests), and dunder names.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "vibesearch"
TESTS = PKG.parent / "tests"

# Product code: importer -> the private thing it names. Each would be a debt, not a permission (a
# line that no longer occurs fails too, so the list only shrinks). Empty since issue 38.
ALLOWED: set[str] = set()

_RULES = "a unit test of the offline judge's matching rules, one private rule module at a time"
_PATCHES = "patches the module's private state"
# Tests: "<test file> -> <private target>": why. Shrink-only (a line no longer needed fails, and
# so does a longer list): issue 38 moved the other 46 of 64 test files to public names.
TESTS_ALLOWED: dict[str, str] = {
    "tests/scoring/test_offline_judge.py -> vibesearch.judges.offline._normalize": _RULES,
    "tests/scoring/test_offline_judge_roles.py -> vibesearch.judges.offline._roles": _RULES,
    "tests/scoring/test_offline_judge_round4.py -> vibesearch.judges.offline._bounds": _RULES,
    "tests/scoring/test_offline_judge_round4.py -> vibesearch.judges.offline._names": _RULES,
    "tests/scoring/test_offline_judge_round4.py -> vibesearch.judges.offline._normalize": _RULES,
    "tests/scoring/test_offline_judge_round4.py -> vibesearch.judges.offline._numbers": _RULES,
    "tests/scoring/test_offline_judge_round4.py -> vibesearch.judges.offline._units": _RULES,
    "tests/scoring/test_offline_judge_rules.py -> vibesearch.judges.offline._inverse": _RULES,
    "tests/scoring/test_offline_judge_rules.py -> vibesearch.judges.offline._lists": _RULES,
    "tests/scoring/test_offline_judge_rules.py -> vibesearch.judges.offline._matching": _RULES,
    "tests/scoring/test_offline_judge_rules.py -> vibesearch.judges.offline._normalize": _RULES,
    "tests/scoring/test_offline_judge_rules.py -> vibesearch.judges.offline._units": _RULES,
    "tests/scoring/test_llm_judge_windows.py -> vibesearch.judges._judge_layout":
        "a unit test of how the LLM judge counts a prompt's tokens for its windows",
    "tests/store/test_pool_idle_ping.py -> vibesearch.store._engine": _PATCHES + " (the pool's idle time)",
    "tests/store/test_write_retry.py -> vibesearch.store._write":
        "a unit test of the store's retry of a busy write, which it patches",
    "tests/cli/test_db_files.py -> vibesearch.store._open": _PATCHES + " (os.access, to fake a read-only file)",
    "tests/site/test_site_browser.py -> vibesearch.site._html": _PATCHES + " (the size above which replays are compressed)",
    "tests/app/test_app_graph_view.py -> vibesearch.results.graph_layout._layout": "clears the layout's cache between cases",
    "tests/llm/test_direct_path.py -> vibesearch.llm._direct": "a unit test of the direct path's route and wire format",
    "tests/llm/test_direct_path.py -> vibesearch.llm._json": "a unit test of the direct path's route and wire format",
    "tests/protocol/test_session_official.py -> vibesearch.llm._litellm":
        "raises litellm's own error from litellm as the product loads and configures it",
    "tests/app/test_security_rules.py -> vibesearch.store.migrations.versions.r0005_resolved_configs._derived":
        "checks what a migration derives for an old row against the code's own config",
    "tests/app/test_security_front.py -> vibesearch.app._loading": "a unit test of the folder name of a login's uploads",
    "tests/app/test_app_surface_words.py -> vibesearch.app.render._add_message":
        "a unit test of how one message becomes chat messages",
    "tests/site/test_site_content.py -> vibesearch.site.build._public_config":
        "a unit test of what of a run's config the site publishes",
    "tests/site/test_site_official.py -> vibesearch.site.verify._check_people":
        "a unit test of one check of the site's verifier",
}


def _private(parts: list[str]) -> bool:
    return any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in parts)


def private_imports(path: Path, source: str | None = None) -> set[str]:
    """``"<importer> -> <private target>"`` for each import of another package's private module or
    name in ``path`` (a module under ``vibesearch/``, or a test file under ``tests/``, which may
    import no package's private part; ``source``: its text, default the file's)."""
    in_pkg = path.is_relative_to(PKG)
    rel = path.relative_to(PKG.parent).with_suffix("").parts  # ("vibesearch", "pkg", ..., "mod")
    package = list(rel[:-1])  # what a level-1 relative import starts from (an __init__'s own package too)
    own = rel[1].removesuffix(".py") if in_pkg else None
    importer = path.relative_to(PKG).as_posix() if in_pkg else path.relative_to(PKG.parent).as_posix()
    found: set[str] = set()

    def check(module: list[str], name: str | None) -> None:
        if len(module) < 2 or module[0] != "vibesearch" or module[1] == own or module[1].startswith("_"):
            return
        for depth in range(2, len(module) + 1):  # the first private part names the target
            if _private(module[depth - 1 : depth]):
                found.add(f"{importer} -> {'.'.join(module[:depth])}")
                return
        if name is not None and _private([name]):
            found.add(f"{importer} -> {'.'.join([*module, name])}")

    for node in ast.walk(ast.parse(source if source is not None else path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level and not in_pkg:
                continue  # a test's own helpers (``from .app_fakes import ...``)
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


def _all(root: Path = PKG) -> set[str]:
    return {hit for path in sorted(root.rglob("*.py")) for hit in private_imports(path)}


def test_no_new_cross_package_private_import():
    new = sorted(_all() - ALLOWED)
    assert not new, (
        "a package imports another package's private module or name (give it a public name: a public "
        "module, or a re-export in the package's __init__):\n" + "\n".join(new)
    )


def test_the_allowlist_holds_only_todays_offenders():
    gone = sorted(ALLOWED - _all())
    assert not gone, "fixed (or moved): delete these lines from ALLOWED:\n" + "\n".join(gone)


def test_no_test_imports_a_private_part_unlisted():
    new = sorted(_all(TESTS) - set(TESTS_ALLOWED))
    assert not new, (
        "a test imports a package's private module or name: import its public name (export it from "
        "the package's __init__ if it has none); TESTS_ALLOWED only shrinks:\n" + "\n".join(new)
    )


def test_the_tests_allowlist_only_shrinks_and_says_why():
    gone = sorted(set(TESTS_ALLOWED) - _all(TESTS))
    assert not gone, "fixed (or moved): delete these lines from TESTS_ALLOWED:\n" + "\n".join(gone)
    assert all(reason.strip() for reason in TESTS_ALLOWED.values())
    # issue 38 left 27 imports in 18 test files (of 64 files before it)
    assert len(TESTS_ALLOWED) <= 27 and len({hit.split(" -> ")[0] for hit in TESTS_ALLOWED}) <= 18


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


def test_the_checker_reads_a_test_file_by_the_same_rule():
    """In a test every package is another package: its private parts are found; the top-level
    helpers and the test's own relative imports are not."""
    source = "\n".join([
        "from vibesearch.app._access import Who",  # a private module
        "from vibesearch.app.render import _add_message",  # a private name
        "from vibesearch.app import Access",  # a public re-export
        "from vibesearch._files import short",  # the top-level helpers
        "from .app_fakes import fake_store",  # the test's own helper
        "def f():\n    import vibesearch.store._engine",  # inside a function too
    ])
    assert private_imports(TESTS / "app" / "test_x.py", source) == {
        "tests/app/test_x.py -> vibesearch.app._access",
        "tests/app/test_x.py -> vibesearch.app.render._add_message",
        "tests/app/test_x.py -> vibesearch.store._engine",
    }
