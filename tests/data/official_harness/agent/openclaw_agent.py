"""Stand-in for the official harness's agent/openclaw_agent.py (written for vibesearch's tests,
in our own words): only the module-level strings vibesearch reads are here."""

POLL_INTERVAL = 5
NUDGE_MESSAGE = "NUDGE: is there any news on my question?"
