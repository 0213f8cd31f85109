"""The judge kinds: one Literal (``run.config.JudgeKind``), one description each in
``judges/registry.py``, and no module telling the offline judge apart by comparing its name."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

from vibesearch.judges.registry import JUDGES, judge_for
from vibesearch.run.config import OFFLINE_JUDGE, JudgeKind

PKG = Path(__file__).resolve().parents[2] / "vibesearch"
# the name rule itself, and the search backend named "offline" (not a judge)
ALLOWED = {PKG / "judges" / "registry.py", PKG / "run" / "config.py"}


def test_every_judge_kind_is_registered_once():
    assert set(get_args(JudgeKind)) == set(JUDGES)
    for kind, description in JUDGES.items():
        assert description.kind == kind
        assert description.label and description.help


def test_a_judge_name_picks_its_description():
    assert judge_for(OFFLINE_JUDGE).kind == "offline"
    assert judge_for(OFFLINE_JUDGE).deterministic and not judge_for(OFFLINE_JUDGE).needs_model
    assert judge_for("openai/gpt-4o-mini").kind == "llm"
    assert judge_for("openai/gpt-4o-mini", official=True).kind == "official"
    assert judge_for(OFFLINE_JUDGE, official=True).kind == "offline"
    assert all(judge_for("m", official=o).needs_model and not judge_for("m", official=o).deterministic for o in (False, True))


def _offline_compares(path: Path, root: Path = PKG) -> list[str]:
    src = path.read_text(encoding="utf-8")
    bad = []
    for node in ast.walk(ast.parse(src)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        consts = [c for o in operands for c in ast.walk(o) if isinstance(c, ast.Constant) and c.value == OFFLINE_JUDGE]
        if not consts:
            continue
        text = ast.get_source_segment(src, node) or ""
        if "backend" in text or path.relative_to(root).parts[0] == "tools":  # the offline search backend
            continue
        bad.append(f"{path.relative_to(root)}:{node.lineno}: {text}")
    return bad


def test_no_module_compares_a_judge_name_with_offline():
    bad = [line for path in sorted(PKG.rglob("*.py")) if path not in ALLOWED for line in _offline_compares(path)]
    assert not bad, "ask judges.registry.judge_for(name) instead:\n" + "\n".join(bad)


def test_the_checker_finds_a_compare(tmp_path):
    # a guard against a checker that silently finds nothing
    probe = tmp_path / "judges" / "probe.py"
    probe.parent.mkdir()
    probe.write_text('def f(judge, backend):\n    return judge != "offline" or judge in ("", "offline") or backend == "offline"\n')
    assert len(_offline_compares(probe, tmp_path)) == 2
