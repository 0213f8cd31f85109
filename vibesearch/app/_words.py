"""The words of a person's play in the task's language: the card, the stepper, the reply kinds'
help, the decision's choices and the turn line are in Chinese for a task written in Chinese
(``language: zh``) and in English otherwise — the persona's own texts are in the task's language,
so the words around them follow it. The app's main fixed labels (the tabs, Play's form fields and
buttons) follow the browser's language instead, through Gradio's i18n (``ui_text``, ``UI_I18N``).
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any, Callable, Literal

import gradio as gr

from ._words_drawn import DRAWN, GRADIO_ZH, TOAST_TITLES

Lang = Literal["en", "zh"]

_WORDS: dict[str, dict[Lang, str]] = {
    "agent_working": {"en": "The agent is working…", "zh": "助手正在工作……"},
    "sent_working": {"en": "Sent. The agent is working…", "zh": "已发送。助手正在工作……"},
    "your_turn_line": {"en": "● Your turn: read the agent's reply, choose, write, Send.", "zh": "● 轮到你了：读回复、选择、写消息，再点发送。"},
    "status_your_turn": {"en": "your turn: choose what you do and Send", "zh": "轮到你了：选择怎么做，然后点发送"},
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
    # a run's status line (Play) and header (Runs)
    "run": {"en": "Run", "zh": "运行"},
    "run_meta": {"en": "agent {agent} · user **{user}** · status **{status}**{end}{stopping} · source {source} · started {at} UTC",
                 "zh": "智能体 {agent} · 用户 **{user}** · 状态 **{status}**{end}{stopping} · 来源 {source} · 开始于 {at} UTC"},
    "stopping_elsewhere": {"en": " · stopping (asked on another server)", "zh": " · 正在停止（在另一台服务器上请求）"},
    "cancelled_note": {"en": "not scored, and left out of every score", "zh": "不评分，也不计入任何得分"},
    "continue_refused": {
        "en": ("Continue is not offered to you: only the browser or login that started this run (or an admin) can "
               "continue it. A browser keeps its claim while it keeps this site's data and the server keeps its secret."),
        "zh": "你不能继续这次运行：只有发起它的浏览器或登录（或管理员）可以继续。浏览器保留本站数据、服务器保留其密钥时，这一归属一直有效。",
    },
    "scoring": {"en": "scoring…", "zh": "评分中……"},
    "run_ended": {"en": "The run ended: **{end}**", "zh": "运行已结束：**{end}**"},
    "run_ended_title": {"en": "Run ended ({end})", "zh": "运行已结束（{end}）"},
    "database": {"en": "Database: `{path}`", "zh": "数据库：`{path}`"},
    "stopping_cancelled": {"en": "Stopping run {id}: cancelled, not scored, and left out of every score.",
                           "zh": "正在停止运行 {id}：已取消，不评分，也不计入任何得分。"},
    "run_cancelled": {"en": "This run was cancelled: not scored, and left out of every score.",
                      "zh": "这次运行已取消：不评分，也不计入任何得分。"},
    # the persona card's header (app/render.py persona_html)
    "subset": {"en": "subset {name}", "zh": "子集 {name}"},
    "table_task": {"en": "table task", "zh": "表格任务"},
    "count_stage": {"en": "{n} stages", "zh": "{n} 个阶段"},
    "count_ground-truth triple": {"en": "{n} ground-truth triples", "zh": "{n} 个标准答案三元组"},
    "opening_query": {"en": "Opening query:", "zh": "开场问题："},
    "who_the_user_is": {"en": "Who the user is", "zh": "用户是谁"},
    "behaviour": {"en": "Behaviour:", "zh": "行为特点："},
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


# the run's counters (app/panels.py stats_html): their labels and fixed values in Chinese
_STATS_ZH = {
    "Assistant steps (#Asst)": "助手步数 (#Asst)", "User turns (#User)": "用户轮次 (#User)",
    "Tool calls": "工具调用", "Tokens in / out": "输入 / 输出词元", "Cost": "费用", "Compactions": "压缩次数",
    "Stages reached": "到达的阶段", "Elapsed": "已用时间", "Wall time": "总用时", "Termination": "结束方式",
    "Perfunctory rate": "敷衍率", "Redirect rate": "拉回率", "Errors": "错误",
    "n/a (no model calls)": "不适用（没有模型调用）", "unknown (usage not recorded)": "未知（未记录用量）",
    "n/a": "不适用", "none": "无",
}


# a run's status and termination (``RunStatus``, ``Termination``) and its source, as shown
_STATUS_ZH = {
    "running": "进行中", "finished": "已结束", "failed": "失败", "cancelled": "已取消", "interrupted": "已中断",
    "abandoned": "已放弃", "done": "完成", "answer": "给出答案", "max_user_turns": "达到用户轮次上限", "budget": "预算用尽",
    "max_rounds": "达到调用轮数上限", "error_loop": "连续出错", "empty_response": "空回复", "malformed_tool_call": "工具调用格式错误",
    "no_response": "无回复", "error": "出错", "context_length": "超出上下文长度", "imported": "导入", "live": "实时",
}


def status_word(value: str, lang: Lang) -> str:
    return _STATUS_ZH.get(value, value) if lang == "zh" else value


# a stage trigger's kind (``TriggerKind``) as the card and the stepper show it
_TRIGGER_ZH = {"start": "开场", "mentions": "提到", "asks": "询问", "completes": "完成"}


def trigger_word(kind: str, lang: Lang) -> str:
    return _TRIGGER_ZH.get(kind, kind) if lang == "zh" else kind


def stat_label(text: str, lang: Lang) -> str:
    return _STATS_ZH.get(text, _STATUS_ZH.get(text, text)) if lang == "zh" else text


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
# the other fixed labels, choices and hints of Play, Runs, Label and Study (the same rule)
_ZH_LABELS.update({
    "Show the run form": "显示运行表单",
    "Load tasks from a folder": "从文件夹加载任务",
    "Folder or file on the server": "服务器上的文件夹或文件",
    "Load": "加载",
    "…or upload task files (JSON / YAML, with their gold CSVs)": "……或上传任务文件（JSON / YAML，附带标准答案 CSV）",
    "Load uploaded files": "加载上传的文件",
    "Agent model (litellm string)": "智能体模型（litellm 名称）",
    "Simulator model": "模拟器模型",
    "for the LLM / paper simulator and the shadow": "用于 LLM / 论文模拟器和影子模拟器",
    "Search backend": "搜索后端",
    "Judge model (empty: offline judge)": "评判模型（留空：离线评判）",
    "Shadow simulator beside me (me mode)": "在我旁边运行影子模拟器（我来扮演时）",
    "Endpoint URL (endpoint agent)": "端点地址（端点智能体）",
    "Endpoint model name": "端点模型名称",
    "Endpoint key (kept in memory only)": "端点密钥（只保存在内存中）",
    "Max user turns (0: the profile's own, 30 ours, 50 official)": "用户轮次上限（0：按协议配置，我们的为 30，官方为 50）",
    "Watch pace: seconds before each simulated user turn (0 = full speed)": "观看节奏：每个模拟用户轮次前等待的秒数（0 = 全速）",
    "Protocol profile": "协议配置",
    "Web": "网页",
    "replay: a person and a model meet the same recorded pages, offline (docs/web.md)": "回放：人和模型看到同一批已录制的网页，全程离线（docs/web.md）",
    "record the web it sees (web backends)": "录制它看到的网页（网络搜索后端）",
    "live, nothing recorded": "实时，不录制",
    "replay the web recorded for this task": "回放为此任务录制的网页",
    "official: the paper's harness rule by rule, with the server's configured prompts (docs/protocol.md)": "official：逐条复现论文的评测流程，使用服务器配置的提示词（docs/protocol.md）",
    "Yes, cancel the run": "是的，取消这次运行",
    "Keep playing": "继续扮演",
    "Conversation": "对话",
    "Nothing is chosen for you: pick one each turn.": "不会替你预选：每一轮都请自己选一个。",
    "'disclose' prefills the stage line; left empty, the message the card shows for your choice is sent.": "选“透露”会预填阶段台词；留空时，发送卡片上为你的选择给出的消息。",
    "The agent's extracted graph": "智能体抽取的知识图谱",
    "Run (newest first; or type its id)": "运行（最新的在前；也可输入编号）",
    "Speed": "速度",
    "Replay": "回放",
    "Pause": "暂停",
    "Step": "单步",
    "Next stage": "下一阶段",
    "Resume": "继续",
    "Status": "状态",
    "Profile": "协议配置",
    "Search": "搜索",
    "model, batch, date (2026-12-01), id…": "模型、批次、日期（2026-12-01）、编号……",
    "Refresh": "刷新",
    "Runs (click a row to open it)": "运行（点击一行打开）",
    "Queued batches (driven by vibesearch worker processes)": "排队的批次（由 vibesearch worker 进程执行）",
    "Run id": "运行编号",
    "Open": "打开",
    "Continue in Play": "在“运行”页继续",
    "Stop run": "停止运行",
    "Replay in Play": "在“运行”页回放",
    "Transcript": "对话记录",
    "Colour by the verdicts of": "按以下评判的结论着色",
    "Score again with (empty: offline judge)": "用以下评判重新评分（留空：离线评判）",
    "Score": "评分",
    "Scores": "得分",
    "Ground-truth triples: covered or missed, the judge's rule and evidence": "标准答案三元组：覆盖或遗漏，评判的规则与证据",
    "Predicted triples": "预测的三元组",
    "Annotator name": "标注者姓名",
    "Run (finished, with a graph)": "运行（已结束，带知识图谱）",
    "Side": "标注对象",
    "Start labelling": "开始标注",
    "Refresh run list": "刷新运行列表",
    "◀ Previous (k)": "◀ 上一个 (k)",
    "Covered (y)": "已覆盖 (y)",
    "Not covered (n)": "未覆盖 (n)",
    "Skip (s)": "跳过 (s)",
    "Next (j) ▶": "下一个 (j) ▶",
    "Search the supporting triples": "搜索支持的三元组",
    "words that must all appear": "必须全部出现的词",
    "Evidence: predicted triples that cover it": "证据：覆盖它的预测三元组",
    "Note (optional)": "备注（可选）",
    "Show the judges' verdicts before I label": "在我标注前显示评判的结论",
    "Report over": "报告范围",
    "Export labels": "导出标注",
    "Format": "格式",
    "Export": "导出",
    "Download": "下载",
    "labels are stored under your login": "标注保存在你的登录名下",
    "Campaign": "标注活动",
    "Next item from my queue": "我的队列中的下一项",
    "Label one run instead": "改为标注单次运行",
    "Who labelled what": "谁标注了什么",
    "Disagreement": "分歧",
    "Comment": "说明",
    "Resolve: covered / valid": "裁定：已覆盖 / 有效",
    "Resolve: not covered / invalid": "裁定：未覆盖 / 无效",
    "Show": "显示",
    "Pace, people and simulator": "节奏、真人与模拟器",
    "Studies for outside players (admins)": "面向外部玩家的研究（管理员）",
    "Study name": "研究名称",
    "Personas": "角色",
    "Agent model": "智能体模型",
    "Shadow simulator model (empty: rule-based)": "影子模拟器模型（留空：基于规则）",
    "Plays per persona": "每个角色的扮演次数",
    "Time limit per play (minutes)": "每次扮演的时间限制（分钟）",
    "A shadow simulator decides beside the player": "影子模拟器在玩家旁边同时做出判断",
    "Annotators do not see the agent": "标注者看不到智能体",
    "Consent text (shown to each player first)": "知情同意文本（先展示给每位玩家）",
    "Create the study and its links": "创建研究及其链接",
    "Links (shown once: only digests of the codes are kept)": "链接（只显示一次：只保存邀请码的摘要）",
    "Show progress": "显示进度",
    "Entity (its neighbourhood)": "实体（它的邻域）",
    "Rule-based simulator (offline)": "基于规则的模拟器（离线）",
    "LLM simulator": "LLM 模拟器",
    "Paper simulator (LLM, paper prompt)": "论文模拟器（LLM，论文提示词）",
    "Me — I play the persona": "我——由我扮演角色",
    "Offline baseline (retrieval + oracle reader)": "离线基线（检索 + 理想阅读器）",
    "ReAct agent with a model": "使用模型的 ReAct 智能体",
    "Endpoint (OpenAI-compatible agent)": "端点（兼容 OpenAI 的智能体）",
    "OpenClaw gateway with a model": "使用模型的 OpenClaw 网关",
    "vibesearch (ours)": "vibesearch（我们的）",
    "official (the paper's harness)": "official（论文的评测流程）",
    "Coverage (ground-truth triples)": "覆盖（标准答案三元组）",
    "Validity (predicted triples)": "有效性（预测三元组）",
    "Shift+Enter sends, Enter starts a new line.": "Shift+Enter 发送，Enter 换行。",
    "This run": "这次运行",
    "Every labelled run": "所有已标注的运行",
    "Our labels (JSONL)": "我们的标注（JSONL）",
    "Our labels (CSV)": "我们的标注（CSV）",
    "Official meta-eval CSVs (zip)": "官方元评测 CSV（zip）",
    "The run picked above": "上面选中的运行",
    "Every run I may read": "我可以查看的所有运行",
    "Scores of the judge": "评分所用的评判",
    "Scores — Avg@N and Best@N of P / R / F1 (%) per configuration (paper table 3)": "得分——每个配置的 P / R / F1 的 Avg@N 与 Best@N（%）（论文表 3）",
    "F1 by configuration and subset": "按配置和子集的 F1",
    "Precision against recall": "精确率与召回率",
    "Interaction statistics, mean per run (paper table 4)": "交互统计，每次运行的均值（论文表 4）",
    "Table tasks (WideSearch): success rate, Row-F1 and Item-F1 (%)": "表格任务（WideSearch）：成功率、Row-F1 与 Item-F1（%）",
    "Error analysis: F1 by number of compactions": "错误分析：按压缩次数的 F1",
    "Run A": "运行 A",
    "Run B": "运行 B",
    "Graph of run A": "运行 A 的图谱",
    "Graph of run B": "运行 B 的图谱",
    "Configuration A": "配置 A",
    "Configuration B": "配置 B",
    "Compare configurations": "对比配置",
    "Refresh the lists": "刷新列表",
    "Task subset": "任务子集",
    "Language": "语言",
    "Model": "模型",
    "Pick run A": "选择运行 A",
    "Pick run B (same task as A)": "选择运行 B（与 A 同一任务）",
    "Subset": "子集", "Simulator": "模拟器",  # (the Study tab's filters; lower-case, "simulator" is a user kind's value)
    "Stop for good? The run is **cancelled**: it is never scored and is left out of every score.":
        "要彻底停止吗？这次运行会被**取消**：它不会被评分，也不计入任何得分。",
    "Choose a task and press **Start**.": "选择一个任务，然后点**开始**。",
    "Two runs of one persona side by side: when each stage was reached, what each spent on it, what each covered.":
        "同一角色的两次运行并排对比：各阶段何时到达、各自在上面花了多少、各自覆盖了什么。",
    "### Two configurations\nIs B better than A? The F1 difference per task both played, with a paired 95% "
    "bootstrap interval; a difference inside the noise is not a ranking.":
        "### 两个配置\nB 比 A 好吗？两者都运行过的每个任务上的 F1 差值，附配对的 95% 自助法区间；落在噪声范围内的差值不构成排名。",
    "**Judge comparison** — each judge (per protocol profile) against the people's labels, "
    "95% bootstrap intervals in brackets.":
        "**评判对比**——每个评判（按协议配置）与人工标注的一致程度，括号内为 95% 自助法区间。",
    "**Adjudication** — items the annotators disagree on; resolved by someone who did not label them.":
        "**裁定**——标注者意见不一的条目；由没有标注过它们的人来裁定。",
    "### By stage: recall of the ground truth, where runs stall, F1 by stages reached":
        "### 按阶段：标准答案的召回率、运行在哪里停滞、按到达阶段数的 F1",
    "How far is the user simulator from a person? Over the runs people played beside a shadow simulator "
    "(and the simulator's own runs of the same personas): decision agreement, pace, outcome gap and style, "
    "with 95% bootstrap intervals. `vibesearch fidelity --csv` writes every disagreeing turn out.":
        "用户模拟器离真人有多远？基于真人在影子模拟器旁边完成的运行（以及模拟器对同一批角色的运行）："
        "决策一致率、节奏、结果差距和风格，附 95% 自助法区间。`vibesearch fidelity --csv` 会写出每个不一致的轮次。",
    "Each play gets a link with a one-time code: the player needs no account, reads the consent and "
    "the persona card and plays that persona once. The agent is not named to the player.":
        "每次扮演都有一个带一次性邀请码的链接：玩家不需要账号，先阅读知情同意和角色卡，然后扮演该角色一次。不会向玩家透露智能体的名字。",
    "Graph": "图谱",
    "All triples": "全部三元组",
    "Missed ground truth only": "只看遗漏的标准答案",
    "Invalid predictions only": "只看无效的预测",
    "One entity's neighbourhood": "单个实体的邻域",
    "Stage timeline": "阶段时间线",
    "Ground truth against prediction (drag to pan, scroll or box to zoom; hover for names)":
        "标准答案与预测对照（拖动平移，滚轮或框选缩放；悬停查看名称）",
})

# two longer texts: the page's heading and the Label tab's keys
INTRO = ("## VibeSearch evaluator\n"
         "Run a search agent against a persona whose need unfolds stage by stage — played by a simulator or by you — "
         "then score its knowledge graph.")
KEYS_LINE = ("<div class='vs-keys vs-muted'>Keys: <kbd>1</kbd>–<kbd>9</kbd> tick / untick the evidence listed first · "
             "<kbd>y</kbd> covered / valid · <kbd>n</kbd> not covered / invalid · <kbd>s</kbd> skip · "
             "<kbd>j</kbd> / <kbd>k</kbd> next / previous — anywhere on this tab except while typing in a text box.</div>")
_ZH_LABELS[INTRO] = ("## VibeSearch 评测器\n"
                     "让搜索智能体面对一个需求逐阶段展开的角色（由模拟器或由你扮演），再为它的知识图谱评分。")
_ZH_LABELS[KEYS_LINE] = ("<div class='vs-keys vs-muted'>快捷键：<kbd>1</kbd>–<kbd>9</kbd> 勾选 / 取消最前面列出的证据 · "
                         "<kbd>y</kbd> 已覆盖 / 有效 · <kbd>n</kbd> 未覆盖 / 无效 · <kbd>s</kbd> 跳过 · "
                         "<kbd>j</kbd> / <kbd>k</kbd> 下一个 / 上一个——在本页任何地方都可用，在文本框里输入时除外。</div>")
# the Label tab's "New campaign" form (``campaign_new``) and Play's shadow switch
_ZH_LABELS.update({
    "<span class='vs-muted'>Click an entity to see its neighbourhood.</span>": "<span class='vs-muted'>点击一个实体以查看它的邻域。</span>",
    "New campaign (admins)": "新建标注活动（管理员）", "Campaign name": "活动名称", "Runs (pick them…)": "运行（逐个选择……）",
    "…or a filter": "……或用筛选条件", "Annotators (comma-separated)": "标注者（逗号分隔）", "Sides": "标注方面",
    "Labels per item (overlap k)": "每项的标注数（重叠 k）", "Create the campaign": "创建活动",
    "Blind": "盲评",
    "Ticked: no judge's verdict, agent or score before a label. Unticked: a judge review, the judge's verdict on the card.":
        "勾选：标注之前不显示评判的结论、智能体和得分。不勾选：评判复核，评判的结论显示在卡片上。",
    "key=value, comma-separated; keys: task, subset, language, agent, agent_model, status":
        "键=值，逗号分隔；可用的键：task, subset, language, agent, agent_model, status",
    "On by default: its decisions, taken beside yours, are what the fidelity study compares":
        "默认开启：它在你身旁做出的决定，正是保真度研究所比较的内容",
})
# issue 41, where each fact was lost (app/funnel_view.py): the funnel's words, in the task's
# language in Runs and in the browser's on the Leaderboard
_WORDS.update({
    "bucket_not_asked": {"en": "not asked", "zh": "未问到"},
    "bucket_not_seen": {"en": "not seen", "zh": "未看到"},
    "bucket_not_written": {"en": "not written", "zh": "未写出"},
    "bucket_judged_not_covered": {"en": "judged not covered", "zh": "判为未覆盖"},
    "bucket_covered": {"en": "covered", "zh": "已覆盖"},
    "funnel_title": {"en": "Where each fact was lost ({judge}): {n} ground-truth triples",
                     "zh": "每个事实在哪里丢失（{judge}）：{n} 个标准答案三元组"},
    "funnel_click": {"en": "Click a triple to see its turn in the transcript.", "zh": "点击一个三元组，即可在对话记录中看到相应的轮次。"},
    "funnel_unscored": {"en": "Not scored yet: each ground-truth triple's bucket appears once the run is scored.",
                        "zh": "尚未评分：评分后会显示每个标准答案三元组丢失在哪一环。"},
    "funnel_unreadable": {"en": "The funnel cannot be made: the run's task cannot be read.", "zh": "无法生成漏斗：读不到这次运行的任务。"},
    "funnel_stage": {"en": "stage {n}", "zh": "阶段 {n}"},
    "funnel_unassigned": {"en": "no stage matches it (unassigned)", "zh": "没有匹配的阶段（未归属）"},
    "funnel_never_disclosed": {"en": "its stage was never disclosed", "zh": "它的阶段从未透露"},
    "funnel_seen": {"en": "first shown by a {tool} call on turn {n}", "zh": "第 {n} 轮的 {tool} 调用首次显示了它"},
    "funnel_not_seen": {"en": "no tool result showed it", "zh": "没有工具结果显示过它"},
    "funnel_seen_unknown": {"en": "seen: unknown (the run kept no tool text)", "zh": "是否看到：未知（这次运行没有保留工具文本）"},
    "funnel_prediction": {"en": "prediction #{n}: {triple}", "zh": "预测 #{n}：{triple}"},
    "funnel_no_prediction": {"en": "no prediction names its head and tail", "zh": "没有预测同时提到它的头实体和尾实体"},
    "funnel_verdict": {"en": "verdict: {verdict}", "zh": "评判结论：{verdict}"},
    "verdict_covered": {"en": "covered", "zh": "已覆盖"},
    "verdict_not covered": {"en": "not covered", "zh": "未覆盖"},
    "verdict_unscored": {"en": "unscored", "zh": "未评分"},
    "funnel_method_corpus": {"en": "Seen: from the offline pages' fact annotations (exact).", "zh": "是否看到：依据离线网页的事实标注（精确）。"},
    "funnel_method_text": {"en": "Seen: the head and tail found in the tool results' text (conservative: a paraphrase is not found).",
                           "zh": "是否看到：在工具结果文本中找到头实体和尾实体（保守：换一种说法就找不到）。"},
    "funnel_method_none": {"en": "Seen: unknown, the run kept no tool text (that test is skipped).",
                           "zh": "是否看到：未知，这次运行没有保留工具文本（跳过这一步）。"},
    "funnel_series_title": {"en": "Where each fact was lost, per configuration (share of its ground-truth triples, %)",
                            "zh": "每个事实在哪里丢失，按配置（占其标准答案三元组的百分比）"},
    "funnel_none": {"en": "No scored runs yet", "zh": "还没有已评分的运行"},
    "funnel_hover": {"en": "{bucket}: {count} of {n} triples ({share}%{ci})", "zh": "{bucket}：{n} 个三元组中的 {count} 个（{share}%{ci}）"},
    "turn": {"en": "turn {n}", "zh": "第 {n} 轮"},
})
_ZH_LABELS.update({
    "Where each fact was lost, per configuration": "每个事实在哪里丢失（按配置）",
})
# the Label tab's Vote tab (``vote``, ``_vote_new``) and the Leaderboard's preference column
_ZH_LABELS.update({
    "Triples": "三元组", "Vote": "投票", "Vote campaign": "投票活动", "Your name": "你的名字", "Next pair": "下一对",
    "**A** — final answer": "**A** — 最终回答", "**B** — final answer": "**B** — 最终回答",
    "A is better (a)": "A 更好 (a)", "B is better (b)": "B 更好 (b)", "Tie (t)": "平手 (t)", "Both bad (x)": "都不好 (x)",
    "Reason (optional)": "理由（可选）",
    "Full conversation A": "A 的完整对话", "Full conversation B": "B 的完整对话",
    "New vote campaign (admins)": "新建投票活动（管理员）", "Vote campaign name": "投票活动名称",
    "Configurations (none picked: all)": "配置（不选：全部）", "Filter": "筛选条件",
    "Tasks (comma-separated; empty: all)": "任务（逗号分隔；留空：全部）", "Pairs per configuration pair": "每对配置的对数",
    "Votes per pair (overlap k)": "每对的投票数（重叠 k）", "Voters (comma-separated)": "投票者（逗号分隔）",
    "Create the vote campaign": "创建投票活动", "Preference (BT, 95% CI)": "偏好（BT，95% 置信区间）",
})
UI_I18N = gr.I18n(en={k: k for k in _ZH_LABELS}, zh={**_ZH_LABELS, **GRADIO_ZH}, **{"zh-CN": {**_ZH_LABELS, **GRADIO_ZH}})


def ui_text(text: str) -> Any:
    """``text`` as a label the browser shows in its language (Chinese or English)."""
    return UI_I18N(text) if text in _ZH_LABELS else text


def browser_lang(request: Any) -> Lang:
    """The language of the browser that sent ``request`` (its Accept-Language's first choice): for
    what the server draws that belongs to no task, such as a table's headers."""
    headers = getattr(request, "headers", None) or {}
    first = str(headers.get("accept-language", "")).split(",")[0].split(";")[0].strip().lower()
    return "zh" if first == "zh" or first.startswith("zh-") else "en"


def zh_text(text: str, lang: Lang) -> str:
    """A fixed English text of the app (a label, a header, a template) in ``lang``: the Chinese of
    the labels Gradio translates, or of the text the server draws (``_words_drawn``: kept out of
    ``UI_I18N``, whose page side translates any component value equal to one of its keys — a menu's
    "(any)" or a radio's "all" would be sent back in Chinese); English, and any text in neither
    table, as it is."""
    return _ZH_LABELS.get(text, DRAWN.get(text, text)) if lang == "zh" else text


def say_in(lang: Lang) -> Callable[[str], str]:
    """``zh_text`` in ``lang``: what a drawing function takes to word its fixed texts."""
    return partial(zh_text, lang=lang)


def column_words(headers: list[str], lang: Lang) -> list[str]:
    """A table's column headers in ``lang``."""
    return [zh_text(h, lang) for h in headers]


def first_choice(first: str, values: Any, lang: Lang = "en") -> list[tuple[str, str]]:
    """A filter menu's (label, value) choices: ``first`` ("(any)", "(all)"…) labelled in ``lang``
    (the browser's: the handler that fills the menu knows it) but sent back as itself, then
    ``values`` as they are. The label is put in by the server: a choice label given to Gradio's
    i18n is sent back translated, as the value, which the menu then refuses."""
    return [(zh_text(first, lang), first), *((v, v) for v in values)]


# a page script: a notice's title in the browser's language (Gradio 6 titles each toast with its
# kind, "Info", "Warning"…, in English and ignores ``title=``): the title is renamed where drawn
TOAST_JS = """
() => {
  if (!(navigator.language || '').toLowerCase().startsWith('zh')) return;
  const titles = %s;
  const rename = () => document.querySelectorAll('.toast-title').forEach((el) => {
    const node = el.firstChild;
    const said = node && node.nodeType === Node.TEXT_NODE ? node.nodeValue.trim() : '';
    if (titles[said]) node.nodeValue = titles[said] + ' ';
  });
  new MutationObserver(rename).observe(document.body, {childList: true, subtree: true, characterData: true});
}
""" % json.dumps(TOAST_TITLES, ensure_ascii=False)


def ui_choices(pairs: Any) -> list[tuple[Any, Any]]:
    """A radio's or dropdown's (label, value) choices with their labels in the browser's language
    (the values, which the handlers read, stay as they are)."""
    return [(ui_text(label), value) for label, value in pairs]
