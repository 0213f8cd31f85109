"""Strict parsing of the final answer, step by step as the official grader does it."""

from __future__ import annotations

from vibesearch.agents import parse_triples
from vibesearch.judges.official_parse import strict_parse


def test_first_fenced_array_wins():
    text = 'Here:\n```json\n[{"head": "A", "relation": "r", "tail": "B"}]\n```\nand\n```\n[{"head": "C", "relation": "r", "tail": "D"}]\n```'
    out = strict_parse(text)
    assert out.triples == [{"head": "A", "relation": "r", "tail": "B"}] and out.step == "fenced"


def test_an_empty_fenced_array_wins_too():
    assert strict_parse('```json\n[]\n```\n[{"head": "A", "relation": "r", "tail": "B"}]').triples == []


def test_values_become_text_and_extra_keys_stay():
    out = strict_parse('[{"head": "Moon", "relation": "radius km", "tail": 1737.4, "note": null}, "junk", {"name": "x"}]')
    assert out.triples == [{"head": "Moon", "relation": "radius km", "tail": "1737.4", "note": ""}, {"name": "x"}]
    assert out.step == "whole"


def test_duplicates_are_kept():
    t = '{"head": "A", "relation": "r", "tail": "B"}'
    assert len(strict_parse(f"[{t}, {t}]").triples) == 2


def test_curly_quotes_and_control_characters_are_repaired_in_fences():
    # a curly quote inside a value would end the string if it were straight; the repair escapes it
    text = '```json\n[{"head": "The \u201cBlue\u201d Hotel", "relation": "stars", "tail": "4\x07"}]\n```'
    out = strict_parse(text)
    assert out.step == "fenced-repaired"
    assert out.triples == [{"head": 'The "Blue" Hotel', "relation": "stars", "tail": "4 "}]


def test_regex_fallback_takes_only_exact_objects():
    text = (
        "```\n[{\"head\": \"A\", \"relation\": \"r\", \"tail\": \"B\"},\n"
        " {'head': 'C', 'relation': 'r', 'tail': 'D'},\n"
        " {\"relation\": \"r\", \"head\": \"E\", \"tail\": \"F\"},\n"
        " {\"head\": \"G\", \"relation\": \"r\", \"tail\": \"H\"}\n```"
    )
    out = strict_parse(text)
    assert out.step == "fenced-repaired"
    assert out.triples == [{"head": "A", "relation": "r", "tail": "B"}, {"head": "G", "relation": "r", "tail": "H"}]


def test_brackets_in_prose():
    text = 'The graph is [{"head": "A", "relation": "r", "tail": "B"}] as requested.'
    assert strict_parse(text).step == "brackets"
    broken = 'Graph: [{"head": "A", "relation": "r", "tail": "B"}, {"head": "C", "relation": "r", "tail": "D"},] done'
    out = strict_parse(broken)
    assert out.step == "brackets-repaired" and len(out.triples) == 2


def test_nothing_parsed():
    assert strict_parse("I found nothing.").triples == []
    assert strict_parse('{"head": "A", "relation": "r", "tail": "B"}').triples == []  # an object, not a list
    assert strict_parse("").step == "nothing parsed"


def test_what_our_parser_would_have_recovered_is_a_note():
    text = "```json\n[{'head': 'A', 'relation': 'r', 'tail': 'B'}, {head: \"C\", relation: \"r\", tail: \"D\"}]\n```"
    lenient = parse_triples(text).triples
    assert len(lenient) == 2
    out = strict_parse(text, lenient)
    assert out.triples == []  # strict: neither object is written exactly
    assert out.lenient_count == 2 and len(out.lenient_only) == 2
    assert "our parser would have read 2, 2 of them not found by the strict parse (not scored)" in out.note()
    same = '[{"head": "A", "relation": "r", "tail": "B"}]'
    agreed = strict_parse(same, parse_triples(same).triples)
    assert agreed.lenient_only == [] and agreed.lenient_count == 1
