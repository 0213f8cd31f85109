"""Fixtures for the app tests: the app as a subprocess (see ``app_harness``), one per test module
on a free port and ended by its process group at teardown, and Debian's Chromium driven by
Playwright (each test's browser contexts are closed after it, pass or fail).

Browser tests need ``/usr/bin/chromium``. Without it they are skipped with the reason — unless
the ``CI`` variable is set, where a missing browser is a failure (CI installs it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from app_harness import SCREENSHOTS, start_app, stop_app  # noqa: E402


@pytest.fixture(scope="module")
def app_server(tmp_path_factory):
    server = start_app(tmp_path_factory.mktemp("app"))
    yield server
    stop_app(server)


@pytest.fixture
def app_ctx(store, settings):
    """The app's context over the test's store (no server): what the tab handlers are given."""
    from vibesearch.app import Access
    from vibesearch.app.catalog import TaskCatalog
    from vibesearch.app.context import AppContext
    from vibesearch.app.live import RunManager

    context = AppContext(settings=settings, store=store, catalog=TaskCatalog.load(settings),
                         manager=RunManager(store, settings), access=Access(settings))
    yield context
    context.manager.shutdown()


# an official trajectory from the shared data beside the repository (../shared)
OFFICIAL_TRAJECTORY = HERE.parents[1].parent / "shared" / "data" / "official-trajectories" / "task_022_airline.condensed.json"


@pytest.fixture(scope="module")
def imported_run(app_server) -> str:
    """An official trajectory read into the module's app database by ``vibesearch import`` (the CLI)."""
    import json
    import subprocess

    if not OFFICIAL_TRAJECTORY.exists():
        pytest.skip(f"the shared official trajectories are not here ({OFFICIAL_TRAJECTORY})")
    out = subprocess.run(
        [sys.executable, "-m", "vibesearch.cli.main", "import", "--json", "--db", str(app_server.db), str(OFFICIAL_TRAJECTORY)],
        capture_output=True, text=True, timeout=120, check=True,
    )
    return json.loads(out.stdout)[0]["run_id"]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.stash[CALL_FAILED] = report.failed
    return report


CALL_FAILED = pytest.StashKey[bool]()


@pytest.fixture
def pages(request, browser, app_server):
    """``pages()`` opens the app in a new browser context (a separate person) and returns its page,
    ready; every context a test opens is closed after it. When the test failed, each page's
    screenshot and HTML (every tab of it) and the app's log are kept under
    artifacts/screenshots/failed/, and the log's last traceback is printed."""
    from browser_kit import open_app

    opened = []

    def open_page():
        ctx, page = open_app(browser, app_server.url)
        opened.append((ctx, page))
        return page

    yield open_page
    failed = request.node.stash.get(CALL_FAILED, False)
    keep = SCREENSHOTS / "failed"
    if failed:
        keep.mkdir(parents=True, exist_ok=True)
        # the app server's log since it started: the traceback of a handler that failed is there
        log = app_server.logs()
        (keep / f"{request.node.name}-app.log").write_text(log)
        if "Traceback" in log:  # shown with the failure (CI keeps only its output)
            print("the app's last traceback:\n" + log[log.rindex("Traceback"):][-4000:])
    for i, (ctx, _page) in enumerate(opened):
        if failed:
            for j, page in enumerate(ctx.pages):  # every tab the test opened in that context
                stem = f"{request.node.name}-{i}" + (f"-tab{j}" if j else "")
                try:
                    page.screenshot(path=str(keep / f"{stem}.png"), full_page=True)
                    (keep / f"{stem}.html").write_text(page.content())
                except Exception as exc:  # noqa: BLE001 - a page that died still gets its context closed
                    print(f"could not keep {stem}: {exc}")
        ctx.close()


@pytest.fixture(scope="module")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
