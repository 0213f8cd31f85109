"""The offline judge's table-driven rules, one positive and one near-miss negative each."""

import pytest
from scoring_helpers import T

from vibesearch.judges.offline import OfflineJudge
from vibesearch.judges.offline._inverse import containment, contradicts, inverse_of
from vibesearch.judges.offline._lists import list_items
from vibesearch.judges.offline._normalize import parse_date, parse_quantity
from vibesearch.judges.offline._units import quantity_equal


def judge(gt, *pred):
    return OfflineJudge().judge([T(*gt)], [T(*p) for p in pred]).verdicts[0]


def rule_name(v) -> str:
    return v.rationale.split(":", 1)[0]


# ---------------------------------------------------------------- numbers with units
def test_units_convert_within_metric_prefixes():
    assert quantity_equal(parse_quantity("8.849 km"), parse_quantity("8,849 m")) == "converted"
    assert quantity_equal(parse_quantity("447,700 kg"), parse_quantity("447.7 t")) == "converted"
    assert quantity_equal(parse_quantity("384,400 km"), parse_quantity("384 400 000 m")) == "converted"
    assert quantity_equal(parse_quantity("8,849 m"), parse_quantity("8849 metres above sea level")) == "same"
    v = judge(("Mount Everest", "elevation", "8,849 m"), ("Mount Everest", "height", "8.849 km"))
    assert v.covered and v.rule == 1 and v.evidence == [0] and rule_name(v) == "unit conversion"


@pytest.mark.parametrize("pred", ["8.849 m", "8,849 km", "8,849 ft", "8849 mm"])
def test_units_wrong_magnitude_or_unit_is_not_covered(pred):
    assert not judge(("Mount Everest", "elevation", "8,849 m"), ("Mount Everest", "elevation", pred)).covered


def test_counter_word_is_not_a_physical_unit():
    assert parse_quantity("300 aircraft") == ("300", "")
    assert quantity_equal(parse_quantity("300 aircraft"), parse_quantity("300 planes")) == "same"
    assert quantity_equal(parse_quantity("300 aircraft"), parse_quantity("300 t")) is None
    assert quantity_equal(parse_quantity("300"), parse_quantity("300 t")) == "same"  # a bare number leaves the unit open


def test_percentages_and_decades():
    assert judge(("Earth", "water surface", "71%"), ("Earth", "water surface", "about 71 per cent")).covered
    assert not judge(("Earth", "water surface", "71%"), ("Earth", "water surface", "0.71%")).covered
    assert parse_quantity("1990s") is None and parse_date("the 1650s") is None


# ---------------------------------------------------------------- dates
def test_numeric_dates_only_when_the_order_is_clear():
    assert parse_date("14/05/1997") == parse_date("05/14/1997") == (1997, 5, 14)
    assert parse_date("05/04/1997") is None  # 5 April or 4 May
    assert parse_date("AD 1781") == (1781, None, None)
    assert judge(("Star Alliance", "founded", "14 May 1997"), ("Star Alliance", "founded", "14/05/1997")).covered
    assert not judge(("Star Alliance", "founded", "14 May 1997"), ("Star Alliance", "founded", "05/04/1997")).covered


# ---------------------------------------------------------------- abbreviations and aliases
def test_acronym_from_initials_and_the_curated_table():
    v = judge(("NASA", "founded", "1958"), ("National Aeronautics and Space Administration", "founded", "1958"))
    assert v.covered and rule_name(v) == "alias table"
    v = judge(("PSG", "stadium", "Parc des Princes"), ("Paris Saint-Germain", "stadium", "Parc des Princes"))
    assert v.covered and rule_name(v) == "acronym"  # not in the table: initials decide
    v = judge(("Mount Everest", "first ascent", "1953"), ("Qomolangma", "first ascent", "1953"))
    assert v.covered and rule_name(v) == "alias table"


def test_acronym_collision_with_a_curated_acronym():
    # MIT is in the table, so another expansion with the same initials is not it
    assert not judge(("MIT", "founded", "1861"), ("Manchester Institute of Technology", "founded", "1861")).covered
    assert judge(("MIT", "founded", "1861"), ("Massachusetts Institute of Technology", "founded", "1861")).covered
    assert not judge(("Lufthansa", "member of", "Star Alliance"), ("Lufthansa Cargo", "member of", "Star Alliance")).covered


