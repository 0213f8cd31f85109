"""The Chinese of the text the server draws for a browser (read through ``_words.zh_text``, beside
the labels' table ``_words._ZH_LABELS``; never given to Gradio's i18n, which would translate a
component's value equal to a key): the Leaderboard's tables, summary,
plots and per-stage views, the graph picture's legend and heading, the New campaign form's status
lines, the filters' first values, the notices' titles and the page's fixed refusals. The English text is the key; a key
holding ``{name}`` fields is a template (filled after it is translated).
"""

from __future__ import annotations

# the first value of a filter menu (the value sent stays the English token: ``_words.first_choice``)
MENU_FIRSTS = {"(any)": "（任意）", "(all)": "（全部）", "(judge with most scores)": "（得分最多的评判）"}

# a notice's title (Gradio 6 titles a toast with its kind, in English whatever the locale: a page
# script renames it, ``_words.TOAST_JS``)
TOAST_TITLES = {"Info": "提示", "Warning": "警告", "Error": "错误", "Success": "成功"}

# Gradio's own words its zh-CN table leaves in English (given to the Chinese side of ``_words.UI_I18N`` only:
# English keeps Gradio's own text)
GRADIO_ZH = {"status.queue_position": "排队中：第 {position} 位，共 {size} 位"}

# the Runs table's headers (``runs.RUN_HEADERS``: "run" is also the value of the Label tab's scope radios)
RUNS = {
    "run": "运行", "started (UTC)": "开始时间（UTC）", "task": "任务", "agent": "智能体", "agent model": "智能体模型",
    "user": "用户", "status": "状态", "termination": "结束方式", "judge": "评判", "source": "来源",
}

