import json
import time

import pytest

from vibesearch.judges.offline import OfflineJudge
from vibesearch.judges.offline._normalize import canon_numbers, parse_date, parse_quantity
from vibesearch.judges.offline import norm
from vibesearch.labels.calibration import calibrate, load_cases

from scoring_helpers import T

# measured on tests/data/judge_cases_dev.jsonl: 53/66 = 0.803 when the offline judge was written;
# 193/209 = 0.923 after the unit, alias, inverse-relation, list and containment-chain rules; with
# the 78 "heldout-" cases added 231/287 = 0.805; after the short-form, abbreviated-place, unit-system,
# rounding, paraphrase, reversed-paraphrase, joint and composition rules 273/287 = 0.951 and, with
# the 34 "dev2-" hard cases, 307/321 = 0.956 (the original 209: 201/209 = 0.962); with the 72
# round-1 held-out cases appended 356/393 = 0.906, and after the rules widened on them plus the 19
# "dev3-" cases 393/412 = 0.954 (the original 209 still 201/209, the 72 round-1 cases 67/72); with
# the 84 round-2 held-out cases appended after their one measurement 450/496 = 0.907, and after the
# round-3 rules (relation roles, longer heads, initials, hedged figures) plus the 13 "dev4-" cases
# 487/509 = 0.957 (the original 209 still 201/209, the round-2 cases 79/84); with the 84 round-3
# held-out cases appended after their one measurement (52/84) 539/593 = 0.909; after the round-4
# rules (more date forms, a date inside a longer value, Old Style dates, number words, bounds, hedged
# magnitude words, a counted noun, relation words in a longer head, measure words said by the unit,
# city and state abbreviations, dynasties, Chinese legal forms, name variants, more roles, inverse
# and alias phrases, containment steps) 558/593 = 0.941 (the original 209: 202/209, the round-3
# cases 68/84); with the 84 round-4 held-out cases appended after their one measurement (57/84)
# 615/677 = 0.908
AGREEMENT_FLOOR = 0.90
ORIGINAL_FLOOR = 0.95


def test_offline_judge_agreement_on_the_labelled_cases(cases_path, capsys):
    report = calibrate(cases_path, judge="offline")
    with capsys.disabled():
        print(f"\noffline judge on {report['n']} labelled cases: agreement {report['agreement']:.3f}, "
              f"kappa {report['kappa']:.3f}, confusion {report['confusion']}, disagreements {report['disagreements']}")
    assert report["n"] >= 150
    assert report["agreement"] >= AGREEMENT_FLOOR
    # the offline judge is conservative: it may miss joint/composed/translated facts, but it
    # never calls a labelled negative (nominated vs won, carried-over attribute, wrong unit,
    # acronym collision, non-inverse relation reversed, broken chain ...) covered
    assert report["confusion"]["fp"] == 0
    # where both say covered, the judge cites the labelled evidence
    assert report["evidence_overlap"] == 1.0


def test_offline_judge_on_the_original_cases(cases_path):
    """The 209 cases the first rules were written on stay above their figure."""
    from vibesearch.judges.offline.offline_judge import offline_covered

    cases = [c for c in load_cases(cases_path) if not c.id.startswith(("heldout-", "heldout2-", "heldout3-", "heldout4-", "dev2-", "dev3-", "dev4-"))]
    assert len(cases) == 209
    verdicts = [(offline_covered(c.gt, c.pred).covered, c.covered) for c in cases]
    assert sum(1 for got, want in verdicts if got == want) / len(cases) >= ORIGINAL_FLOOR
    assert not any(got and not want for got, want in verdicts)


def test_case_file_covers_every_required_category(cases_path):
    cats = {c.category for c in load_cases(cases_path)}
    for needed in ("alias", "abbreviation", "superset", "joint", "composition", "near-synonym negative",
                   "numbers", "dates", "reversed relation", "chinese", "cross-language"):
        assert needed in cats
    lines = [json.loads(x) for x in cases_path.read_text(encoding="utf-8").splitlines() if x.strip()]
    assert all(set(x) >= {"id", "gt", "pred", "covered", "evidence"} for x in lines)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1821", (1821, None, None)),
        ("in 1821", (1821, None, None)),
        ("14 May 1997", (1997, 5, 14)),
        ("1997-05-14", (1997, 5, 14)),
        ("May 14, 1997", (1997, 5, 14)),
        ("1997年5月14日", (1997, 5, 14)),
        ("1997年", (1997, None, None)),
        ("March 1781", (1781, 3, None)),
        ("Frankfurt", None),
        ("26", None),
    ],
)
def test_dates(text, expected):
    assert parse_date(text) == expected


