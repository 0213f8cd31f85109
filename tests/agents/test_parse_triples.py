"""parse_triples on malformed model output: each case is parsed or reported, none raises."""

from __future__ import annotations

import json
import random
import string

import pytest

from vibesearch.agents import parse_triples

A = {"head": "Euler", "relation": "born in", "tail": "Basel"}
B = {"head": "Gauss", "relation": "born in", "tail": "Brunswick"}
AB = json.dumps([A, B])
EA = [A]
EAB = [A, B]


def _garbage(n: int, seed: int = 7) -> str:
    rnd = random.Random(seed)
    return "".join(rnd.choice(string.printable + "[]{}\"'") for _ in range(n))


# (id, text, expected triples (None = not checked exactly), repairs that must be recorded,
#  drop reasons that must be recorded (substring match))
CASES = [
    ("clean", AB, EAB, [], []),
    ("code_fence", f"```json\n{AB}\n```", EAB, ["removed code fence"], []),
    ("fence_no_language", f"```\n{AB}\n```", EAB, ["removed code fence"], []),
    ("unclosed_fence", f"```json\n{AB}", EAB, ["removed code fence"], []),
    ("prose_around", f"Here is the graph you asked for:\n{AB}\nLet me know if you need more [1].", EAB, ["removed text around the JSON"], []),
    ("prose_before_with_brackets", f"Triples [as requested]:\n{AB}", EAB, ["removed text around the JSON"], []),
    ("trailing_commas", '[{"head": "Euler", "relation": "born in", "tail": "Basel",},]', EA, ["json repaired"], []),
    ("single_quotes", "[{'head': 'Euler', 'relation': 'born in', 'tail': 'Basel'}]", EA, ["json repaired"], []),
    ("missing_colon", '[{"head" "Euler", "relation": "born in", "tail": "Basel"}]', EA, ["json repaired"], []),
    ("missing_comma_in_object", '[{"head": "Euler" "relation": "born in", "tail": "Basel"}]', EA, ["json repaired"], []),
    ("missing_comma_between_objects", json.dumps(A) + "\n" + json.dumps(B), EAB, ["gathered several top-level objects into a list"], []),
    ("missing_comma_in_array", "[" + json.dumps(A) + "\n" + json.dumps(B) + "]", EAB, ["json repaired"], []),
    ("truncated_array", "[" + json.dumps(A) + ', {"head": "Gauss", "rela', EA, ["json repaired", "closed a truncated array"], ["missing"]),
    ("truncated_mid_string", "[" + json.dumps(A) + ', {"head": "Gauss", "relation": "born in", "tail": "Bruns', None, ["closed a truncated array"], []),
    ("wrapped_triples", json.dumps({"triples": [A, B]}), EAB, ["unwrapped object (key 'triples')"], []),
    ("wrapped_other_key", json.dumps({"knowledge_graph": {"edges": [A]}}), EA, ["unwrapped object (key 'edges')"], []),
    ("single_object", json.dumps(A), EA, ["wrapped a single triple object in a list"], []),
    ("numeric_tail", '[{"head": "Euler", "relation": "birth year", "tail": 1707}]', [{"head": "Euler", "relation": "birth year", "tail": "1707"}], ["converted non-string values to text"], []),
    ("float_tail", '[{"head": "e", "relation": "approximate value", "tail": 2.718}]', [{"head": "e", "relation": "approximate value", "tail": "2.718"}], ["converted non-string values to text"], []),
    ("alternate_keys_spo", '[{"subject": "Euler", "predicate": "born in", "object": "Basel"}]', EA, ["renamed keys to head/relation/tail"], []),
    ("alternate_keys_hrt", '[{"h": "Euler", "r": "born in", "t": "Basel"}]', EA, ["renamed keys to head/relation/tail"], []),
    ("capitalised_keys", '[{"Head": "Euler", "Relation": "born in", "Tail": "Basel"}]', EA, ["renamed keys to head/relation/tail"], []),
    ("empty_string", "", [], [], ["empty"]),
    ("whitespace_only", "   \n\t ", [], [], ["empty"]),
    ("null", "null", [], [], ["no JSON"]),
    ("prose_only", "I am sorry, I could not find any facts.", [], [], ["no JSON"]),
    ("nested_lists", "[[" + json.dumps(A) + "], [" + json.dumps(B) + "]]", EAB, ["flattened a nested list"], []),
    ("list_triples", '[["Euler", "born in", "Basel"], ["Gauss", "born in", "Brunswick"]]', EAB, ["read [head, relation, tail] lists as triples"], []),
    ("chinese", '以下是三元组：\n```json\n[{"head": "张衡", "relation": "发明", "tail": "候风地动仪"}]\n```\n希望有帮助。', [{"head": "张衡", "relation": "发明", "tail": "候风地动仪"}], ["removed code fence"], []),
    ("chinese_full_width_prose", '好的。[{"head": "屈原", "relation": "代表作", "tail": "离骚"}]', [{"head": "屈原", "relation": "代表作", "tail": "离骚"}], ["removed text around the JSON"], []),
    ("list_tail_split", '[{"head": "Euler", "relation": "worked in", "tail": ["Saint Petersburg", "Berlin"]}]', [{"head": "Euler", "relation": "worked in", "tail": "Saint Petersburg"}, {"head": "Euler", "relation": "worked in", "tail": "Berlin"}], ["split a list tail into one triple per value"], []),
    ("missing_fields_and_junk_items", '[{"head": "Euler", "relation": "born in"}, "just text", 42, null, ' + json.dumps(A) + "]", EA, [], ["missing tail", "not a triple object (text)", "not a triple object (int)", "not a triple object (null)"]),
    ("empty_values", '[{"head": "", "relation": "born in", "tail": "Basel"}, {"head": "Euler", "relation": "born in", "tail": null}]', [], [], ["head is empty", "tail is missing (null)"]),
    ("object_tail", '[{"head": "Euler", "relation": "born", "tail": {"city": "Basel"}}]', [], [], ["tail is an object"]),
    ("duplicates", json.dumps([A, A, {"head": "euler", "relation": "Born in", "tail": "BASEL"}]), EA, [], ["duplicate"]),
    ("thinking_block", "<think>Maybe [x] or {y}...</think>\n" + AB, EAB, ["removed a reasoning block"], []),
    ("empty_array", "[]", [], [], []),
    ("scalar_json", "42", [], [], ["no JSON"]),
    ("object_without_triples", '{"status": "ok", "count": 3}', [], [], ["expected a JSON array of triples"]),
    ("huge_garbage", _garbage(200_000), None, [], []),
    ("garbage_then_json", _garbage(5_000).replace("[", "(").replace("{", "(") + "\n" + AB, EAB, ["removed text around the JSON"], []),
    ("unquoted_keys", "[{head: 'Euler', relation: 'born in', tail: 'Basel'}]", EA, ["json repaired"], []),
    ("bool_tail", '[{"head": "Euler", "relation": "was Swiss", "tail": true}]', [{"head": "Euler", "relation": "was Swiss", "tail": "true"}], ["converted non-string values to text"], []),
    ("extra_keys", '[{"head": "Euler", "relation": "born in", "tail": "Basel", "source": "https://x"}]', None, [], []),
]


