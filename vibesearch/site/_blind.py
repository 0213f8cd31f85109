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
from typing import Iterable

from ..results.blind import hidden_events
from ..store import Store
from ..store.tables import Run


__all__ = ["hidden_events", "study_plays"]


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
