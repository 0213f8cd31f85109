"""The offline baseline agent: no LLM, the default when no model is configured (SPEC 6.3).

Per user message it searches the task's offline corpus with the message, visits the top three
pages, and replies with what those pages say that is closest to the message (title, one or two
sentences, source), ending with a follow-up question that names entities it found. Its search
and visit calls go through the real toolbox and are recorded as tool events, so statistics count
them like any agent's.

For the graph it does not read the text: it returns the annotated ``facts`` of the pages it
visited whose head or tail came up in the conversation. That is an *oracle reader* — the
corpus' annotations stand in for reading comprehension — and the agent's name says so, so no
table can mistake its scores for a model's.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from ..config import Settings
from ..run import AgentReply, RunConfig, Conversation, Emit, GraphResult, MessageEvent, SearchSpec, Step, Toolbox, ToolCallEvent, ToolOutput
from ..run.tools import execute_tool_call
from ..run.web import WebArchive
from ..tasks.models import CorpusDoc, Task
from ..tools.offline import OfflineCorpus
from ._context import open_turn_steps, tracking_emit
from .extraction import ask_for_graph, record_graph_answer
from .registry import AgentKindInfo, register_agent_kind

BASELINE_NAME = "baseline (retrieval + oracle reader)"
VISIT_TOP = 3
_URL = re.compile(r"https?://[^\s)\]>\"'，。]+")
_CJK = re.compile(r"[\u3400-\u9fff]")


class BaselineAgent:
    """Retrieval baseline with an oracle reader (reads the corpus' annotated facts)."""

    kind = "baseline"
    model: str | None = None
    name = BASELINE_NAME
    description = (
        "offline retrieval baseline with an oracle reader: BM25 search over the task's corpus, "
        "visits the top 3 pages, quotes their best-matching sentences; its graph is the corpus' "
        "annotated facts of the visited pages (not read by a model). No LLM."
    )

    def __init__(
        self,
        task: Task,
        settings: Settings,
        *,
        search: SearchSpec | None = None,
        toolbox: Toolbox | None = None,
        corpus: OfflineCorpus | None = None,
    ):
        from ..tools import AgentToolbox, OfflineBackend, make_toolbox
        from ..tools.offline import corpus_for_task

        self.task = task
        # the baseline reads the corpus' annotations, so it always searches the corpus (never a web, recorded or not)
        self.search = (search or SearchSpec()).model_copy(update={"backend": "offline", "web": None, "web_from": None})
        if isinstance(toolbox, AgentToolbox) and toolbox.backend_name != "offline":
            toolbox = None
        if toolbox is None:
            toolbox = make_toolbox(task, settings, search=self.search)
        self.toolbox: Toolbox = toolbox
        if corpus is None:
            # the toolbox's own corpus when it has one (same index, same ranking), else the task's
            backend = toolbox.backend if isinstance(toolbox, AgentToolbox) else None
            corpus = backend.corpus if isinstance(backend, OfflineBackend) else corpus_for_task(task)
        self.corpus = corpus

    # it continues a turn a resumed run left open (see ``_step``)
    resumes_open_turn = True

    # ------------------------------------------------------------------ dialogue
    async def respond(self, convo: Conversation, emit: Emit) -> AgentReply:
        stored = open_turn_steps(convo)  # steps of this turn stored before an interruption
        emit = tracking_emit(convo, emit)
        message = convo.turns[-1].user if convo.turns else ""
        discussed = _conversation_text(convo)

        topn = max(VISIT_TOP, self.search.topn)
        shown = await self._step(emit, stored, 0, "search", {"query": message, "topn": topn})
        table_columns = _table_columns(self.task)
        docs = self._ranked_docs(message, shown, topn)[: topn if table_columns else VISIT_TOP]

        if docs:
            await self._step(emit, stored, 1, "visit", {"url": [d.url for d in docs], "goal": message})

        if table_columns:
            reply = table_answer(docs, table_columns, zh=self.task.language == "zh")
        else:
            reply = self._compose(message, docs, discussed)
        emit(MessageEvent(role="assistant", content=reply, final=True))
        return AgentReply(text=reply, final=self.reply_is_final(reply))

    def reply_is_final(self, text: str) -> bool:
        """A table is the final answer; a dialogue reply always asks the user something more."""
        return bool(_table_columns(self.task))

    # ------------------------------------------------------------------ extraction
    async def extract_graph(self, convo: Conversation, emit: Emit) -> GraphResult:
        emit = tracking_emit(convo, emit)
        said = _conversation_text(convo)
        ask_for_graph(emit, self.task.language, convo)
        triples: list[dict[str, str]] = []
        seen: set[tuple[str, ...]] = set()
        for url in visited_urls(convo):
            doc = self.corpus.get(url)
            for fact in doc.facts if doc is not None else []:
                key = (fact.head.casefold(), fact.relation.casefold(), fact.tail.casefold())
                if key not in seen and (mentioned(fact.head, said) or mentioned(fact.tail, said)):
                    seen.add(key)
                    triples.append(fact.model_dump())
        answer = json.dumps(triples, ensure_ascii=False, indent=1)
        return record_graph_answer(emit, answer)

    # ------------------------------------------------------------------ internals
    async def _step(self, emit: Emit, stored: list[Step], index: int, tool: str, arguments: dict[str, Any]) -> ToolOutput:
        """Step ``index`` of the turn: one tool call. A stored step is not made again: its stored
        result is used, or (cut off before the result) its stored call is run for the result."""
        step = stored[index] if index < len(stored) else None
        if step is None or not step.calls:
            if step is None:
                emit(MessageEvent(role="assistant", content="", n_tool_calls=1))
            return await self._tool(emit, tool, arguments)
        call = step.calls[0]
        result = step.results.get(call.call_id)
        if result is not None:
            return ToolOutput(content=result.content, error=result.error, truncated_chars=result.truncated_chars)
        return await self._tool(emit, call.tool, call.arguments, call_id=call.call_id)

    async def _tool(self, emit: Emit, tool: str, arguments: dict[str, Any], *, call_id: str | None = None) -> ToolOutput:
        """Run one tool call and record it (its call too, unless ``call_id`` names a stored one)."""
        call = ToolCallEvent(call_id=call_id or f"baseline_{uuid.uuid4().hex[:10]}", tool=tool, arguments=arguments)
        if call_id is None:
            emit(call)
        result = await execute_tool_call(self.toolbox, call, emit)
        emit(result)
        return ToolOutput(content=result.content, error=result.error, truncated_chars=result.truncated_chars)

    def _ranked_docs(self, message: str, shown: ToolOutput, topn: int) -> list[CorpusDoc]:
        """The corpus pages the search showed, in its order (the corpus ranking if none parse)."""
        docs: list[CorpusDoc] = []
        if not shown.error:
            for url in _URL.findall(shown.content):
                doc = self.corpus.get(url.rstrip(".,;"))
                if doc is not None and all(d.url != doc.url for d in docs):
                    docs.append(doc)
        if not docs and message.strip():
            docs = [doc for doc, _ in self.corpus.search(message, topn=topn)]
        return docs

    def _compose(self, message: str, docs: list[CorpusDoc], discussed: str) -> str:
        zh = self.task.language == "zh"
        if not docs:
            if zh:
                return "我在现有资料里没有找到与此相关的内容。能再具体说说您想了解什么吗？"
            return (
                "I searched for that but found nothing relevant in the sources available to me. "
                "Could you tell me more about what you are looking for?"
            )
        lines = [f"我找到了{len(docs)}条相关资料：" if zh else f"Here is what I found in {len(docs)} sources:", ""]
        for i, doc in enumerate(docs, start=1):
            lines.append(f"{i}. {doc.title}")
            lines.append(f"   {key_sentences(message, doc.text)}")
            lines.append(f"   {'来源：' if zh else 'Source: '}{doc.url}")
            lines.append("")
        lines.append(follow_up_question(follow_up_entities(docs, discussed), zh=zh))
        return "\n".join(lines)


# ---------------------------------------------------------------------------- pure helpers
def _table_columns(task: Task) -> list[str]:
    """Column names when ``task`` is a table task (WideSearch style), else []."""
    return task.table.column_names if task.kind == "table" and task.table is not None else []


def table_answer(docs: list[CorpusDoc], columns: list[str], *, zh: bool) -> str:
    """One Markdown table assembled from the visited pages' annotated facts (the oracle reader).

    A row per fact head that has at least one fact whose relation names a column; the first
    column holds the head. Cells no page annotates stay empty.
    """
    wanted = {c.casefold().strip(): c for c in columns}
    rows: dict[str, dict[str, str]] = {}
    for doc in docs:
        for fact in doc.facts:
            col = wanted.get(fact.relation.casefold().strip())
            if col is not None and col != columns[0]:
                rows.setdefault(fact.head, {}).setdefault(col, fact.tail)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for head, cells in rows.items():
        values = [head] + [cells.get(c, "") for c in columns[1:]]
        lines.append("| " + " | ".join(v.replace("|", "/") for v in values) + " |")
    intro = f"根据{len(docs)}份资料整理如下：" if zh else f"From {len(docs)} sources:"
    return f"{intro}\n\n```markdown\n" + "\n".join(lines) + "\n```"


def key_sentences(query: str, text: str, *, k: int = 2, max_chars: int = 320) -> str:
    """The ``k`` sentences of ``text`` that best match ``query``, in text order."""
    from ..tools import rank_texts, sentences

    sents = [s for s in sentences(text) if s.strip()]
    if not sents:
        return ""
    ranked = rank_texts(query, sents) or [(0, 0.0)]
    chosen = sorted(i for i, _ in ranked[:k])
    out = []
    for i in chosen:
        s = " ".join(sents[i].split())
        out.append(s if len(s) <= max_chars else s[: max_chars - 1] + "…")
    return ("" if _CJK.search(out[0][:1] or "") else " ").join(out).strip()


def follow_up_entities(docs: list[CorpusDoc], discussed: str, *, limit: int = 3) -> list[str]:
    """Heads of the visited pages' facts, the ones not yet discussed first."""
    heads: list[str] = []
    for doc in docs:
        for fact in doc.facts:
            if all(fact.head.casefold() != h.casefold() for h in heads):
                heads.append(fact.head)
    fresh = [h for h in heads if not mentioned(h, discussed)]
    seen = [h for h in heads if mentioned(h, discussed)]
    return (fresh + seen)[:limit]


def follow_up_question(entities: list[str], *, zh: bool) -> str:
    if zh:
        if not entities:
            return "接下来您想让我重点查找哪方面的信息呢？"
        names = entities[0] if len(entities) == 1 else "、".join(entities[:-1]) + "或" + entities[-1]
        return f"需要我再详细介绍{names}吗？"
    if not entities:
        return "Which aspect would you like me to look into next?"
    names = entities[0] if len(entities) == 1 else ", ".join(entities[:-1]) + " or " + entities[-1]
    return f"Would you like more detail on {names}?"


def mentioned(entity: str, text: str) -> bool:
    """Does ``entity`` occur in ``text`` (case-insensitive; whole words for Latin script)?"""
    entity = entity.strip()
    if not entity:
        return False
    if _CJK.search(entity):
        return entity in text
    pattern = r"(?<![^\W_])" + re.escape(entity.casefold()) + r"(?![^\W_])"
    return re.search(pattern, text.casefold()) is not None


def visited_urls(convo: Conversation) -> list[str]:
    """URLs of every ``visit`` call in the conversation, in order, without repeats."""
    urls: list[str] = []
    for turn in convo.turns:
        for step in turn.steps:
            for call in step.calls:
                if call.tool != "visit":
                    continue
                value = call.arguments.get("url")
                for url in value if isinstance(value, list) else [value]:
                    if isinstance(url, str) and url not in urls:
                        urls.append(url)
    return urls


def _conversation_text(convo: Conversation) -> str:
    """What the user and the assistant said in the dialogue (tool results excluded)."""
    parts: list[str] = []
    for turn in convo.turns:
        if turn.phase != "dialogue":
            continue
        parts.append(turn.user)
        parts.extend(step.content for step in turn.steps if step.content)
    return "\n".join(parts)


def build_baseline(config: RunConfig, task: Task, settings: Settings, *, toolbox: Toolbox | None, endpoint_key: str | None, web: WebArchive | None = None) -> BaselineAgent:
    """No model; it needs the task's offline corpus."""
    if not task.corpus:
        raise ValueError(
            f"the baseline agent searches the task's offline corpus, and task {task.id!r} has none "
            "(set 'corpus' in the task file, or use --agent react with a model)"
        )
    return BaselineAgent(task, settings, search=config.search, toolbox=toolbox)


register_agent_kind(AgentKindInfo(
    name="baseline", label="Offline baseline (retrieval + oracle reader)", help="offline, no model", factory=build_baseline,
    uses_summariser=True, needs_corpus=True, oracle_baseline=True,
))