# ---------------------------------------------------------------- inverse relations
def test_inverse_relation_table():
    assert inverse_of("advisor of", "doctoral advisor") == "inverse relation"
    assert inverse_of("兄弟", "兄弟") == "symmetric relation"
    assert inverse_of("弟弟", "弟弟") is None
    assert inverse_of("advisor of", "colleague of") is None
    assert contradicts("advisor of", "doctoral advisor") and not contradicts("advisor of", "supervisor of")


def test_reversed_direction_with_an_inverse_relation():
    v = judge(("Johann Bernoulli", "advisor of", "Leonhard Euler"), ("Leonhard Euler", "doctoral advisor", "Johann Bernoulli"))
    assert v.covered and v.evidence == [0] and rule_name(v) == "inverse relation"
    v = judge(("苏洵", "儿子", "苏轼"), ("苏轼", "父亲", "苏洵"))
    assert v.covered and rule_name(v) == "inverse relation"
    v = judge(("Frankfurt", "twinned with", "Guangzhou"), ("Guangzhou", "twinned with", "Frankfurt"))
    assert v.covered and rule_name(v) == "symmetric relation"


def test_reversed_direction_negatives():
    # the same relation reversed, a non-inverse relation reversed, an inverse relation not reversed
    assert not judge(("苏轼", "父亲", "苏洵"), ("苏洵", "父亲", "苏轼")).covered
    assert not judge(("Johann Bernoulli", "advisor of", "Leonhard Euler"), ("Leonhard Euler", "colleague of", "Johann Bernoulli")).covered
    assert not judge(("Johann Bernoulli", "advisor of", "Leonhard Euler"), ("Johann Bernoulli", "doctoral advisor", "Leonhard Euler")).covered


# ---------------------------------------------------------------- list-valued tails
def test_list_items():
    assert list_items("Io, Europa, Ganymede and Callisto") == ("Io", "Europa", "Ganymede", "Callisto")
    assert list_items('["Lufthansa", "Air Canada"]') == ("Lufthansa", "Air Canada")
    assert list_items("韩愈、柳宗元") == ("韩愈", "柳宗元")
    for whole in ("Frankfurt am Main, Germany", "Trinidad and Tobago", "Johnson & Johnson", "5,150,000 m"):
        assert list_items(whole) is None


def test_list_containing_the_tail():
    v = judge(("Galileo Galilei", "discovered", "Ganymede"), ("Galileo Galilei", "discovered", "Io, Europa, Ganymede and Callisto"))
    assert v.covered and v.rule == 2 and rule_name(v) == "list member"
    v = judge(("Io", "discovered by", "Galileo Galilei"), ("Galileo Galilei", "discovered", "Io, Europa, Ganymede and Callisto"))
    assert v.covered and v.evidence == [0]


def test_list_lacking_the_tail():
    assert not judge(("Galileo Galilei", "discovered", "Titan"), ("Galileo Galilei", "discovered", "Io, Europa, Ganymede and Callisto")).covered
    # an item that merely contains the name is another entity
    assert not judge(("Star Alliance", "member", "Lufthansa"), ("Star Alliance", "members", "Lufthansa Cargo; Air Canada; Swiss")).covered


# ---------------------------------------------------------------- two-hop containment and part-of chains
def test_containment_roles():
    assert containment("located in") == "located" and containment("contains") == "located-rev"
    assert containment("part of") == "part" and containment("has part") == "part-rev"
    assert containment("capital of") == "located" and containment("capital of", as_step=False) is None
    assert containment("twinned with") is None and containment("near") is None


def test_two_hop_location():
    v = judge(("Forbidden City", "located in", "China"), ("Forbidden City", "located in", "Beijing"), ("China", "contains", "Beijing"))
    assert v.covered and v.rule == 4 and v.evidence == [0, 1] and rule_name(v) == "two-hop location"
    v = judge(("Leonhard Euler", "born in", "Switzerland"), ("Leonhard Euler", "born in", "Basel"), ("Basel", "located in", "Switzerland"))
    assert v.covered and v.evidence == [0, 1]


