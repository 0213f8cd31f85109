"""Where the official profile's prompts come from: a user's checkout of the official harness, or
our own texts written to the same structure.

    prompts = load_prompts(resolve_harness(cli_value, settings))
    prompts.agent_system_prompt("zh"); prompts.extraction_prompt("en")
    prompts.simulator_system_prompt(persona_markdown, initial_query)
    prompts.judge.render(pred_lines=..., gt_lines=..., first_index=0, count=12)
    prompts.source.label()   # what every report says about the prompts it used

With a checkout (``--official-harness PATH`` or ``VIBESEARCH_OFFICIAL_HARNESS``) the strings are
read from ``agent/prompts.py``, the compaction prompts and the tool schemas (``TOOLS_CUSTOM``) from
``agent/general_agent.py``, the page extractor's prompt from ``agent/toolkit.py`` and the judge
template from ``eval/evaluator.py`` by parsing the files (``ast``); they are never imported or
executed. Every expected name must be there: a missing one is an error naming the file and the
name. The files' sha256 are kept with the prompts so a run records exactly which text it used. Without a checkout the prompts are our own (source "own").
"""

from __future__ import annotations

import copy
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..config import Settings
from . import _own_prompts as own
from ._harness_ast import (
    HarnessError,
    Piece,
    Slot,
    appended_text,
    function_template,
    method_dict_template,
    module_int,
    module_literal,
    module_string,
    parse_file,
)
from .rules import JUDGE_ATTEMPTS, JUDGE_MAX_BATCHES

PROMPTS_FILE = "agent/prompts.py"
AGENT_FILE = "agent/general_agent.py"
TOOLKIT_FILE = "agent/toolkit.py"
EVALUATOR_FILE = "eval/evaluator.py"
OPENCLAW_FILE = "agent/openclaw_agent.py"
OPENCLAW_NUDGE_NAME = "NUDGE_MESSAGE"  # the fixed nudge of the OpenClaw driver

# agent/prompts.py: the simulated mode's prompts (agent, extraction request, user simulator)
AGENT_PROMPT_NAMES = {"en": "RESEARCH_SYSTEM_PROMPT_EN", "zh": "RESEARCH_SYSTEM_PROMPT_ZH"}
EXTRACTION_PROMPT_NAMES = {"en": "TRIPLE_REQUEST_PROMPT_EN", "zh": "TRIPLE_REQUEST_PROMPT_ZH"}
SIMULATOR_PROMPT_NAME = "USER_SIMULATOR_SYSTEM_PROMPT"
SIMULATOR_FIELDS = frozenset({"user_persona", "initial_query"})
# agent/general_agent.py: the compaction call's system prompt and request (one field: the transcript)
COMPACT_SYSTEM_NAME, COMPACT_PROMPT_NAME = "COMPACT_SYSTEM", "COMPACT_PROMPT"
COMPACT_FIELDS = frozenset({"conversation"})
# the method that rebuilds the context around the summary (its lead-in and the request to go on)
COMPACT_METHOD = "_compact_context"
# agent/general_agent.py: the tools the agent is offered (a list literal of function schemas), and
# the arguments our implementation of each one reads (each must be among its parameters)
TOOLS_NAME = "TOOLS_CUSTOM"
TOOL_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "search": ("query",),
    "visit": ("url", "goal"),
    "scholar_search": ("query",),
    "python": ("code",),
}
# agent/toolkit.py: what the summariser of ``visit`` is asked (the page text and the goal)
EXTRACTOR_NAME = "EXTRACTOR_PROMPT"
EXTRACTOR_FIELDS = frozenset({"webpage_content", "goal"})
# eval/evaluator.py: the judge prompt is built inside this function, in this variable
JUDGE_FUNCTION, JUDGE_VARIABLE = "_run_gt_coverage_batch", "prompt"
LAYOUT_CONSTANTS = {"NUM_EVAL_BATCHES": JUDGE_MAX_BATCHES, "_COUNT_RETRIES": JUDGE_ATTEMPTS}
# the judge template's fields in the official source, and the slot each one fills
JUDGE_FIELDS = {
    "pred_ctx": "pred_lines",
    "claims_text": "gt_lines",
    "len(batch)": "batch_count",
    "first_idx": "first_index",
    "last_idx": "last_index",
    "str(first_idx)": "first_index",
    "str(first_idx + 1)": "second_index",
    "str(last_idx)": "last_index",
}
JUDGE_SLOTS = frozenset(JUDGE_FIELDS.values())
REQUIRED_JUDGE_SLOTS = frozenset({"pred_lines", "gt_lines"})

