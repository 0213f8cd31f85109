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