LEADERBOARD = {
    # the tables' headers (``leaderboard.*_HEADERS``, ``reports.noise.HEADERS``, ``reports.stages``)
    "configuration": "配置", "profile": "协议配置", "group": "分组", "tasks": "任务数", "runs": "运行数",
    "Avg F1 95% CI": "Avg F1 95% 置信区间", "Best F1 95% CI": "Best F1 95% 置信区间", "F1 SD": "F1 标准差",
    "Avg node F1": "Avg 节点 F1", "Best node F1": "Best 节点 F1", "left out": "排除", "vs the next configuration": "与下一个配置相比",
    "tool calls": "工具调用", "tools / user turn": "每个用户轮次的工具调用", "compactions": "压缩次数",
    "input tokens": "输入词元", "output tokens": "输出词元", "cost (USD)": "费用（美元）",
    "mean F1": "平均 F1", "mean recall": "平均召回率",
    "not ranked against {lower}: {n} shared task(s)": "未与 {lower} 排名比较：共同任务 {n} 个",
    "inside the noise vs {lower}": "与 {lower} 相比在噪声范围内", "above {lower}": "高于 {lower}", ", noise ±{margin}": "，噪声 ±{margin}",
    "SR Avg@N": "成功率 Avg@N", "SR Pass@N": "成功率 Pass@N",
    "noise": "噪声", "95% interval": "95% 区间", "note": "说明",
    "vibesearch profile": "vibesearch 协议配置", "official protocol, {prompts}": "official 协议，{prompts}", "own prompts": "自带提示词",
    "deterministic judge: its judgements of one graph are equal by construction": "确定性评判：同一图谱的多次评判按构造完全相同",
    "no task has two scored runs of one configuration": "没有哪个任务有同一配置的两次已评分运行",
    "no task has two scored runs with the user fixed (a rule-based user or a shared simulator seed)":
        "没有哪个任务有用户固定（基于规则的用户或共用模拟器种子）的两次已评分运行",
    "no graph was judged more than once (vibesearch score --repeat K)": "没有哪个图谱被评判过不止一次（vibesearch score --repeat K）",
    "user (simulator)": "用户（模拟器）", "combined": "合计", "not measured": "未测量", "not measured: {why}": "未测量：{why}",
    "stage": "阶段", "triples": "三元组", "recall (reached)": "召回率（已到达）", "recall (not reached)": "召回率（未到达）",
    "runs ended here": "在此结束的运行", "stages reached": "到达的阶段数",
    # the figures' values
    "unknown": "未知", "n/a": "不适用", "all": "全部", "subset {name}": "子集 {name}", "language {name}": "语言 {name}",
    "1 task": "1 个任务",
    # the summary under the filters
    "Your runs only (runs are private on this server) · ": "只含你的运行（本服务器上的运行是私有的）· ",
    "filtered: ": "已筛选：", " or ": " 或 ", "subset": "子集", "language": "语言", "model": "模型",
    "{runs} finished or scored persona runs · {scores} scores by the **{judge}** · ":
        "{runs} 次已结束或已评分的角色运行 · {scores} 个由**{judge}**给出的得分 · ",
    "offline judge": "离线评判", "judge {name}": "评判 {name}",
    "profiles: {names} · ": "协议配置：{names} · ",
    "left out (cancelled by a person, not samples): {n} · ": "排除（被人取消，不算样本）：{n} · ",
    "terminations: ": "结束方式：", "no runs yet": "还没有运行",
    "\n\n**Noise: user, agent, judge** (F1 standard deviation of one run, percentage points; 95% cluster-bootstrap "
    "intervals; the judge's from repeated judgements, `vibesearch score --repeat K`):\n\n":
        "\n\n**噪声：用户、智能体、评判**（单次运行 F1 的标准差，单位为百分点；95% 整群自助法区间；"
        "评判的噪声来自重复评判，`vibesearch score --repeat K`）：\n\n",
    "\n\n**Judge agreement with people** (final human labels; 95% bootstrap intervals in brackets):\n\n":
        "\n\n**评判与人工标注的一致程度**（最终人工标注；括号内为 95% 自助法区间）：\n\n",
    "- left out as open ties (labels split evenly, not adjudicated): ": "- 作为未决平局排除（标注意见各半，尚未裁定）：",
    "Queued batches still going, not yet all in these numbers: ": "仍在进行的排队批次，尚未全部计入这些数字：",
    "{batch}: {running} running{where}, {planned} waiting, {finished} finished":
        "{batch}：{running} 个进行中{where}，{planned} 个等待，{finished} 个已结束",
    " on {workers}": "（在 {workers} 上）", " (and {n} more)": "（还有 {n} 个）",
    # the plots
    "Avg@N F1 by configuration and subset": "按配置和子集的 Avg@N F1", "all tasks": "全部任务", "Pro": "pro 子集", "Daily": "daily 子集",
    "{name}: Avg F1 {avg}, Best F1 {best} ({runs} runs)": "{name}：Avg F1 {avg}，Best F1 {best}（{runs} 次运行）",
    "Precision against recall (one point per run)": "精确率与召回率（每次运行一个点）",
    "recall (%)": "召回率（%）", "precision (%)": "精确率（%）", "No scored runs yet": "还没有已评分的运行",
    # the per-stage views (``reports.stages``)
    "No per-stage figures: no scored run of a task with readable stages.": "没有分阶段数据：还没有哪个阶段可读的任务有已评分的运行。",
    "Recall by stage": "按阶段的召回率", "F1 by stages reached": "按到达阶段数的 F1",
    "The ground-truth triples whose head or tail a stage's words name; recall over the runs that reached the "
    "stage and over those that did not. Stages are counted from 1 (the opening query is stage 1).":
        "某阶段的文字提到其头实体或尾实体的标准答案三元组；分别统计到达该阶段和没有到达该阶段的运行的召回率。阶段从 1 开始计数（开场问题是第 1 阶段）。",
    "Where runs stall (the stage most runs ended on without disclosing the next)": "运行在哪里停滞（多数运行在此结束、没能透露下一阶段的阶段）",
    "{task}: stage {stage} ({name}, {runs} runs ended there)": "{task}：第 {stage} 阶段（{name}，{runs} 次运行在此结束）",
    "none": "无",
}

