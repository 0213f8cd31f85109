"""What every user implementation needs to know about the stages, and the text tests on replies.

* ``stage_card`` — the current stage and the next one's trigger, line and fallback (the simulator
  prompt, the human's screen and the terminal play show the same card);
* cue matching for the rule-based simulator (``cues_for``, ``trigger_fires``), questions to the
  user (``questions``), fuzzy line matching (``line_similarity``);
* canned user messages built from a stage's fallback (``push_message``, ``perfunctory_prefix``).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from rapidfuzz import fuzz

from ..run.protocols import UserState
from ..tasks.models import Stage, Task

DONE_SIGNAL = "[DONE]"


# --------------------------------------------------------------------------- the stage card
@dataclass
class StageCard:
    stage_index: int
    stage_name: str
    stage_line: str
    stages_total: int
    next_index: int | None = None
    next_name: str | None = None
    trigger_kind: str | None = None
    trigger_condition: str | None = None
    next_line: str | None = None
    fallback: str | None = None
    user_turns: int = 0

    @property
    def all_disclosed(self) -> bool:
        return self.next_index is None

    def to_dict(self) -> dict:
        return asdict(self)


def stage_card(task: Task, state: UserState) -> StageCard:
    stages = task.persona.stages
    cur = stages[min(state.stage_index, len(stages) - 1)]
    card = StageCard(
        stage_index=state.stage_index,
        stage_name=cur.name,
        stage_line=cur.line,
        stages_total=len(stages),
        user_turns=state.user_turns,
    )
    nxt = state.next_stage_index
    if nxt is not None:
        stage = stages[nxt]
        card.next_index = nxt
        card.next_name = stage.name
        card.trigger_kind = stage.trigger.kind
        card.trigger_condition = stage.trigger.condition
        card.next_line = stage.line
        card.fallback = stage.fallback
    return card


# --------------------------------------------------------------------------- sentences and questions
_SENTENCE_END = re.compile(r"(?<=[.!?。！？\n])\s*")
_QUESTION_PHRASES_EN = (
    "would you like",
    "do you want",
    "would you want",
    "shall i",
    "should i",
    "want me to",
    "are you interested",
    "interested in hearing",
    "let me know if",
    "tell me if",
    "do you prefer",
    "would it help",
    "which would you",
)
_QUESTION_PHRASES_ZH = ("要不要", "想不想", "是否想", "是否需要", "需要我", "您想", "你想", "感兴趣", "要我", "可以告诉我")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text or "") if s.strip()]


def is_question(sentence: str) -> bool:
    s = sentence.strip()
    if s.endswith(("?", "？")):
        return True
    low = s.lower()
    return any(p in low for p in _QUESTION_PHRASES_EN) or any(p in s for p in _QUESTION_PHRASES_ZH)


def questions(text: str) -> list[str]:
    """The sentences of a reply that ask the user something."""
    return [s for s in sentences(text) if is_question(s)]


# --------------------------------------------------------------------------- cues
_QUOTED = re.compile(r"[\"“”「『《']([^\"“”「」『』《》']{2,60})[\"”」』》']")
_CAPITALISED = re.compile(r"\b([A-Z][\w'’\-]+(?:\s+(?:of|the|de|von|van|and|l'|la|le)?\s*[A-Z][\w'’\-]+)*)")
_ZH_EXAMPLES = re.compile(r"[（(](?:如|例如|比如|e\.g\.,?)\s*([^）)]+)[）)]")
_STOP_CAPS = {
    "The", "A", "An", "Assistant", "User", "If", "When", "Whether", "This", "That", "It", "He", "She",
    "They", "I", "In", "On", "For", "And", "Or", "But", "With", "Its", "Their", "His", "Her", "At",
}


def derive_cues(condition: str) -> list[str]:
    """Cues from a trigger condition: quoted phrases, capitalised names, Chinese examples."""
    cues: list[str] = []
    for m in _QUOTED.finditer(condition):
        cues.append(m.group(1).strip())
    for m in _ZH_EXAMPLES.finditer(condition):
        cues.extend(p.strip() for p in re.split(r"[、,，/或]", m.group(1)) if p.strip())
    for m in _CAPITALISED.finditer(condition):
        words = m.group(1).split()
        while words and words[0] in _STOP_CAPS:
            words = words[1:]
        phrase = " ".join(words).strip()
        if len(phrase) >= 3 and phrase not in _STOP_CAPS:
            cues.append(phrase)
    seen: set[str] = set()
    out = []
    for c in cues:
        key = c.lower()
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def cues_for(stage: Stage) -> list[str]:
    return list(stage.cues) if stage.cues else derive_cues(stage.trigger.condition)


def contains_cue(text: str, cues: list[str]) -> str | None:
    low = (text or "").lower()
    for cue in cues:
        if cue and cue.lower() in low:
            return cue
    return None


_WORD = re.compile(r"[A-Za-z][A-Za-z\-]{4,}")
_COMMON = {
    "assistant", "about", "their", "which", "whether", "would", "should", "there", "these", "those",
    "other", "asks", "mentions", "explains", "gives", "names", "previous", "question", "questions",
    "answered", "answer", "user", "wants", "particular", "including", "whole", "first",
}


def trigger_fires(stage: Stage, reply: str) -> tuple[bool, str]:
    """The rule-based trigger test: is the stage's trigger met by the agent's ``reply``?

    Returns ``(fired, why)``. For ``asks`` stages the cue has to be inside a question to the user.
    """
    cues = cues_for(stage)
    kind = stage.trigger.kind
    if cues:
        if kind == "asks":
            for q in questions(reply):
                cue = contains_cue(q, cues)
                if cue:
                    return True, f"the agent asked about {cue!r}"
            return False, "no question to the user mentions a cue of this stage"
        cue = contains_cue(reply, cues)
        return (True, f"the reply mentions {cue!r}") if cue else (False, "the reply mentions none of the stage's cues")
    # no cues at all: fall back on the condition's content words
    if kind == "asks":
        qs = questions(reply)
        return (bool(qs), "the agent asked the user a question" if qs else "the agent asked nothing")
    words = {w.lower() for w in _WORD.findall(stage.trigger.condition)} - _COMMON
    if not words:
        return bool(reply.strip()), "no cues: any reply counts"
    low = reply.lower()
    hits = [w for w in words if w in low]
    need = min(2, len(words))
    return (len(hits) >= need, f"condition words found: {', '.join(sorted(hits)) or 'none'}")


def question_covered(task: Task, question: str) -> bool:
    """Does some stage (any of them) cover what this question asks about?"""
    return any(contains_cue(question, cues_for(s)) for s in task.persona.stages[1:])


# --------------------------------------------------------------------------- fuzzy line matching
# a reply at least this similar to a stage's line (``line_similarity``) is taken to say that line
LINE_MATCH = 80.0


def line_similarity(line: str, text: str) -> float:
    """How much of ``line`` appears in ``text`` (0..100), robust to ``text`` being longer."""
    a = " ".join((line or "").lower().split())
    b = " ".join((text or "").lower().split())
    if not a or not b:
        return 0.0
    if len(b) < 0.6 * len(a):
        return float(fuzz.ratio(a, b))
    return float(fuzz.partial_ratio(a, b))


# --------------------------------------------------------------------------- canned user messages
_EN_LEADS = [
    (re.compile(r"^asks again for\s+", re.I), "I'm still waiting for "),
    (re.compile(r"^asks again about\s+", re.I), "I'm still waiting to hear about "),
    (re.compile(r"^asks again\s+(?=(?:which|what|when|where|who|how|why|whether|if)\b)", re.I), "I'm asking again: "),
    (re.compile(r"^asks for\s+", re.I), "I'd like "),
    (re.compile(r"^asks about\s+", re.I), "Can you tell me about "),
    (re.compile(r"^asks\s+", re.I), "I'd like to know "),
    (re.compile(r"^pushes for\s+", re.I), "I still need "),
    (re.compile(r"^keeps (?:chatting|talking) about\s+", re.I), "Tell me more about "),
    (re.compile(r"^keeps discussing\s+", re.I), "Let's stay with "),
    (re.compile(r"^says\s+", re.I), ""),
    (re.compile(r"^urges\s+", re.I), "Please "),
]
_EN_INNER = [
    (re.compile(r"\basks again (about|for)\b", re.I), r"I'm asking again \1"),
    (re.compile(r"\basks (about|for)\b", re.I), r"I'd like to hear \1"),
    (re.compile(r"\bthe assistant's\b", re.I), "your"),
    (re.compile(r"\bthe assistant\b", re.I), "you"),
]
_EN_DROP = re.compile(r",?\s+without\b.*$", re.I)
_ZH_LEADS = [("继续追问", "我还想知道"), ("追问", "我还想知道"), ("继续聊", "我们再聊聊"), ("继续讨论", "我们再说说"), ("要求", "请"), ("催促", "请尽快")]

_GENERIC_PUSH = {
    "en": "That's not everything I need yet. Can you dig deeper and give me the specifics?",
    "zh": "还不够具体，能再深入查一查、把细节补全吗？",
}
_PUSH_OPENERS = {
    "en": ("", "Hmm, that doesn't fully cover it. ", "Let's not move on yet. "),
    "zh": ("", "嗯，这还不太完整。", "先别急着往下讲。"),
}
PERFUNCTORY = {"en": "I don't really mind either way. ", "zh": "这个我无所谓。"}
_END = {"en": ".!?…", "zh": "。！？!?…"}
_QUESTION_START = re.compile(r"^(?:can|could|would|will|do|does|did|is|are|was|were|which|what|when|where|who|how|why)\b", re.I)


def language_of(task: Task) -> str:
    return "zh" if task.language == "zh" else "en"


def _sentence_case(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] if text else text


def finish_sentence(text: str, lang: str = "en") -> str:
    """``text`` ending in exactly one mark: its own ``?``/``!``/``.`` kept, a full stop added
    (a question mark for an English question) when it has none, never "?." or ".."."""
    text = text.strip().rstrip(",;:，；：、 ")
    if not text:
        return text
    if lang == "zh":
        text = text.rstrip(".")
        return text if text[-1] in _END["zh"] else text + "。"
    while len(text) > 1 and text[-1] == "." and text[-2] in "!?.…":
        text = text[:-1]  # "year?." -> "year?"
    if text[-1] in _END["en"]:
        return text
    return text + ("?" if _QUESTION_START.match(text) else ".")


def push_body(task: Task, fallback: str | None) -> str:
    """The next stage's fallback worded as the user would say it (no opener)."""
    lang = language_of(task)
    if not fallback or not fallback.strip():
        return _GENERIC_PUSH[lang]
    text = fallback.strip()
    if lang == "en":
        for pat, repl in _EN_LEADS:
            if pat.search(text):
                text = pat.sub(repl, text, count=1)
                break
        for pat, repl in _EN_INNER:
            text = pat.sub(repl, text)
        text = _EN_DROP.sub("", text)
        return finish_sentence(_sentence_case(text), "en")
    for lead, repl in _ZH_LEADS:
        if text.startswith(lead):
            text = repl + text[len(lead):]
            break
    return finish_sentence(text, "zh")


