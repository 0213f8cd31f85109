"""The round-3 rules of the offline judge: relation roles, longer heads, initials, hedged figures.

Each rule with a case it decides and a near miss it must not call covered (issue 25)."""

from scoring_helpers import T

from vibesearch.judges.offline import OfflineJudge
from vibesearch.judges.offline._roles import role_compatible, roles_of


def judge(gt, *pred):
    return OfflineJudge().judge([T(*gt)], [T(*p) for p in pred]).verdicts[0]


def test_relations_of_one_role_state_one_fact():
    assert role_compatible("designed by", "architect")
    assert role_compatible("housed in", "on display at")
    assert role_compatible("died on", "date of death")
    assert role_compatible("建成于", "建造年代")  # "built" is compatible with its refinement "completed"
    assert not role_compatible("construction completed", "construction began")  # siblings
    assert not role_compatible("CEO", "chairman of")
    assert not role_compatible("owned by", "CEO")
    assert not role_compatible("directed", "starred in")
    assert not role_compatible("born in", "located in")  # a place alone does not say birth
    assert not role_compatible("oldest building", "newest building")  # words outside the table must agree
    assert roles_of("maximum depth")[0] == {"max", "depth"}


def test_a_role_match_covers_and_its_near_miss_does_not():
    v = judge(("Sydney Opera House", "designed by", "Jørn Utzon"), ("Sydney Opera House", "architect", "Jørn Utzon (Danish, 1918–2008)"))
    assert v.covered and v.evidence == [0]
    assert not judge(("The Godfather", "directed by", "Francis Ford Coppola"), ("The Godfather", "screenplay by", "Francis Ford Coppola")).covered
    assert not judge(("Berkshire Hathaway", "CEO", "Warren Buffett"), ("Berkshire Hathaway", "largest shareholder", "Warren Buffett")).covered
    # "nominated" still marks another fact, whatever the roles
    assert not judge(("Green Book", "won", "Academy Award for Best Picture"), ("Green Book", "nominated for award", "Academy Award for Best Picture")).covered


def test_a_reversed_fact_by_role_and_a_tail_that_says_more():
    v = judge(("Ceres", "discovered by", "Giuseppe Piazzi"), ("Giuseppe Piazzi", "discovered", "the dwarf planet Ceres (1 January 1801)"))
    assert v.covered and v.rule == 2
    assert judge(("The Lord of the Rings", "written by", "J. R. R. Tolkien"), ("J. R. R. Tolkien", "authored", "The Lord of the Rings")).covered
    assert not judge(("Ceres", "discovered by", "Giuseppe Piazzi"), ("Giuseppe Piazzi", "named", "Ceres Ferdinandea (1801)")).covered


def test_a_longer_head_of_the_same_entity():
    assert judge(("Hagia Sophia", "located in", "Istanbul"), ("Hagia Sophia Grand Mosque", "situated in", "Istanbul, Turkey")).covered
    assert judge(("赵州桥", "建成于", "隋朝"), ("河北赵州桥", "建造年代", "隋朝（约公元605年）")).covered
    # another entity named after it, a single-word name, a name two longer heads share
    assert not judge(("Harvard University", "located in", "Cambridge, Massachusetts"), ("Harvard University Press", "located in", "Cambridge, MA")).covered
    assert not judge(("China", "located in", "Asia"), ("Air China", "located in", "Asia")).covered
    assert not judge(("三峡", "位于", "湖北"), ("长江三峡大坝", "位于", "湖北")).covered
    assert not judge(("故宫", "建成时间", "1420年"), ("北京故宫", "建成于", "1420年"), ("沈阳故宫", "建成于", "1636年")).covered


def test_initials_acronyms_and_state_codes():
    assert judge(("Johann Sebastian Bach", "died on", "28 July 1750"), ("J. S. Bach", "date of death", "July 28, 1750")).covered
    assert not judge(("Johann Christian Bach", "died in", "London"), ("J. S. Bach", "died in", "London")).covered
    assert judge(("Martin Luther King Jr.", "delivered", "I Have a Dream speech"), ("MLK", "delivered", '"I Have a Dream" (1963)')).covered
    assert judge(("Sundar Pichai", "studied at", "Indian Institute of Technology Kharagpur"),
                 ("Sundar Pichai", "alma mater", "IIT Kharagpur, Stanford, Wharton")).covered
    assert not judge(("Indian Institute of Technology Bombay", "located in", "Mumbai"), ("IIT Delhi", "located in", "Mumbai")).covered
    assert judge(("Saint Paul", "capital of", "Minnesota"), ("St. Paul", "state capital of", "MN")).covered
    assert not judge(("Saint Paul", "capital of", "Minnesota"), ("St. Paul", "largest city of", "MN")).covered


def test_a_figure_said_to_be_rounded_and_the_minus_sign():
    assert judge(("Mariana Trench", "maximum depth", "10,994 metres"), ("Mariana Trench", "maximum depth", "about 11,000 m (36,000 ft)")).covered
    assert not judge(("Mount Kilimanjaro", "elevation", "5,895 m"), ("Mount Kilimanjaro", "elevation", "about 5,000 m")).covered
    assert not judge(("Mount Kilimanjaro", "elevation", "5,895 m"), ("Mount Kilimanjaro", "elevation", "5,900 m")).covered  # no hedge
    assert judge(("Vostok Station", "lowest recorded temperature", "−89.2 degrees Celsius"),
                 ("Vostok Station", "record low", "−89.2 °C (−128.6 °F), 21 July 1983")).covered
    assert not judge(("Vostok Station", "lowest recorded temperature", "−89.2 degrees Celsius"),
                     ("Vostok Station", "record high", "−89.2 °C")).covered


def test_where_it_was_founded_composes_through_a_city():
    v = judge(("ABBA", "formed in", "Sweden"), ("ABBA", "formed in", "Stockholm"), ("Stockholm", "capital of", "Sweden"))
    assert v.covered and v.evidence == [0, 1]
    assert not judge(("Volvo", "founded in", "Sweden"), ("Volvo", "headquartered in", "Gothenburg"), ("Gothenburg", "city in", "Sweden")).covered
