"""A scripted OpenAI-compatible model for OpenClaw's tests (a real HTTP server on 127.0.0.1).

OpenClaw wraps what the user wrote (a timestamp before it, runtime lines after it) and adds
context messages of its own, so the script looks at the newest plain user message: the opening
question gets one call of the corpus search, a tool result gets an answer, the question about
Euler's students is answered "NO_REPLY" (OpenClaw's way of saying nothing) until a nudge comes,
the graph request gets the graph, anything else a short reply. Every request body is kept (``requests``) and, when
``log_path`` is set, appended to that file as one JSON line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents_testkit import ChatServer, chat_completion

GRAPH = [
    {"head": "Leonhard Euler", "relation": "born in", "tail": "Basel"},
    {"head": "Leonhard Euler", "relation": "doctoral advisor", "tail": "Johann Bernoulli"},
]


def plain_user_text(messages: list[dict[str, Any]]) -> tuple[int, str]:
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if m.get("role") != "user":
            continue
        content = m.get("content")
        if isinstance(content, list):
            content = "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
        text = str(content or "")
        if "OPENCLAW_INTERNAL_CONTEXT" in text:
            continue
        return i, text
    return -1, ""


def tool_names(body: dict[str, Any]) -> list[str]:
    return sorted(str(t.get("function", {}).get("name")) for t in body.get("tools") or [])


class FakeModel:
    def __init__(self, log_path: Path | None = None, *, silent: bool = False, shy: bool = False):
        self.log_path = log_path
        self.silent = silent  # never answer (the kill test kills the run while OpenClaw waits)
        self.shy = shy  # answer the opening with OpenClaw's "NO_REPLY", so that it is nudged
        self.server = ChatServer(self.respond)
        self.base_url = self.server.base_url

    @property
    def requests(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.server.requests]

    def respond(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if self.log_path is not None:
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps({"tools": tool_names(body), "n_messages": len(body.get("messages") or [])}) + "\n")
        if self.silent:
            import time

            time.sleep(120)  # the kill test kills the run while OpenClaw waits for this
        messages = body.get("messages") or []
        at, text = plain_user_text(messages)
        after = messages[at + 1:] if at >= 0 else []
        if any(m.get("role") == "tool" for m in after):
            return 200, chat_completion("Leonhard Euler was born in Basel; his teacher was Johann Bernoulli.")
        if "knowledge graph" in text.lower():
            return 200, chat_completion(json.dumps(GRAPH))
        # shy: silent ("NO_REPLY") until nudged; otherwise only the question about students waits for a nudge
        asked_students = any("students" in str(m.get("content")) for m in messages if m.get("role") == "user")
        if "knowledge graph" not in text.lower() and (self.shy or asked_students):
            nudged = any("NUDGE" in str(m.get("content")) or "still there" in str(m.get("content")) for m in messages if m.get("role") == "user")
            if nudged:
                return 200, chat_completion("Sorry for the wait: Leonhard Euler was born in Basel." if self.shy else "His students included Lagrange.")
            return 200, chat_completion("NO_REPLY")
        if "Who taught Leonhard Euler" in text and "vibesearch__search" in tool_names(body):
            return 200, chat_completion(None, [("call_search_1", "vibesearch__search", {"query": "Leonhard Euler teacher birthplace"})])
        return 200, chat_completion("Glad to help. Is there anything else about Euler you would like to know?")

    def close(self) -> None:
        self.server.close()
