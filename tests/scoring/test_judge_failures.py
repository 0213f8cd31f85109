"""A judge that fails is never a score (issue 37): ``vibesearch score`` through the real CLI with a
judge endpoint that is down (a port nothing listens on) or a local OpenAI-compatible server on
127.0.0.1 that fails some batches (HTTP 500, or answers that never parse).

Our profile: exit 1, one ``error:`` line per failed run naming the run, the judge, the attempts
made and the cause (never a key); nothing stored for it; the runs before and after it scored and
stored. The official profile: the failed batch is graded not covered (the official rule), the
score is stored with the count, ``score`` warns, and reports and the leaderboard mark it."""

from __future__ import annotations

import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Callable

import pytest
from scoring_helpers import T, task_snapshot
from typer.testing import CliRunner

from vibesearch.app.leaderboard import SCORE_HEADERS, tables
from vibesearch.config import reset_settings
from vibesearch.run import EndEvent, GraphEvent, MessageEvent
from vibesearch.run.config import RunConfig
from vibesearch.run.scores import RunScore, Verdict
from vibesearch.judges.judge_failures import judge_gaps
from vibesearch.store import Store, record_score

JUDGE = "openai/judge-x"
SECRET = "sk-test-judge-SECRET-0123456789abcdef"
RETRIES = 2  # VIBESEARCH_LLM_RETRIES: a model error is 3 requests
OURS = re.compile(r"^\[(R|P)(\d+)\] (.*) \| (.*) \| (.*)$", re.M)
OFFICIAL = re.compile(r'^(GT|P)-(\d+): "(.*)" --\[(.*)\]--> "(.*)"$', re.M)


