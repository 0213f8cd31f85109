"""The judges built through the registry (``judge_for(name).factory``) judge as the judges themselves do."""

from __future__ import annotations

import asyncio

from vibesearch.judges.offline import OfflineJudge
from vibesearch.judges.registry import judge_for
from vibesearch.judges.registry import judge_label
from vibesearch.scoring import score_graph

GT = [{"head": "Kyoto", "relation": "located in", "tail": "Japan"}, {"head": "Kyoto", "relation": "founded", "tail": "794"}]
PRED = [{"head": "kyoto", "relation": "located in", "tail": "japan"}]


def test_the_offline_factory_gives_the_offline_judges_verdicts():
    built = judge_for("offline").factory("offline", None)
    result = asyncio.run(built.judge(GT, PRED))
    direct = OfflineJudge().judge(GT, PRED)
    assert [v.covered for v in result.verdicts] == [v.covered for v in direct.verdicts] == [True, False]


def test_labels_come_from_the_descriptions():
    assert judge_label("offline") == "offline judge"
    assert judge_label("openai/gpt-4o-mini") == "LLM judge openai/gpt-4o-mini"
    assert score_graph(GT, PRED, judge="offline").details["judge_label"] == "offline judge"
