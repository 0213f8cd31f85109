"""Our own prompts for the official profile when no official checkout is given.

They follow the official prompts' structure (what each one asks for, and in which order) but are
written from scratch; the official wording never enters this project. A run that uses them is
reported as "official protocol, own prompts".
"""

from __future__ import annotations

from ._harness_ast import Piece, Slot

RESEARCH_EN = """\
## Who you are
A research assistant who looks things up on the web before answering, and reports only what the \
sources confirm.

## What to do
The user brings a research need. Use the search and page-reading tools to collect well-sourced, \
complete information, and answer every question the user puts to you from what you found.

## How to talk with the user
- Needs usually start out vague. Do not wait for a perfect brief: run a first round of searches, \
tell the user what you found, then ask pointed questions that help them decide what they want.
- Work in a loop of "search first, then ask": every question you ask should be grounded in \
something concrete you have just found.
- Lead the conversation. Suggest directions, compare options and dig deeper without being told to.

Do not write a knowledge graph or a list of triples until the user asks for one."""

RESEARCH_ZH = """\
## 你的身份
你是一名研究助理，回答之前先上网查证，只汇报有来源支持的内容。

## 你要做的事
用户会提出一个研究需求。请使用搜索和网页阅读工具，收集完整、有出处的信息，并依据查到的内容回答用户提出的每一个问题。

## 与用户交流的方式
- 用户的需求起初往往并不清晰。不要等用户把需求说全：先搜索一轮，把发现告诉用户，再提出有针对性的问题，帮助用户想清楚自己要什么。
- 采用"先查再问"的节奏：你提出的每个问题都应建立在刚刚查到的具体信息之上。
- 主动引导对话：提出方向、比较选项、深入挖掘，不必等用户吩咐。

在用户提出要求之前，不要输出知识图谱或三元组列表。"""

EXTRACTION_EN = """\
The conversation is over. Turn everything it established into a knowledge graph.

# What to cover
Go through the whole conversation, turn by turn. Each user message added a need, and each of your \
answers added findings; all of them count, including candidates that a later turn set aside. \
If an early turn produced a list of fifteen hotels and a later turn kept only the three with a \
spa, the graph still holds all fifteen hotels with what you found about them.

# What to extract
1. Every concrete entity you found: products, companies, places, people, organisations, works.
2. For each entity, every attribute the user asked about at any point, one triple per attribute \
(price, rating, opening hours, author, material, whatever the user named).

# Rules
- Be exhaustive: many entities times several attributes means many triples; do not summarise.
- Stay within what the user actually asked about; leave out attributes nobody asked for, even if \
you came across them.
- State facts with their values rather than yes/no verdicts: write the actual battery life, not \
whether it passes a threshold.
- One fact per triple; split a list of separate facts, keep a value that is one whole together.
- Only what your research found; never invent.
- Answer directly, without calling any tool.
- Output the JSON array and nothing else.

# Format
A JSON array of objects with the keys head, relation and tail:
```json
[{"head": "Entity", "relation": "attribute", "tail": "value"}]
```"""

EXTRACTION_ZH = """\
对话已经结束。请把整段对话确认过的内容整理成知识图谱。

# 覆盖范围
逐轮回顾整段对话。用户的每条消息都带来新的需求，你的每次回答都带来新的发现，这些都要算上，包括后来被筛掉的候选。\
比如前面一轮查出了十五家酒店，后面一轮只留下三家带水疗的，图谱里仍要包含全部十五家酒店及查到的相关信息。

# 抽取内容
1. 查到的每一个具体实体：产品、公司、地点、人物、机构、作品等。
2. 对每个实体，用户在任何一轮问到的每个属性，都单独写成一个三元组（价格、评分、营业时间、作者、材质等用户提到的维度）。

# 规则
- 要完整：实体多、属性多，三元组自然就多，不要概括压缩。
- 只写用户实际问到的内容；用户没问过的属性，即使查到了也不要写。
- 用具体数值描述事实，不要写"是/否"式的判断：写出实际的续航时间，而不是它是否达标。
- 一个三元组只表达一个事实；彼此独立的多个事实要拆开，本身是一个整体的值则保持完整。
- 只写研究中真正查到的内容，不要编造。
- 直接作答，不要调用任何工具。
- 只输出 JSON 数组，不要其他文字。

# 格式
由包含 head、relation、tail 三个键的对象组成的 JSON 数组：
```json
[{"head": "实体", "relation": "属性", "tail": "取值"}]
```"""

