"""Comparing runs event by event (a resumed run against an uninterrupted one)."""

from __future__ import annotations


def normalised(events):
    """A run's events without the noise of ids, timings and usage (what a resumed run must equal)."""
    out = []
    ids: dict[str, str] = {}
    for ev in events:
        d = ev.data.model_dump(mode="json")
        if d["kind"] == "usage":
            continue
        if d["kind"] == "tool_call":  # ids are the provider's; number them by position instead
            ids[d["call_id"]] = f"c{len(out)}"
        if "call_id" in d:
            d["call_id"] = ids.get(d["call_id"], d["call_id"])
        d.pop("elapsed_s", None)
        d.pop("latency_s", None)
        out.append(d)
    return out