def test_two_hop_negatives():
    assert not judge(("Forbidden City", "located in", "China"), ("Forbidden City", "located in", "Beijing"), ("Beijing", "twinned with", "China")).covered
    assert not judge(("Leonhard Euler", "born in", "Switzerland"), ("Leonhard Euler", "died in", "Basel"), ("Basel", "located in", "Switzerland")).covered
    assert not judge(("Lufthansa", "headquartered in", "Germany"), ("Lufthansa", "located in", "Cologne"), ("Cologne", "located in", "Germany")).covered
    assert not judge(("Berlin", "capital of", "Germany"), ("Berlin", "located in", "Brandenburg"), ("Brandenburg", "located in", "Germany")).covered


def test_part_of_chain():
    v = judge(("Io", "part of", "Solar System"), ("Io", "part of", "Jovian system"), ("Solar System", "has part", "Jovian system"))
    assert v.covered and v.rule == 4 and rule_name(v) == "part-of chain"
    assert not judge(("Io", "part of", "Solar System"), ("Io", "orbits", "Jupiter"), ("Jupiter", "part of", "Solar System")).covered
    assert not judge(("Hesse", "part of", "European Union"), ("Hesse", "part of", "Germany"), ("Germany", "member of", "European Union")).covered


# ---------------------------------------------------------------- traditional and simplified Chinese
def test_traditional_and_simplified_chinese():
    v = judge(("苏轼", "代表作", "赤壁赋"), ("蘇軾", "代表作", "赤壁賦"))
    assert v.covered and v.rule == 1
    assert not judge(("王安石", "主持", "熙宁变法"), ("王安石", "主持", "慶曆新政")).covered


def test_rules_fired_are_counted_in_the_details():
    result = OfflineJudge().judge(
        [T("Mount Everest", "elevation", "8,849 m"), T("Mars", "moons", "Deimos"), T("X", "r", "y")],
        [T("Mount Everest", "elevation", "8.849 km"), T("Mars", "moons", "Phobos; Deimos")],
    )
    assert [v.covered for v in result.verdicts] == [True, True, False]
    assert result.details["rules_fired"] == {"unit conversion": 1, "list member": 1}


# ---------------------------------------------------------------- abbreviated places, titles, short forms
def test_abbreviated_places_are_spelled_out():
    v = judge(("Harvard University", "located in", "Cambridge, Massachusetts"), ("Harvard University", "located in", "Cambridge, MA"))
    assert v.covered and v.evidence == [0]
    assert judge(("Mount Fuji", "height", "3,776 m"), ("Mt. Fuji", "height", "3,776 m")).covered
    assert judge(("Saint Petersburg", "founded", "1703"), ("St. Petersburg", "founded", "1703")).covered
    assert judge(("Empire State Building", "located in", "New York City"), ("Empire State Building", "located in", "NYC")).covered
    # the other Cambridge; a code not after a comma stays as written
    assert not judge(("Harvard University", "located in", "Cambridge, Massachusetts"), ("Harvard University", "located in", "Cambridge, UK")).covered
    assert not judge(("Harvard University", "located in", "Cambridge, Massachusetts"), ("Harvard University", "located in", "Cambridge MA-4")).covered


def test_a_title_is_not_part_of_the_name():
    v = judge(("George Berkeley", "born in", "Kilkenny"), ("Bishop Berkeley", "born in", "Kilkenny"))
    assert v.covered and rule_name(v) == "surname"
    # two Berkeleys in the graphs: the surname after the title is ambiguous
    assert not judge(("George Berkeley", "born in", "Kilkenny"), ("Bishop Berkeley", "born in", "Kilkenny"),
                     ("Busby Berkeley", "born in", "Los Angeles")).covered


