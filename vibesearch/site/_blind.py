"""Study plays on a site: which runs are a study's plays, and a blind study's play as published.

A study's play is published only when the build asks for it (``--study NAME``, ``--include-studies``).
A study that keeps annotators blind to its agent (``StudyConfig.blind``, on unless the admin turned
it off; a play started by a link carries ``meta.blind`` as well) keeps it from every reader of the
site too: its plays are published with the agent named ``blind study agent`` and no model, without
their run config, and every model name of the agent's is written out of their events (an agent's
usage records, an error quoting the model). The figures are computed from what is published, so
``site verify`` recomputes the same numbers.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from ..results.blind import BLIND_AGENT
from ..store import Store
from ..store.tables import Run


def study_plays(store: Store, runs: Iterable[Run]) -> dict[str, bool]:
    """Every study play, its run id → whether the agent must stay hidden: the runs a study's codes
    recorded (blind unless the study's config turned it off, as ``StudyConfig`` defaults) and the
    runs started as a play (``meta.study``; blind when ``meta.blind``)."""
    out: dict[str, bool] = {}
    for study in store.studies():
        try:
            blind = json.loads(study.config_json or "{}").get("blind", True) is not False
        except (ValueError, AttributeError):
            blind = True  # a config that cannot be read: keep the agent hidden
        for play in store.study_codes(study.id):
            if play.run_id:
                out[play.run_id] = blind
    for run in runs:
        meta = run.meta()
        if meta.get("study") or meta.get("blind"):
            out[run.id] = out.get(run.id, False) or bool(meta.get("blind"))
    return out


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