GRAPH = {
    # the legend (``results.graph.LABELS``) and the entities' trace
    "ground truth: covered": "标准答案：已覆盖", "ground truth: missed": "标准答案：遗漏",
    "predicted: valid": "预测：有效", "predicted: invalid": "预测：无效",
    "ground truth (not judged)": "标准答案（未评判）", "predicted (not judged)": "预测（未评判）",
    "{label}: triples": "{label}：三元组", "entities ({n})": "实体（{n}）",
    # the heading and the notes of an empty picture
    "{gt} ground-truth vs {pred} predicted triples": "标准答案 {gt} 个三元组，预测 {pred} 个三元组",
    " · verdicts of the {judge} judge": " · {judge} 评判的结论", " · not scored": " · 未评分",
    "run {id}: {n} predicted triples": "运行 {id}：{n} 个预测三元组",
    "showing {what}: {n} of {total} triples": "{what}：{total} 个三元组中的 {n} 个",
    "neighbourhood of “{name}”": "“{name}”的邻域",
    "pick an entity to see its neighbourhood": "选择一个实体以查看它的邻域",
    "Not scored yet: score the run to see which triples are missed or invalid.": "尚未评分：为这次运行评分后才能看到哪些三元组遗漏或无效。",
    "No missed ground-truth triples: every one is covered.": "没有遗漏的标准答案三元组：每一个都已覆盖。",
    "No invalid predicted triples.": "没有无效的预测三元组。",
    "Pick an entity to see its neighbourhood.": "选择一个实体以查看它的邻域。",
    "No triples to draw.": "没有可画的三元组。",
    "ground truth": "标准答案", "predicted": "预测",
    "ground truth only": "仅标准答案", "prediction only": "仅预测", "both graphs": "两个图谱",
    "<b>{name}</b> · in {kind}<br>": "<b>{name}</b> · 出现在{kind}<br>", "<br>… and {n} more": "<br>……还有 {n} 条",
    "Not scored yet: the missed ground-truth triples appear once the run is scored.": "尚未评分：为这次运行评分后，这里会列出遗漏的标准答案三元组。",
}

CAMPAIGN = {  # the New campaign form's status lines (``campaign_new``)
    "Only an admin (a login named in VIBESEARCH_ADMINS) makes campaigns here; without one, use `vibesearch campaign create`.":
        "只有管理员（VIBESEARCH_ADMINS 中列出的登录名）能在这里创建标注活动；其他人请用 `vibesearch campaign create`。",
    "Not created: {why}": "未创建：{why}",
    "Campaign **{name}** made: {runs} runs, sides {sides}, annotators {people}, k = {k}, {blind}. Pick it above to start labelling.":
        "标注活动 **{name}** 已创建：{runs} 次运行，标注方面 {sides}，标注者 {people}，k = {k}，{blind}。在上方选择它即可开始标注。",
    "blind": "盲评", "not blind (judge review)": "非盲评（评判复核）",
    "blind must be ticked or not (true or false)": "盲评只能勾选或不勾选（true 或 false）",
    "annotators: give the names comma-separated": "标注者：请用逗号分隔填写姓名",
    "at most {n} annotators": "最多 {n} 位标注者",
    "the form's fields must be text": "表单的字段必须是文本",
    "a picked run is not one this form offers (finished, with a graph, readable by you)":
        "选中的运行不在本表单提供的范围内（须已结束、带知识图谱、你可以查看）",
    "the overlap k must be a whole number": "重叠数 k 必须是整数",
    "coverage": "覆盖", "validity": "有效性",  # a campaign's sides as the status line names them
}