def test_short_forms_without_class_words():
    v = judge(("University of Tokyo", "founded", "1877"), ("Tokyo University", "founded", "1877"))
    assert v.covered and rule_name(v) == "short form"
    assert judge(("River Thames", "length", "346 km"), ("Thames", "length", "346 km")).covered
    assert judge(("Apple Inc.", "founded", "1976"), ("Apple", "founded", "1976")).covered
    assert judge(("Shanghai Maglev", "opened", "2004"), ("Shanghai maglev train", "opened", "2004")).covered
    # a city is not its university; the prediction's river is not the state; another university
    assert not judge(("Tokyo", "located in", "Japan"), ("University of Tokyo", "located in", "Japan")).covered
    assert not judge(("Mississippi", "borders", "Louisiana"), ("Mississippi River", "borders", "Louisiana")).covered
    assert not judge(("Manchester Metropolitan University", "founded", "1970"), ("University of Manchester", "founded", "1970")).covered


def test_short_forms_in_a_list_of_members():
    v = judge(("Russell Group", "member", "University of Manchester"), ("Russell Group", "members include", "Oxford, Cambridge, Manchester, UCL"))
    assert v.covered and rule_name(v) == "list member"
    assert judge(("Ivy League", "member", "Brown University"), ("Ivy League", "members", "Harvard, Yale, Brown, Columbia")).covered
    assert not judge(("Russell Group", "member", "Manchester Metropolitan University"), ("Russell Group", "members include", "Oxford, Cambridge, Manchester, UCL")).covered
    assert not judge(("Ivy League", "member", "Stanford University"), ("Ivy League", "members", "Harvard, Yale, Brown, Columbia")).covered


def test_first_name_in_a_list():
    v = judge(("The Beatles", "member", "Ringo Starr"), ("The Beatles", "members", "John, Paul, George and Ringo"))
    assert v.covered and rule_name(v) == "list member"
    # two people called John in the graphs: the first name alone is ambiguous
    assert not judge(("Led Zeppelin", "member", "John Bonham"), ("Led Zeppelin", "members", "Robert, Jimmy, John Paul and John"),
                     ("John Paul Jones", "plays", "bass")).covered


def test_clipped_names_and_number_words_in_acronyms():
    v = judge(("Caltech", "located in", "Pasadena, California"), ("California Institute of Technology", "located in", "Pasadena, CA"))
    assert v.covered and rule_name(v) == "clipped name"
    assert not judge(("Caltech", "founded", "1891"), ("California State University", "founded", "1891")).covered
    assert judge(("G7", "founded", "1975"), ("Group of Seven", "founded", "1975")).covered
    assert not judge(("G7", "founded", "1975"), ("Group of Eight", "founded", "1975")).covered


def test_chinese_head_inside_a_longer_name():
    v = judge(("故宫", "建成时间", "1420年"), ("北京故宫", "建成于", "明永乐十八年（1420年）"))
    assert v.covered and rule_name(v) == "chinese containment"
    assert judge(("三峡大坝", "装机容量", "22500兆瓦"), ("长江三峡大坝", "总装机容量", "2250万千瓦（22500兆瓦）")).covered
    # another palace; two longer names end with it; the ground truth is the start of the longer name
    assert not judge(("沈阳故宫", "建成时间", "1420年"), ("北京故宫", "建成于", "1420年")).covered
    assert not judge(("故宫", "建成时间", "1420年"), ("北京故宫", "建成于", "1420年"), ("沈阳故宫", "建成于", "1636年")).covered
    assert not judge(("长江", "长度", "6300公里"), ("长江三峡", "长度", "6300公里")).covered


# ---------------------------------------------------------------- units across systems and rounded figures
def test_unit_abbreviations_and_a_second_unit_in_brackets():
    assert judge(("River Thames", "length", "215 miles"), ("River Thames", "length", "346 km (215 mi)")).covered
    assert judge(("Vatican City", "area", "0.49 square kilometres"), ("Vatican City", "area", "0.49 km² (0.19 sq mi)")).covered
    assert judge(("Maglev", "top speed", "431 kilometres per hour"), ("Maglev", "top speed", "431 km/h (268 mph)")).covered
    assert judge(("Three Gorges Dam", "generation in 2020", "111.8 billion kWh"), ("Three Gorges Dam", "generation (2020)", "111.8 TWh")).covered
    assert not judge(("Maglev", "top speed", "431 km/h"), ("Maglev", "top speed", "431 mph")).covered
    assert not judge(("Vatican City", "area", "0.49 km²"), ("Vatican City", "area", "0.49 sq mi")).covered


