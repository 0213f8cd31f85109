"""Stored events → what the app shows: chat messages, the stage stepper, the persona card.

Play (live) and Runs (replay) call the same functions on the same event list, so a run looks
identical while it happens and afterwards. Only plain data goes in; nothing here reads the
database.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any, Iterable, Literal, Sequence

import gradio as gr
from gradio.components.chatbot import MetadataDict

from ..run.events import (
    CompactionEvent,
    EndEvent,
    ErrorEvent,
    GraphEvent,
    MessageEvent,
    NoteEvent,
    StageEvent,
    StoredEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from ..run.transcript import Decided, StepView, ToolCall, Transcript, is_user_turn
from ..tasks.models import Task
from ..users import reply_kind_help
from ._words import DECISION_WORDS, KIND_MEANING_ZH, Lang, lang_of, status_word, trigger_word, words

TOOL_RESULT_CHARS = 4000  # what a tool-call bubble shows of its result
ARG_CHARS = 140  # what a tool-call title shows of its arguments

# symbols every common font has (no colour emoji: they render as boxes without an emoji font)
_KIND_ICON = {"disclose": "✓", "push": "➜", "perfunctory": "≈", "redirect": "↪", "done": "■", "open": "»"}


def _esc(text: Any) -> str:
    return html.escape(str(text if text is not None else ""))


# a fenced code block (drawn as code by Markdown, so nothing in it is HTML) is left as it is, but
# only one that every Markdown reader takes for code: its opening fence at the start of a line
# (indented, it may belong to a list item, which an unindented line ends, with the "code"), its
# closing fence the first line any reader closes it with. Inline code is not skipped: a
# mismatched backtick run would leave its "code" to be drawn as HTML. An unclosed fence: no code.
_FENCE_OPEN = re.compile(r"(`{3,})(?=[^`]*$)|(~{3,})")
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")


def _fenced_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) of each fenced code block of ``text`` (see above), the fences included."""
    blocks: list[tuple[int, int]] = []
    opened: tuple[str, int] | None = None
    pos = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if opened is None:
            m = _FENCE_OPEN.match(body)
            if m:
                opened = (m.group(0), pos)
        else:
            fence, start = opened
            if re.fullmatch(r" {0,3}" + re.escape(fence) + r"[`~]*[ \t]*", body):
                blocks.append((start, pos + len(body)))
                opened = None
        pos += len(line)
    return blocks


def inert(text: str) -> str:
    """Untrusted text (a task's, an agent's, a page's, a study's consent) as Markdown that draws
    no HTML and loads nothing: outside code, a ``<`` that would open a tag (``<img>``) is shown as
    the character, and an image (``![alt](url)``) becomes a plain link to it, so no form, button
    or remote picture appears. Every piece of untrusted Markdown goes through here (a bubble's
    title too: ``md_line``)."""
    out: list[str] = []
    last = 0
    for start, end in _fenced_blocks(text):
        out.append(_inert_prose(text[last:start]))
        out.append(text[start:end])  # code is shown as code: nothing in it is drawn
        last = end
    out.append(_inert_prose(text[last:]))
    return "".join(out)


def md_line(text: Any) -> str:
    """Untrusted text in a one-line Markdown title (a stage's name, a tool call's arguments):
    line breaks become spaces (so nothing in it is code) and it is made ``inert``."""
    return inert(" ".join(str(text if text is not None else "").split()))


def _inert_prose(text: str) -> str:
    return _TAG_START.sub("&lt;", text).replace("![", "[🖼 ")


_MD_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")


def plain_md(text: Any) -> str:
    """Untrusted text put into a Markdown line (a task's title in a header, a model's name) shown
    as the characters it is: no HTML, no emphasis, no link and no image; line breaks become spaces.
    ":" and "@" are written as character references, so no address is turned into a link."""
    flat = " ".join(str(text if text is not None else "").split())
    marked = _MD_PUNCT.sub(r"\\\1", html.escape(flat, quote=False))
    return marked.replace(":", "&#58;").replace("@", "&#64;")


def _short(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def call_title(call: ToolCallEvent) -> str:
    """``search(query="…", topn=5)`` — the title of a tool-call bubble."""
    if call.raw_arguments is not None and not call.arguments:
        args = call.raw_arguments
    else:
        args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in call.arguments.items())
    return md_line(f"⚙ {call.tool}({_short(args, ARG_CHARS)})")