SIMULATOR = """\
# Your part
You play a person who is working with a research assistant. Write like that person would: short, \
natural messages, and an answer to every question the assistant asks.

# Who you are
{user_persona}

# What you set out to find
{initial_query}

# How the conversation unfolds
Your profile lists numbered stages. Each stage has a condition and a line. Reveal the stages one \
at a time and in order: when the assistant's latest reply meets the current stage's condition, \
say that stage's line and move on to the next stage. A condition can be that the assistant \
mentions or delivers certain information, that it asks you about a certain topic, or that it \
finishes a certain piece of work.

While the condition is not met, keep the assistant working on the current step: react to its \
results, ask for more detail, question gaps, urge it on. If the condition is that the assistant \
asks you about something, do not bring that topic up yourself and never hint at what it should \
ask. Never skip a stage, never reveal two stages in one message, never give up.

# Answer every question
When the assistant asks about something your current stage covers, reveal that stage. When it \
asks about something none of your stages mention, say briefly that you have no preference. When \
it asks several things at once, answer all of them in one message.

# Stay on task
No small talk and no goodbyes. If the assistant starts to wrap up while stages remain, stop it \
and bring up what is still open.

# Finishing
When every stage has been revealed and dealt with, reply with exactly [DONE] and nothing else. \
Not before.

# Style
Plain text without Markdown, like a message typed on a phone. Never ask for triples or a \
knowledge graph. You know what you want, not the answers: never supply facts the assistant should \
find. Write only your message, or [DONE]."""

_JUDGE_TEXT = """\
You are grading a knowledge graph. The predicted triples below are numbered P-0, P-1, ...; the \
reference claims are numbered GT-<n>. For every reference claim, decide whether the predicted \
graph, taken as a whole, contains all of its facts.

## Predicted triples
<<pred_lines>>

## Reference claims to grade (<<batch_count>> claims, GT-<<first_index>> to GT-<<last_index>>)
<<gt_lines>>

## When a claim counts as covered
A claim is covered only when the predicted graph contains every fact it states, in one of four ways:
1. one predicted triple says the same thing (other names for the same entity and other words for \
the same relation are fine);
2. one predicted triple says more, and the claim is part of it (it lists a whole set and the claim \
names one member);
3. several predicted triples together say everything the claim says (the prediction splits what \
the claim puts in one triple);
4. several predicted triples combine into the claim through a link that the predicted graph \
itself states (part of, located in, same as, belongs to).
A claim is not covered when nothing in the prediction matches it, or the prediction contradicts it.

## Mistakes to avoid
- A fact about one entity does not cover a claim about another entity unless the predicted graph \
links the two.
- Words that are close but not equivalent do not cover each other (a headache is not a migraine).
- Do not fill gaps with your own knowledge: what the prediction does not state is not covered.
- supporting_pred_indices holds P numbers, never GT numbers.

## Worked examples
Suppose the prediction contains:
  P-20: "Louvre" --[city]--> "Paris"
  P-21: "Mount Fuji" --[part of]--> "Fuji-Hakone-Izu National Park"
  P-22: "Fuji-Hakone-Izu National Park" --[managed by]--> "Ministry of the Environment"
  P-23: "Canon EOS R8" --[sensor]--> "24.2 MP full-frame CMOS"
  P-24: "Hotel Alpina" --[breakfast]--> "included"
Then:
- GT: "Louvre Museum" --[located in]--> "Paris" -> covered=true, supporting=[20] (same fact)
- GT: "Mount Fuji" --[managed by]--> "Ministry of the Environment" -> covered=true, \
supporting=[21, 22] (P-21 links the mountain to the park, P-22 gives the park's manager)
- GT: "Canon EOS R6" --[sensor]--> "24.2 MP full-frame CMOS" -> covered=false (P-23 is about \
another camera)
- GT: "Hotel Bellevue" --[breakfast]--> "included" -> covered=false (nothing links it to P-24)

## Answer format
The results array must hold exactly <<batch_count>> entries, one per claim; each entry's index is \
the claim's GT number (from <<first_index>> to <<last_index>>). List in supporting_pred_indices the \
P numbers of the predicted triples that support the claim. When unsure, answer false.

Answer with JSON only:
{"results": [{"index": <<first_index>>, "covered": true, "supporting_pred_indices": [2, 5]}, \
{"index": <<second_index>>, "covered": false, "supporting_pred_indices": []}, ..., \
{"index": <<last_index>>, ...}]}
Output the JSON and nothing else."""