def test_conversion_between_unit_systems_with_rounding():
    v = judge(("Mount Everest", "height", "8,849 m"), ("Mount Everest", "elevation", "29,032 ft"))
    assert v.covered and rule_name(v) == "rounded conversion"
    assert judge(("Route 66", "length", "549 km"), ("Route 66", "length", "341 mi")).covered
    assert judge(("Water", "boiling point", "212 °F"), ("Water", "boiling point", "100 °C")).covered
    assert judge(("Io", "orbital period", "42.5 hours"), ("Io", "orbital period", "1.77 days")).covered
    assert not judge(("Mount Everest", "height", "8,849 m"), ("Mount Everest", "height", "29,029 ft")).covered  # 8,848 m
    assert not judge(("Io", "orbital period", "42.5 hours"), ("Io", "orbital period", "1.8 days")).covered  # coarser
    assert not judge(("Water", "boiling point", "100 °C"), ("Water", "boiling point", "100 °F")).covered


def test_rounded_figures_with_a_magnitude_word():
    v = judge(("Estonia", "population", "1.3 million"), ("Estonia", "population", "1,331,824 (2021 census)"))
    assert v.covered and rule_name(v) == "rounded figure"
    assert not judge(("Estonia", "population", "1.3 million"), ("Estonia", "population", "1,400,000")).covered
    assert not judge(("Estonia", "population", "1,331,824"), ("Estonia", "population", "1.3 million")).covered  # says less


# ---------------------------------------------------------------- relations: synonyms, paraphrases, reversals
def test_relation_synonyms_of_the_lexicon():
    assert judge(("Apple", "CEO", "Tim Cook"), ("Apple", "chief executive officer", "Tim Cook")).covered
    assert judge(("Apple", "CEO", "Tim Cook"), ("Apple", "led by", "Tim Cook")).covered
    assert judge(("Franklin D. Roosevelt", "served as", "President of the United States"), ("FDR", "office", "32nd President of the United States")).covered
    assert judge(("Amazon River", "empties into", "Atlantic Ocean"), ("Amazon River", "mouth", "Atlantic Ocean")).covered
    assert judge(("Real Madrid", "home ground", "Bernabéu"), ("Real Madrid", "home stadium", "Bernabéu")).covered
    assert not judge(("Apple", "CEO", "Tim Cook"), ("Apple", "chief operating officer", "Tim Cook")).covered
    assert not judge(("Microsoft", "CEO", "Satya Nadella"), ("Satya Nadella", "chairman of", "Microsoft")).covered


def test_paraphrased_relation_when_head_and_tail_agree():
    v = judge(("George Berkeley", "criticized calculus in", "The Analyst"), ("Bishop Berkeley", "critique of infinitesimals", "The Analyst (1734)"))
    assert v.covered and v.evidence == [0]
    assert judge(("Hubble Space Telescope", "primary mirror diameter", "2.4 m"), ("Hubble", "mirror diameter", "2.40 metres")).covered
    assert judge(("Bernhard Riemann", "habilitation lecture topic", "On the Hypotheses"), ("Riemann", "Habilitationsvortrag (1854)", "On the Hypotheses")).covered
    # a relation word left out, another opening word, a capitalised word that differs
    assert not judge(("Star Alliance", "founding member", "Lufthansa"), ("Star Alliance", "member", "Lufthansa")).covered
    assert not judge(("Amazon River", "source country", "Peru"), ("Amazon River", "mouth country", "Peru")).covered
    assert not judge(("Harvard University", "oldest building", "Massachusetts Hall"), ("Harvard University", "newest building", "Massachusetts Hall")).covered
    assert not judge(("Barack Obama", "vice president", "Joe Biden"), ("Barack Obama", "president", "Joe Biden")).covered
    assert not judge(("Marie Curie", "won Nobel Prize in Physics", "1911"),
                     ("Marie Skłodowska Curie", "awarded the Nobel Prize in Chemistry", "1911 (for radium)"),
                     ("Marie Skłodowska Curie", "awarded the Nobel Prize in Physics", "1903")).covered