class JudgeServer:
    """An OpenAI-compatible judge on 127.0.0.1: covered when a predicted triple has the same text,
    answered in our layout's or the official layout's format. ``fail(prompt)`` decides a failure:
    "500" (an error body that quotes the key it was sent, as providers do) or "garbage" (text
    that is no JSON). Every request's prompt is kept."""

    def __init__(self, fail: Callable[[str], str | None]):
        self.prompts: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802 - http.server API
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")  # the batch's prompt, on retries too
                server.prompts.append(prompt)
                failure = fail(prompt)
                if failure == "500":
                    key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                    status, payload = 500, {"error": {"message": f"the judge crashed (key {key})"}}
                else:
                    content = "I would rather not say." if failure == "garbage" else answer(prompt)
                    status, payload = 200, {
                        "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    }
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def answer(prompt: str) -> str:
    """Exact text matches, in the format of the layout the prompt is in."""
    ours = OURS.findall(prompt)
    if ours:
        gts = {int(i): (h, r, t) for kind, i, h, r, t in ours if kind == "R"}
        preds = {(h, r, t): int(i) for kind, i, h, r, t in ours if kind == "P"}
        return json.dumps({"verdicts": [{"index": i, "covered": g in preds, "rule": 1 if g in preds else None,
                                         "evidence": [preds[g]] if g in preds else [], "rationale": "same text"} for i, g in gts.items()]})
    found = OFFICIAL.findall(prompt)
    preds = {(h, r, t): int(i) for kind, i, h, r, t in found if kind == "P"}
    return json.dumps({"results": [{"index": int(i), "covered": (h, r, t) in preds,
                                    "supporting_pred_indices": [preds[(h, r, t)]] if (h, r, t) in preds else []}
                                   for kind, i, h, r, t in found if kind == "GT"]})


@pytest.fixture
def judge_server():
    servers: list[JudgeServer] = []

    def start(fail: Callable[[str], str | None] = lambda prompt: None) -> JudgeServer:
        servers.append(JudgeServer(fail))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


@pytest.fixture
def cli(monkeypatch):
    """``cli(api_base, *args)``: the real ``vibesearch`` CLI with the judge sent to ``api_base``,
    short retries and a key in the environment (it must never show)."""
    from vibesearch.cli.main import app

    runner = CliRunner()

    def invoke(api_base: str, *args):
        for name, value in {"VIBESEARCH_API_BASE": api_base, "VIBESEARCH_LLM_RETRIES": str(RETRIES), "VIBESEARCH_LLM_BACKOFF_S": "0.005",
                            "VIBESEARCH_LLM_BACKOFF_MAX_S": "0.01", "OPENAI_API_KEY": SECRET}.items():
            monkeypatch.setenv(name, value)
        reset_settings()
        try:
            return runner.invoke(app, [str(a) for a in args])
        finally:
            reset_settings()

    return invoke


GT = [T("Star Alliance", "founded in", "1997"), T("SkyTeam", "founded in", "2000"), T("Oneworld", "founded in", "1999"),
      T("Star Alliance", "based in", "Frankfurt")]


def test_a_dead_judge_stores_nothing_and_says_one_line_per_run(cli, tmp_db, make_run):
    store = Store(tmp_db)
    first = make_run(store, GT, GT[:2])
    second = make_run(store, GT, GT[1:])
    port = closed_port()
    host = f"127.0.0.1:{port}"
    out = cli(f"http://{host}/v1", "score", first, second, "--judge", JUDGE, "--db", tmp_db)
    assert out.exit_code == 1, out.output
    errors = out.stderr.splitlines()
    assert len(errors) == 2, out.stderr  # exactly one line per run, nothing else
    for rid, line in zip((first, second), errors):
        # the attempts are the requests made: the first and RETRIES more
        assert line.startswith(f"error: run {rid}: judge {JUDGE} failed after {RETRIES + 1} attempts: "), line
        assert line.endswith(f"APIConnectionError: {JUDGE}: ClientConnectorError: Cannot connect to host {host} ssl:default "
                             f"[Connect call failed ('127.0.0.1', {port})]"), line
    assert SECRET not in out.output
    assert store.scores() == []  # nothing stored, not a zero


def test_a_partial_failure_is_refused_and_the_runs_around_it_stay_scored(cli, tmp_db, make_run, judge_server):
    store = Store(tmp_db)
    before = make_run(store, GT, GT[:2])
    broken = make_run(store, [*GT[:2], T("Broken Alliance", "founded in", "2001"), T("Broken", "based in", "Nowhere")], GT[:2])
    after = make_run(store, GT, GT)
    server = judge_server(lambda prompt: "500" if "[R2] Broken Alliance" in prompt else None)
    # two batches a run: the broken run's second batch fails, its first is answered
    out = cli(server.base_url, "score", before, broken, after, "--judge", JUDGE, "--batch-size", 2, "--json", "--db", tmp_db)
    assert out.exit_code == 1, out.output
    assert [r["run_id"] for r in json.loads(out.stdout)] == [before, after]
    assert out.stderr.splitlines() == [
        f"error: run {broken}: judge {JUDGE} failed after {RETRIES + 1} attempts on 1 of 2 batches: "
        f"InternalServerError: {JUDGE} answered 500: the judge crashed (key [redacted])"
    ], out.stderr
    assert SECRET not in out.output
    assert sum("[R2] Broken Alliance" in p for p in server.prompts) == RETRIES + 1
    assert [s.run_id for s in store.scores()] == [before, after]  # the broken run has no score, the others keep theirs
    assert store.scores(after)[0].recall == 1.0 and store.scores(before)[0].recall == 0.5


def test_an_answer_that_never_parses_is_refused_too(cli, tmp_db, make_run, judge_server):
    store = Store(tmp_db)
    rid = make_run(store, GT, GT[:1])
    server = judge_server(lambda prompt: "garbage")
    out = cli(server.base_url, "score", rid, "--judge", JUDGE, "--db", tmp_db)
    assert out.exit_code == 1, out.output
    [line] = out.stderr.splitlines()
    assert line.startswith(f"error: run {rid}: judge {JUDGE} failed after 3 attempts: its answer never parsed"), line
    assert len(server.prompts) == 3 and store.scores() == []


# ------------------------------------------------------------------------------ official profile
def official_run(store: Store, gt: list[dict[str, str]], pred: list[dict[str, str]], task_id: str = "t1") -> str:
    """A run of the official profile whose extraction answer is ``pred`` as a fenced JSON list."""
    text = "```json\n" + json.dumps(pred) + "\n```"
    run = store.create_run(task_id, task_json=task_snapshot(gt, task_id=task_id), run_config=RunConfig(task_id=task_id, protocol="official"),
                           agent="react", agent_model="fake/agent", user="rules", status="finished", termination="done")
    store.append(run.id, MessageEvent(role="user", content="q"))
    store.append(run.id, MessageEvent(role="user", content="list every triple", phase="extraction"))
    store.append(run.id, MessageEvent(role="assistant", content=text, phase="extraction", final=True))
    store.append(run.id, GraphEvent(triples=pred, raw_text=text))
    store.append(run.id, EndEvent(termination="done"))
    return run.id


def test_official_profile_grades_a_failed_batch_not_covered_warns_and_marks_it(cli, tmp_db, judge_server, tmp_path):
    store = Store(tmp_db)
    gt = GT + [T("Broken Alliance", "founded in", "2001")]  # five triples: five official batches of one
    hit = official_run(store, gt, gt)
    clean = official_run(store, GT, GT, task_id="t2")
    server = judge_server(lambda prompt: "500" if 'GT-4: "Broken Alliance"' in prompt else None)
    out = cli(server.base_url, "score", hit, clean, "--judge", JUDGE, "--json", "--db", tmp_db)
    assert out.exit_code == 0, out.output
    rows = {r["run_id"]: r for r in json.loads(out.stdout)}
    assert rows[hit]["recall"] == 0.8 and rows[hit]["judge_failed_batches"] == 1  # the official rule: not covered
    assert rows[clean]["recall"] == 1.0 and rows[clean]["judge_failed_batches"] == 0
    assert out.stderr.splitlines() == [
        f"warning: run {hit}: 1 of 5 judge batches failed (graded not covered, the official rule): "
        f"InternalServerError: {JUDGE} answered 500: the judge crashed (key [redacted])"
    ], out.stderr
    assert SECRET not in out.output
    judge = store.scores(hit)[0].details()["judge"]
    assert (judge["batches_failed"], judge["n_batches"]) == (1, 5)  # the count is stored with the score
    assert store.scores(clean)[0].details()["judge"]["batches_failed"] == 0

    report = json.loads(cli(server.base_url, "report", "--format", "json", "--judge", JUDGE, "--db", tmp_db).stdout)
    [row] = [r for r in report["scores"] if r["group"] == "all"]
    assert row["judge_failures"] == 1 and row["n_runs"] == 2
    assert {r["run_id"]: r["judge_failed_batches"] for r in report["runs"]} == {hit: 1, clean: 0}
    md = cli(server.base_url, "report", "--judge", JUDGE, "--db", tmp_db).stdout
    assert "judge failures" in md and "‡" in md
    csv_text = cli(server.base_url, "report", "--format", "csv", "--judge", JUDGE, "--db", tmp_db).stdout
    assert "judge_failures" in csv_text
    html = cli(server.base_url, "report", "--format", "html", "--judge", JUDGE, "--db", tmp_db).stdout
    assert "‡" in html and "judge batches failed" in html

    summary, score_rows, *_ = tables(SimpleNamespace(store=store), JUDGE)  # type: ignore[arg-type]  # (the Leaderboard tab)
    at = SCORE_HEADERS.index("Avg F1")
    assert [r[at] for r in score_rows if r[2] == "all"] == ["90.00‡"] and "Judge failures" in summary

    site = tmp_path / "site"  # the static site: the count in its own column, the footnote under the table, verified
    assert cli(server.base_url, "site", "build", site, "--judge", JUDGE, "--db", tmp_db).exit_code == 0
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "judge failures ‡" in index and 'id="judge-failures"' in index and 'data-check="scores[0].judge_failures"' in index
    assert cli(server.base_url, "site", "verify", site).exit_code == 0


def test_official_profile_with_the_judge_down_stores_the_zero_the_official_rule_gives_and_says_so(cli, tmp_db):
    store = Store(tmp_db)
    rid = official_run(store, GT, GT)
    port = closed_port()
    out = cli(f"http://127.0.0.1:{port}/v1", "score", rid, "--judge", JUDGE, "--db", tmp_db)
    assert out.exit_code == 0, out.output
    [line] = out.stderr.splitlines()
    assert line.startswith(f"warning: run {rid}: 4 of 4 judge batches failed (graded not covered, the official rule): "
                           f"APIConnectionError: {JUDGE}: ClientConnectorError: Cannot connect to host 127.0.0.1:{port}"), line
    [score] = store.scores(rid)
    assert (score.f1, score.details()["judge"]["batches_failed"]) == (0.0, 4)
    assert "0.00‡" in out.stdout


def test_an_older_score_of_ours_with_unscored_triples_is_marked(cli, tmp_db, make_run):
    """Stored before a failed judge was refused: counted as it was (recall over the scored
    triples) and marked wherever scores are aggregated."""
    store = Store(tmp_db)
    old = make_run(store, GT, GT[:2])
    fine = make_run(store, GT, GT, task_id="t2")
    batches = [{"gt": [0, 1], "attempts": 1}, {"gt": [2, 3], "attempts": 5, "unscored": "model error (APIConnectionError: refused)"}]
    verdicts = [Verdict(gt_index=i, covered=True, evidence=[i]) for i in range(2)] + [Verdict(gt_index=i, covered=None) for i in (2, 3)]
    record_score(store, RunScore(run_id=old, judge=JUDGE, protocol="vibesearch", precision=1.0, recall=1.0, f1=1.0, n_gt=4, n_pred=2,
                                 n_covered=2, n_valid=2, n_unscored=2, details={"batches": batches, "n_batches": 2}, verdicts=verdicts))
    record_score(store, RunScore(run_id=fine, judge=JUDGE, protocol="vibesearch", precision=1.0, recall=1.0, f1=1.0, n_gt=4, n_pred=4,
                                 n_covered=4, n_valid=4, details={"batches": batches[:1]}))
    gaps = judge_gaps(store.scores(old)[0])
    assert (gaps.failed, gaps.n_batches, gaps.unscored, gaps.marked) == (1, 2, 2, True)
    assert gaps.note() == "1 of 2 judge batches failed; 2 ground-truth triples unscored"
    assert not judge_gaps(store.scores(fine)[0]).marked
    report = json.loads(cli("http://127.0.0.1:9/v1", "report", "--format", "json", "--judge", JUDGE, "--db", tmp_db).stdout)
    assert {r["run_id"]: r["judge_failure"] for r in report["runs"]} == {old: True, fine: False}
    assert [r["judge_failures"] for r in report["scores"] if r["group"] == "all"] == [1]
    assert report["judge_failures_footnote"].startswith("‡ Judge failures")