@pytest.mark.parametrize("name,text,expected,repairs,drops", CASES, ids=[c[0] for c in CASES])
def test_malformed_outputs_are_parsed_or_reported(name, text, expected, repairs, drops):
    result = parse_triples(text)
    assert result.raw_text == text
    for triple in result.triples:
        assert set(triple) == {"head", "relation", "tail"}
        assert all(isinstance(v, str) and v.strip() for v in triple.values())
    if expected is not None:
        assert result.triples == expected
    for note in repairs:
        assert note in result.repaired, (note, result.repaired)
    reasons = " | ".join(d["reason"] for d in result.dropped)
    for reason in drops:
        assert reason in reasons, (reason, reasons)
    if expected == [] and text.strip() not in ("[]",):
        # nothing usable: the output must say why
        assert result.dropped, name


def test_there_are_at_least_thirty_cases():
    assert len(CASES) >= 30


def test_objects_without_array_are_gathered():
    # JSON lines, and objects separated by commas with no brackets, and a broken second object
    assert parse_triples(json.dumps(A) + "\n" + json.dumps(B)).triples == EAB
    assert parse_triples(json.dumps(A) + ",\n" + json.dumps(B) + "\nThat is all.").triples == EAB
    broken = parse_triples(json.dumps(A) + "\n{'head': 'Gauss', 'relation': 'born in', 'tail': 'Brunswick'}")
    assert broken.triples == EAB
    assert "json repaired" in broken.repaired


def test_truncated_mid_string_keeps_complete_triples():
    text = "[" + json.dumps(A) + ', {"head": "Gauss", "relation": "born in", "tail": "Bruns'
    result = parse_triples(text)
    assert result.triples[0] == A
    # the cut-off triple is either dropped with a reason or kept with the partial tail
    assert len(result.triples) + len(result.dropped) == 2


def test_extra_keys_are_ignored_and_noted():
    result = parse_triples('[{"head": "Euler", "relation": "born in", "tail": "Basel", "source": "https://x"}]')
    assert result.triples == [A]
    assert "ignored extra keys" in result.repaired


def test_huge_garbage_reports_instead_of_inventing():
    result = parse_triples(_garbage(200_000))
    assert isinstance(result.triples, list)
    assert result.dropped  # whatever came out of the noise was dropped with reasons, or no JSON


def test_non_string_input_never_raises():
    assert parse_triples(None).triples == []  # type: ignore[arg-type]
    assert parse_triples(b"[]").triples == []  # type: ignore[arg-type]


def test_dropped_items_are_reported_with_index_and_shortened_item():
    long_item = {"head": "x" * 5000, "relation": "r", "tail": "t"}
    result = parse_triples(json.dumps([A, long_item]))
    assert result.triples == [A]
    (drop,) = result.dropped
    assert drop["index"] == 1
    assert "longer than" in drop["reason"]
    assert len(drop["item"]) <= 301