def test_reversed_relation_with_a_paraphrased_verb():
    v = judge(("Python", "created by", "Guido van Rossum"), ("Guido van Rossum", "designed", "Python programming language"))
    assert v.covered and rule_name(v) == "passive voice"
    assert judge(("Harry Potter", "written by", "J. K. Rowling"), ("J. K. Rowling", "author of", "Harry Potter")).covered
    assert judge(("Microsoft", "founded by", "Bill Gates"), ("Bill Gates", "founder of", "Microsoft")).covered
    assert judge(("Apple Inc.", "CEO", "Tim Cook"), ("Tim Cook", "chief executive of", "Apple")).covered
    assert judge(("Moon", "orbits", "Earth"), ("Earth", "has natural satellite", "the Moon")).covered
    assert judge(("Star Alliance", "member", "United Airlines"), ("United Airlines", "founding member of", "Star Alliance")).covered
    # the same relation reversed; the other side without the swap; a narrower ground truth
    assert not judge(("Moon", "orbits", "Earth"), ("Earth", "orbits", "the Moon")).covered
    assert not judge(("Earth", "has moon", "the Moon"), ("Earth", "orbits", "the Moon")).covered
    assert not judge(("Microsoft", "founded by", "Bill Gates"), ("Bill Gates", "owner of", "Microsoft")).covered
    assert not judge(("United Airlines", "founding member of", "Star Alliance"), ("Star Alliance", "member", "United Airlines")).covered


def test_location_synonyms_and_boroughs():
    assert judge(("Mt. Kilimanjaro", "located in", "Tanzania"), ("Mount Kilimanjaro", "country", "Tanzania")).covered
    v = judge(("Frida Kahlo", "born in", "Mexico"), ("Frida Kahlo", "born in", "Coyoacán"), ("Coyoacán", "borough of", "Mexico City"),
              ("Mexico City", "capital of", "Mexico"))
    assert v.covered and v.rule == 4 and v.evidence == [0, 1, 2]
    assert not judge(("Mount Kilimanjaro", "located in", "Kenya"), ("Mount Kilimanjaro", "located in", "Tanzania"), ("Tanzania", "borders", "Kenya")).covered


# ---------------------------------------------------------------- joint coverage and compositions
def test_joint_coverage():
    v = judge(("Apollo 11", "crew", "Neil Armstrong and Buzz Aldrin"), ("Apollo 11", "crew member", "Neil Armstrong"), ("Apollo 11", "crew member", "Buzz Aldrin"))
    assert v.covered and v.rule == 3 and v.evidence == [0, 1] and rule_name(v) == "joint"
    v = judge(("Titan", "discovered", "by Christiaan Huygens in 1655"), ("Titan", "discovered by", "Christiaan Huygens"), ("Titan", "discovery year", "1655"))
    assert v.covered and v.rule == 3
    assert judge(("星空联盟", "创始成员", "汉莎航空和联合航空"), ("星空联盟", "创始成员", "汉莎航空"), ("星空联盟", "创始成员", "联合航空")).covered
    assert not judge(("Apollo 11", "crew", "Neil Armstrong and Buzz Aldrin"), ("Apollo 11", "crew member", "Neil Armstrong")).covered
    assert not judge(("Titan", "discovered", "by Christiaan Huygens in 1655"), ("Titan", "discovered by", "Huygens"), ("Titan", "discovery year", "1656")).covered


def test_composition_through_a_stated_alias():
    v = judge(("The Eternal City", "capital of", "Italy"), ("Rome", "nicknamed", "the Eternal City"), ("Rome", "capital of", "Italy"))
    assert v.covered and v.rule == 4 and v.evidence == [0, 1] and rule_name(v) == "alias composition"
    assert judge(("The Windy City", "located in", "Illinois"), ("The Windy City", "nickname for", "Chicago"), ("Chicago", "located in", "Illinois")).covered
    assert not judge(("The Eternal City", "capital of", "Italy"), ("Rome", "nicknamed", "the Eternal City"), ("Rome", "located in", "Italy")).covered
    assert not judge(("The King of Pop", "born in", "Gary"), ("Michael Jackson", "known as", "the King of Pop"), ("Janet Jackson", "born in", "Gary")).covered
    assert not judge(("The Eternal City", "capital of", "Italy"), ("Rome", "named after", "Romulus"), ("Romulus", "capital of", "Italy")).covered


