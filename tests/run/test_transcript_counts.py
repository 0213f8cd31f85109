"""One counting rule: the app, the site, the terminal and the statistics show the same counts of
every stored run, because they all read the transcript view (``run.transcript``).

The runs are diverse and made the real way: offline runs of the baseline agent against the rules
user made with ``vibesearch run`` (English and Chinese, a short one), a run of the react agent on
a scripted model whose small context window makes it compact, official trajectories imported
with ``vibesearch import`` (two complete ones and an excerpt, whose counts are its file's), and
every run of the database the previous release wrote (tests/data/prev_release.db)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vibesearch.agents.prompts import COMPACTION_PROMPT
from vibesearch.app.panels import compute_stats, live_stats, stats_html
from vibesearch.app.render import disclosure_turns, stage_pointer, stage_timeline_html
from vibesearch.cli import counts_line
from vibesearch.config import reset_settings
from vibesearch.llm import fake
from vibesearch.run import CompactionEvent, MessageEvent, StageEvent, ToolCallEvent, ToolResultEvent
from vibesearch.run.transcript import Transcript
from vibesearch.scoring import run_stats
from vibesearch.site import read_json_script
from vibesearch.site.collect import gather
from vibesearch.site.run_page import run_page
from vibesearch.store import Store

DATA = Path(__file__).resolve().parents[1] / "data"
SHARED_TRAJ = Path(__file__).resolve().parents[3] / "shared" / "data" / "official-trajectories"
TRAJECTORIES = ["task_022_airline.condensed.json", "task_007_allergy.condensed.json", "pro_049.excerpt.json"]


def _cli(*args: object) -> str:
    from vibesearch.cli.main import app

    out = CliRunner().invoke(app, [str(a) for a in args])
    assert out.exit_code == 0, out.output
    return out.stdout


def _compacting_model(req: fake.Request) -> fake.Reply:
    """A research step whose tool output overflows the 2,000-token window, then replies."""
    if req.system.startswith(COMPACTION_PROMPT[:40]):
        return fake.Reply(content="Summary: searched once, found the heritage sites.", input_tokens=900, output_tokens=20)
    steps = sum(1 for m in req.messages if m.get("role") == "assistant" and m.get("tool_calls"))
    if steps == 0 and "Summary:" not in str(req.messages):
        return fake.Reply(tool_calls=[("python", {"code": "print('Kyoto ' * 1500)"})], input_tokens=100, output_tokens=10)
    return fake.Reply(content="Here is what I found about the sites.", input_tokens=200, output_tokens=30)


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> tuple[Path, dict[str, dict]]:
    """A database of runs made with the real CLI, and each CLI run's printed summary by run id."""
    db = tmp_path_factory.mktemp("view") / "runs.db"
    printed: dict[str, dict] = {}
    for args in (["--tasks", "daily-en-japan-heritage-trip"], ["--tasks", "daily-zh-traditional-festivals"],
                 ["--tasks", "pro-en-analysis-history", "--max-user-turns", "2"]):
        for row in json.loads(_cli("run", *args, "--agent", "baseline", "--user", "rules", "--json", "--db", db)):
            printed[row["run_id"]] = row
    model = fake.register("view-compacting", _compacting_model)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VIBESEARCH_CONTEXT_WINDOW", "2000")
        mp.setenv("VIBESEARCH_COMPACTION_THRESHOLD", "0.5")
        reset_settings()  # the settings are read once per process: read them again with this window
        try:
            for row in json.loads(_cli("run", "--tasks", "daily-en-japan-heritage-trip", "--agent", "react", "--model", model,
                                       "--user", "rules", "--max-user-turns", "3", "--json", "--db", db)):
                printed[row["run_id"]] = row
        finally:
            mp.undo()
            reset_settings()
    if SHARED_TRAJ.exists():
        _cli("import", *(SHARED_TRAJ / n for n in TRAJECTORIES), "--json", "--db", db)
    return db, printed


def _app_numbers(html: str) -> dict[str, str]:
    return dict(re.findall(r"<tr><td>([^<]+)</td><td class='vs-num'>([^<]*)</td></tr>", html))


def _terminal_numbers(line: str) -> tuple[int, int, int]:
    m = re.match(r"#User (\d+) · #Asst (\d+) · tool calls (\d+)", line)
    assert m, line
    return int(m[1]), int(m[2]), int(m[3])


