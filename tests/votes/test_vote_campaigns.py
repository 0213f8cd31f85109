"""Vote campaigns (``labels.vote_campaigns``, ``vibesearch votes campaign``) on real offline runs
(three configurations, two runs each of TASK), on SQLite and PostgreSQL: the pairs are balanced
over the configuration pairs and never mix tasks, an attention item pits an empty answer against
an answer, sides are drawn per voter and kept, the queue and progress follow the votes, and the
commands refuse bad input with one line and exit 1."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from votes_helpers import TASK, USERS, cli

from vibesearch.labels.vote_campaigns import (
    VoteCampaignError,
    create_vote_campaign,
    get_vote_campaign,
    items,
    next_item,
    progress,
    sides,
    vote_on,
)
from vibesearch.run import MessageEvent
from vibesearch.scoring.aggregate import config_key
from vibesearch.store import Store


def _empty_answer_run(store: Store, like: str) -> str:
    """A finished run of ``like``'s task and configuration whose agent never answered the user."""
    src = store.get_run(like)
    run = store.create_run(src.task_id, task_json=json.loads(src.task_json), agent=src.agent, user=src.user, status="finished")
    store.append(run.id, MessageEvent(role="user", content="hello?"))
    return run.id


def test_pairs_are_balanced_over_configuration_pairs_and_of_one_task(voted_db):
    url, by_user = voted_db
    store = Store(url)
    camp = create_vote_campaign(store, "bal", annotators=["ann", "bob"], overlap=2, pairs_per_config_pair=3, tasks=[TASK])
    runs = {rid: store.get_run(rid) for user in USERS for rid in by_user[user]}
    per_pair = Counter(tuple(sorted((config_key(runs[it.run_x]), config_key(runs[it.run_y])))) for it in items(camp))
    assert len(per_pair) == 3 and set(per_pair.values()) == {3}  # 3 configuration pairs, 3 pairs each
    assert all(runs[it.run_x].task_id == runs[it.run_y].task_id == TASK and it.expect is None for it in items(camp))
    assert len({it.pair() for it in items(camp)}) == 9  # no pair twice
    assert camp.spec()["pairs_per_config_pair"] == 3 and camp.spec()["where"] == {"task": [TASK]}
    # only two configurations: only their pairs; asking for more than the runs allow gives what there is (2 × 2)
    two = [config_key(runs[by_user["rules"][0]]), config_key(runs[by_user["direct"][0]])]
    small = create_vote_campaign(store, "two", annotators=["ann"], pairs_per_config_pair=50, configs=two, tasks=[TASK])
    assert len(items(small)) == 4 and {config_key(runs[r]) for it in items(small) for r in (it.run_x, it.run_y)} == set(two)


def test_an_attention_item_pits_an_empty_answer_against_an_answer(voted_db):
    url, by_user = voted_db
    store = Store(url)
    empty = _empty_answer_run(store, by_user["rules"][0])
    camp = create_vote_campaign(store, "att", annotators=["ann"], pairs_per_config_pair=2, tasks=[TASK], attention=1)
    [check] = [it for it in items(camp) if it.expect is not None]
    assert empty in (check.run_x, check.run_y) and check.expect != empty and check.expect in (check.run_x, check.run_y)
    # voted through the campaign: the expected run becomes the side it was shown on
    run_a, run_b = sides(camp, "ann", check)
    vote = vote_on(store, camp, "ann", check.index, "a" if run_a == empty else "b")  # the empty answer picked
    assert vote.attention == ("a" if run_a == check.expect else "b") and vote.winner != vote.attention
    assert (vote.run_a, vote.run_b) == (run_a, run_b) and vote.campaign == "att"
    # without an empty answer (the other task has none) no attention item is made
    none = create_vote_campaign(store, "noatt", annotators=["ann"], pairs_per_config_pair=1, where={"user": ["direct", "staged"]})
    assert [it for it in items(none) if it.expect] == []


