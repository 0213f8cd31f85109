"""The page's config (the HTML every visitor receives, and ``/config``) is built once for
everyone: a study player, a reader of their own runs only, anyone at the login door. It must hold
nothing of the stored runs — no run id, no agent model, no campaign or study name — which the
tabs fill for their reader when they open (found by the study-votes browser test: the Runs table
was in it)."""

from __future__ import annotations

import json

from label_runs import JAPAN, new_run

from vibesearch.app import StudyConfig, create_study
from vibesearch.labels.campaigns import create_campaign
from vibesearch.store import Store


def test_the_page_config_names_no_stored_run_campaign_or_study(settings):
    from vibesearch.app.ui import build_app

    store = Store(settings.db)
    plain = new_run(settings.db, 5)
    react = store.create_run(JAPAN, agent="react", agent_model="fake/private-agent-model", user="rules", status="finished")
    create_campaign(store, "private-campaign-name", annotators=["ann"], sides=["coverage"], overlap=1, runs=[plain])
    create_study(store, "private-study-name", StudyConfig(tasks=(JAPAN,)), "user:root")
    config = json.dumps(build_app(settings).get_config_file(), default=str)
    for secret in (plain, react.id, "private-agent-model", "private-campaign-name", "private-study-name"):
        assert secret not in config, secret
    assert JAPAN in config  # the bundled tasks are everyone's: the Play tab offers them
