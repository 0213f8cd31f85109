"""The judge model's part, through litellm with scripted fake models: header mapping, key
mapping, one batched call per llm column, and the fallbacks when the judge fails."""

from __future__ import annotations

import json

import pytest

from vibesearch.tables import get_table_task, score_table

HEADERS = {"Name": "姓名", "Dynasty": "朝代", "Courtesy name": "字", "Born": "出生年份"}
KEYS = {"Han Yu": "韩愈", "Su Shi": "苏轼"}

ANSWER = """| Name | Dynasty | Courtesy name | Born |
|---|---|---|---|
| Han Yu | 唐朝 | 退之 | 768 |
| 柳宗元 | 唐 | 子厚 | 773 |
| 欧阳修 | 北宋 | 永叔 | 1007 |
| 苏洵 | 宋 | 明允 | 1009 |
| Su Shi | 南宋 | 子瞻 | 1037 |
| 苏辙 | 北宋 | 子由 | 1039 |
| 王安石 | 北宋 | 介甫 | 1021 |
| 曾巩 | 北宋 | 子固 | 1019 |
"""


def strict_judge(calls: list):
    """Maps known headers/keys; grades a dynasty right only as written or with 朝/代 added."""

    def handler(req):
        system, payload = req.system, json.loads(req.last_user)
        calls.append((system, payload))
        if "header of a table" in system:
            pairs = [{"answer": h, "gold": HEADERS.get(h)} for h in payload["written_headers"]]
            return req_reply({"pairs": pairs})
        if "line up the rows" in system:
            pairs = [{"answer": k, "gold": KEYS.get(k)} for k in payload["answer_keys"]]
            return req_reply({"pairs": pairs})
        if "grade the cells" in system:
            verdicts = [
                {"id": it["id"], "right": it["answer"] in (it["reference"], it["reference"] + "朝", it["reference"] + "代"), "reason": "strict"}
                for it in payload["items"]
            ]
            return req_reply({"verdicts": verdicts})
        raise AssertionError("unexpected prompt")

    return handler


def req_reply(obj):
    from vibesearch.llm.fake import Reply

    return Reply(content=json.dumps(obj, ensure_ascii=False))


@pytest.fixture
def tang():
    return get_table_task("tang-song-masters")


def test_judge_maps_headers_and_keys_and_grades_llm_column(fake, settings, tang):
    calls: list = []
    model = fake.register("table-judge", strict_judge(calls))
    s = score_table(tang, ANSWER, judge=model, settings=settings)
    assert s.judge == model and s.parsed
    kinds = [("header" if "header of a table" in c[0] else "key" if "line up" in c[0] else "grade") for c in calls]
    assert kinds == ["header", "key", "grade"]  # one batched call for the one llm column
    # only the undecided dynasty cells went to the judge (exact matches are decided offline)
    grade_items = calls[2][1]["items"]
    assert sorted(it["answer"] for it in grade_items) == ["南宋", "唐朝", "宋"]
    assert calls[2][1]["column"] == "朝代" and tang.column("朝代").rule in calls[2][0]
    dyn = {c.row_key: c for c in s.cells if c.column == "朝代"}
    assert dyn["Han Yu"].right and not dyn["苏洵"].right and not dyn["Su Shi"].right
    assert dyn["苏洵"].note == "strict"
    # 8 aligned rows, 2 wrong cells: right rows 6, right cells 32 - 2 = 30
    assert s.n_right_rows == 6 and s.n_right_cells == 30
    assert s.row_f1 == pytest.approx(6 / 8) and s.item_f1 == pytest.approx(30 / 32)
    assert "header 'Dynasty' mapped to column '朝代' by the judge model" in s.reason
    notes = {r.key: r.note for r in s.rows}
    assert notes["Su Shi"] == "key mapped to '苏轼' by the judge model"


def test_same_answer_offline_fails_on_headers(tang):
    s = score_table(tang, ANSWER)
    assert s.item_f1 == 0 and "no judge model" in s.reason


def test_offline_llm_column_falls_back_and_says_so(tang):
    answer = ANSWER
    for en, zh in {**HEADERS, **KEYS}.items():
        answer = answer.replace(f"| {en} |", f"| {zh} |")
    s = score_table(tang, answer)
    dyn = {c.row_key: c for c in s.cells if c.column == "朝代"}
    # containment: 唐朝 ~ 唐 and 宋 ~ 北宋 pass offline, 南宋 vs 北宋 does not
    assert dyn["韩愈"].right and dyn["苏洵"].right and not dyn["苏轼"].right
    assert dyn["苏洵"].note.startswith("offline fallback")
    assert "graded by a judge model, but none is set" in s.reason


def test_failing_judge_on_headers_scores_zero_with_reason(fake, settings, tang):
    model = fake.register("broken-judge", lambda req: fake.Reply(error="400"))
    s = score_table(tang, ANSWER, judge=model, settings=settings)
    assert s.item_f1 == 0 and "could not map the headers (LLMError)" in s.reason


def test_failing_or_silent_judge_on_a_column_falls_back(fake, settings, tang):
    answer = "| 姓名 | 朝代 | 字 | 出生年份 |\n|---|---|---|---|\n| 韩愈 | 唐朝 | 退之 | 768 |\n| 苏洵 | 宋 | 明允 | 1009 |"
    broken = fake.register("col-broken", lambda req: fake.Reply(error="400"))
    s = score_table(tang, answer, judge=broken, settings=settings)
    assert "the judge call for column '朝代' failed" in s.reason
    assert s.n_unscored_cells == 2
    assert all(c.right for c in s.cells if c.column == "朝代" and s.rows[c.row].status == "matched")  # offline containment

    def answers_one(req):
        items = json.loads(req.last_user)["items"]
        return fake.Reply(content=json.dumps({"verdicts": [{"id": items[0]["id"], "right": False}]}))

    silent = fake.register("col-silent", answers_one)
    s = score_table(tang, answer, judge=silent, settings=settings)
    dyn = [c for c in s.cells if c.column == "朝代" and s.rows[c.row].status == "matched"]
    assert s.n_unscored_cells == 1
    assert sorted(c.right for c in dyn) == [False, True]
    assert any(c.note.startswith("no verdict from the judge model") for c in dyn)


def test_judge_key_mapping_cannot_invent_keys(fake, settings, planets):
    def handler(req):
        payload = json.loads(req.last_user)
        # maps to a key that does not exist, and twice to the same gold key
        return fake.Reply(content=json.dumps({"pairs": [
            {"answer": payload["answer_keys"][0], "gold": "Pluto"},
            {"answer": payload["answer_keys"][0], "gold": "Mars"},
            {"answer": payload["answer_keys"][1], "gold": "Mars"},
        ]}))

    model = fake.register("key-judge", handler)
    answer = "| Planet | Order | Type |\n|---|---|---|\n| Marz | 4 | terrestrial |\n| Red planet | 4 | terrestrial |"
    s = score_table(planets, answer, judge=model, settings=settings)
    statuses = {r.key: r.status for r in s.rows if r.status != "missing"}
    assert statuses == {"Marz": "matched", "Red planet": "extra"}
