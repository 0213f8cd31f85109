"""The one-line count summary the terminal prints after a run or a turn, read off the transcript
view (``run.transcript``: the same counting rule as the app, the site and the statistics)."""

from __future__ import annotations

from typing import Iterable

from ..run import EventData, StoredEvent
from ..run.transcript import Transcript


def counts_line(events: Iterable[StoredEvent | EventData], *, imported: bool = False) -> str:
    """``#User 3 · #Asst 7 · tool calls 5 (search 4, open 1) · tokens 1,200 / 300 · cost $0.0012``."""
    from ..scoring.stats import stats_of

    view = Transcript.of(events, imported=imported)
    c = view.counts
    stats = stats_of("", c)
    tools = ", ".join(f"{k} {v}" for k, v in c.tool_calls_by_tool.items())
    parts = [f"#User {c.n_user}", f"#Asst {c.n_asst}", f"tool calls {c.tool_calls}" + (f" ({tools})" if tools else "")]
    if c.tokens_by_purpose:  # no model call at all (the offline agent and user): nothing to say of tokens or cost
        parts += [f"tokens {stats.tokens_text()}", f"cost {stats.cost_text}"]
    if c.compactions:
        parts.append(f"compactions {c.compactions}")
    if c.web.get("recorded"):
        parts.append(f"web recorded {c.web['recorded']}")
    replayed = sum(n for k, n in c.web.items() if k != "recorded")
    if replayed:
        parts.append(f"web replayed {replayed} ({c.web_misses} not in the recording)")
    return " · ".join(parts)
