"""One description per agent kind and user kind: the vocabularies (``AgentKind``, ``UserKind``)
and their sub-vocabularies (one registry flag each, as data for the layers below the registries)
agree with the registries, and no module but a registry compares a kind's name."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from vibesearch.agents.registry import agent_kind, agent_kind_names, agent_kinds
from vibesearch import config as vocabularies
from vibesearch.config import AGENT_KINDS, SCRIPTED_USER_KINDS, USER_KINDS, Settings
from vibesearch.protocol import build_config
from vibesearch.run.config import AgentSpec, UserSpec, kept_by
from vibesearch.users.registry import user_kind, user_kind_names, user_kinds

PKG = Path(__file__).resolve().parents[2] / "vibesearch"
KIND_NAMES = set(AGENT_KINDS) | set(USER_KINDS)
# the modules that may compare a kind's name, and why
EXEMPT = {
    "agents/registry.py": "the registry",
    "users/registry.py": "the registry",
}
# the layers below the registries read a kind's facts from these sub-vocabularies (vibesearch.config):
# sub-vocabulary -> (its vocabulary, the registry's kinds that have the flag it stands for)
SUB_VOCABULARIES = {
    "MODEL_AGENT_KINDS": (AGENT_KINDS, lambda: {k.name for k in agent_kinds() if k.needs_model}),
    "ORACLE_AGENT_KINDS": (AGENT_KINDS, lambda: {k.name for k in agent_kinds() if k.oracle_baseline}),
    "MODEL_USER_KINDS": (USER_KINDS, lambda: {k.name for k in user_kinds() if k.needs_model}),
    "PERSON_USER_KINDS": (USER_KINDS, lambda: {k.name for k in user_kinds() if k.person}),
    "SIMULATED_USER_KINDS": (USER_KINDS, lambda: {k.name for k in user_kinds() if k.simulated}),
    "SCRIPTED_USER_KINDS": (USER_KINDS, lambda: {k.name for k in user_kinds() if k.scripted}),
}
# an operand that is a run's agent or user kind (``config.agent.kind``, ``run.user``, ``user`` ...)
KIND_SIDE = re.compile(r"\bkind\b|(^|\.)(agent|user)$|\b(agent|user)_kind\b|^(agent|user)$")


def test_every_agent_kind_is_registered_and_every_registration_is_a_kind():
    assert agent_kind_names() == AGENT_KINDS


def test_every_user_kind_is_registered_and_every_registration_is_a_kind():
    assert user_kind_names() == USER_KINDS
    assert tuple(k.name for k in user_kinds() if k.scripted) == SCRIPTED_USER_KINDS


def test_only_the_registries_may_compare_a_kinds_name():
    assert set(EXEMPT) == {"agents/registry.py", "users/registry.py"}


@pytest.mark.parametrize("name", sorted(SUB_VOCABULARIES))
def test_each_sub_vocabulary_names_the_registered_kinds_with_its_flag(name):
    vocabulary, flagged = SUB_VOCABULARIES[name]
    sub = getattr(vocabularies, name)
    assert set(sub) <= set(vocabulary), f"{name} names a kind its vocabulary does not"
    assert set(sub) == flagged() & set(vocabulary), f"{name} and the registry's flag disagree"


def test_every_sub_vocabulary_is_checked():
    declared = {n for n in dir(vocabularies) if n.endswith("_KINDS") and n not in ("AGENT_KINDS", "USER_KINDS")}
    assert declared == set(SUB_VOCABULARIES)


@pytest.mark.parametrize(("part", "vocabulary"), [(AgentSpec, AGENT_KINDS), (UserSpec, USER_KINDS)])
def test_a_field_kept_by_some_kinds_names_only_kinds(part, vocabulary):
    marked = {name: kept_by(part, name) for name in part.model_fields}
    for name, kept in marked.items():
        assert kept is None or (kept.kinds and set(kept.kinds) <= set(vocabulary)), f"{part.__name__}.{name}: {kept}"


@pytest.mark.parametrize("kind", AGENT_KINDS)
def test_the_config_keeps_what_each_agent_kind_reads(kind, tmp_path):
    settings = Settings(db=tmp_path / "x.db", tasks="")
    config = build_config(settings, task_id="t", agent=kind, agent_model="fake/m", endpoint_url="http://127.0.0.1:9/v1")
    assert bool(config.agent.model) == agent_kind(kind).needs_model


@pytest.mark.parametrize("kind", USER_KINDS)
def test_the_config_keeps_what_each_user_kind_reads(kind, tmp_path):
    settings = Settings(db=tmp_path / "x.db", tasks="")
    config = build_config(settings, task_id="t", user=kind, simulator_model="fake/m", shadow="rules")
    info = user_kind(kind)
    assert bool(config.user.model) == info.needs_model
    assert bool(config.user.shadow) == info.person


def _names(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_names(e) for e in node.elts)) if node.elts else set()
    return set()


def kind_compares(source: str) -> list[str]:
    """``config.agent.kind == "react"``, ``run.user != "human"``, ``kind in ("simulator", "paper")`` ..."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        named = [o for o in operands if _names(o) & KIND_NAMES]
        if named and any(KIND_SIDE.search(ast.unparse(o)) for o in operands if o not in named):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_checker_finds_a_kind_compare():
    assert kind_compares('if config.agent.kind == "react": pass')
    assert kind_compares('x = run.user != "human"')
    assert kind_compares('ok = config.user.kind not in ("direct", "staged")')
    assert not kind_compares('x = decided_by == "human"')


def test_no_module_but_a_registry_compares_a_kinds_name():
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        if rel in EXEMPT or "/migrations/" in rel:
            continue
        bad += [f"{rel}:{hit}" for hit in kind_compares(path.read_text(encoding="utf-8"))]
    assert not bad, "ask the registry (agents/registry.py, users/registry.py) instead:\n" + "\n".join(bad)
