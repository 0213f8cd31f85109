"""Relation roles: what a relation says about its two entities, read from a broad table of ways to say it.

A knowledge graph has a few hundred kinds of relation (the properties of Wikidata are a good map:
place of birth, architect, headquarters, cast member, award received …) and agents write each in
many ways ("designed by", "architect", "design credited to"). ``roles_of`` names the roles a
relation's words carry; ``role_compatible`` says whether two relations between the *same* two
entities state the same fact: they share a role, neither carries a role the other lacks (a role
may refine another: "construction started" is a kind of "built"), the words outside the table are
said by the other side or only describe the value, and nothing else in the lexicon of
``_matching`` tells them apart (opposites, "former", "vice", numbers and capitalised words).
Relations with no role in the table are left to the stricter rules. The table is written from the
common kinds of relation, not from labelled cases.
"""

from __future__ import annotations

from functools import lru_cache

from ._normalize import CJK, norm

# role -> the ways to say it (English words and phrases, Chinese words). A dotted role refines the
# role before its last dot and is compatible with it, not with its siblings.
_TABLE: dict[str, tuple[str, ...]] = {
    # people's lives
    "birth": ("born", "birth", "birthplace", "native of", "hometown", "出生", "诞生", "生于", "出生地", "故乡", "籍贯"),
    "death": ("died", "death", "dies", "passed away", "deathplace", "逝世", "去世", "卒于", "死于", "病逝", "逝于", "辞世"),
    "burial": ("buried", "burial", "grave", "interred", "entombed", "resting place", "tomb", "安葬", "墓", "葬于"),
    "execution": ("executed", "execution", "burned at the stake", "beheaded", "hanged", "处死", "处决"),
    "residence": ("lived", "lives", "resided", "residence", "resident", "居住", "定居"),
    "education": ("studied", "study", "educated", "education", "alma mater", "graduated", "graduate", "attended",
                  "degree from", "degrees from", "degree", "degrees", "school", "college", "university", "毕业", "就读", "学习于", "母校", "求学"),
    "education.doctorate": ("doctorate", "doctoral", "phd", "dphil", "dissertation", "thesis", "博士"),
    "employment": ("worked", "works at", "works for", "employer", "employed", "employee", "job", "career at",
                   "就职", "任职于", "工作于", "供职"),
    "occupation": ("occupation", "profession", "job title", "职业"),
    "spouse": ("married", "spouse", "wife", "husband", "wed", "配偶", "妻子", "丈夫", "结婚"),
    "child": ("child", "children", "son", "daughter", "儿子", "女儿", "子女"),
    "parent": ("father", "mother", "parent", "parents", "父亲", "母亲", "父母"),
    "sibling": ("brother", "sister", "sibling", "兄弟", "姐妹", "哥哥", "弟弟", "姐姐", "妹妹"),
    "citizenship": ("citizenship", "citizen", "nationality", "国籍", "公民"),
    "teacher": ("teacher", "taught by", "mentor", "advisor", "adviser", "supervisor", "student of", "老师", "导师", "师从"),
    "influence": ("influenced", "influence", "inspired", "影响"),
    # making things
    "author": ("wrote", "written", "writer", "author", "authored", "authorship", "penned", "作者", "著", "撰写", "写"),
    "author.screenplay": ("screenplay", "screenwriter", "scriptwriter", "script", "编剧"),
    "design": ("designed", "design", "designer", "architect", "architects", "architecture", "engineered",
               "设计", "建筑师", "设计者", "设计师"),
    "paint": ("painted", "painter", "painting", "artist", "画家", "绘"),
    "sculpt": ("sculpted", "sculptor", "carved", "雕塑", "雕刻"),
    "compose": ("composed", "composer", "music by", "score by", "作曲"),
    "direct": ("directed", "director", "directing", "filmmaker", "导演", "执导"),
    "produce": ("produced", "producer", "production company", "制片", "出品"),
    "cast": ("starred", "starring", "star", "stars", "cast", "actor", "actress", "played", "portrayed",
             "acted", "role", "主演", "出演", "饰演"),
    "perform": ("performed", "performer", "sung", "sang", "singer", "recorded by", "演唱", "演奏"),
    "invent": ("invented", "inventor", "invention", "发明"),
    "discover": ("discovered", "discoverer", "discovery", "first identified", "发现"),
    "develop": ("developed", "developer", "development", "programmed", "开发", "研发"),
    "manufacture": ("manufactured", "manufacturer", "made by", "maker", "built by", "制造", "生产"),
    "publish": ("published", "publisher", "publication", "出版", "发表"),
    "translate": ("translated", "translator", "translation", "翻译", "译"),
    "create": ("created", "creator", "creation", "originated", "coined", "创造", "创作"),
    "deliver": ("delivered", "gave", "gives", "speech", "address", "发表演讲", "演讲"),
    # organisations
    "found": ("founded", "founder", "founders", "founding", "found", "cofounded", "co founded", "established",
              "establishment", "inception", "formed", "formation", "set up", "created in", "创立", "创办", "创建", "成立",
              "创始", "建立", "组建", "创始人"),
    "dissolve": ("dissolved", "disbanded", "defunct", "closed", "abolished", "解散", "撤销", "关闭"),
    "own": ("owned", "owner", "owns", "ownership", "parent company", "subsidiary of", "acquired", "bought",
            "拥有", "所有", "收购", "母公司"),
    "lead": ("led", "leader", "leads", "headed", "head", "boss", "director general", "managing director", "领导", "负责人"),
    "lead.ceo": ("ceo", "chief executive", "chief executive officer", "首席执行官", "总裁"),
    "lead.chair": ("chair", "chairman", "chairwoman", "chairperson", "董事长", "主席"),
    "lead.president": ("president", "总统"),
    "share": ("shareholder", "stake", "investor", "invested", "股东", "投资"),
    "member": ("member", "members", "membership", "belongs to", "joined", "成员", "会员", "加入"),
    "league": ("league", "conference", "division", "联赛"),
    "team": ("plays for", "played for", "team", "club", "signed", "效力", "球队", "俱乐部"),
    "venue": ("home ground", "stadium", "arena", "venue", "home field", "home stadium", "主场", "球场", "体育场"),
    "coach": ("head coach", "coach", "coached", "manager", "managed", "教练", "主教练"),
    "product": ("product", "products", "makes", "sells", "brand", "产品", "品牌"),
    "revenue": ("revenue", "revenues", "sales", "turnover", "income", "营收", "收入", "营业额"),
    "employees": ("employees", "staff", "workforce", "headcount", "员工", "雇员"),
    # places
    "location": ("located", "location", "situated", "sits", "lies", "site", "based", "address", "housed",
                 "on display", "displayed", "exhibited", "kept", "hangs", "collection", "held at", "held in", "campus",
                 "headquarters", "headquartered", "hq", "head office", "seat", "where", "stands", "found in",
                 "位于", "坐落", "所在地", "所在", "地址", "总部", "地点", "位置", "馆藏", "收藏", "藏于", "陈列"),
    "capital": ("capital", "seat of government", "首都", "省会", "首府"),
    "country": ("country", "nation", "sovereign state", "国家"),
    "province": ("state", "province", "region", "county", "prefecture", "省", "州", "省份"),
    "continent": ("continent", "洲"),
    "border": ("borders", "bordered", "border", "adjacent", "neighbours", "neighbors", "接壤", "毗邻"),
    "mouth": ("mouth", "empties", "drains into", "flows into", "outflow", "discharges", "河口", "注入", "汇入"),
    "source": ("source", "rises", "originates", "headwaters", "源头", "发源"),
    "flow": ("flows through", "runs through", "passes through", "crosses", "流经"),
    "population": ("population", "inhabitants", "residents", "people", "人口"),
    "area": ("area", "size", "surface", "面积"),
    "elevation": ("elevation", "altitude", "height", "tall", "high", "peak", "summit", "海拔", "高度", "高"),
    "depth": ("depth", "deep", "deepest", "深度", "深"),
    "length": ("length", "long", "长度", "全长", "长"),
    "language": ("language", "languages", "spoken", "tongue", "语言", "官方语言", "语"),
    "currency": ("currency", "money", "货币"),
    # events and time
    "time": ("date", "time", "year", "when", "day", "occurred", "occur", "happened", "took place", "held on",
             "日期", "时间", "年份", "年代", "发生", "时候"),
    "build": ("built", "build", "constructed", "construction", "erected", "建造", "修建", "兴建", "建设", "建于", "建"),
    "build.start": ("construction began", "construction started", "began construction", "groundbreaking",
                    "started construction", "foundation stone", "始建", "开工", "动工"),
    "build.end": ("completed", "completion", "finished", "construction ended", "建成", "竣工", "完工", "落成"),
    "open": ("opened", "opening", "inaugurated", "inauguration", "dedicated", "dedication", "unveiled", "开放", "开幕",
             "启用", "开通", "揭幕", "通车"),
    "launch": ("launched", "launch", "lift off", "liftoff", "发射"),
    "release": ("released", "release", "premiered", "premiere", "debuted", "first aired", "发行", "首映", "上映", "首播"),
    "sink": ("sank", "sunk", "sinking", "sink", "wrecked", "沉没"),
    "award": ("won", "win", "winner", "awarded", "award", "received", "recipient", "laureate", "honoured", "honored",
              "prize", "获奖", "获得", "荣获", "奖"),
    "rule": ("ruled", "ruler", "reigned", "reign", "king", "queen", "emperor", "monarch", "sovereign", "统治", "在位", "皇帝", "国王"),
    "office": ("served as", "office", "position", "post", "term", "担任", "任职", "职位", "职务"),
    "elected": ("elected", "election", "voted", "当选"),
    "participant": ("participated", "fought", "took part", "competed", "participant", "参加", "参与", "参战"),
    "crew": ("crew", "crewed", "astronaut", "aboard", "flew", "pilot", "piloted", "commander", "机组", "乘员", "宇航员"),
    "orbit": ("orbits", "orbit", "orbiting", "revolves around", "环绕", "绕"),
    "moon": ("moon", "moons", "satellite", "卫星"),
    # measures
    "min": ("lowest", "minimum", "min", "record low", "coldest", "least", "smallest", "最低", "最少", "最小"),
    "max": ("highest", "maximum", "max", "record high", "hottest", "most", "largest", "biggest", "greatest", "top",
            "最高", "最多", "最大"),
    "mass": ("mass", "weight", "weighs", "质量", "重量"),
    "speed": ("speed", "velocity", "top speed", "速度", "时速"),
    "distance": ("distance", "距离"),
    "diameter": ("diameter", "直径"),
    "capacity": ("capacity", "seats", "seating", "holds", "容量", "座位"),
    "cost": ("cost", "price", "budget", "fare", "fee", "costs", "价格", "造价", "费用", "预算"),
    "gross": ("box office", "grossed", "gross", "票房"),
    "count": ("number of", "count", "total", "数量", "数目", "总数"),
    "share.percent": ("share", "percentage", "percent", "proportion", "比例", "占比"),
    "boiling": ("boiling point", "boils", "沸点"),
    "melting": ("melting point", "melts", "熔点"),
    "genre": ("genre", "style", "movement", "school of", "流派", "风格"),
    "name": ("named after", "named for", "namesake", "命名", "name derives from", "name derived from",
             "name comes from", "name came from", "derives its name from", "takes its name from", "took its name from",
             "name origin", "origin of the name", "etymology", "eponym", "得名于", "得名", "名字来源", "名称来源"),
    # the dynasty or era a person or work belongs to
    "era": ("dynasty", "era", "historical period", "朝代", "时代", "所处时代", "所处朝代"),
    # a temple, church or work given to a deity or person ("dedicated to Vishnu"); not an opening ceremony
    "devote": ("dedicated to", "consecrated to", "devoted to", "consecrated", "供奉", "祭祀"),
    # a substance made by an organ, a cell or a plant: one way of producing it
    "produce.secrete": ("secreted", "secretes", "secretion", "synthesized", "synthesised", "synthesis", "分泌", "合成"),
}