def test_sides_queue_and_progress_follow_the_votes(voted_db):
    url, _ = voted_db
    store = Store(url)
    camp = create_vote_campaign(store, "q", annotators=["ann", "bob", "cy"], overlap=2, pairs_per_config_pair=2, tasks=[TASK])
    every = items(camp)
    assert sides(camp, "ann", every[0]) == sides(camp, "ann", every[0])  # a voter sees the same sides again
    swapped = [sides(camp, who, it)[0] == it.run_y for who in ("ann", "bob", "cy") for it in every]
    assert 0 < sum(swapped) < len(swapped)  # drawn, not fixed
    first = next_item(store, camp, "ann")
    assert first == every[0]
    vote_on(store, camp, "ann", first.index, "tie", "same")
    vote_on(store, camp, "bob", first.index, "b")
    assert next_item(store, camp, "ann") == every[1] and next_item(store, camp, "cy") == every[1]  # pair 1 has k votes
    assert next_item(store, camp, "cy", skip=[every[1].index]) == every[2]
    p = progress(store, camp)
    assert (p["items"], p["items_done"], p["votes"], p["votes_needed"]) == (6, 1, 2, 12)
    assert p["annotators"]["ann"] == {"voted": 1, "queue": 5} and p["annotators"]["cy"] == {"voted": 0, "queue": 5}
    with pytest.raises(VoteCampaignError, match="not a voter"):
        vote_on(store, camp, "eve", every[1].index, "a")
    with pytest.raises(VoteCampaignError, match="already|stored vote"):
        vote_on(store, camp, "ann", first.index, "a")
    with pytest.raises(VoteCampaignError, match="no item 99"):
        vote_on(store, camp, "ann", 98, "a")


@pytest.mark.parametrize("args, says", [
    (["--annotators", "ann", "--overlap", "2"], "overlap 2 must be between 1 and the number of annotators (1)"),
    (["--annotators", ""], "at least one annotator"),
    (["--annotators", "ann,ann"], "annotator 'ann' is named twice"),
    (["--annotators", "ann", "--where", "colour=red"], "--where 'colour=red': unknown key 'colour'"),
    (["--annotators", "ann", "--where", "user"], "--where 'user': write it as key=value"),
    (["--annotators", "ann", "--configs", "nobody (x) · user rules"], "configuration 'nobody (x) · user rules' has no finished run here"),
    (["--annotators", "ann", "--tasks", "no-such-task"], "fewer than two configurations"),
    (["--annotators", "ann", "--pairs-per-config-pair", "0"], "pairs per configuration pair must be at least 1"),
])
def test_create_refuses_bad_input_with_one_line(voted_db, args, says):
    url, _ = voted_db
    done = cli("votes", "campaign", "create", "bad", *args, "--db", url)
    assert done.exit_code == 1, done.output
    assert done.output.startswith("error: ") and done.output.count("\n") == 1 and says in done.output, done.output
    assert Store(url).vote_campaigns() == []


def test_create_list_and_status_commands(voted_db):
    url, by_user = voted_db
    made = cli("votes", "campaign", "create", "cv", "--annotators", "ann, bob", "--overlap", "2", "--tasks", TASK,
               "--pairs-per-config-pair", "1", "--db", url)
    assert made.exit_code == 0 and "vote campaign cv: 3 pairs (0 attention items), voters ann, bob, overlap 2" in made.output, made.output
    again = cli("votes", "campaign", "create", "cv", "--annotators", "ann", "--db", url)
    assert again.exit_code == 1 and "a vote campaign named 'cv' already exists" in again.output
    listed = json.loads(cli("votes", "campaign", "list", "--json", "--db", url).output)
    assert [(r["campaign"], r["pairs"], r["overlap"], r["annotators"]) for r in listed] == [("cv", 3, 2, ["ann", "bob"])]
    store = Store(url)
    camp = get_vote_campaign(store, "cv")
    vote_on(store, camp, "bob", items(camp)[0].index, "a")
    status = json.loads(cli("votes", "campaign", "status", "cv", "--json", "--db", url).output)
    assert status["votes"] == 1 and status["annotators"]["bob"] == {"voted": 1, "queue": 2}
    text = cli("votes", "campaign", "status", "cv", "--db", url).output
    assert "vote campaign cv: 3 pairs (0 attention items) · overlap 2 · 0/3 pairs done · 1/6 votes" in text
    missing = cli("votes", "campaign", "status", "nope", "--db", url)
    assert missing.exit_code == 1 and missing.output == "error: no vote campaign named 'nope' (there are: cv)\n"
    exported = cli("votes", "export", "--campaign", "cv", "--db", url)
    assert exported.exit_code == 0 and '"campaign": "cv"' in exported.output