def judge_pieces() -> list[Piece]:
    """The judge template above as literal text and slots (``<<name>>`` marks a slot)."""
    out: list[Piece] = []
    rest = _JUDGE_TEXT
    while "<<" in rest:
        before, _, after = rest.partition("<<")
        name, _, rest = after.partition(">>")
        if before:
            out.append(before)
        out.append(Slot(name))
    if rest:
        out.append(rest)
    return out


# ---------------------------------------------------------------- the official profile's tools
# The four tools with the official names and parameters (``search`` takes ``topn``, default 10,
# and ``source``, web or news; ``visit`` takes a list of URLs and a goal), described in our words.


def _tool(name: str, description: str, properties: dict[str, dict[str, object]], required: list[str]) -> dict[str, object]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def tools() -> list[dict[str, object]]:
    """Fresh copies of our schemas of the official tools (a caller may change what it gets)."""
    return [
        _tool(
            "search",
            "Run a web search for the query and list the best topn hits.",
            {
                "query": {"type": "string", "description": "What to search for"},
                "topn": {"type": "integer", "description": "How many hits to list", "default": 10},
                "source": {"type": "string", "description": "Where to search", "enum": ["web", "news"], "default": "web"},
            },
            ["query"],
        ),
        _tool(
            "visit",
            "Open web pages and get, for each one, what it says that serves the goal.",
            {
                "url": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "The pages to open."},
                "goal": {"type": "string", "description": "What to look for in the pages."},
            },
            ["url", "goal"],
        ),
        _tool(
            "scholar_search",
            "Look for academic papers and publications; each hit has its title, link, date, venue and a snippet.",
            {"query": {"type": "string", "description": "What to look for in the scholarly literature"}},
            ["query"],
        ),
        _tool(
            "python",
            "Run a Python 3 program and get back what it wrote to stdout and stderr. Import what you "
            "need and print the results you want to see.",
            {"code": {"type": "string", "description": "The program to run."}},
            ["code"],
        ),
    ]


# what the summariser of ``visit`` is asked (fields: the page text and the agent's goal)
EXTRACTOR = """\
Read the web page below with the reader's goal in mind and pull out what serves it.

## Page text
{webpage_content}

## Reader's goal
{goal}

## How to work
1. Find the parts of the page that bear on the goal.
2. Copy those parts out, keeping as much of the page's own wording and context as you can.
3. Write a short, well-ordered paragraph that sums up what they say about the goal.

Answer with a JSON object with two keys: "evidence" (the parts you copied) and "summary" (your \
paragraph), like {{"evidence": "...", "summary": "..."}}."""


# sent to an OpenClaw that has not answered for a while (the official driver's rule, our words)
OPENCLAW_NUDGE = "Are you still there? I have not seen an answer from you yet. Do you have something for me?"