# words that only say what kind of value the tail is or how it is measured: may be left unsaid
_VALUE_WORDS = {"value", "figure", "amount", "temperature", "degrees", "温度", "气温", "official", "main", "primary", "principal", "current", "total",
                "approximately", "about", "estimated", "recorded", "record", "known", "notable", "famous",
                "first", "original", "originally", "city", "town", "place", "home", "work", "works",
                "of", "in", "on", "at", "by", "to", "the", "a", "an", "is", "was", "are", "were", "has", "had",
                "have", "for", "from", "with", "as", "its", "his", "her", "their", "and", "into", "s", "be", "been",
                "co", "also", "which", "that", "it", "this", "under", "around", "jointly", "together",
                "的", "是", "为", "于", "在", "之", "了", "和", "与", "及", "者", "被", "由", "地", "时"}
# roles that only say the value is a time or a place: the other side may leave them out
_SOFT_ROLES = {"time", "location", "country", "province", "continent"}

_PHRASES = sorted(((w, r) for r, ws in _TABLE.items() for w in ws if " " in w or CJK.search(w)), key=lambda x: -len(x[0]))
_WORDS = {w: r for r, ws in _TABLE.items() for w in ws if " " not in w and not CJK.search(w)}


def _stem(word: str) -> str:
    for suffix in ("ings", "ing", "ers", "ed", "er", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


_STEMS: dict[str, str] = {}
for _w, _r in _WORDS.items():
    _STEMS.setdefault(_stem(_w), _r)


@lru_cache(maxsize=65536)
def roles_of(raw: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """(the roles the relation's words carry, the words outside the table that are not value words)."""
    text = " " + norm(raw.replace("_", " ").replace("-", " ")) + " "
    roles: set[str] = set()
    for phrase, phrase_role in _PHRASES:
        if CJK.search(phrase):
            if phrase in text:
                roles.add(phrase_role)
                text = text.replace(phrase, " ")
        elif f" {phrase} " in text:
            roles.add(phrase_role)
            text = text.replace(f" {phrase} ", " ")
    rest: list[str] = []
    for token in text.split():
        if CJK.search(token):
            left = [ch for ch in token if ch not in _VALUE_WORDS]
            if left:
                rest.append("".join(left))
            continue
        found = _WORDS.get(token) or _STEMS.get(_stem(token))
        if found:
            roles.add(found)
        elif token not in _VALUE_WORDS and not token.isdigit():
            rest.append(token)
    return frozenset(roles), tuple(rest)


def _fits(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _said(role: str, others: frozenset[str]) -> bool:
    return any(_fits(role, o) for o in others)


def _word_said(word: str, words: tuple[str, ...]) -> bool:
    stem = _stem(word)
    return any(stem == _stem(w) or (len(stem) >= 5 and (w.startswith(stem) or stem.startswith(_stem(w)))) for w in words)


@lru_cache(maxsize=262144)
def role_compatible(gt_raw: str, pred_raw: str) -> bool:
    """Do two relations between the same two entities state the same fact (see the module docstring)?"""
    g_roles, g_rest = roles_of(gt_raw)
    p_roles, p_rest = roles_of(pred_raw)
    hard_g, hard_p = g_roles - _SOFT_ROLES, p_roles - _SOFT_ROLES
    if hard_g or hard_p:
        if not hard_g or not hard_p:  # one side says only "where" or "when", the other a specific fact
            return False
        if not all(_said(r, hard_p) for r in hard_g) or not all(_said(r, hard_g) for r in hard_p):
            return False
    elif not (g_roles & p_roles):
        return False
    # a word outside the table must be said by the other side ("founding", "backup", "oldest" are not)
    return all(_word_said(w, p_rest) for w in g_rest) and all(_word_said(w, g_rest) for w in p_rest)


def has_role(raw: str) -> bool:
    return bool(roles_of(raw)[0])


__all__ = ["has_role", "role_compatible", "roles_of"]
