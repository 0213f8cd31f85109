"""The scripted react model of the web recording tests (``test_web_record_replay.py``), loadable
in a subprocess too: ``VIBESEARCH_FAKE_MODELS=_web_agent:register`` with tests/tools on the path
registers ``fake/webrec`` searching ``QUERY`` and visiting every result and the extra URLs named
by ``VIBESEARCH_TEST_WEB_EXTRA`` (comma-separated)."""

from __future__ import annotations

import json
import os
import re
from typing import Callable

from vibesearch.llm import fake as fake_mod

QUERY = "stone bridge of Valdoria"
_URL = re.compile(r"URL: (\S+)")
FACTS = {"Aldo Ferri": ("Aldo Ferri", "built", "the bridge of Valdoria"), "1742": ("the bridge of Valdoria", "completed in", "1742"),
         "Müller": ("Café Müller", "located beside", "the bridge of Valdoria")}


def agent(query: str, extra_urls: Callable[[], list[str]]):
    """A scripted react model: search ``query``, visit every result (and ``extra_urls``), reply;
    its reply and then its extraction name the facts the tool results showed."""

    def handler(req: fake_mod.Request) -> fake_mod.Reply:
        if not req.tools:
            seen = " ".join(str(m.get("content")) for m in req.messages)
            triples = [dict(zip(("head", "relation", "tail"), t)) for cue, t in FACTS.items() if cue in seen]
            return fake_mod.Reply(content="```json\n" + json.dumps(triples, ensure_ascii=False) + "\n```")
        results = req.tool_results()
        if not results:
            return fake_mod.Reply(tool_calls=[("search", {"query": query, "topn": 4})])
        if len(results) == 1:
            urls = _URL.findall(str(results[0].get("content")))
            return fake_mod.Reply(tool_calls=[("visit", {"url": urls + extra_urls(), "goal": "who built the bridge and when"})])
        shown = " ".join(str(m.get("content")) for m in results)
        found = [" ".join(t) for cue, t in FACTS.items() if cue in shown]
        return fake_mod.Reply(content="I found: " + "; ".join(found) + ". Anything else?")

    return handler


def register() -> None:
    extra = [u for u in os.environ.get("VIBESEARCH_TEST_WEB_EXTRA", "").split(",") if u]
    fake_mod.register("webrec", agent(QUERY, lambda: extra))