REFUSALS = {  # a page handler's fixed refusals and warnings (``_refusals``; Play's and the study player's Send)
    "Choose a task first.": "请先选择一个任务。", "No run is going.": "没有正在进行的运行。", "No run to stop.": "没有可停止的运行。",
    "Choose what you do this turn first (disclose, push, perfunctory, redirect or done), then Send.":
        "请先选择这一轮怎么做（透露、追问、敷衍、拉回或结束），再点发送。",
    "Choose what you do this turn first, then Send.": "请先选择这一轮怎么做，再点发送。",
    "Pick a run to replay, or type its id (the Runs tab lists them).": "请选择要回放的运行，或输入它的编号（“运行记录”页列出了所有运行）。",
    "Open a run first.": "请先打开一次运行。", "Type or click a run id first.": "请先输入或点击一个运行编号。",
    "Only the run's owner or an admin can score it.": "只有运行的所有者或管理员可以为它评分。",
    "The run is still going; score it when it has ended.": "运行仍在进行；结束后再评分。",
    "Only the browser or login that started this run (or an admin) can continue it.": "只有发起这次运行的浏览器或登录（或管理员）可以继续它。",
    "Only the browser or login that started this run can play it.": "只有发起这次运行的浏览器或登录可以扮演它。",
    "Only the browser or login that started this run (or an admin) can stop it.": "只有发起这次运行的浏览器或登录（或管理员）可以停止它。",
    "This page is for a study's player.": "本页面供研究的玩家使用。",
    "This play's persona is not on this server; tell the study's organiser.": "这次扮演的角色不在本服务器上；请告知研究的组织者。",
    "No play is going.": "没有正在进行的扮演。",
    "Only an admin (VIBESEARCH_ADMINS) makes and follows studies.": "只有管理员（VIBESEARCH_ADMINS）可以创建和查看研究。",
    "the database cannot be reached now; try again shortly": "现在无法连接数据库；请稍后再试",
}

TRUST = {  # a judge's agreement with the people and the footnotes under the scores (``_trust_words``)
    "covered": "已覆盖", "valid": "有效",
    "coverage {side}": "覆盖：{side}", "validity {side}": "有效性：{side}",
    "agreement {agree}, κ {kappa}, AC1 {ac1}, n {n}, \"{positive}\" {prev}% of the people's labels; {ceiling}":
        "一致率 {agree}，κ {kappa}，AC1 {ac1}，n {n}，人工标注中“{positive}”占 {prev}%；{ceiling}",
    "human ceiling: people agree {agree} with each other (n {items} items, {pairs} pairs), AC1 {ac1}":
        "人工上限：标注者之间一致 {agree}（n {items} 个条目，{pairs} 对），AC1 {ac1}",
    "human ceiling: none (no item labelled by two or more people)": "人工上限：无（没有由两人或以上标注的条目）",
    "{mark} below {pct}% of the time, or never measured":
        "{mark} 这些数字背后的评判与人工标注一致的比例低于 {pct}%，或从未测量过其一致程度（没有它的运行的已存标注）。",
    "{mark} --min-judge-agreement {t}: no human ceiling":
        "{mark} --min-judge-agreement {t}：无法计算人工上限（共同条目上的标注者少于 2 人），因此每个评判都视为未测量。",
    "{cov}% on the coverage side": "覆盖方面 {cov}%", ", {val}% on the validity side": "，有效性方面 {val}%",
    "; the validity side is not gated": "；有效性方面没有上限，不设门槛",
    "{mark} below the ceiling less {points} points ({t}: {sides}), or never measured":
        "{mark} 这些数字背后的评判与人工标注一致的比例，低于标注者之间的一致比例减去 {points} 个百分点（{t}：{sides}），或从未测量过其一致程度。",
    "Judge agreement with people (95% bootstrap intervals):": "评判与人工标注的一致程度（95% 自助法区间）：",
}
# the judge failures' footnote (``judges.judge_failures.FAILURES_FOOTNOTE``: read by ``_trust_words``)
FAILURES_ZH = ("‡ 评判失败：部分评判批次最终失败的样本数（在 official 协议下按官方规则判为未覆盖），或者在拒绝失败评判之前保存的"
               "我们协议的得分中，有标准答案三元组未被评分的样本数（召回率只按已评分的计算）。评判恢复正常后请为这些运行重新评分。")