def _agree(store: Store, run_id: str, printed: dict | None = None) -> dict:
    """Every surface's counts of one run, checked equal; returns the statistics' for the caller."""
    run = store.get_run(run_id)
    imported = run.source == "imported"
    events = store.events(run_id)
    stats = run_stats(store, run_id)
    view = Transcript.of(events, imported=imported, file_meta=run.meta() if imported else None)

    # the counts straight from the events (a check on the rule itself, not only on agreement)
    data = [e.data for e in events]
    assert stats.n_asst == sum(isinstance(d, MessageEvent) and d.role == "assistant" and d.phase == "dialogue" for d in data)
    assert stats.n_user == sum(isinstance(d, MessageEvent) and d.role == "user" and d.phase == "dialogue" for d in data)
    assert stats.tool_calls == sum(isinstance(d, ToolCallEvent) for d in data)
    if not imported:
        assert stats.compactions == sum(isinstance(d, CompactionEvent) for d in data)
    # the view: its turns hold every step and every call once, each result with its call
    steps = [s for t in view.turns for s in t.steps]
    assert sum(s.message.phase == "dialogue" for s in steps) == stats.n_asst
    assert sum(len(s.calls) for s in steps) == stats.tool_calls
    results = {id(c.result) for s in steps for c in s.calls if c.result is not None}
    assert len(results) <= sum(isinstance(d, ToolResultEvent) for d in data)
    assert sum(t.user is not None and t.user.phase == "dialogue" for t in view.turns) == stats.n_user

    # the app: the statistics card of Runs and of a finished replay, and the live counters
    card = _app_numbers(stats_html(compute_stats(store, run_id)))
    assert card["Assistant steps (#Asst)"] == f"{stats.n_asst:,}"
    assert card["User turns (#User)"] == f"{stats.n_user:,}"
    assert card["Tool calls"].split(" (")[0] == f"{stats.tool_calls:,}"
    assert card["Compactions"] == ("unknown" if stats.compactions is None else f"{stats.compactions:,}")
    live = live_stats(run_id, events, stats.stages_total, imported=imported)
    assert (live.n_asst, live.n_user, live.tool_calls, live.tool_calls_by_tool) == (
        stats.n_asst, stats.n_user, stats.tool_calls, stats.tool_calls_by_tool)
    assert stage_pointer(events) == view.stage_index and disclosure_turns(events) == view.disclosures()
    decisions = [d for d in data if isinstance(d, StageEvent)]
    assert stage_timeline_html(None, events).count("<tr") == (len(decisions) + 1 if decisions else 0)

    # the site: the run page's counts (embedded JSON and table), built from the site's own read of the store
    site = gather(store, runs=[run_id])
    page = run_page(site.runs[run_id])
    shown = read_json_script(page, "run-counts")
    official = stats.official.model_dump()
    assert shown == {
        "n_asst": stats.n_asst, "n_user": stats.n_user, "tool_calls": stats.tool_calls,
        "tool_calls_by_tool": stats.tool_calls_by_tool, "input_tokens": stats.input_tokens,
        "output_tokens": stats.output_tokens, "cost_usd": stats.cost_usd, "compactions": stats.compactions,
        "stages_reached": stats.stages_reached, "termination": shown["termination"], "official": official,
    }
    assert f'<td data-count="n_asst">{stats.n_asst}</td>' in page and f'<td data-count="n_user">{stats.n_user}</td>' in page
    for rec in site.runs[run_id].records:  # the leaderboard's and tables' statistics of the run
        assert (rec.stats.n_asst, rec.stats.n_user, rec.stats.tool_calls, rec.stats.official.model_dump()) == (
            stats.n_asst, stats.n_user, stats.tool_calls, official)

    # the terminal: the summary `play` and `agent ask` print, and what `vibesearch run` printed
    assert _terminal_numbers(counts_line(events, imported=imported)) == (stats.n_user, stats.n_asst, stats.tool_calls)
    if printed is not None:
        assert (printed["user_turns"], printed["assistant_steps"], printed["tool_calls"]) == (stats.n_user, stats.n_asst, stats.tool_calls)
        assert printed["stages_reached"] == stats.stages_reached
    return {"stats": stats, "source": run.source, "meta": run.meta()}


def test_every_surface_counts_each_made_run_the_same(made):
    db, printed = made
    store = Store(db)
    seen = [_agree(store, run.id, printed.get(run.id)) for run in store.list_runs()]
    assert len(printed) == 4 and all(run_id in {r["stats"].run_id for r in seen} for run_id in printed)
    compacted = [r for r in seen if r["source"] == "live" and r["stats"].compactions]
    assert compacted and compacted[0]["stats"].tool_calls_by_tool == {"python": 1}
    assert compacted[0]["stats"].tokens_by_purpose["compaction"]["calls"] == 1
    assert all(r["stats"].n_asst > 0 and r["stats"].n_user > 0 for r in seen)
    imported = [r for r in seen if r["source"] == "imported"]
    if SHARED_TRAJ.exists():
        assert len(imported) == 3
        # the file's own counts are what every surface shows, the excerpt's differing from its events
        for r in imported:
            assert r["stats"].official.model_dump() == r["meta"]["stats"] and r["stats"].compactions is None
        assert any(r["stats"].official.tool_calls != r["stats"].tool_calls for r in imported)


def test_every_surface_counts_the_previous_releases_runs_the_same(tmp_path):
    db = tmp_path / "prev.db"
    shutil.copy(DATA / "prev_release.db", db)
    store = Store(db)
    runs = store.list_runs()
    assert runs
    seen = [_agree(store, run.id) for run in runs]
    assert any(r["stats"].tool_calls for r in seen)
