"""Stand-in prompts (our own placeholder text) with the official variable names."""

import os

# Importing this file is a bug in vibesearch: leave a mark, then fail loudly.
with open(os.environ.get("HARNESS_IMPORT_MARKER", "harness-was-imported.txt"), "w") as _f:
    _f.write("agent/prompts.py was executed\n")
raise RuntimeError("the stand-in harness must be parsed, not imported")

RESEARCH_SYSTEM_PROMPT_EN = """\
STAND-IN agent prompt (en): research on the web, then ask the user sharp questions."""

RESEARCH_SYSTEM_PROMPT_ZH = "STAND-IN agent prompt (zh): " "先搜索，再提问。"

TRIPLE_REQUEST_PROMPT_EN = "STAND-IN extraction request (en): list every triple as JSON."

TRIPLE_REQUEST_PROMPT_ZH = "STAND-IN extraction request (zh): " + "把所有三元组输出为 JSON。"

USER_SIMULATOR_SYSTEM_PROMPT = """\
STAND-IN simulator.
Persona: {user_persona}
Goal: {initial_query}
Say [DONE] when finished."""
