"""Stand-in for the official agent module (our own placeholder text) with the official names of
its compaction prompts and of its tool list. Only those names are read, by parsing."""

import os

# Importing this file is a bug in vibesearch: leave a mark, then fail loudly.
with open(os.environ.get("HARNESS_IMPORT_MARKER", "harness-was-imported.txt"), "w") as _f:
    _f.write("agent/general_agent.py was executed\n")
raise RuntimeError("the stand-in harness must be parsed, not imported")

COMPACT_SYSTEM = "STAND-IN compaction system: summarise only."

COMPACT_PROMPT = """\
STAND-IN compaction request. The research so far:
{conversation}
End of research."""


# the official shape: the search parameters are a separate literal that the list refers to
_SEARCH_PARAMS = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "STAND-IN: the query"},
        "topn": {"type": "integer", "description": "STAND-IN: how many", "default": 10},
        "source": {"type": "string", "description": "STAND-IN: where", "enum": ["web", "news"], "default": "web"},
    },
    "required": ["query"],
}

TOOLS_CUSTOM = [
    {
        "type": "function",
        "function": {"name": "search", "description": "STAND-IN search tool.", "parameters": _SEARCH_PARAMS},
    },
    {
        "type": "function",
        "function": {
            "name": "visit",
            "description": "STAND-IN visit tool " "(reads pages for a goal).",
            "parameters": {
                "type": "object",
                "properties": {
                    "url": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "STAND-IN: the pages"},
                    "goal": {"type": "string", "description": "STAND-IN: the goal"},
                },
                "required": ["url", "goal"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "scholar_search",
            "description": "STAND-IN scholar tool.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string", "description": "STAND-IN: the query"}},
                "required": ["query"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "python",
            "description": "STAND-IN python tool.",
            "parameters": {
                "type": "object",
                "properties": {"code": {"type": "string", "description": "STAND-IN: the code"}},
                "required": ["code"],
            },
        },
    },
]


class StandInAgent:
    """Only the shape of the official method matters here: a dict literal whose content holds the
    summary, and the literal request to go on appended after it."""

    def _compact_context(self, api_msgs, question, summary):
        api_msgs.clear()
        api_msgs.append({"role": "user", "content": question})
        summary_msg: dict = {
            "role": "assistant",
            "content": f"STAND-IN summary lead:\n\n{summary}",
        }
        api_msgs.append(summary_msg)
        api_msgs.append({"role": "user", "content": "STAND-IN: go on."})
        return 1
