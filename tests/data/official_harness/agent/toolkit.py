"""Stand-in for the official toolkit module (our own placeholder text) with the official name of
the page extractor's prompt. Only that name is read, by parsing."""

import os

# Importing this file is a bug in vibesearch: leave a mark, then fail loudly.
with open(os.environ.get("HARNESS_IMPORT_MARKER", "harness-was-imported.txt"), "w") as _f:
    _f.write("agent/toolkit.py was executed\n")
raise RuntimeError("the stand-in harness must be parsed, not imported")

EXTRACTOR_PROMPT = (
    "STAND-IN extractor.\n"
    "PAGE:\n{webpage_content}\n"
    "GOAL:\n{goal}\n"
    'STAND-IN: answer JSON with "evidence" and "summary".'
)
