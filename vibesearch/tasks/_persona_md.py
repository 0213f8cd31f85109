"""Reading and writing the persona markdown of the official task format.

The official ``user_persona`` text has three top-level sections (identity, staged disclosure,
behaviour) and one level-3 heading per stage, each followed by three labelled bullets (trigger
condition, line, what to do when the trigger is not met). Real files vary in small ways, so the
reader accepts English or Chinese headings and labels, bold or plain labels, ASCII or full-width
colons, an optional ``> `` before the line, continuation lines, and a wrapping ```` ```markdown ````
fence. It never guesses trigger kinds; that is ``official.infer_trigger_kind``'s job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FENCE_OPEN = re.compile(r"^\s*(`{3,}|~{3,})\s*(markdown|md)?\s*$", re.IGNORECASE)
_HEADING = re.compile(r"^\s*(#{1,6})\s*(.*?)\s*#*\s*$")
# "Stage 3: title", "Stage 3 - title", "阶段3：标题", "阶段 3: 标题", "第3阶段：标题"
_STAGE_HEADING = re.compile(
    r"^(?:\*\*)?\s*(?:stage|阶段|第)\s*(\d+)\s*(?:阶段)?\s*(?:\*\*)?\s*[:：.、\-–—]?\s*(.*?)\s*(?:\*\*)?$",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*[-*+•]\s+(.*)$")
_LABEL = re.compile(r"^(?:\*\*|__)?\s*([^:：*_]{1,40}?)\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.*)$", re.DOTALL)

_SECTION_WORDS = {
    "identity": ("core identity", "identity", "核心身份", "身份"),
    "stages": ("staged information disclosure", "information disclosure", "staged", "disclosure", "分阶段信息披露", "分阶段", "信息披露", "披露"),
    "behavior": ("behaviour instructions", "behavior instructions", "behaviour", "behavior", "instructions", "行为指令", "行为", "指令"),
}
_LABEL_WORDS = {
    "trigger": ("trigger condition", "trigger", "condition", "触发条件", "触发"),
    "line": ("line", "lines", "dialogue", "script", "utterance", "say", "台词", "话术", "说"),
    "fallback": ("when not met", "if not met", "not met", "fallback", "otherwise", "未满足时", "未满足", "不满足时", "未触发时", "否则"),
}
# "Not applicable (triggered at conversation start)", "N/A", "不适用（对话开始即触发）", "无"
_NOT_APPLICABLE = re.compile(r"^\s*(not applicable|n/?a|none|不适用|无)\s*($|[(（.。,，:：;；\-—])", re.IGNORECASE)
_QUOTES = [('"', '"'), ("“", "”"), ("「", "」"), ("『", "』"), ("'", "'")]

SECTION_TITLES = {
    "en": ("Core Identity", "Staged Information Disclosure", "Behaviour Instructions"),
    "zh": ("核心身份", "分阶段信息披露", "行为指令"),
}
LABELS = {
    "en": ("Trigger condition", "Line", "When not met"),
    "zh": ("触发条件", "台词", "未满足时"),
}


@dataclass
class ParsedStage:
    number: int  # as written in the heading
    title: str
    trigger: str | None = None
    line: str | None = None
    fallback: str | None = None
    unknown_labels: list[str] = field(default_factory=list)


@dataclass
class ParsedPersona:
    identity: str = ""
    behavior: str = ""
    stages: list[ParsedStage] = field(default_factory=list)
    has_stage_section: bool = False
    preamble: str = ""  # text before the first heading


def strip_fence(text: str) -> str:
    """Remove a fence wrapping the whole text (```markdown ... ```), if any."""
    lines = text.strip().splitlines()
    if len(lines) >= 2 and _FENCE_OPEN.match(lines[0]) and lines[-1].strip().startswith(lines[0].strip()[:3]):
        return "\n".join(lines[1:-1])
    return text


def _section_of(title: str) -> str | None:
    low = title.lower().strip(" *_")
    for name, words in _SECTION_WORDS.items():
        if any(w in low for w in words):
            return name
    return None


# Checked in this order: "if the trigger is not met" is a fallback label, not a trigger label.
_LABEL_HINTS = (("fallback", ("not met", "fallback", "otherwise", "未满足", "不满足", "未触发")),
                ("trigger", ("trigger", "condition", "触发")),
                ("line", ("line", "台词", "话术")))


def _label_of(label: str) -> str | None:
    low = label.lower().strip()
    for name, words in _LABEL_WORDS.items():
        if low in words:
            return name
    for name, words in _LABEL_HINTS:
        if any(w in low for w in words):
            return name
    return None


def clean_line(text: str) -> str:
    """A stage line without blockquote markers and enclosing quotes."""
    parts = [re.sub(r"^\s*>\s?", "", part) for part in text.splitlines()]
    out = " ".join(p.strip() for p in parts if p.strip()).strip()
    for left, right in _QUOTES:
        inner = out[1:-1]
        if len(out) >= 2 and out.startswith(left) and out.endswith(right) and left not in inner and right not in inner:
            return inner.strip()
    return out


def clean_fallback(text: str) -> str | None:
    out = " ".join(p.strip() for p in text.splitlines() if p.strip()).strip()
    return out or None


def is_not_applicable(text: str | None) -> bool:
    return bool(text and _NOT_APPLICABLE.match(text))


def parse_persona_markdown(text: str) -> ParsedPersona:
    """Split persona markdown into identity, stages and behaviour (no validation)."""
    body = strip_fence(text)
    result = ParsedPersona()
    section: str | None = None
    stage: ParsedStage | None = None
    current_label: str | None = None
    buffers: dict[str, list[str]] = {"identity": [], "behavior": [], "preamble": []}
    stage_buffer: list[str] = []

    def flush_label() -> None:
        nonlocal current_label
        if stage is not None and current_label is not None:
            value = "\n".join(stage_buffer).strip()
            if current_label in ("trigger", "line", "fallback"):
                setattr(stage, current_label, value)
        stage_buffer.clear()
        current_label = None

    for raw in body.splitlines():
        if _FENCE_OPEN.match(raw):
            continue  # a fence that does not wrap the whole text (e.g. after a sentence)
        heading = _HEADING.match(raw)
        if heading:
            title = heading.group(2)
            staged = _STAGE_HEADING.match(title)
            if staged and (section == "stages" or len(heading.group(1)) >= 2):
                flush_label()
                result.has_stage_section = True
                section = "stages"
                stage = ParsedStage(number=int(staged.group(1)), title=staged.group(2).strip())
                result.stages.append(stage)
                continue
            name = _section_of(title) if len(heading.group(1)) <= 2 else None
            if name is not None:
                flush_label()
                stage = None
                section = name
                result.has_stage_section |= name == "stages"
                continue
        if section == "stages":
            if stage is None:
                continue  # text between the section heading and the first stage
            bullet = _BULLET.match(raw)
            labelled = _LABEL.match(bullet.group(1)) if bullet else None
            label = _label_of(labelled.group(1)) if labelled else None
            if bullet and label is None and labelled is not None and current_label != "line":
                stage.unknown_labels.append(labelled.group(1).strip())
            if label is not None and labelled is not None:
                flush_label()
                current_label = label
                stage_buffer.append(labelled.group(2))
            elif current_label is not None:
                stage_buffer.append(raw)
            continue
        buffers[section or "preamble"].append(raw)
    flush_label()
    result.identity = "\n".join(buffers["identity"]).strip()
    result.behavior = "\n".join(buffers["behavior"]).strip()
    result.preamble = "\n".join(buffers["preamble"]).strip()
    return result


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def render_persona_markdown(
    language: str,
    background: str,
    behavior: str,
    stages: list[tuple[str, str, str, str | None]],
) -> str:
    """Write persona markdown in the official layout.

    ``stages`` holds ``(title, condition, line, fallback)`` tuples, in order.
    """
    lang = "zh" if language == "zh" else "en"
    identity_title, stages_title, behavior_title = SECTION_TITLES[lang]
    trigger_label, line_label, fallback_label = LABELS[lang]
    colon = "：" if lang == "zh" else ": "
    out = [f"# {identity_title}", background.strip(), "", f"# {stages_title}", ""]
    for number, (title, condition, line, fallback) in enumerate(stages, start=1):
        heading = f"### 阶段{number}{colon}{_one_line(title)}" if lang == "zh" else f"### Stage {number}: {_one_line(title)}"
        if fallback is None:
            fallback = "不适用（对话开始即触发）" if (lang == "zh" and number == 1) else ("Not applicable" if number == 1 else "")
        out += [
            heading,
            f"- **{trigger_label}**{colon}{_one_line(condition)}",
            f"- **{line_label}**{colon}> {_one_line(line)}",
        ]
        if fallback:
            out.append(f"- **{fallback_label}**{colon}{_one_line(fallback)}")
        out.append("")
    out += [f"# {behavior_title}", behavior.strip(), ""]
    return "\n".join(out)