def _clip(text: str, limit: int = TOOL_RESULT_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n\n[… {len(text) - limit} more characters in the stored event]"


# --------------------------------------------------------------------------- the chat
def chat_messages(events: Iterable[StoredEvent], task: Task | None = None, *, anchors: str | None = None) -> list[gr.ChatMessage]:
    """The run as a chat, read from its ``Transcript`` view: user and agent messages, each tool
    call a collapsible bubble.

    A tool call is ``pending`` until its result event arrives, then ``done`` with the result as
    its body. Stage decisions, compactions, errors, the extracted graph and the end of the run
    appear as small collapsible notes in the flow. ``anchors``: an id prefix; each user turn's
    message (#User, counted from 1 as the funnel counts them) then starts with an empty element
    ``<anchors>-<n>`` that a link can scroll to (the Runs tab's per-triple funnel).
    """
    out: list[gr.ChatMessage] = []
    stages = task.persona.stages if task is not None else []
    lang = lang_of(task)
    turn = 0
    for part in Transcript.of(events).parts():
        if isinstance(part, (MessageEvent, StepView)):
            message = part if isinstance(part, MessageEvent) else part.message
            mark = ""
            if anchors is not None and is_user_turn(message):
                turn += 1
                mark = f"<span class='vs-turn-anchor' id='{_esc(anchors)}-{turn}'></span>"
            _add_message(out, message, mark)
        elif isinstance(part, ToolCall):
            out.append(call_bubble(part))
        elif isinstance(part, ToolResultEvent):  # a result without its call (imported runs): shown on its own
            out.append(gr.ChatMessage(role="assistant", content=_result_body(part), metadata={"title": f"⚙ {part.tool}", "status": "done"}))
        elif isinstance(part, Decided):
            note = stage_note(part.event, stages)
            if note is not None:
                out.append(note)
        elif isinstance(part, CompactionEvent):
            out.append(
                gr.ChatMessage(
                    role="assistant",
                    content=inert(part.summary or "(no summary)"),
                    metadata={"title": f"⇲ Context compacted: {part.tokens_before:,} → {part.tokens_after:,} tokens", "status": "done"},
                )
            )
        elif isinstance(part, ErrorEvent):
            title = f"{'✖ Fatal error' if part.fatal else '⚠ Error'} ({part.source})"
            out.append(gr.ChatMessage(role="assistant", content=inert(part.message), metadata={"title": title, "status": "done"}))
        elif isinstance(part, GraphEvent):
            out.append(graph_note(part))
        elif isinstance(part, EndEvent):
            detail = f" — {part.detail}" if part.detail else ""
            out.append(
                gr.ChatMessage(
                    role="assistant",
                    content=words("run_ended", lang, end=status_word(part.termination, lang)) + _esc(detail),
                    metadata={"title": f"■ {words('run_ended_title', lang, end=status_word(part.termination, lang))}", "status": "done"},
                )
            )
        elif isinstance(part, NoteEvent) and part.text:
            out.append(gr.ChatMessage(role="assistant", content=inert(part.text), metadata={"title": "ℹ Note", "status": "done"}))
    return out


def _result_body(d: ToolResultEvent) -> str:
    return ("⚠ " if d.error else "") + inert(_clip(d.content or "(empty result)"))


def call_bubble(tc: ToolCall) -> gr.ChatMessage:
    """A tool call's bubble: ``pending`` ("running…") until its result is stored, then ``done``
    with the result as its body (and the call's duration)."""
    title = call_title(tc.call)
    meta: MetadataDict = {"title": title, "status": "pending", "id": f"call-{tc.call.call_id}"}
    d = tc.result
    if d is None:
        return gr.ChatMessage(role="assistant", content="running…", metadata=meta)
    meta["status"] = "done"
    if d.elapsed_s is not None:
        meta["duration"] = round(float(d.elapsed_s), 2)
    if d.error:
        meta["title"] = title + "  ⚠ error"
    return gr.ChatMessage(role="assistant", content=_result_body(d), metadata=meta)


def _add_message(out: list[gr.ChatMessage], d: MessageEvent, mark: str = "") -> None:
    """``mark``: HTML the app made (an anchor) put before the message's escaped text."""
    if d.phase == "extraction":
        title = "☰ Extraction instruction" if d.role == "user" else "◆ The agent's graph output"
        role: Literal["user", "assistant"] = "user" if d.role == "user" else "assistant"
        out.append(gr.ChatMessage(role=role, content=inert(unfence_tables(_clip(d.content, 6000))), metadata={"title": title, "status": "done"}))
        return
    if d.role == "system":
        return
    if d.role == "assistant" and d.thinking:
        out.append(gr.ChatMessage(role="assistant", content=inert(d.thinking), metadata={"title": "✎ Reasoning", "status": "done"}))
    if d.content or mark:
        out.append(gr.ChatMessage(role=d.role, content=mark + inert(unfence_tables(d.content))))


_FENCED = re.compile(r"^[ \t]*(```|~~~)[ \t]*(markdown|md)?[ \t]*\n(.*?)\n[ \t]*\1[ \t]*$", re.S | re.M | re.I)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _is_table(body: str) -> bool:
    """The block is a Markdown table: every line a ``|`` row, the second a header rule."""
    lines = [ln for ln in body.strip().splitlines() if ln.strip()]
    return len(lines) >= 2 and all("|" in ln for ln in lines) and bool(_TABLE_RULE.match(lines[1]))


def unfence_tables(text: str) -> str:
    """Drop the code fence around a Markdown table (agents are asked to wrap their answer table
    in a ```` ```markdown ```` block), so the chat draws it as a table; other code blocks stay."""
    return _FENCED.sub(lambda m: m.group(3).strip("\n") if _is_table(m.group(3)) else m.group(0), text)


def stage_note(d: StageEvent, stages: Sequence[Any] = ()) -> gr.ChatMessage | None:
    """The user's decision on a turn, as a collapsible note (the opening needs none)."""
    if d.reply_kind == "open" and not d.shadow:
        return None
    icon = _KIND_ICON.get(d.reply_kind, "•")
    total = len(stages)
    where = f" stage {d.stage_index + 1}/{total}" if total else f" stage {d.stage_index + 1}"
    name = f" “{md_line(d.stage_name)}”" if d.stage_name else ""
    met = {True: "trigger met", False: "trigger not met", None: "trigger not judged"}[d.trigger_met]
    if d.shadow:
        title = f"◐ The simulator (shadow) would have: {d.reply_kind} ({met})"
    elif d.advanced:
        title = f"{icon} Disclosed{where}{name} · by {d.decided_by}"
    else:
        title = f"{icon} {d.reply_kind.capitalize()} · at{where} · {met} · by {d.decided_by}"
    body = inert(d.rationale or met)
    return gr.ChatMessage(role="user", content=body, metadata={"title": title, "status": "done"})


def graph_note(d: GraphEvent) -> gr.ChatMessage:
    lines = [f"{t.get('head', '')} | {t.get('relation', '')} | {t.get('tail', '')}" for t in d.triples[:40]]
    more = f"\n… and {len(d.triples) - 40} more" if len(d.triples) > 40 else ""
    extra = []
    if d.repaired:
        extra.append("repaired: " + "; ".join(d.repaired[:5]))
    if d.dropped:
        extra.append(f"dropped {len(d.dropped)} malformed item(s)")
    tail = ("\n\n" + "\n".join(extra)) if extra else ""
    body = ("```\n" + "\n".join(lines) + more + "\n```" if lines else "(no triples)") + tail
    return gr.ChatMessage(role="assistant", content=inert(body), metadata={"title": f"◈ Extracted graph: {len(d.triples)} triples", "status": "done"})


# --------------------------------------------------------------------------- stages
def stage_pointer(events: Iterable[StoredEvent]) -> int:
    """The stage pointer after the last (non-shadow) stage event; 0 before any."""
    return Transcript.of(events).stage_index


def disclosure_turns(events: Iterable[StoredEvent]) -> dict[int, int]:
    """stage index → the user turn (1-based) on which it was disclosed."""
    return Transcript.of(events).disclosures()


def stepper_html(task: Task, events: Sequence[StoredEvent], *, running: bool = True) -> str:
    """✓ disclosed stages, ▶ the one waiting for its trigger (shown), ○ the ones after it (in the
    task's language: ``_words``)."""
    lang = lang_of(task)
    view = Transcript.of(events)
    pointer, turns = view.stage_index, view.disclosures()
    stages = task.persona.stages
    rows = []
    for i, st in enumerate(stages):
        if i <= pointer:
            mark, cls = "✓", "vs-done"
            detail = words("disclosed_on", lang, n=turns[i]) if i in turns else words("disclosed", lang)
        elif i == pointer + 1 and running:
            mark, cls = "▶", "vs-current"
            detail = f"{words('waiting_for', lang)}: <i>{_esc(trigger_word(st.trigger.kind, lang))}</i> — {_esc(st.trigger.condition)}"
        elif i == pointer + 1:
            mark, cls = "○", "vs-pending"
            detail = f"{words('not_reached', lang)}: <i>{_esc(trigger_word(st.trigger.kind, lang))}</i> — {_esc(st.trigger.condition)}"
        else:
            mark, cls, detail = "○", "vs-pending", _esc(trigger_word(st.trigger.kind, lang))
        rows.append(
            f'<li class="{cls}"><span class="vs-mark">{mark}</span> <b>{i + 1}. {_esc(st.name)}</b>'
            f'<div class="vs-detail">{detail}</div></li>'
        )
    head = f"<div class='vs-stepper-head'>{words('stages_head', lang, n=min(pointer + 1, len(stages)), total=len(stages))}</div>"
    return f"<div class='vs-stepper'>{head}<ol>{''.join(rows)}</ol></div>"


def _count(n: int, noun: str, lang: Lang = "en") -> str:
    """``1 stage``, ``3 stages`` (``11 个阶段`` in Chinese)."""
    if lang == "zh":
        return words("count_" + noun, lang, n=n)
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


TASK_MISSING_HTML = (
    "<div class='vs-task-missing' id='vs-task-missing'><b>The task is missing:</b> this run was imported without its task, so "
    "its stages and ground truth are unknown and it cannot be scored. Import the file again with its task: "
    "<code>vibesearch import TRAJECTORY.json --task TASK.json</code>.</div>"
)


def task_missing(task: Task) -> bool:
    """A task that is only a placeholder: no ground truth (not a table task), as an official
    trajectory imported without ``--task`` carries (its question and one stage)."""
    return task.kind != "table" and not task.graph


def persona_html(task: Task) -> str:
    """The persona card: title and opening query always shown, the rest folded (its words in the
    task's language: ``_words``)."""
    p = task.persona
    lang = lang_of(task)
    subset = words("subset", lang, name=task.subset) if task.subset else ""
    meta = " · ".join(x for x in (subset, task.language, task.domain) if x)
    kind = f" · {words('table_task', lang)}" if task.kind == "table" and task.domain != "table" else ""
    graph = "" if task.kind == "table" else f" · {_count(len(task.graph), 'ground-truth triple', lang)}"
    counts = f" · {_count(len(p.stages), 'stage', lang)}{graph}" if not task_missing(task) else ""
    return (
        "<div class='vs-card vs-persona'>"
        f"<div class='vs-card-title'>{_esc(task.title or task.id)}</div>"
        f"<div class='vs-muted'>{_esc(task.id)} · {_esc(meta)}{kind}{counts}</div>"
        + (TASK_MISSING_HTML if task_missing(task) else "")
        + f"<p><b>{words('opening_query', lang)}</b> {_esc(p.initial_query)}</p>"
        f"<details><summary>{words('who_the_user_is', lang)}</summary><p>{_esc(p.background)}</p>"
        + (f"<p><b>{words('behaviour', lang)}</b> {_esc(p.behavior)}</p>" if p.behavior else "")
        + "</details></div>"
    )


def human_card_html(task: Task, pointer: int, *, waiting: bool, user_turns: int = 0) -> str:
    """What the person playing the persona needs: the current stage and the next one's trigger
    (in the task's language: ``_words``)."""
    lang = lang_of(task)
    stages = task.persona.stages
    cur = stages[min(pointer, len(stages) - 1)]
    # whose turn it is is said once, by the line above the controls (``play.turn_html``) and the
    # status; the card only says when the agent is still working
    status = "" if waiting else f"<div class='vs-muted'>{words('agent_working', lang)}</div>"
    parts = [f"<div class='vs-card vs-human'>{status}",
             f"<p><b>{words('current_stage', lang, n=pointer + 1, total=len(stages))}</b> {_esc(cur.name)}</p>"]
    nxt = pointer + 1
    if nxt < len(stages):
        st = stages[nxt]
        parts += [
            f"<p><b>{words('next_stage', lang, n=nxt + 1)}</b> {_esc(st.name)}</p>",
            f"<p><b>{words('trigger', lang)}</b> (<i>{_esc(trigger_word(st.trigger.kind, lang))}</i>): {_esc(st.trigger.condition)}</p>",
            f"<p><b>{words('line', lang)}: {_esc(st.line)}</p>",
            f"<p><b>{words('fallback', lang)}: {_esc(st.fallback or '—')}</p>",
        ]
        if st.trigger.kind == "asks":
            parts.append(f"<p class='vs-muted'>{words('asks_only', lang)}</p>")
    else:
        parts.append(f"<p>{words('all_disclosed', lang)}</p>")
    shown = {st.line: words("the_line_above", lang), st.fallback: words("the_fallback_above", lang)} if nxt < len(stages) else {}
    parts.append(reply_kinds_html(task, pointer, user_turns, shown={k: v for k, v in shown.items() if k}))
    parts.append(f"<div class='vs-muted'>{words('user_turns', lang, n=user_turns)}</div></div>")
    return "".join(parts)


def reply_kinds_html(task: Task, pointer: int, user_turns: int = 0, *, shown: dict[str, str] | None = None) -> str:
    """One line per reply kind: what it does, and what is sent if the message box is left empty.
    ``shown``: texts the card already prints (the next stage's line and fallback) → how to point at
    them, so each is said once."""
    lang = lang_of(task)
    seen = shown or {}

    def sends(text: str) -> str:
        if text in seen:
            return _esc(seen[text])
        for said, name in seen.items():  # a push built around the fallback: name it, do not print it again
            if len(said) >= 12 and said in text:
                before, _, after = text.partition(said)
                return f"“{_esc(before)}<i>[{_esc(name)}]</i>{_esc(after)}”"
        return f"“{_esc(text)}”"

    items = "".join(
        f"<li><b>{_esc(DECISION_WORDS[h.kind][lang] if lang == 'zh' else h.kind)}</b> — "
        f"{_esc(KIND_MEANING_ZH[h.kind] if lang == 'zh' else h.meaning)}. "
        f"<span class='vs-muted'>{words('empty_sends', lang)}</span> {sends(h.empty)}</li>"
        for h in reply_kind_help(task, pointer, user_turns)
    )
    return f"<details class='vs-kinds'><summary>{words('kinds_summary', lang)}</summary><ul>{items}</ul></details>"


def next_line(task: Task, pointer: int) -> str:
    nxt = pointer + 1
    return task.persona.stages[nxt].line if nxt < len(task.persona.stages) else ""


def stage_timeline_html(task: Task | None, events: Sequence[StoredEvent]) -> str:
    """Every user decision in order: turn, what the user did, the stage pointer after it, by whom.
    User turns and stages are counted from 1 (the opening is user turn 1, stage 1); a decision is
    stored before the message it makes, so its turn is the messages so far plus one."""
    rows = []
    names = [s.name for s in task.persona.stages] if task is not None else []
    for dec in Transcript.of(events).decisions:
        d = dec.event
        name = d.stage_name or (names[d.stage_index] if d.stage_index < len(names) else "")
        cls = "vs-shadow" if d.shadow else ("vs-adv" if d.advanced else "")
        met = {True: "met", False: "not met", None: "—"}[d.trigger_met]
        rows.append(
            f"<tr class='{cls}'><td>{dec.turn}</td>"
            f"<td>{_KIND_ICON.get(d.reply_kind, '')} {_esc(d.reply_kind)}{' (shadow)' if d.shadow else ''}</td>"
            f"<td>{d.stage_index + 1}. {_esc(name)}</td><td>{_esc(met)}</td><td>{_esc(d.decided_by)}</td></tr>"
        )
    if not rows:
        return "<div class='vs-muted'>No stage decisions recorded.</div>"
    head = "<tr><th>turn</th><th>decision</th><th>stage after it</th><th>trigger</th><th>by</th></tr>"
    return f"<div class='vs-card vs-timeline'><table>{head}{''.join(rows)}</table></div>"