Language = Literal["en", "zh"]


@dataclass(frozen=True)
class JudgeTemplate:
    """The judge prompt for one batch: literal text with slots for the numbered triples."""

    pieces: tuple[Piece, ...]

    def slots(self) -> set[str]:
        return {p.name for p in self.pieces if isinstance(p, Slot)}

    def render(self, *, pred_lines: str, gt_lines: str, first_index: int, count: int) -> str:
        values = {
            "pred_lines": pred_lines,
            "gt_lines": gt_lines,
            "batch_count": str(count),
            "first_index": str(first_index),
            "second_index": str(first_index + 1),
            "last_index": str(first_index + count - 1),
        }
        return "".join(p if isinstance(p, str) else values[p.name] for p in self.pieces)


@dataclass(frozen=True)
class PromptSource:
    kind: Literal["official", "own"]
    root: str | None = None
    files: dict[str, str] = field(default_factory=dict)  # path in the checkout -> sha256

    def label(self) -> str:
        if self.kind == "own":
            return "own prompts"
        hashes = ", ".join(f"{name} sha256 {digest[:12]}" for name, digest in sorted(self.files.items()))
        return f"official prompts ({hashes})"

    def announced(self) -> str:
        """What the command line says about the prompts its runs will use."""
        return self.label() if self.kind == "official" else "own prompts (no --official-harness given)"

    def record(self) -> dict[str, object]:
        """What a run stores about its prompts."""
        return {"kind": self.kind, "root": self.root, "files": dict(self.files)}


@dataclass(frozen=True)
class CompactionPrompts:
    """The official compaction call (a system prompt and a request with one ``{conversation}``),
    and the words of the context it leaves: the summary's lead-in and the request to go on."""

    system: str
    template: str
    summary_lead: tuple[Piece, ...] = ()  # literal text and the ``summary`` slot
    go_on: str = ""

    def request(self, conversation: str) -> str:
        return _fill(self.template, {"conversation": conversation})


@dataclass(frozen=True)
class PromptSet:
    source: PromptSource
    agent: dict[str, str]
    extraction: dict[str, str]
    simulator: str
    judge: JudgeTemplate
    notes: tuple[str, ...] = ()
    compaction: CompactionPrompts | None = None  # None: our own compaction prompt
    # the official tools as the model sees them (OpenAI function schemas: search, visit,
    # scholar_search, python) and the ``visit`` extractor's request ({webpage_content}, {goal})
    tools: tuple[dict[str, Any], ...] = field(default_factory=lambda: tuple(own.tools()))
    extractor: str = own.EXTRACTOR

    @staticmethod
    def _lang(language: str) -> Language:
        return "zh" if language == "zh" else "en"  # the official harness falls back to English

    def agent_system_prompt(self, language: str) -> str:
        return self.agent[self._lang(language)]

    def extraction_prompt(self, language: str) -> str:
        return self.extraction[self._lang(language)]

    def simulator_system_prompt(self, user_persona: str, initial_query: str) -> str:
        """The simulator's system prompt; an empty persona reads as the official default does."""
        return _fill(self.simulator, {"user_persona": user_persona or "A curious researcher", "initial_query": initial_query})

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The tool schemas, as a copy a caller may change."""
        return copy.deepcopy(list(self.tools))

    def extractor_prompt(self, webpage_content: str, goal: str) -> str:
        """The extractor's request for one page (braces in the page or the goal stay as they are)."""
        return _fill(self.extractor, {"webpage_content": webpage_content, "goal": goal})


