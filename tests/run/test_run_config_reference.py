"""The RunConfig reference is generated from the fields' descriptions, and the doc holds it current."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from vibesearch.run.config import Limits, RunConfig
from vibesearch.run.reference import BEGIN, END, field_help, part_of, reference_table, with_reference

DOC = Path(__file__).resolve().parents[2] / "docs" / "run-config.md"


def _parts(model: type[BaseModel]) -> list[type[BaseModel]]:
    found = [model]
    for field in model.model_fields.values():
        part = part_of(field.annotation)
        if part is not None and part not in found:
            found += [p for p in _parts(part) if p not in found]
    return found


def test_every_field_of_every_part_is_described():
    parts = _parts(RunConfig)
    assert {p.__name__ for p in parts} == {"RunConfig", "AgentSpec", "Sampling", "OpenclawSpec", "UserSpec", "JudgeSpec", "SearchSpec", "Limits"}
    bare = [f"{p.__name__}.{name}" for p in parts for name, f in p.model_fields.items() if not (f.description or "").strip()]
    assert not bare, bare


def test_the_doc_holds_the_current_reference():
    text = DOC.read_text(encoding="utf-8")
    assert with_reference(text) == text, "docs/run-config.md is out of date: python -m vibesearch.run.reference docs/run-config.md"


def test_the_table_has_a_row_per_field_with_its_description():
    table = reference_table()
    assert "| `limits.budget_usd` | float or None | `None` | " + field_help(Limits, "budget_usd") + " |" in table
    assert "| `agent.kind` | 'baseline' / 'react' / 'endpoint' / 'openclaw' | `'baseline'` |" in table
    assert "| `agent.openclaw.idle_s` |" in table and "| `user.sampling.top_p` |" in table
    # a row per leaf and per part: every field of every part under its dotted path
    rows = [line for line in table.splitlines()[2:] if line.startswith("| `")]
    assert len(rows) == len({line.split("`")[1] for line in rows})
    assert {"limits." + name for name in Limits.model_fields} <= {line.split("`")[1] for line in rows}


def test_regenerating_is_idempotent_and_keeps_the_text_around_it():
    text = f"before\n\n{BEGIN}\nold table\n{END}\n\nafter\n"
    once = with_reference(text)
    assert once.startswith(f"before\n\n{BEGIN}\n\n| field |") and once.endswith(f"\n{END}\n\nafter\n")
    assert "old table" not in once and with_reference(once) == once


def test_a_field_without_a_description_is_refused():
    class Part(BaseModel):
        described: int = Field(default=1, description="said")
        bare: int = 2

    assert field_help(Part, "described") == "said"
    with pytest.raises(KeyError):
        field_help(Part, "bare")
    with pytest.raises(KeyError):
        reference_table(Part)
