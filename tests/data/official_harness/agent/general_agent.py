"""Stand-in for the official agent module (our own placeholder text) with the official names of
its compaction prompts. Only those two names are read, by parsing."""

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
