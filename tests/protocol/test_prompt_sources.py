"""Prompt sources: a checkout read by parsing (never executed), or our own prompts."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vibesearch.config import Settings
from vibesearch.protocol import HarnessError, Slot, load_prompts, own_prompts, resolve_harness
from vibesearch.protocol.prompts import JUDGE_SLOTS

STAND_IN = Path(__file__).resolve().parents[1] / "data" / "official_harness"


@pytest.fixture
def marker(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "imported.txt"
    monkeypatch.setenv("HARNESS_IMPORT_MARKER", str(path))
    return path


def test_the_stand_in_really_has_a_side_effect_when_run(marker):
    # the proof below only means something if running the file would leave the marker
    env = {**os.environ, "HARNESS_IMPORT_MARKER": str(marker)}
    proc = subprocess.run([sys.executable, str(STAND_IN / "agent" / "prompts.py")], check=False, env=env, capture_output=True, text=True)
    assert proc.returncode != 0 and "must be parsed" in proc.stderr
    assert marker.read_text().startswith("agent/prompts.py was executed")


def test_checkout_is_parsed_not_executed(marker):
    prompts = load_prompts(STAND_IN)
    assert not marker.exists()
    assert not any(str(STAND_IN) in (getattr(m, "__file__", None) or "") for m in list(sys.modules.values()))
    assert prompts.source.kind == "official"
    assert prompts.agent_system_prompt("en").startswith("STAND-IN agent prompt (en)")
    assert prompts.agent_system_prompt("zh").endswith("先搜索，再提问。")  # implicit concatenation
    assert prompts.agent_system_prompt("fr") == prompts.agent_system_prompt("en")  # official fallback
    assert prompts.extraction_prompt("zh").endswith("把所有三元组输出为 JSON。")  # "a" + "b"
    sim = prompts.simulator_system_prompt("a tired parent", "cheap flights to Oslo")
    assert "Persona: a tired parent\nGoal: cheap flights to Oslo" in sim
    assert "Persona: A curious researcher" in prompts.simulator_system_prompt("", "q")
    judge = prompts.judge.render(pred_lines="P-0: x", gt_lines="GT-12: y", first_index=12, count=3)
    assert "Claims (3, GT-12..GT-14):\nGT-12: y" in judge
    assert '{"index": 12, "covered": true' in judge and '{"index": 13, ...}' in judge and '{"index": 14}' in judge
    assert prompts.notes == ()
    assert prompts.compaction is not None and prompts.compaction.system == "STAND-IN compaction system: summarise only."
    assert prompts.compaction.request("[user]: {x} and {conversation}") == (
        "STAND-IN compaction request. The research so far:\n[user]: {x} and {conversation}\nEnd of research.")  # braces in the text stay
    assert prompts.compaction.summary_lead == ("STAND-IN summary lead:\n\n", Slot("summary"))
    assert prompts.compaction.go_on == "STAND-IN: go on."  # the literal one, not the append of `question`
    assert own_prompts().compaction is None  # without a checkout: our own compaction prompt


def test_source_records_each_file_hash():
    prompts = load_prompts(STAND_IN)
    for name in ("agent/prompts.py", "agent/general_agent.py", "eval/evaluator.py"):
        assert prompts.source.files[name] == hashlib.sha256((STAND_IN / name).read_bytes()).hexdigest()
    assert prompts.source.label().startswith("official prompts (agent/general_agent.py sha256 ")
    assert prompts.source.record()["kind"] == "official"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    shutil.copytree(STAND_IN, root)
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_missing_name_names_the_file_and_the_name(tmp_path, marker):
    root = _copy(tmp_path)
    _edit(root / "agent" / "prompts.py", "TRIPLE_REQUEST_PROMPT_ZH =", "SOMETHING_ELSE =")
    with pytest.raises(HarnessError) as err:
        load_prompts(root)
    assert "agent/prompts.py" in str(err.value) and "TRIPLE_REQUEST_PROMPT_ZH" in str(err.value)
    assert not marker.exists()


def test_missing_judge_function_or_variable(tmp_path):
    root = _copy(tmp_path)
    _edit(root / "eval" / "evaluator.py", "    prompt = (", "    text = (")
    with pytest.raises(HarnessError, match=r"eval/evaluator.py: _run_gt_coverage_batch.prompt"):
        load_prompts(root)
    _edit(root / "eval" / "evaluator.py", "def _run_gt_coverage_batch(", "def renamed(")
    with pytest.raises(HarnessError, match=r"eval/evaluator.py: _run_gt_coverage_batch: no top-level function"):
        load_prompts(root)


def test_code_in_a_template_is_refused(tmp_path):
    root = _copy(tmp_path)
    _edit(root / "eval" / "evaluator.py", "{len(batch)}", "{__import__('os').getcwd()}")
    with pytest.raises(HarnessError, match="unexpected field"):
        load_prompts(root)
    root2 = tmp_path / "two"
    shutil.copytree(STAND_IN, root2)
    _edit(root2 / "agent" / "prompts.py", '"STAND-IN extraction request (en): list every triple as JSON."', "open('x').read()")
    with pytest.raises(HarnessError, match="TRIPLE_REQUEST_PROMPT_EN: expected a string literal"):
        load_prompts(root2)


def test_simulator_template_fields_are_checked(tmp_path):
    root = _copy(tmp_path)
    _edit(root / "agent" / "prompts.py", "{initial_query}", "{initial_query.__class__}")
    with pytest.raises(HarnessError, match="USER_SIMULATOR_SYSTEM_PROMPT: unexpected field"):
        load_prompts(root)


def test_changed_layout_constants_are_noted(tmp_path):
    root = _copy(tmp_path)
    _edit(root / "eval" / "evaluator.py", "NUM_EVAL_BATCHES = 5", "NUM_EVAL_BATCHES = 8")
    assert load_prompts(root).notes == ("eval/evaluator.py sets NUM_EVAL_BATCHES = 8; the official profile uses 5",)


def test_not_a_checkout(tmp_path):
    with pytest.raises(HarnessError, match="not a folder"):
        load_prompts(tmp_path / "nowhere")
    with pytest.raises(HarnessError, match="agent/prompts.py: file not found"):
        load_prompts(tmp_path)


def test_own_prompts_have_the_same_structure():
    prompts = own_prompts()
    assert prompts.source.kind == "own" and prompts.source.label() == "own prompts"
    assert prompts.agent_system_prompt("en") != prompts.agent_system_prompt("zh")
    assert "先查再问" in prompts.agent_system_prompt("zh") and "search first, then ask" in prompts.agent_system_prompt("en")
    for lang in ("en", "zh"):
        assert '"head"' in prompts.extraction_prompt(lang)
    assert prompts.judge.slots() == JUDGE_SLOTS
    text = prompts.judge.render(pred_lines="P-0: a", gt_lines="GT-5: b", first_index=5, count=2)
    assert "GT-5 to GT-6" in text and '{"index": 5,' in text and '{"index": 6, "covered": false' in text
    sim = prompts.simulator_system_prompt("persona text", "the goal")
    assert "persona text" in sim and "the goal" in sim and "[DONE]" in sim


def test_cli_value_wins_over_the_setting(tmp_path):
    settings = Settings(official_harness=tmp_path / "from-env")
    assert resolve_harness(None, settings) == tmp_path / "from-env"
    assert resolve_harness(str(tmp_path / "cli"), settings) == tmp_path / "cli"
    assert resolve_harness(None, Settings()) is None


def test_setting_reads_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("VIBESEARCH_OFFICIAL_HARNESS", str(tmp_path))
    assert Settings().official_harness == tmp_path


def test_compaction_prompts_are_checked(tmp_path, marker):
    root = _copy(tmp_path)
    _edit(root / "agent" / "general_agent.py", "{conversation}", "{conversation.__class__}")
    with pytest.raises(HarnessError, match="COMPACT_PROMPT: unexpected field"):
        load_prompts(root)
    _edit(root / "agent" / "general_agent.py", "{conversation.__class__}", "(nothing)")
    with pytest.raises(HarnessError, match=r"COMPACT_PROMPT: the template lacks \{conversation\}"):
        load_prompts(root)
    _edit(root / "agent" / "general_agent.py", "(nothing)", "{conversation}")
    _edit(root / "agent" / "general_agent.py", "{summary}", "{summary.upper()}")
    with pytest.raises(HarnessError, match=r"_compact_context.summary_msg\['content'\]: unexpected field \{summary.upper\(\)\}"):
        load_prompts(root)
    _edit(root / "agent" / "general_agent.py", "{summary.upper()}", "(gone)")
    with pytest.raises(HarnessError, match="the summary message never shows the summary"):
        load_prompts(root)
    _edit(root / "agent" / "general_agent.py", '"STAND-IN: go on."', "question")
    with pytest.raises(HarnessError, match="no such append of a literal message"):
        load_prompts(root)
    _edit(root / "agent" / "general_agent.py", "COMPACT_SYSTEM =", "SOMETHING_ELSE =")
    with pytest.raises(HarnessError) as err:
        load_prompts(root)
    assert "agent/general_agent.py" in str(err.value) and "COMPACT_SYSTEM" in str(err.value)
    assert not marker.exists()
