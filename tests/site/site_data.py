"""The database the site tests build from (see conftest.py), made offline in a few seconds."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from typer.testing import CliRunner


@dataclass
class SiteDb:
    path: Path
    rules_runs: list[str]
    direct_runs: list[str]
    xss_run: str
    imported_run: str | None
    campaign: str
    secrets: list[str] = field(default_factory=list)

TASKS = ["daily-en-japan-heritage-trip", "pro-en-analysis-history"]
SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=1">'
JS_LINK = "javascript:alert(1)"
FAKE_KEY = "sk-FAKE-site-test-key-0123456789abcdef"
OWNER = "owner-token-SITE-secret-9f8e7d6c5b4a"
LOGIN = "login-token-SITE-secret-0a1b2c3d4e5f"
PASSWORD = "hunter2-SITE-password-xyz"
NOTE = "note-SITE-secret-typed-by-an-annotator-77"


def xss_task() -> dict:
    return {
        "id": "xss-task", "subset": "pro", "language": "en", "title": f"Markup {SCRIPT}", "domain": IMG,
        "sources": [JS_LINK, "https://example.org/ok"],
        "persona": {
            "background": f"A tester {SCRIPT} who writes {IMG}", "initial_query": f"Find {SCRIPT} please",
            "behavior": f"see [this]({JS_LINK})",
            "stages": [{"name": f"open {IMG}", "trigger": {"kind": "start", "condition": "c"}, "line": "l"},
                       {"name": "second", "trigger": {"kind": "mentions", "condition": "c"}, "line": "l"}],
        },
        "graph": [{"head": SCRIPT, "relation": "has", "tail": IMG}, {"head": "Ada", "relation": "wrote", "tail": "Notes"},
                  {"head": "Ada", "relation": "links", "tail": JS_LINK}],
    }


def _xss_run(store) -> str:
    from vibesearch.run import EndEvent, GraphEvent, MessageEvent
    from vibesearch.run.events import StageEvent, ToolCallEvent, ToolResultEvent
    from vibesearch.scoring import score_run

    run = store.create_run("xss-task", task_json=xss_task(), status="finished", agent="react", agent_model="fake/xss",
                           user="rules", owner=OWNER, termination="done",
                           config={"openai_api_key": FAKE_KEY, "endpoint_key": FAKE_KEY, "password": PASSWORD},
                           meta={"owner_token": OWNER})
    for ev in [
        StageEvent(stage_index=0, stage_name=f"open {IMG}", reply_kind="open", decided_by="rules"),
        MessageEvent(role="user", content=f"Find {SCRIPT} please"),
        MessageEvent(role="assistant", content=f"Looking {IMG}", n_tool_calls=1),
        ToolCallEvent(call_id="c1", tool="search", arguments={"query": SCRIPT}),
        ToolResultEvent(call_id="c1", tool="search", content=f"page says {IMG} and {JS_LINK}"),
        MessageEvent(role="assistant", content=f"Here: {SCRIPT} {IMG} [x]({JS_LINK})", final=True),
        StageEvent(stage_index=1, stage_name="second", advanced=True, reply_kind="disclose", decided_by="rules"),
        MessageEvent(role="user", content=f"ok {IMG}"),
        MessageEvent(role="user", content="Now the triples.", phase="extraction"),
        MessageEvent(role="assistant", content=f"[{SCRIPT}]", phase="extraction"),
        GraphEvent(triples=[{"head": SCRIPT, "relation": "has", "tail": IMG}, {"head": "Ada", "relation": "wrote", "tail": f"{IMG} x"}]),
        EndEvent(termination="done"),
    ]:
        store.append(run.id, ev)
    score_run(store, run.id)
    return run.id


def build_database(folder: Path, trajectory: Path | None):

    from vibesearch.labels.campaigns import create_campaign
    from vibesearch.scoring.metrics import stored_verdicts
    from vibesearch.store import Store

    db = folder / "site.db"
    runner = CliRunner()
    from vibesearch.cli.main import app

    def cli(*args: str) -> None:
        out = runner.invoke(app, [*args, "--db", str(db)])
        assert out.exit_code == 0, out.output

    cli("run", "--tasks", ",".join(TASKS), "--runs", "1")
    cli("run", "--tasks", ",".join(TASKS), "--runs", "1", "--user", "direct")
    cli("score", "--all")
    store = Store(db)
    runs = store.list_runs()
    rules = [r.id for r in runs if r.user == "rules"]
    direct = [r.id for r in runs if r.user == "direct"]
    xss = _xss_run(store)
    imported = None
    if trajectory is not None:
        from vibesearch.interop.official_trajectories import import_trajectory

        imported = import_trajectory(store, trajectory).run_id
    # a labelling campaign over one run of each configuration; two annotators, the judge's
    # verdicts flipped on the first two items so the agreement is measured and not perfect
    labelled = [rules[0], direct[0]]
    create_campaign(store, "site-labels", runs=labelled, annotators=["ann", "bob"], sides=["coverage"], overlap=2)
    for rid in labelled:
        score = [s for s in store.scores(rid) if s.judge == "offline"][-1]
        for v in stored_verdicts(store, score.id)[:12]:
            said = bool(v.covered) if v.gt_index >= 2 else not v.covered
            for who in ("ann", "bob"):
                store.put_label(rid, v.gt_index, who, said, v.evidence if said else [], note=NOTE)
    # secrets a build must never publish
    store.put_login(LOGIN, "admin", 3600)
    secrets = [FAKE_KEY, OWNER, LOGIN, PASSWORD, NOTE, hashlib.sha256(LOGIN.encode()).hexdigest()]
    from vibesearch.app import StudyConfig, create_study

    _study, links = create_study(store, "site study", StudyConfig(tasks=(TASKS[0],)), "admin")
    secrets += [link.code for link in links] + [hashlib.sha256(link.code.encode()).hexdigest() for link in links]
    # a study with one play: its code used, the play's run recorded (the run a study link made);
    # annotators see its agent (a blind study's play is published with its agent hidden: test_site_studies.py)
    played, played_links = create_study(store, "played study", StudyConfig(tasks=(TASKS[0],), blind=False), "admin")
    claimed = store.claim_study_code(played.id, played_links[0].code, "player-")
    assert claimed is not None and store.set_study_run(claimed.player, rules[1])
    secrets += [link.code for link in played_links] + [claimed.player]
    return SiteDb(path=db, rules_runs=rules, direct_runs=direct, xss_run=xss, imported_run=imported,
                  campaign="site-labels", secrets=secrets)