COMPARE = {  # the Compare tab's drawn text (``compare_view``)
    "{id} ({agent}, user {user}, {turns} turns)": "{id}（{agent}，用户 {user}，{turns} 轮）",
    "task {task} · A = {a} · B = {b}": "任务 {task} · A = {a} · B = {b}",
    "A reached at turn": "A 到达于第几轮", "B reached at turn": "B 到达于第几轮", "A tool calls": "A 工具调用",
    "B tool calls": "B 工具调用", "A tokens": "A 词元", "B tokens": "B 词元",
    "Not scored yet: {runs}. Score both runs to compare what they covered.": "尚未评分：{runs}。为两次运行都评分后才能对比它们覆盖了什么。",
    "verdicts of the {judge} judge · F1 A {a} · B {b}": "{judge} 评判的结论 · F1 A {a} · B {b}",
    "Covered in both": "两者都覆盖", "Only in A": "仅 A 覆盖", "Only in B": "仅 B 覆盖", "In neither": "两者都未覆盖",
    "Give two run ids.": "请给出两个运行编号。", "No run `{id}` in this database.": "此数据库中没有运行 `{id}`。",
    "Comparing **{a}** (A) with **{b}** (B).": "正在对比 **{a}**（A）与 **{b}**（B）。",
    "Choose two configurations (the lists hold those with finished runs you may read).":
        "请选择两个配置（列表中是有你可以查看的已结束运行的配置）。",
    "A and B are the same configuration: choose two different ones.": "A 和 B 是同一个配置：请选择两个不同的配置。",
    "A F1 (%)": "A F1（%）", "B F1 (%)": "B F1（%）", "B − A (points)": "B − A（百分点）", "runs A": "A 的运行数", "runs B": "B 的运行数",
    "B − A = {diff} [{lo}, {hi}] F1 points over {n} task(s): {verdict}": "B − A = {diff} [{lo}, {hi}] 个 F1 百分点，基于 {n} 个任务：{verdict}",
    "{side} = {spec} · {runs} run(s) · noise floor: F1 SD across runs {sd} ({repeated} task(s) repeated), with the user fixed "
    "{fixed}; split (F1 SD in points, 95% interval): {split}":
        "{side} = {spec} · {runs} 次运行 · 噪声下限：各次运行的 F1 标准差 {sd}（{repeated} 个任务有重复运行），固定用户时为 "
        "{fixed}；拆分（F1 标准差，单位为百分点，95% 区间）：{split}",
    " not measured": " 未测量",
    # ``labels.config_compare``'s verdicts (``compare_view.verdict_text``)
    "not ranked: {n} shared task (at least {min} are needed to tell them apart)": "不排名：共同任务只有 {n} 个（至少需要 {min} 个才能区分）",
    "inside the noise floor: the interval contains 0, so neither is ranked above the other": "在噪声下限之内：区间包含 0，因此两者不分高下",
    "inside the noise floor: |B − A| is within the combined noise (±{margin} F1 points), so neither is ranked above the other":
        "在噪声下限之内：|B − A| 落在合并噪声（±{margin} 个 F1 百分点）之内，因此两者不分高下",
    "B scores higher than A": "B 的得分高于 A", "A scores higher than B": "A 的得分高于 B",
}