def test_composition_of_two_relations():
    v = judge(("Galileo Galilei", "discovered a moon of", "Jupiter"), ("Galileo Galilei", "discovered", "Io"), ("Io", "moon of", "Jupiter"))
    assert v.covered and v.rule == 4 and rule_name(v) == "relation composition"
    assert not judge(("Galileo Galilei", "discovered a moon of", "Jupiter"), ("Galileo Galilei", "observed", "Io"), ("Io", "moon of", "Jupiter")).covered
    assert not judge(("Galileo Galilei", "discovered a moon of", "Jupiter"), ("Galileo Galilei", "discovered", "Io"), ("Io", "discovered", "Jupiter")).covered


# ---------------------------------------------------------------- rules widened after the round-1 held-out split
def test_place_written_city_country_inside_a_longer_place():
    v = judge(("UCL", "located in", "London, United Kingdom"), ("UCL", "located in", "Bloomsbury, London, UK"))
    assert v.covered and v.rule == 2
    assert not judge(("Western University", "located in", "London, Canada"),
                     ("Western University", "located in", "Bloomsbury, London, UK")).covered


def test_campus_and_based_are_location_words():
    assert judge(("NYU", "located in", "New York City"), ("New York University", "campus in", "Greenwich Village, NYC")).covered
    assert not judge(("NYU", "located in", "New York City"), ("New York University", "founded in", "Greenwich Village, NYC")).covered


def test_finer_predicted_figure_rounds_to_the_ground_truth():
    assert judge(("长城", "总长度", "21196千米"), ("万里长城", "总长度", "21196.18千米")).covered
    assert not judge(("长城", "总长度", "21196千米"), ("万里长城", "总长度", "21197.6千米")).covered
    assert not judge(("Marathon", "distance", "42.2 km"), ("Marathon", "distance", "42.26 km")).covered


def test_trillions_and_a_leading_currency_sign():
    assert parse_quantity("$3.0 trillion") == parse_quantity("3 trillion US dollars") == ("3000000000000", "usd")
    assert parse_quantity("£20") == ("20", "gbp")
    assert quantity_equal(parse_quantity("$5 million"), parse_quantity("€5 million")) is None
    assert not judge(("Apple", "market capitalization", "3 trillion US dollars"), ("Apple Inc.", "market cap", "$3.0 billion")).covered


def test_irregular_verb_forms():
    assert judge(("Berlin Wall", "fell in", "1989"), ("Berlin Wall", "fall", "9 November 1989")).covered
    assert not judge(("Titanic", "sank in", "1912"), ("Titanic", "built in", "1912")).covered


def test_doctoral_and_phd_are_one_concept():
    assert judge(("Alan Turing", "PhD advisor", "Alonzo Church"), ("Turing", "doctoral supervisor at Princeton", "Alonzo Church")).covered
    assert not judge(("Alan Turing", "PhD advisor", "Alonzo Church"), ("Turing", "doctoral student at Princeton", "Alonzo Church")).covered


def test_club_words_and_plays_for():
    assert judge(("Lionel Messi", "plays for", "Inter Miami"), ("Lionel Messi", "current club", "Inter Miami CF")).covered
    assert not judge(("Lionel Messi", "plays for", "Inter Miami"), ("Lionel Messi", "owns shares in", "Inter Miami CF")).covered


def test_role_phrase_followed_by_a_qualifier_keeps_its_role():
    gt = ("Werner Heisenberg", "doctoral advisor", "Arnold Sommerfeld")
    v = judge(gt, ("Arnold Sommerfeld", "supervised the doctorate of", "Werner Heisenberg"))
    assert v.covered and rule_name(v) == "inverse relation"
    assert not judge(gt, ("Arnold Sommerfeld", "supervised experiments of", "Werner Heisenberg")).covered


