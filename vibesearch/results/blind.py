"""A blind study's play as shown to someone who may not know its agent (the site's readers, the
app's non-admins): the agent named ``blind study agent``, no model, no run config, and so grouped
under a configuration of that name; its events with every name of the agent's model written out
(``hidden_events``: an agent's usage records, an error quoting the model). Which plays are hidden, and from whom, is the caller's rule
(the app's ``_access.agent_hidden``, the site's ``_blind.study_plays``)."""

from __future__ import annotations

from typing import Any, Iterable

from ..scoring.aggregate import RunRecord, config_key
from ..run.events import StoredEvent
from ..store.tables import Run

BLIND_AGENT = "blind study agent"


def hidden_run(run: Run) -> Run:
    """The run with no agent kind, model or run config."""
    return Run.model_validate({**run.model_dump(), "agent": BLIND_AGENT, "agent_model": None, "run_config_json": None})


def hidden_record(record: RunRecord, run: Run) -> RunRecord:
    """A record of a blind play as shown (``run``: the play as ``hidden_run`` made it)."""
    return record.model_copy(update={"agent": BLIND_AGENT, "agent_model": None, "config": config_key(run)})


def hidden_records(records: Iterable[RunRecord], runs: Iterable[Run]) -> list[RunRecord]:
    """``records`` with those of ``runs`` (the plays to hide) as ``hidden_record`` shows them."""
    hide = {run.id: hidden_run(run) for run in runs}
    return [hidden_record(r, hide[r.run_id]) if r.run_id in hide else r for r in records]


def _agent_names(run: Run) -> list[str]:
    """What names the run's agent, longest first: its model(s) and endpoint, ``kind:model``."""
    names = {run.agent_model or ""}
    try:
        config = run.run_config()
    except ValueError:
        config = None
    if config is not None:
        agent = config.model_dump(mode="json").get("agent") or {}
        names |= {str(v) for k, v in agent.items() if isinstance(v, str) and ("model" in k or k == "endpoint_url")}
    if run.agent_model:
        names.add(f"{run.agent}:{run.agent_model}")
    return sorted((n for n in names if len(n) >= 3), key=len, reverse=True)


def _scrub(value: Any, names: list[str]) -> Any:
    if isinstance(value, str):
        for name in names:
            value = value.replace(name, BLIND_AGENT)
        return value
    if isinstance(value, list):
        return [_scrub(v, names) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v, names) for k, v in value.items()}
    return value


def hidden_events(run: Run, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A blind play's events with every name of its agent's model written out."""
    names = _agent_names(run)
    out = []
    for ev in events:
        data = _scrub(ev.get("data"), names)
        if isinstance(data, dict) and data.get("kind") == "usage" and data.get("purpose") == "agent":
            data["model"] = BLIND_AGENT
        out.append({**ev, "data": data})
    return out


def hidden_stored_events(run: Run, events: list[StoredEvent]) -> list[StoredEvent]:
    """``hidden_events`` for the events as the store gives them (the app's views)."""
    plain = [ev.model_dump(mode="json") for ev in events]
    return [StoredEvent.model_validate(ev) for ev in hidden_events(run, plain)]
