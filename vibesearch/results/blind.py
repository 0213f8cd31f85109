"""A blind study's play as shown to someone who may not know its agent (the site's readers, the
app's non-admins): the agent named ``blind study agent``, no model, no run config, and so grouped
under a configuration of that name. Which plays are hidden, and from whom, is the caller's rule
(the app's ``_access.agent_hidden``, the site's ``_blind.study_plays``)."""

from __future__ import annotations

from typing import Iterable

from ..scoring.aggregate import RunRecord, config_key
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
