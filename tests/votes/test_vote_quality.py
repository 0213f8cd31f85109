"""The votes' quality checks on votes made in the test (the report's own tests read them from real
runs): a vote for an empty answer fails its attention check, a voter who goes against the
others' majority far more than the pool does is flagged, position bias is the share of side A,
and Krippendorff's α between voters is 1 when they all agree."""

from __future__ import annotations

from vibesearch.labels import vote_quality
from vibesearch.labels.vote_metric import citations
from vibesearch.store import VoteRow


def _v(a: str, b: str, winner: str, voter: str, attention: str | None = None) -> VoteRow:
    return VoteRow(run_a=a, run_b=b, winner=winner, voter=voter, attention=attention)


def test_a_vote_for_an_empty_answer_fails_and_one_against_it_passes():
    answers = {"r1": "Kinkaku-ji is in Kyoto.", "r2": "   ", "r3": "Nara Park."}
    votes = [_v("r1", "r2", "b", "ann"), _v("r2", "r1", "b", "bob"), _v("r1", "r3", "a", "ann"), _v("r2", "r3", "tie", "cy")]
    got = vote_quality.attention(votes, answers)
    assert (got["checked"], got["failed"]) == (3, 1)  # r1 vs r3: both answered, no check
    assert got["per_voter"] == {"ann": {"checked": 1, "failed": 1}, "bob": {"checked": 1, "failed": 0}, "cy": {"checked": 1, "failed": 0}}
    assert got["failed_votes"][0]["voter"] == "ann"


def test_a_voter_against_the_majority_is_flagged():
    votes = []
    for p in range(12):
        a, b = f"x{p}", f"y{p}"
        for voter in ("ann", "bob", "cy", "dee"):
            votes.append(_v(a, b, "a", voter))
        votes.append(_v(b, a, "a", "eve"))  # eve prefers the other run every time
    per = vote_quality.majority_agreement(votes)
    assert per["ann"] == {"votes": 12, "compared": 12, "agree": 12, "agreement": 1.0}
    assert per["eve"]["agreement"] == 0.0
    flagged = vote_quality.outliers(per, vote_quality.attention(votes, {}))
    assert [f["voter"] for f in flagged] == ["eve"] and "agrees with the majority on 0 of 12 votes" in flagged[0]["why"]
    assert vote_quality.voter_alpha([v for v in votes if v.voter != "eve"]) == 1.0  # all agree
    assert 0 < vote_quality.voter_alpha(votes) < 1
    assert vote_quality.voter_alpha([_v("x0", "y0", "a", "ann")]) is None  # one voter: undefined


def test_position_bias_is_the_share_of_side_a():
    votes = [_v(f"a{i}", f"b{i}", "a" if i < 30 else "b", "ann") for i in range(40)] + [_v("p", "q", "tie", "ann")]
    pb = vote_quality.position_bias(votes)
    assert (pb["decisive"], pb["a"], pb["rate_a"]) == (40, 30, 0.75)
    assert pb["ci"][0] > 0.5 and pb["p_value"] < 0.01
    assert vote_quality.position_bias([])["rate_a"] is None


def test_citations_are_distinct_web_addresses():
    text = "See https://a.example/x, and https://a.example/x. Also (http://b.example/y) but not ftp://c.example."
    assert citations(text) == 2
