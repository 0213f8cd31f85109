"""A small curated table of names that denote one entity, for the offline judge (no network).

Each group lists the names of one entity in normalised form (``norm``: lower case, punctuation
as spaces, simplified Chinese). Two names in one group are equal; a name in a group and an
acronym of that group never match a name *outside* it by initials alone, so "MIT" is the
Massachusetts Institute of Technology and not "Manchester Institute of Technology". The table
is deliberately short: entities of the bundled tasks and a few very common abbreviations.
"""

from __future__ import annotations

from functools import lru_cache

from ._normalize import norm

_GROUPS: tuple[tuple[str, ...], ...] = (
    ("MIT", "Massachusetts Institute of Technology", "麻省理工学院", "麻省理工"),
    ("USA", "US", "U.S.", "U.S.A.", "United States", "United States of America", "美国"),
    ("UK", "U.K.", "United Kingdom", "United Kingdom of Great Britain and Northern Ireland", "英国"),
    ("PRC", "China", "People's Republic of China", "中国", "中华人民共和国"),
    ("UN", "United Nations", "联合国"),
    ("NASA", "National Aeronautics and Space Administration", "美国国家航空航天局"),
    ("ESA", "European Space Agency", "欧洲航天局", "欧空局"),
    ("IAU", "International Astronomical Union", "国际天文学联合会"),
    ("IMU", "International Mathematical Union", "国际数学联盟"),
    ("ICM", "International Congress of Mathematicians", "国际数学家大会"),
    ("IATA", "International Air Transport Association", "国际航空运输协会"),
    ("ICAO", "International Civil Aviation Organization", "国际民航组织"),
    ("UNESCO", "United Nations Educational, Scientific and Cultural Organization", "联合国教科文组织"),
    ("Lufthansa", "Deutsche Lufthansa", "Deutsche Lufthansa AG", "汉莎航空", "德国汉莎航空"),
    ("Star Alliance", "星空联盟"),
    ("Forbidden City", "Palace Museum", "故宫", "故宫博物院", "紫禁城"),
    ("Beijing", "Peking", "北京"),
    ("Mount Everest", "Everest", "Qomolangma", "Chomolungma", "Sagarmatha", "珠穆朗玛峰", "珠峰"),
    ("Su Shi", "Su Dongpo", "苏轼", "苏东坡"),
    ("Han Yu", "Han Changli", "韩愈", "韩昌黎"),
    ("Liu Zongyuan", "Liu Hedong", "柳宗元", "柳河东"),
    ("Ouyang Xiu", "欧阳修", "欧阳永叔"),
    ("Wang Anshi", "王安石", "王荆公"),
    ("Galileo", "Galileo Galilei", "伽利略"),
)


@lru_cache(maxsize=1)
def _table() -> dict[str, int]:
    out: dict[str, int] = {}
    for gid, names in enumerate(_GROUPS):
        for name in names:
            out[norm(name)] = gid
    return out


def alias_group(normalised: str) -> int | None:
    """The group of a normalised name, or None when the table does not know it."""
    return _table().get(normalised)