def push_message(task: Task, fallback: str | None, turn: int = 0) -> str:
    """A push built from the next stage's fallback (worded as the user would say it); ``turn``
    varies the opening words from one push to the next."""
    openers = _PUSH_OPENERS[language_of(task)]
    return openers[turn % len(openers)] + push_body(task, fallback)


def perfunctory_prefix(task: Task) -> str:
    return PERFUNCTORY[language_of(task)]


def perfunctory_message(task: Task, fallback: str | None) -> str:
    """A brush-off of a question no stage covers, then the push (one clean sentence each)."""
    return perfunctory_prefix(task) + push_body(task, fallback)


_MD = [
    (re.compile(r"^\s{0,3}#{1,6}\s*", re.M), ""),
    (re.compile(r"\*\*(.+?)\*\*"), r"\1"),
    (re.compile(r"__(.+?)__"), r"\1"),
    (re.compile(r"^\s*[-*+]\s+", re.M), ""),
    (re.compile(r"`([^`]*)`"), r"\1"),
]
_SPEAKER = re.compile(r"^\s*(user|me|the user|用户)\s*[:：]\s*", re.I)


def plain_reply(text: str) -> str:
    """The user's message without Markdown or a speaker label."""
    out = _SPEAKER.sub("", (text or "").strip())
    for pat, repl in _MD:
        out = pat.sub(repl, out)
    return out.strip()