def _fill(template: str, values: dict[str, str]) -> str:
    """``template`` with its fields (checked at load: plain names only) replaced by ``values``;
    unlike ``str.format``, braces inside the values are left alone."""
    out = []
    for literal, name, _spec, _conv in string.Formatter().parse(template):
        out.append(literal)
        if name is not None:
            out.append(values[name])
    return "".join(out)


def resolve_harness(cli_value: str | Path | None, settings: Settings | None = None) -> Path | None:
    """The checkout to read: ``--official-harness`` wins over ``VIBESEARCH_OFFICIAL_HARNESS``."""
    if cli_value:
        return Path(cli_value).expanduser()
    if settings is not None and settings.official_harness is not None:
        return Path(settings.official_harness).expanduser()
    return None


def own_prompts() -> PromptSet:
    return PromptSet(
        source=PromptSource(kind="own"),
        agent={"en": own.RESEARCH_EN, "zh": own.RESEARCH_ZH},
        extraction={"en": own.EXTRACTION_EN, "zh": own.EXTRACTION_ZH},
        simulator=own.SIMULATOR,
        judge=JudgeTemplate(tuple(own.judge_pieces())),
        tools=tuple(own.tools()),
        extractor=own.EXTRACTOR,
    )


# the official context after a compaction, in our words (used when no checkout gives its own)
OWN_SUMMARY_LEAD: tuple[Piece, ...] = ("What my research has found so far, in summary:\n\n", Slot("summary"))
OWN_GO_ON = "Go on with the research from this summary."


def load_prompts(harness: Path | None) -> PromptSet:
    """The official prompts read from ``harness`` (a checkout), or our own when it is None."""
    if harness is None:
        return own_prompts()
    root = Path(harness)
    if not root.is_dir():
        raise HarnessError(root, "not a folder (expected a checkout of the official harness)")
    prompts_file = parse_file(root / PROMPTS_FILE)
    evaluator = parse_file(root / EVALUATOR_FILE)

    agent = {lang: module_string(prompts_file, name) for lang, name in AGENT_PROMPT_NAMES.items()}
    extraction = {lang: module_string(prompts_file, name) for lang, name in EXTRACTION_PROMPT_NAMES.items()}
    simulator = module_string(prompts_file, SIMULATOR_PROMPT_NAME)
    _check_fields(prompts_file.path, simulator, SIMULATOR_FIELDS, SIMULATOR_PROMPT_NAME)
    agent_file = parse_file(root / AGENT_FILE)
    compaction = CompactionPrompts(
        module_string(agent_file, COMPACT_SYSTEM_NAME),
        module_string(agent_file, COMPACT_PROMPT_NAME),
        tuple(method_dict_template(agent_file, COMPACT_METHOD, "summary_msg", "content", {"summary": "summary"})),
        appended_text(agent_file, COMPACT_METHOD, "api_msgs", "user"),
    )
    _check_fields(agent_file.path, compaction.template, COMPACT_FIELDS, COMPACT_PROMPT_NAME)
    if not any(isinstance(p, Slot) for p in compaction.summary_lead):
        raise HarnessError(agent_file.path, "the summary message never shows the summary", field=f"{COMPACT_METHOD}.summary_msg")
    tools = _check_tools(agent_file.path, module_literal(agent_file, TOOLS_NAME))
    toolkit = parse_file(root / TOOLKIT_FILE)
    extractor = module_string(toolkit, EXTRACTOR_NAME)
    _check_fields(toolkit.path, extractor, EXTRACTOR_FIELDS, EXTRACTOR_NAME)

    pieces = function_template(evaluator, JUDGE_FUNCTION, JUDGE_VARIABLE, JUDGE_FIELDS)
    judge = JudgeTemplate(tuple(pieces))
    missing = REQUIRED_JUDGE_SLOTS - judge.slots()
    if missing:
        raise HarnessError(evaluator.path, f"the template never shows {', '.join(sorted(missing))}", field=f"{JUDGE_FUNCTION}.{JUDGE_VARIABLE}")
    notes = []
    for name, ours in LAYOUT_CONSTANTS.items():
        theirs = module_int(evaluator, name)
        if theirs != ours:
            notes.append(f"{EVALUATOR_FILE} sets {name} = {theirs}; the official profile uses {ours}")
    return PromptSet(
        source=PromptSource(
            kind="official",
            root=str(root.resolve()),
            files={
                PROMPTS_FILE: prompts_file.sha256,
                AGENT_FILE: agent_file.sha256,
                TOOLKIT_FILE: toolkit.sha256,
                EVALUATOR_FILE: evaluator.sha256,
            },
        ),
        agent=agent,
        extraction=extraction,
        simulator=simulator,
        judge=judge,
        notes=tuple(notes),
        compaction=compaction,
        tools=tools,
        extractor=extractor,
    )


