"""The words of a person's play in the task's language: the card, the stepper, the reply kinds'
help, the decision's choices and the turn line are in Chinese for a task written in Chinese
(``language: zh``) and in English otherwise — the persona's own texts are in the task's language,
so the words around them follow it. The app's main fixed labels (the tabs, Play's form fields and
buttons) follow the browser's language instead, through Gradio's i18n (``ui_text``, ``UI_I18N``).
"""

from __future__ import annotations

from typing import Any, Literal

import gradio as gr

Lang = Literal["en", "zh"]

_WORDS: dict[str, dict[Lang, str]] = {
    "agent_working": {"en": "The agent is working…", "zh": "助手正在工作……"},
    "sent_working": {"en": "Sent. The agent is working…", "zh": "已发送。助手正在工作……"},
    "your_turn_line": {"en": "● Your turn: read the agent's reply, choose, write, Send.", "zh": "● 轮到你了：读回复、选择、写消息，再点发送。"},
    "agent_turn_line": {"en": "The agent is working… your turn comes when it replies.", "zh": "助手正在工作……它回复后就轮到你。"},
    "current_stage": {"en": "Current stage {n}/{total}:", "zh": "当前阶段 {n}/{total}："},
    "next_stage": {"en": "Next stage {n}:", "zh": "下一阶段 {n}："},
    "trigger": {"en": "Trigger", "zh": "触发条件"},
    "line": {"en": "Line</b> (say this when the trigger fires — choose <i>disclose</i>)", "zh": "台词</b>（触发条件满足时说这句——选<i>透露</i>）"},
    "fallback": {"en": "Fallback</b> (while it has not fired — <i>push</i>)", "zh": "备用说法</b>（条件还没满足时——选<i>追问</i>）"},
    "asks_only": {"en": "This stage fires only when the agent asks about it; do not hint at it.",
                  "zh": "这个阶段只有在助手主动问到时才会触发；不要暗示它。"},
    "all_disclosed": {"en": "Every stage is disclosed. Choose <i>done</i> when the agent has addressed the last one.",
                      "zh": "所有阶段都已透露。助手处理完最后一个阶段后，选<i>结束</i>。"},
    "the_line_above": {"en": "the Line above", "zh": "上面的台词"},
    "the_fallback_above": {"en": "the Fallback above", "zh": "上面的备用说法"},
    "user_turns": {"en": "User turns so far: {n}", "zh": "目前的用户轮次：{n}"},
    "kinds_summary": {"en": "What each choice does (and what an empty box sends)", "zh": "每个选项的作用（以及留空时发送的内容）"},
    "empty_sends": {"en": "Empty box sends:", "zh": "留空时发送："},
    "stages_head": {"en": "Stages: {n} / {total} disclosed", "zh": "阶段：已透露 {n} / {total}"},
    "disclosed_on": {"en": "disclosed on user turn {n}", "zh": "在第 {n} 个用户轮次透露"},
    "disclosed": {"en": "disclosed", "zh": "已透露"},
    "waiting_for": {"en": "waiting for", "zh": "等待"},
    "not_reached": {"en": "not reached — trigger", "zh": "未到达——触发条件"},
}

DECISION_WORDS: dict[str, dict[Lang, str]] = {
    "disclose": {"en": "disclose the next stage", "zh": "透露下一阶段"},
    "push": {"en": "push (trigger not met)", "zh": "追问（条件未满足）"},
    "perfunctory": {"en": "perfunctory answer", "zh": "敷衍回答"},
    "redirect": {"en": "redirect", "zh": "拉回话题"},
    "done": {"en": "done", "zh": "结束"},
}

KIND_MEANING_ZH = {
    "disclose": "下一阶段的触发条件已满足：说出它的台词，进入那个阶段",
    "push": "触发条件还没满足：追问你仍需要的内容，但不要透露下一阶段",
    "perfunctory": "助手问了你的各阶段都没涉及的事：敷衍过去，再继续追问",
    "redirect": "助手跑题了或答非所问：把它拉回来",
    "done": "每个阶段都处理完了：结束对话（助手随后写出知识图谱，这次运行会被评分）",
}


def lang_of(task: Any) -> Lang:
    """The language of a task's words around the persona: Chinese for ``zh`` (or ``zh-…``)."""
    language = str(getattr(task, "language", "") or "").lower()
    return "zh" if language == "zh" or language.startswith("zh-") else "en"


def words(key: str, lang: Lang, **values: Any) -> str:
    text = _WORDS[key][lang]
    return text.format(**values) if values else text


def decision_choices(lang: Lang, kinds: Any) -> list[tuple[str, str]]:
    return [(DECISION_WORDS[k][lang], k) for k in kinds]


# the app's main fixed labels in Chinese, for a browser whose language is Chinese (the English
# text is the key and what every other browser shows)
_ZH_LABELS = {
    "Play": "运行", "Runs": "运行记录", "Label": "标注", "Leaderboard": "排行榜", "Compare": "对比", "Study": "研究",
    "Task": "任务", "User": "用户", "Agent": "智能体", "Start": "开始", "Stop": "停止", "Send": "发送",
    "Your message (as the persona)": "你的消息（以角色身份）",
    "What do you do this turn?": "这一轮你怎么做？",
    "Models and options": "模型与选项",
    "Replay a stored run": "回放已保存的运行",
}
UI_I18N = gr.I18n(en={k: k for k in _ZH_LABELS}, zh=dict(_ZH_LABELS), **{"zh-CN": dict(_ZH_LABELS)})


def ui_text(text: str) -> Any:
    """``text`` as a label the browser shows in its language (Chinese or English)."""
    return UI_I18N(text) if text in _ZH_LABELS else text
