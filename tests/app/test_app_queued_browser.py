"""Queued batches in the app (issue 26), on a real PostgreSQL: a batch ``vibesearch run --queue``
planned shows in the Runs tab's queue table and in the Leaderboard's summary while it waits; once
a real ``vibesearch worker`` has driven it, the table says every run finished. Under the read
policy a person sees only the batches of their own owner. With ``VIBESEARCH_APP_QUEUE=1`` the
Play tab's Start queues the run for the workers: Play shows it waiting, then a worker's run with
its score; Stop before any worker took it cancels it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from app_harness import wait_until
from browser_kit import grid_row, open_app, shows, start, status_is, tab
from playwright.sync_api import expect

from vibesearch.config import BUNDLED_TASKS, Settings

TASKS = ["daily-en-japan-heritage-trip", "pro-en-analysis-history"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
    return subprocess.run([sys.executable, "-m", "vibesearch.cli.main", *args], capture_output=True, text=True, timeout=180, env=env)


@pytest.fixture(scope="module")
def queue_db(pg_cluster) -> str:
    url = pg_cluster.new_database()
    done = _cli("db", "upgrade", "--db", url)
    assert done.returncode == 0, done.stderr
    return url


@pytest.fixture(scope="module")
def queued_app(queue_db, tmp_path_factory):
    from app_harness import start_app, stop_app

    server = start_app(tmp_path_factory.mktemp("queued"), extra_env={"VIBESEARCH_DB": queue_db, "VIBESEARCH_APP_QUEUE": "1"})
    yield server
    stop_app(server)


@pytest.mark.browser
def test_a_queued_batch_shows_waiting_then_finished(browser, queue_db, queued_app):
    done = _cli("run", "--queue", "--tasks", *TASKS, "--runs", "2", "--db", queue_db, "--json")
    assert done.returncode == 0, done.stderr
    batch = json.loads(done.stdout)["batch_id"]
    ctx, page = open_app(browser, queued_app.url)
    worker = None
    try:
        tab(page, "Leaderboard")
        page.locator("#vs-lb-refresh").click()
        shows(page, "vs-lb-summary", "Queued batches still going")
        shows(page, "vs-lb-summary", batch)
        tab(page, "Runs")
        grid_row(page, "vs-runs-queued", batch, "4")  # four planned, nothing else yet
        worker = subprocess.Popen([sys.executable, "-m", "vibesearch.cli.main", "worker", "--db", queue_db, "--slots", "2", "--poll", "0.2"],
                                  env={k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        finished = page.locator("#vs-runs-queued [role=row]:visible").filter(has_text=batch)

        clicked = [0.0]

        def all_finished() -> bool:
            if time.monotonic() - clicked[0] > 1.0:  # ask again now and then, not on every look
                page.locator("#vs-runs-refresh").click()
                clicked[0] = time.monotonic()
            cells = finished.first.locator("[role=gridcell]").all_inner_texts() if finished.count() else []
            return [c.strip() for c in cells[2:7]] == ["0", "0", "4", "0", "0"]

        wait_until(all_finished, "the batch's four runs finished", timeout=120)
        page.screenshot(path="/tmp/queued_runs.png", full_page=True)
        scored = _cli("score", "--all", "--db", queue_db)  # the workers' runs, scored like any others
        assert scored.returncode == 0, scored.stderr
        tab(page, "Leaderboard")
        page.locator("#vs-lb-refresh").click()
        shows(page, "vs-lb-scores", "baseline")
        assert batch not in page.locator("#vs-lb-summary").inner_text()  # settled: no longer named as going
    finally:
        ctx.close()
        if worker is not None:
            worker.send_signal(signal.SIGTERM)
            try:
                worker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                worker.kill()


def _worker(queue_db: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "vibesearch.cli.main", "worker", "--db", queue_db, "--slots", "2", "--poll", "0.2"],
                            env={k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _stop(worker: subprocess.Popen | None) -> None:
    if worker is None:
        return
    worker.send_signal(signal.SIGTERM)
    try:
        worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        worker.kill()


@pytest.mark.browser
def test_start_queues_the_run_and_play_follows_the_workers_run(browser, queue_db, queued_app):
    from vibesearch.store import RunNotFound, Store

    ctx, page = open_app(browser, queued_app.url)
    worker = None
    try:
        rid = start(page)  # the default: the offline baseline with the rule-based user
        shows(page, "vs-play-status", "waiting for a worker")
        store = Store(queue_db)
        with pytest.raises(RunNotFound):
            store.get_run(rid)  # nobody drives it yet: the server did not
        worker = _worker(queue_db)
        status_is(page, "finished")
        shows(page, "vs-play-score", "offline judge")  # the app scored the worker's run
        expect(page.locator("#vs-start")).to_be_enabled()  # nothing left to wait for
        shows(page, "vs-play-chat", "[DONE]")
        run = store.get_run(rid)
        assert run.batch_id and run.meta()["batch"]["queued"] is True  # a one-run queued batch the worker drove
        assert run.meta().get("started_from") is None  # not driven by the app server
        page.screenshot(path="/tmp/queued_play.png", full_page=True)
    finally:
        ctx.close()
        _stop(worker)


@pytest.mark.browser
def test_stop_cancels_a_queued_run_no_worker_took(browser, queue_db, queued_app):
    from vibesearch.store import RunNotFound, Store

    ctx, page = open_app(browser, queued_app.url)
    try:
        rid = start(page)
        shows(page, "vs-play-status", "waiting for a worker")
        page.click("#vs-stop")
        shows(page, "vs-play-status", "cancelled before a worker took it")
        expect(page.locator("#vs-start")).to_be_enabled()
        with pytest.raises(RunNotFound):
            Store(queue_db).get_run(rid)
    finally:
        ctx.close()
    # its job was cancelled before it started: no worker will ever take it
    from sqlalchemy import text

    with Store(queue_db).engine.connect() as conn:
        states = [r[0] for r in conn.execute(text("SELECT status FROM procrastinate_jobs WHERE args->>'run_id' = :r"), {"r": rid})]
    assert states == ["cancelled"]


def test_a_person_sees_only_their_own_queued_batches(queue_db):
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from vibesearch.app import Access, Who
    from vibesearch.app.queued_view import queued_line, queued_rows
    from vibesearch.protocol import build_config
    from vibesearch.runner.batch import BatchSpec
    from vibesearch.runner.queued import queue_batch
    from vibesearch.store import Store
    from vibesearch.tasks import load_tasks

    task = [t for t in load_tasks([BUNDLED_TASKS]) if t.id == TASKS[0]][0]
    config = build_config(Settings(db=queue_db, tasks=""))
    mine = BatchSpec(tasks=[task], config=config, runs=1, owner="owner-a")
    theirs = BatchSpec(tasks=[task], config=config, runs=1, owner="owner-b")
    with ThreadPoolExecutor(1) as pool:  # a thread of its own: Playwright's loop may be running in this one
        for spec in (mine, theirs):
            pool.submit(asyncio.run, queue_batch(queue_db, spec, {})).result()

    class Ctx:  # what the view reads of the app's context
        store = Store(queue_db)
        access = Access(Settings(db=queue_db, tasks="", auth="a:pw-a,b:pw-b,root:pw-root", admins="root", read_runs="own"))

    seen = {row[0] for row in queued_rows(Ctx, Who(owner="owner-a", login="a"))}  # type: ignore[arg-type]
    assert mine.batch_id in seen and theirs.batch_id not in seen
    assert theirs.batch_id not in queued_line(Ctx, Who(owner="owner-a", login="a"))  # type: ignore[arg-type]
    admin = {row[0] for row in queued_rows(Ctx, Who(owner="owner-r", login="root", admin=True))}  # type: ignore[arg-type]
    assert {mine.batch_id, theirs.batch_id} <= admin
    assert queued_rows(Ctx, None) == []  # a page built the same for everyone shows none under the policy