def test_alma_mater_is_the_inverse_of_studied_at():
    gt = ("Stephen Hawking", "studied at", "University of Oxford")
    assert inverse_of("studied at", "alma mater of") == "inverse relation"
    assert judge(gt, ("University of Oxford", "alma mater of", "Stephen Hawking")).covered
    assert not judge(gt, ("Stephen Hawking", "alma mater of", "University of Oxford")).covered


def test_noun_with_and_without_of_swapped():
    assert judge(("Mary Shelley", "author of", "Frankenstein"), ("Frankenstein", "author", "Mary Shelley")).covered
    assert inverse_of("director of", "director") == "inverse relation"
    assert inverse_of("made of", "made") is None
    assert not judge(("Table", "made of", "Wood"), ("Wood", "made", "Table")).covered


def test_continent_and_province_are_containment_steps():
    assert containment("continent") == "located" and containment("province") == "located"
    gt = ("Mount Kilimanjaro", "located in", "Africa")
    assert judge(gt, ("Mount Kilimanjaro", "located in", "Tanzania"), ("Tanzania", "continent", "Africa")).covered
    assert not judge(gt, ("Mount Kilimanjaro", "near", "Tanzania"), ("Tanzania", "continent", "Africa")).covered
    v = judge(("Samsung Electronics", "headquartered in", "South Korea"), ("Samsung Electronics", "headquarters", "Suwon"),
              ("Suwon", "province", "Gyeonggi"), ("Gyeonggi Province", "country", "South Korea"))
    assert v.covered and v.rule == 4


def test_list_tail_says_membership():
    assert judge(("Apollo 11", "crew member", "Michael Collins"), ("Apollo 11", "crew", "Armstrong, Aldrin, Collins")).covered
    assert judge(("Benelux", "comprises", "the Netherlands"), ("Benelux Union", "member countries", "Belgium, Netherlands, Luxembourg")).covered
    assert not judge(("NATO", "founding member", "France"), ("NATO", "members", "Belgium, Canada, France, Italy")).covered
    assert not judge(("Apollo 8", "crew member", "Neil Armstrong"), ("Apollo 8", "backup crew", "Neil Armstrong, Buzz Aldrin, Fred Haise")).covered


def test_a_list_or_a_place_is_not_a_person():
    from vibesearch.judges.offline._matching import name_of

    assert not name_of("Armstrong, Aldrin, Collins").is_person_like
    assert not name_of("Paris, France").is_person_like
    assert name_of("Michael Collins").is_person_like


def test_same_name_with_the_year_moved():
    gt = ("Nobel Prize in Physics 1903", "awarded to", "Henri Becquerel")
    assert judge(gt, ("1903 Nobel Prize in Physics", "laureates", "Becquerel, P. Curie, M. Curie")).covered
    assert not judge(gt, ("1904 Nobel Prize in Physics", "laureates", "Becquerel, Rayleigh")).covered


def test_organisation_and_race_class_words():
    assert judge(("Marathon", "distance", "42.195 kilometres"), ("marathon race", "official distance", "42.195 km")).covered
    assert judge(("Benelux", "founded in", "1944"), ("Benelux Union", "founded in", "1944")).covered
    assert not judge(("Benelux Union", "founded in", "1944"), ("Benelux", "founded in", "1944")).covered
    assert not judge(("Star", "founded in", "1997"), ("Star Alliance", "founded in", "1997")).covered


def test_honorific_before_a_name():
    gt = ("Mahatma Gandhi", "born in", "Porbandar")
    assert judge(gt, ("Mohandas Karamchand Gandhi", "born in", "Porbandar")).covered
    assert not judge(gt, ("Mohandas Karamchand Gandhi", "born in", "Porbandar"), ("Indira Gandhi", "born in", "Allahabad")).covered


def test_paraphrase_sharing_two_words():
    gt = ("Isaac Newton", "published laws of motion in", "Principia")
    assert judge(gt, ("Sir Isaac Newton", "work setting out the laws of motion", "Philosophiæ Naturalis Principia Mathematica (Principia, 1687)")).covered
    assert not judge(gt, ("Isaac Newton", "refuted laws of motion in", "Principia")).covered
    assert not judge(gt, ("Isaac Newton", "criticized laws of motion in", "Principia")).covered
