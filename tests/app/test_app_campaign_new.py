"""The Label tab's "New campaign" form (``app/campaign_new.py``, issue 39 item 8): an admin makes a
campaign where it is labelled; anyone else is refused, whatever the page sends; a refusal stores
nothing and says why in one line."""

from __future__ import annotations

from label_runs import JAPAN, new_run

from vibesearch.app import Who
from vibesearch.app.campaign_new import make_campaign, run_choices

ADMIN = Who(owner="user:root", login="root", admin=True)
ANN = Who(owner="user:ann", login="ann")


def test_an_admin_makes_a_campaign_from_picked_runs_and_from_a_filter(app_ctx, store, settings):
    a, b = new_run(settings.db, 5), new_run(settings.db, 6)
    offered = {rid for _label, rid in run_choices(app_ctx, ADMIN)}
    assert {a, b} <= offered
    line = make_campaign(app_ctx, ADMIN, "pilot", [a], "", "ann, bob", ["coverage"], 2)
    assert line.startswith("Campaign **pilot** made: 1 runs"), line
    row = store.campaign("pilot")
    assert row is not None and row.run_ids() == [a] and row.annotators() == ["ann", "bob"]
    assert row.sides() == ["coverage"] and row.overlap == 2 and row.created_by == "root"
    by_filter = make_campaign(app_ctx, ADMIN, "by task", [], f"task={JAPAN}", "ann", ["coverage", "validity"], 1)
    assert "made: 2 runs" in by_filter, by_filter
    assert sorted(store.campaign("by task").run_ids()) == sorted([a, b])
    # what the form sent is shown inert: an image in a name is a link, never a picture loaded
    shown = make_campaign(app_ctx, ADMIN, "![x](http://evil.example/p.png)", [a], "", "ann", ["coverage"], 1)
    assert "made: 1 runs" in shown and "![" not in shown, shown


def test_a_non_admin_is_refused_and_nothing_is_stored(app_ctx, store, settings):
    a = new_run(settings.db, 5)
    assert run_choices(app_ctx, ANN)  # they may read runs, yet they may not make a campaign
    line = make_campaign(app_ctx, ANN, "mine", [a], "", "ann", ["coverage"], 1)
    assert line.startswith("Not created: Only an admin"), line
    assert store.campaign("mine") is None


def test_bad_forms_are_refused_in_one_line(app_ctx, store, settings):
    a = new_run(settings.db, 5)
    bad = [
        (("", [a], "", "ann", ["coverage"], 1), "name"),
        (("x", [a], "task=t", "ann", ["coverage"], 1), "not both"),
        (("x", [], "", "ann", ["coverage"], 1), "name the campaign's runs"),
        (("x", [a], "", "", ["coverage"], 1), "at least one annotator"),
        (("x", [a], "", "ann", [], 1), "at least one side"),
        (("x", [a], "", "ann", ["coverage"], 3), "overlap 3"),
        (("x", [a], "", "ann", ["coverage"], "two"), "whole number"),
        (("x", [], "colour=red", "ann", ["coverage"], 1), "unknown key"),
        (("x", ["not-a-run"], "", "ann", ["coverage"], 1), "not one this form offers"),
        (("x", [a], "", "ann, ann", ["coverage"], 1), "named twice"),
        (("<b>x</b>", [], "task=none", "ann", ["coverage"], 1), "no finished run"),
    ]
    for args, why in bad:
        line = make_campaign(app_ctx, ADMIN, *args)
        assert line.startswith("Not created:") and why in line and "\n" not in line, (args, line)
        assert "<b>" not in line  # what the form sent is escaped when shown
    assert store.campaigns() == []


def test_the_form_makes_a_blind_campaign_unless_unticked(app_ctx, store, settings):
    a = new_run(settings.db, 5)
    assert "k = 1, blind." in make_campaign(app_ctx, ADMIN, "quiet", [a], "", "ann", ["coverage"], 1)
    assert "k = 1, not blind (judge review)." in make_campaign(app_ctx, ADMIN, "review", [a], "", "ann", ["coverage"], 1, False)
    assert {c.name: c.blind for c in store.campaigns()} == {"quiet": True, "review": False}
    refused = make_campaign(app_ctx, ADMIN, "odd", [a], "", "ann", ["coverage"], 1, "no")  # a page sending text
    assert refused == "Not created: blind must be ticked or not (true or false)" and store.campaign("odd") is None
    assert make_campaign(app_ctx, ANN, "mine", [a], "", "ann", ["coverage"], 1, False).startswith("Not created: Only an admin")


def test_the_status_lines_speak_the_browser_s_language(app_ctx, store, settings):
    """For a Chinese browser the form's lines are in Chinese: the refusal to a non-admin, a reason
    the form gives, and the line of a campaign made (what was sent still shown inert)."""
    a = new_run(settings.db, 5)
    assert make_campaign(app_ctx, ANN, "mine", [a], "", "ann", ["coverage"], 1, lang="zh").startswith("未创建：只有管理员")
    assert make_campaign(app_ctx, ADMIN, "x", [a], "", "ann", ["coverage"], "two", lang="zh") == "未创建：重叠数 k 必须是整数"
    assert store.campaigns() == []
    made = make_campaign(app_ctx, ADMIN, "![x](http://e.example/p.png)", [a], "", "ann, bob", ["coverage", "validity"], 2, lang="zh")
    assert made.startswith("标注活动 **") and "已创建：1 次运行，标注方面 覆盖, 有效性，标注者 ann, bob，k = 2，盲评。" in made, made
    assert "![" not in made