def test_numbers_and_units():
    assert canon_numbers("1,000") == "1000"
    assert canon_numbers("1.0") == "1"
    assert canon_numbers("2.50 m") == "2.5 m"
    assert parse_quantity("8万人次") == ("80000", "")  # a counter word, not a unit
    assert parse_quantity("384,400 km") == parse_quantity("384400 kilometres") == ("384400", "km")
    assert parse_quantity("14,320 miles") == ("14320", "mi")
    assert parse_quantity("about 71 percent") == ("71", "%")
    assert parse_quantity("the year 1997 in Frankfurt") is None


def test_normalisation_folds_case_width_and_traditional_chinese():
    assert norm("星空聯盟") == norm("星空联盟")
    assert norm("ＡＢＣ  Alliance.") == "abc alliance"


def _covered(gt, pred):
    return OfflineJudge().judge([gt], pred).verdicts[0]


def test_aliases_initials_and_surnames():
    assert _covered(T("星空联盟", "创始年份", "1997"), [T("Star Alliance (星空联盟)", "创始年份", "1997年")]).covered
    assert _covered(T("ICM", "awards", "Fields Medal"), [T("International Congress of Mathematicians", "awards", "Fields Medal")]).covered
    assert _covered(T("FLT", "proved by", "Andrew Wiles"), [T("FLT", "proved by", "Wiles")]).covered
    # two Bernoullis in the graphs: the surname alone is ambiguous
    v = _covered(T("e", "discovered by", "Jacob Bernoulli"), [T("e", "discovered by", "Bernoulli"), T("x", "named after", "Daniel Bernoulli")])
    assert v.covered is False
    # a longer name is another entity, not an alias
    assert _covered(T("China", "located in", "Asia"), [T("Air China", "located in", "Asia")]).covered is False


def test_rules_one_and_two_and_the_negatives():
    same = _covered(T("Phobos", "discovered by", "Asaph Hall"), [T("x", "y", "z"), T("phobos", "Discovered By", "Asaph Hall.")])
    assert (same.covered, same.rule, same.evidence) == (True, 1, [1])
    more = _covered(T("Star Alliance", "member", "Lufthansa"), [T("Star Alliance", "members", "Lufthansa, United Airlines")])
    assert (more.covered, more.rule) == (True, 2)
    assert _covered(T("Star Alliance", "founded", "1997"), [T("Star Alliance", "founded", "1997-05-14")]).rule == 2
    assert not _covered(T("Star Alliance", "founded", "14 May 1997"), [T("Star Alliance", "founded", "1997")]).covered
    assert not _covered(T("Green Book", "won", "Best Picture"), [T("Green Book", "nominated for", "Best Picture")]).covered
    assert not _covered(T("Leibniz", "born in", "Leipzig"), [T("Leibniz", "died in", "Leipzig")]).covered
    assert not _covered(T("Everest", "height", "8,849 m"), [T("Everest", "height", "8,848 m")]).covered
    assert not _covered(T("747-8", "range", "14,320 km"), [T("747-8", "range", "14,320 miles")]).covered
    # the passive form with head and tail swapped is the same fact; the same relation swapped is not
    assert _covered(T("FLT", "proved by", "Andrew Wiles"), [T("Andrew Wiles", "proved", "FLT")]).covered
    assert not _covered(T("Johann Bernoulli", "teacher of", "Euler"), [T("Euler", "teacher of", "Johann Bernoulli")]).covered


def test_offline_judge_is_fast_on_300_by_300():
    gt = [T(f"Entity {i // 3}", ["founded in", "located in", "member of"][i % 3], f"Value {i}") for i in range(300)]
    pred = [T(f"entity {i // 3}", ["founding year", "location", "is a member of"][i % 3], f"value {i}") for i in range(0, 300, 2)]
    pred += [T(f"Other {i}", "noise", f"thing {i}") for i in range(150)]
    start = time.perf_counter()
    result = OfflineJudge().judge(gt, pred)
    elapsed = time.perf_counter() - start
    assert sum(1 for v in result.verdicts if v.covered) == 150
    assert elapsed < 3.0  # the benchmark reports the real figure (target < 0.5 s)