def _check_tools(path: Path, data: object) -> tuple[dict[str, Any], ...]:
    """``data`` is a list of function schemas naming each tool of ``TOOL_ARGUMENTS`` once, each with
    a description and object parameters that include the arguments we read."""
    if not isinstance(data, list):
        raise HarnessError(path, f"expected a list of tool schemas, found a {type(data).__name__}", field=TOOLS_NAME)
    seen: dict[str, dict[str, Any]] = {}
    for i, entry in enumerate(data):
        function = entry.get("function") if isinstance(entry, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        where = f"{TOOLS_NAME}[{i}]" + (f" ({name})" if isinstance(name, str) else "")
        if not isinstance(entry, dict) or entry.get("type") != "function" or not isinstance(function, dict):
            raise HarnessError(path, 'expected {"type": "function", "function": {...}}', field=where)
        if not isinstance(name, str) or name not in TOOL_ARGUMENTS:
            raise HarnessError(path, f"unexpected tool name {name!r} (expected: {', '.join(TOOL_ARGUMENTS)})", field=where)
        if name in seen:
            raise HarnessError(path, f"the tool {name} is listed twice", field=where)
        if not isinstance(function.get("description"), str):
            raise HarnessError(path, "the tool has no description text", field=where)
        params = function.get("parameters")
        props = params.get("properties") if isinstance(params, dict) else None
        if not isinstance(params, dict) or params.get("type") != "object" or not isinstance(props, dict):
            raise HarnessError(path, 'expected parameters {"type": "object", "properties": {...}}', field=where)
        lacking = [arg for arg in TOOL_ARGUMENTS[name] if not isinstance(props.get(arg), dict)]
        if lacking:
            raise HarnessError(path, f"the parameters lack {', '.join(lacking)}", field=where)
        seen[name] = entry
    missing = [name for name in TOOL_ARGUMENTS if name not in seen]
    if missing:
        raise HarnessError(path, f"no schema for the tool(s) {', '.join(missing)}", field=TOOLS_NAME)
    return tuple(data)


def _check_fields(path: Path, template: str, allowed: frozenset[str], name: str) -> None:
    """``template`` uses exactly the fields ``allowed``, each a plain name (no attribute, index,
    format spec or conversion: nothing in a checkout can make filling it run code)."""
    try:
        fields = [(f, spec, conv) for _lit, f, spec, conv in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise HarnessError(path, f"not a valid format template: {exc}", field=name) from None
    names = {f for f, _spec, _conv in fields}
    odd = [f for f, spec, conv in fields if f not in allowed or spec or conv]
    if odd:
        raise HarnessError(path, f"unexpected field {{{odd[0]}}} (allowed: {', '.join(sorted(allowed))})", field=name)
    if names != allowed:
        missing = ", ".join(sorted(allowed - names))
        raise HarnessError(path, f"the template lacks {{{missing}}}", field=name)


def load_openclaw_nudge(harness: Path | None) -> tuple[str, str]:
    """The nudge the OpenClaw driver sends to an idle OpenClaw, and where it came from: the
    checkout's ``NUDGE_MESSAGE`` (``agent/openclaw_agent.py``, parsed, never run), else ours."""
    if harness is None:
        return own.OPENCLAW_NUDGE, "own"
    parsed = parse_file(Path(harness) / OPENCLAW_FILE)
    return module_string(parsed, OPENCLAW_NUDGE_NAME), f"{OPENCLAW_FILE} sha256 {parsed.sha256[:12]}"
