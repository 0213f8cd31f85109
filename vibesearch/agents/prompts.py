"""The texts the agents under test are given: system prompt, compaction request, extraction
instruction (English and Chinese). Written for this project; the rules they carry come from the
VibeSearchBench paper (appendix B for the agent, section 3 for the graph extraction)."""

from __future__ import annotations

from datetime import date

SYSTEM_PROMPT = """You are a research assistant with web search tools, working with one user over a \
conversation of many turns. The user usually starts with a loose question; what they really want \
becomes clear bit by bit as you talk. Today's date is {today}.

How to work:
- Look things up before you answer. Use the tools as often as you need within a turn: `search` \
for web results, `visit` to read pages with a stated goal, `scholar_search` for papers, and \
`python` to compute, count or check data.
- When you reply, give what you actually found, name the sources (URLs or titles) the facts came \
from, and say plainly when something could not be confirmed.
- Follow where the user is heading. When a question would help you serve them better (which \
aspect, which period, which person, how much detail), ask it; the user answers questions.
- A reply to the user is a message with no tool calls. Keep working with tools until you are \
ready to reply."""

FORCED_REPLY_NOTE = (
    "[Harness note] You have used all the tool steps allowed for this turn. Tools are no longer "
    "available: reply to the user now with what you have found so far."
)

COMPACTION_PROMPT = """Your working context is nearly full, so it is about to be replaced by a \
summary that you write now. Everything you do not put in the summary will be lost.

Write the summary so that you can carry on the work from it alone:
1. Every fact you have found so far, each with the source it came from (URL or title). Keep \
names, numbers and dates exactly as found; include results you later set aside, marked as such.
2. What the user has told you about themselves and what they need, turn by turn, including \
preferences and constraints.
3. The user's current request, word for word if short, and how far you got with it.
4. Open questions: what is still unverified, what you planned to search next, what you asked the \
user that is still unanswered.

Write plain text, organised by topic. Do not call tools."""

COMPACTION_TRANSCRIPT_HEADER = "Here is the context to summarise:"

_EXTRACTION_EN = """The conversation is over. Now write down, as a knowledge graph, everything \
you found for the user during it.

Rules:
1. Go through every turn of the conversation, from the first to the last. Include intermediate \
results too, such as candidates or items you found and the user later narrowed down or filtered out.
2. Cover the entities the user asked about and every attribute of them that the user wanted to \
know.
3. Include only what the user asked for; leave out side information nobody requested.
4. Do not use "Yes" or "No" as a tail. Phrase the relation so that the tail carries the actual \
information.
5. One fact per triple: split a statement about several things into several triples.
6. Only facts you actually found in your searches or stated in your replies; do not add facts \
from guesswork.

Output only a JSON array, nothing before or after it, where each element is \
{"head": "...", "relation": "...", "tail": "..."} with string values. For example:
[{"head": "Leonhard Euler", "relation": "born in", "tail": "Basel"}]"""

_EXTRACTION_ZH = """对话已经结束。请把你在这次对话中为用户查找到的所有信息整理成一个知识图谱。

要求：
1. 逐一检查对话的每一轮，从第一轮到最后一轮；中间结果也要包括，例如后来被用户缩小范围或筛掉的候选项。
2. 覆盖用户询问过的实体，以及用户想了解的这些实体的每一个属性。
3. 只写用户要求了解的内容，不要加入没人问过的附带信息。
4. 尾实体不要用“是”或“否”（Yes/No），应调整关系的表述，让尾实体本身承载信息。
5. 每个三元组只表达一个事实；涉及多项内容的陈述要拆成多个三元组。
6. 只写你在搜索中真正找到或在回复中说明过的事实，不要凭猜测补充。

只输出一个 JSON 数组，前后不要有任何其他文字。数组的每个元素形如 \
{"head": "...", "relation": "...", "tail": "..."}，取值都是字符串。例如：
[{"head": "张衡", "relation": "发明", "tail": "候风地动仪"}]"""


def system_prompt(today: date | None = None) -> str:
    return SYSTEM_PROMPT.format(today=(today or date.today()).isoformat())


def extraction_instruction(language: str) -> str:
    """The final graph-extraction instruction in the task's language (``zh`` or English)."""
    return _EXTRACTION_ZH if language == "zh" else _EXTRACTION_EN
