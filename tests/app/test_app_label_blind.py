"""Blind or not at the function level of the Label tab: what a view of a blind campaign, a judge
review and one run shows of the judges before a label (the "show anyway" toggle counts only where
nothing is blind), when the judge comparison comes in a blind view, and the run list, which names
no agent of a blind campaign's run to anyone but an admin."""

from __future__ import annotations

from label_blind_runs import AGENT, JUDGE, MODEL, scored_run

from vibesearch.app import AGENT_HIDDEN, Who
from vibesearch.app.label import agreement_html, labelable_runs, load_view, record_label, triple_html, verdict_html
from vibesearch.labels.campaigns import create_campaign

ADMIN = Who(owner="user:root", login="root", admin=True)
ANN = Who(owner="user:ann", login="ann")


def test_what_each_view_shows_of_the_judges_before_a_label(app_ctx, settings):
    free, hidden = scored_run(settings.db), scored_run(settings.db)
    one = load_view(app_ctx, free, "ann")
    assert one.blind is None
    assert JUDGE not in verdict_html(one, False) and f"judge {JUDGE}" in verdict_html(one, True)  # the toggle decides
    create_campaign(app_ctx.store, "c", runs=[hidden], annotators=["ann"], sides=["coverage"], overlap=1)
    blind = load_view(app_ctx, hidden, "ann")  # a run of a blind campaign, even outside it
    assert blind.blind is True
    assert JUDGE not in verdict_html(blind, True) and "Blind" in verdict_html(blind, True)
    assert JUDGE not in triple_html(blind) and "Judge review" not in triple_html(blind)
    review = load_view(app_ctx, free, "ann")
    review.blind, review.campaign = False, "r"  # what a judge review's queue makes of it
    assert f"judge {JUDGE}</b> says <b>covered" in triple_html(review) and f"judge {JUDGE}" in verdict_html(review, False)


def test_a_blind_view_keeps_the_judge_comparison_until_its_items_are_labelled(app_ctx, settings):
    rid = scored_run(settings.db, triples=2)
    create_campaign(app_ctx.store, "c", runs=[rid], annotators=["ann"], sides=["coverage"], overlap=1)
    v = load_view(app_ctx, rid, "ann")
    record_label(app_ctx, v, False, [], "")
    for scope in ("run", "all"):
        shown = agreement_html(app_ctx, v, scope=scope, who=ADMIN)
        assert "Blind: the judge comparison" in shown and JUDGE not in shown
    record_label(app_ctx, v, False, [], "")
    assert f"judge {JUDGE}" in agreement_html(app_ctx, v, scope="run", who=ADMIN)  # every item labelled: it comes


def test_the_run_list_names_a_blind_campaigns_agent_to_admins_only(app_ctx, settings):
    hidden, free = scored_run(settings.db), scored_run(settings.db, agent="openagent", model="openmodel")
    create_campaign(app_ctx.store, "c", runs=[hidden], annotators=["ann"], sides=["coverage"], overlap=1)
    create_campaign(app_ctx.store, "r", runs=[free], annotators=["ann"], sides=["coverage"], overlap=1, blind=False)
    for who in (ANN, None):
        listed = dict((value, label) for label, value in labelable_runs(app_ctx, who))
        assert AGENT_HIDDEN in listed[hidden] and AGENT not in listed[hidden] and MODEL not in listed[hidden]
        assert "openagent (openmodel)" in listed[free]  # a judge review hides no agent from its list
    assert f"{AGENT} ({MODEL})" in dict((value, label) for label, value in labelable_runs(app_ctx, ADMIN))[hidden]