LABEL = {  # the Label tab's campaign notes (``_label_view``, ``label_campaign.progress_md``; ``labels.campaigns.blind_words``)
    "<b>Judge review</b> (this campaign is not blind): no judge has scored this run yet.":
        "<b>评判复核</b>（本标注活动不是盲评）：还没有评判为这次运行评分。",
    "<b>Judge review</b> (this campaign is not blind) — the judge's verdict, for you to check: ":
        "<b>评判复核</b>（本标注活动不是盲评）——评判的结论，供你核对：",
    "Blind: the judges' verdicts on this triple appear once you have labelled it.": "盲评：你标注这个三元组之后，才会显示评判对它的结论。",
    "<b>{judge}</b> says <b>{word}</b>{evidence}": "<b>{judge}</b> 判为<b>{word}</b>{evidence}",
    " (evidence {numbers})": "（证据 {numbers}）", "; ": "；",
    "not covered": "未覆盖", "invalid": "无效", "unscored": "未评分",
    "The judges' verdicts on this triple appear once you have labelled it.": "你标注这个三元组之后，才会显示评判对它的结论。",
    "No judge has scored this run yet (score it in the Runs tab).": "还没有评判为这次运行评分（在“运行记录”页为它评分）。",
    "Load a run to start labelling.": "加载一次运行即可开始标注。", "This run has no {kind} triples.": "这次运行没有{kind}三元组。",
    "ground-truth": "标准答案", "Your label:": "你的标注：", " · evidence {numbers}": " · 证据 {numbers}", " · rule {rule}": " · 规则 {rule}",
    "Ground-truth triple {n} of {total}": "标准答案三元组 {n} / {total}", "Predicted triple {n} of {total}": "预测三元组 {n} / {total}",
    " · run {run} · campaign {campaign}": " · 运行 {run} · 标注活动 {campaign}",
    "Campaign **{name}** ({blind}): {you}items done {done} / {items} (k={k}) · labels {labels} / {needed} · disagreements waiting: {pending}":
        "标注活动 **{name}**（{blind}）：{you}已完成条目 {done} / {items}（k={k}）· 标注 {labels} / {needed} · 待处理的分歧：{pending}",
    "**{name}**: {labelled} labelled, {left} left in your queue · ": "**{name}**：已标注 {labelled} 个，队列中还剩 {left} 个 · ",
}

VOTE = {  # the Vote tab's lines (``vote``, ``_vote_view``)
    "Pick a vote campaign, then press “Next pair”.": "请选择一个投票活动，然后点“下一对”。",
    "Pair {n} · vote campaign {name} · which answer would this person pick? Read the persona, then both answers.":
        "第 {n} 对 · 投票活动 {name} · 这个人会选哪个回答？先读角色，再读两个回答。",
    "*(no final answer: the agent gave the user no reply)*": "*（没有最终回答：智能体没有回复用户）*",
    "**{name}**: {voted} voted, {left} left in your queue · ": "**{name}**：已投 {voted} 票，队列中还剩 {left} 对 · ",
    "Vote campaign **{name}**: {you}pairs done {done} / {items} (k={k}) · votes {votes} / {needed}":
        "投票活动 **{name}**：{you}已完成 {done} / {items} 对（k={k}）· 票数 {votes} / {needed}",
    "Pick a vote campaign first.": "请先选择一个投票活动。", "Type your name first (votes are stored under it).": "请先输入你的名字（投票保存在这个名字下）。",
    "Your queue in vote campaign {name} is empty: every pair has your vote or enough votes.":
        "你在投票活动 {name} 中的队列已空：每一对都已有你的投票或足够的票数。",
    "A study's player votes at the end of their play, not here.": "研究的玩家在扮演结束时投票，而不是在这里。",
    "Press “Next pair” first.": "请先点“下一对”。", "Pair {n}: {winner}.": "第 {n} 对：{winner}。",
    "A is better": "A 更好", "B is better": "B 更好", "a tie": "平手", "both bad": "都不好",
    "Nothing else is left in your queue: this is the last pair without your vote.": "你的队列里没有别的了：这是最后一对还没有你投票的。",
    "Skipped pair {n}.": "已跳过第 {n} 对。",
    # the New vote campaign form (``_vote_new``)
    "Only an admin (a login named in VIBESEARCH_ADMINS) makes vote campaigns here; without one, use `vibesearch votes campaign create`.":
        "只有管理员（VIBESEARCH_ADMINS 中列出的登录名）能在这里创建投票活动；其他人请用 `vibesearch votes campaign create`。",
    "Vote campaign **{name}** made: {pairs} pairs ({attention} attention checks), voters {voters}, k = {k}. Pick it above to start voting.":
        "投票活动 **{name}** 已创建：{pairs} 对（其中 {attention} 对是注意力检查），投票者 {voters}，k = {k}。在上方选择它即可开始投票。",
}

DRAWN: dict[str, str] = {**MENU_FIRSTS, **RUNS, **LEADERBOARD, **GRAPH, **CAMPAIGN, **REFUSALS, **TRUST, **COMPARE, **LABEL, **VOTE}
